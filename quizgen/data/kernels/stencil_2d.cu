// 5-point Jacobi stencil on an nx x ny grid: a 32 x 8 block stages its tile plus a
// one-cell halo in shared memory, then each thread averages its four neighbours.
#define BX 32
#define BY 8
__global__ void stencil_2d(const float* in, float* out, int nx, int ny) {
    __shared__ float tile[BY + 2][BX + 2];
    int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    auto at = [&](int i, int j) {
        i = min(max(i, 0), nx - 1); j = min(max(j, 0), ny - 1);
        return in[j * nx + i];
    };
    tile[ly][lx] = at(x, y);
    if (threadIdx.x == 0) tile[ly][0] = at(x - 1, y);
    if (threadIdx.x == BX - 1) tile[ly][BX + 1] = at(x + 1, y);
    if (threadIdx.y == 0) tile[0][lx] = at(x, y - 1);
    if (threadIdx.y == BY - 1) tile[BY + 1][lx] = at(x, y + 1);
    __syncthreads();
    if (x < nx && y < ny)
        out[y * nx + x] = 0.25f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx]);
}
