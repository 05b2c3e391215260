/* kit_time_sort (driver.h): in a file of its own, not driver.c, because the grader's timed
 * driver links a lab's NAME_main.o with its own kit_driver_main() in place of driver.c's, and
 * a lab's driver (Lab 05's --bench) times its sorts through this too. */
#include <stdlib.h>

#include "cuda_check.h"
#include "driver.h"
#include "timer.h"

cudaError_t kit_time_sort(cudaError_t (*sort)(unsigned int *d_keys, size_t n),
                          const unsigned int *d_input, unsigned int *d_work, size_t n, int reps,
                          double *ms)
{
    *ms = -1.0;
    double *times = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *times);
    if (!times) {
        return cudaErrorMemoryAllocation;
    }
    kit_gpu_timer timer;
    cudaError_t err = kit_gpu_timer_create(&timer);
    if (err != cudaSuccess) {
        free(times);
        return err;
    }
    for (int r = -1; r < reps && err == cudaSuccess; r++) { /* r = -1: the warm-up */
        float t = 0;
        err = cudaMemcpy(d_work, d_input, n * sizeof *d_work, cudaMemcpyDeviceToDevice);
        if (err == cudaSuccess) {
            err = kit_gpu_timer_start(&timer);
        }
        if (err == cudaSuccess) {
            err = sort(d_work, n);
        }
        if (err == cudaSuccess) {
            err = kit_gpu_timer_stop(&timer, &t);
        }
        if (r >= 0) {
            times[r] = t;
        }
    }
    if (err == cudaSuccess) {
        *ms = kit_median(times, (size_t)reps);
    }
    free(times);
    kit_gpu_timer_destroy(&timer);
    return err;
}
