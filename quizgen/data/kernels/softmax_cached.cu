// Row softmax that reads its row once: one block per row copies the row into dynamic shared
// memory (cols × 4 B, chosen at launch), then finds the maximum and the sum with warp shuffles
// and writes exp(x - max) / sum from the cached copy.
__device__ float block_reduce(float v, bool is_max, float* scratch) {
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < blockDim.x / 32; ++w) v = is_max ? fmaxf(v, scratch[w]) : v + scratch[w];
    __syncthreads();
    return v;
}

__global__ void softmax_cached(const float* x, float* y, int cols) {
    extern __shared__ float row[];
    __shared__ float scratch[32];
    const float* src = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { row[c] = src[c]; m = fmaxf(m, row[c]); }
    m = block_reduce(m, true, scratch);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { row[c] = __expf(row[c] - m); sum += row[c]; }
    sum = block_reduce(sum, false, scratch);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = row[c] / sum;
}
