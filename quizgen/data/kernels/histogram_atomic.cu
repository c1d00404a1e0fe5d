// 256-bin histogram of bytes: each block counts into a private shared-memory histogram
// with shared atomics, then adds it to the global one with one atomic per bin.
#define BINS 256
__global__ void histogram_atomic(const unsigned char* data, unsigned* hist, int n) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}
