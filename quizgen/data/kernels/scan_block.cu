// Inclusive prefix sum of each block's slice (Hillis-Steele): two buffers of blockDim.x floats
// in dynamic shared memory (8 B per thread), swapped at each of the log2(blockDim.x) steps.
__global__ void scan_block(const float* in, float* out, int n) {
    extern __shared__ float buf[];
    float* src = buf;
    float* dst = buf + blockDim.x;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    src[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        dst[t] = t >= off ? src[t] + src[t - off] : src[t];
        __syncthreads();
        float* tmp = src; src = dst; dst = tmp;
    }
    if (i < n) out[i] = src[t];
}
