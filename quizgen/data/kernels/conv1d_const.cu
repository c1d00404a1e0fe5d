// 1D convolution with a 33-tap filter in constant memory (ptxas reports it once per file, as
// "132 bytes cmem[3]"):
// each block stages its slice plus a 16-element halo on each side in dynamic shared memory
// ((blockDim.x + 32) floats), then each thread sums 33 products.
#define RADIUS 16
__constant__ float taps[2 * RADIUS + 1];
__global__ void conv1d_const(const float* in, float* out, int n) {
    extern __shared__ float tile[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    for (int j = t; j < blockDim.x + 2 * RADIUS; j += blockDim.x) {
        int g = blockIdx.x * blockDim.x + j - RADIUS;
        tile[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * RADIUS; ++k) acc += taps[k] * tile[t + k];
    out[i] = acc;
}
