// Block-wide sum: each block loads 2 * blockDim.x floats, adds pairs, then halves the
// active threads in shared memory; the last 32 lanes finish with warp shuffles.
__global__ void reduce_sum(const float* in, float* out, int n) {
    extern __shared__ float partial[];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
    float v = (i < n ? in[i] : 0.0f) + (i + blockDim.x < n ? in[i + blockDim.x] : 0.0f);
    partial[t] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s) partial[t] = v = v + partial[t + s];
        __syncthreads();
    }
    if (t < 32) {
        if (blockDim.x >= 64) v += partial[t + 32];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (t == 0) atomicAdd(out, v);
    }
}
