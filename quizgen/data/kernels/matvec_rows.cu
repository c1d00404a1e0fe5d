// y = A x for a row-major m x n matrix: one warp per row, each lane strides across the row,
// then the warp adds its 32 partial sums with shuffles. Any multiple of 32 threads per block.
__global__ void matvec_rows(const float* A, const float* x, float* y, int m, int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= m) return;
    const float* row = A + (size_t)warp * n;
    float sum = 0.0f;
    for (int c = lane; c < n; c += 32) sum += row[c] * x[c];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[warp] = sum;
}
