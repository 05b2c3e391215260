/* kit_driver_reserve (driver.h): in a file of its own, not driver.c, because the grader's timed
 * driver links a lab's NAME_main.o with its own kit_driver_main() in place of driver.c's,
 * and the lab's sorts still reserve their scratch buffers through this. */
#include "cuda_check.h"
#include "driver.h"

cudaError_t kit_driver_reserve(kit_driver_scratch *scratch, size_t n)
{
    if (n > scratch->capacity) {
        CUDA_TRY(cudaFree(scratch->keys));
        scratch->keys = NULL;
        scratch->capacity = 0;
        CUDA_TRY(cudaMalloc((void **)&scratch->keys, n * sizeof *scratch->keys));
        CUDA_TRY(cudaMemset(scratch->keys, 0, n * sizeof *scratch->keys));
        scratch->capacity = n;
    }
    return cudaSuccess;
}
