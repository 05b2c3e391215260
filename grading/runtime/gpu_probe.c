/*
 * gpu_probe: says whether a usable NVIDIA GPU is here.
 * Prints one line; exits 0 when a GPU is ready, 3 (KIT_EXIT_NO_GPU) when not. Scripts of
 * the kit (make grade, make check) call it before anything that needs a GPU.
 *
 * `gpu_probe --facts` prints, before that line, one line of facts for the grader, which hands
 * them to the verdict process of each test (grading/runtime/remote_client.c) so that no test
 * believes the student's process about the GPU:
 *   facts: ready FREE_BYTES TOTAL_BYTES MAJOR MINOR SMS NAME      or   facts: none REASON
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "gpu.h"

int main(int argc, char **argv)
{
    int facts = argc > 1 && strcmp(argv[1], "--facts") == 0;
    char reason[256];
    kit_gpu_status status = kit_gpu_probe(reason, sizeof reason);
    if (status == KIT_GPU_READY) {
        struct cudaDeviceProp prop;
        size_t free_bytes = 0, total_bytes = 0;
        if (facts && cudaGetDeviceProperties(&prop, 0) == cudaSuccess &&
            cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
            printf("facts: ready %zu %zu %d %d %d %s\n", free_bytes, total_bytes, prop.major,
                   prop.minor, prop.multiProcessorCount, prop.name);
        }
        printf("GPU: %s\n", reason);
        return KIT_EXIT_OK;
    }
    if (facts) {
        printf("facts: none %s\n", reason);
    }
    printf("no usable GPU: %s\n", reason);
    return KIT_EXIT_NO_GPU;
}
