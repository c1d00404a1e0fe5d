// Register-heavy: each thread keeps a 64-element accumulator and updates it against every
// input. __launch_bounds__(256, MIN_BLOCKS) asks for MIN_BLOCKS resident blocks of 256
// threads, which caps the registers per thread; under a tight cap the compiler spills the
// accumulator to local memory (the "spill stores" and "spill loads" that ptxas reports).
#define ACC 64
template <int MIN_BLOCKS>
__global__ void __launch_bounds__(256, MIN_BLOCKS) nbody_unrolled(const float4* p, float* out, int n) {
    float acc[ACC];
#pragma unroll
    for (int k = 0; k < ACC; ++k) acc[k] = 0.0f;
    float4 me = p[blockIdx.x * blockDim.x + threadIdx.x];
    for (int j = 0; j < n; ++j) {
        float4 q = p[j];
        float dx = q.x - me.x, dy = q.y - me.y, dz = q.z - me.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-6f);
#pragma unroll
        for (int k = 0; k < ACC; ++k) acc[k] += q.w * inv * (k & 1 ? dx : dy) + acc[(k + j) & (ACC - 1)] * 1e-3f;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < ACC; ++k) s += acc[k] * (k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template __global__ void nbody_unrolled<1>(const float4*, float*, int);
template __global__ void nbody_unrolled<2>(const float4*, float*, int);
template __global__ void nbody_unrolled<4>(const float4*, float*, int);
