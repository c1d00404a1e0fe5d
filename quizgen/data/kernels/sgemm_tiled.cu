// Tiled SGEMM: each block computes a TILE x TILE tile of C = A * B (n x n, row-major),
// staging one tile of A and one of B in shared memory per step of k.
template <int TILE>
__global__ void sgemm_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k = 0; k < n; k += TILE) {
        As[ty][tx] = A[row * n + k + tx];
        Bs[ty][tx] = B[(k + ty) * n + col];
        __syncthreads();
        for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
template __global__ void sgemm_tiled<8>(const float*, const float*, float*, int);
template __global__ void sgemm_tiled<16>(const float*, const float*, float*, int);
template __global__ void sgemm_tiled<32>(const float*, const float*, float*, int);
