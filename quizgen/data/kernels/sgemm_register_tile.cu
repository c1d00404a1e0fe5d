// Register-tiled SGEMM: a 16 x 16 block computes a 64 x 64 tile of C, each thread a 4 x 4
// micro-tile held in 16 registers; 64 x 16 slices of A and B are staged in shared memory.
#define BM 64
#define BK 16
__global__ void __launch_bounds__(256) sgemm_register_tile(const float* A, const float* B, float* C, int n) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BM];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BM;
    float c[4][4] = {};
    for (int k0 = 0; k0 < n; k0 += BK) {
        for (int e = tid; e < BK * BM; e += 256) {
            int kk = e / BM, mm = e % BM;
            As[kk][mm] = A[(row0 + mm) * n + k0 + kk];
            Bs[kk][mm] = B[(k0 + kk) * n + col0 + mm];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) { a[i] = As[kk][ty * 4 + i]; b[i] = Bs[kk][tx * 4 + i]; }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) c[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) C[(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = c[i][j];
}
