// A line-oriented driver of NVIDIA's cuda_occupancy.h, used by tests/test_occupancy_header.py.
//
// Each input line holds 20 whole numbers, separated by spaces:
//   device: computeMajor computeMinor maxThreadsPerBlock maxThreadsPerMultiprocessor
//           regsPerBlock regsPerMultiprocessor warpSize sharedMemPerBlock
//           sharedMemPerMultiprocessor numSms sharedMemPerBlockOptin reservedSharedMemPerBlock
//   kernel: numRegs sharedSizeBytes shmemLimitConfig(0 default, 1 opt-in)
//           maxDynamicSharedSizeBytes numBlockBarriers
//   state:  carveoutConfig
//   launch: blockSize dynamicSmemSize
// Each output line holds 10 whole numbers:
//   status activeBlocksPerMultiprocessor limitingFactors blockLimitRegs blockLimitSharedMem
//   blockLimitWarps blockLimitBlocks blockLimitBarriers allocatedRegistersPerBlock
//   allocatedSharedMemPerBlock
// A non-zero status is the header's cudaOccError; the other fields are then meaningless (zeros).
// The header is plain host C++ when __CUDACC__ is not defined (its inline macro falls back to
// `inline`), so g++ compiles it without the CUDA toolkit's compiler.

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_occupancy.h>

int main() {
    char line[1024];
    while (std::fgets(line, sizeof line, stdin)) {
        long long v[20];
        int n = 0;
        char *p = line;
        while (n < 20) {
            char *end = nullptr;
            long long x = std::strtoll(p, &end, 10);
            if (end == p) break;
            v[n++] = x;
            p = end;
        }
        if (n == 0) continue;
        if (n != 20) {
            std::printf("bad-input %d\n", n);
            std::fflush(stdout);
            continue;
        }

        cudaOccDeviceProp prop;
        prop.computeMajor = (int)v[0];
        prop.computeMinor = (int)v[1];
        prop.maxThreadsPerBlock = (int)v[2];
        prop.maxThreadsPerMultiprocessor = (int)v[3];
        prop.regsPerBlock = (int)v[4];
        prop.regsPerMultiprocessor = (int)v[5];
        prop.warpSize = (int)v[6];
        prop.sharedMemPerBlock = (size_t)v[7];
        prop.sharedMemPerMultiprocessor = (size_t)v[8];
        prop.numSms = (int)v[9];
        prop.sharedMemPerBlockOptin = (size_t)v[10];
        prop.reservedSharedMemPerBlock = (size_t)v[11];

        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = (int)v[12];
        attr.sharedSizeBytes = (size_t)v[13];
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = v[14] ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
        attr.maxDynamicSharedSizeBytes = (size_t)v[15];
        attr.numBlockBarriers = (int)v[16];
        attr.virtualResourceCount = 0;

        cudaOccDeviceState state;
        state.carveoutConfig = (int)v[17];

        cudaOccResult result;
        std::memset(&result, 0, sizeof result);
        cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
            &result, &prop, &attr, &state, (int)v[18], (size_t)v[19]);
        if (status != CUDA_OCC_SUCCESS) {
            std::memset(&result, 0, sizeof result);
        }
        std::printf("%d %d %u %d %d %d %d %d %d %llu\n", (int)status,
                    result.activeBlocksPerMultiprocessor, result.limitingFactors,
                    result.blockLimitRegs, result.blockLimitSharedMem, result.blockLimitWarps,
                    result.blockLimitBlocks, result.blockLimitBarriers,
                    result.allocatedRegistersPerBlock,
                    (unsigned long long)result.allocatedSharedMemPerBlock);
    }
    return 0;
}
