/* Host and GPU timers; see timer.h. */
#define _POSIX_C_SOURCE 200809L
#include "timer.h"

#include <stdlib.h>
#include <time.h>

double kit_host_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

cudaError_t kit_gpu_timer_create(kit_gpu_timer *t)
{
    cudaError_t err = cudaEventCreate(&t->start);
    if (err == cudaSuccess) {
        err = cudaEventCreate(&t->stop);
    }
    return err;
}

cudaError_t kit_gpu_timer_start(kit_gpu_timer *t)
{
    return cudaEventRecord(t->start, 0);
}

cudaError_t kit_gpu_timer_stop(kit_gpu_timer *t, float *ms)
{
    cudaError_t err = cudaEventRecord(t->stop, 0);
    if (err == cudaSuccess) {
        err = cudaEventSynchronize(t->stop);
    }
    if (err == cudaSuccess) {
        err = cudaEventElapsedTime(ms, t->start, t->stop);
    }
    return err;
}

void kit_gpu_timer_destroy(kit_gpu_timer *t)
{
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kit_median(double *values, size_t count)
{
    if (count == 0) {
        return 0.0;
    }
    /* Sorting a handful of timings: the C library's sort is fine here (not in a lab). */
    qsort(values, count, sizeof values[0], compare_doubles);
    if (count % 2 == 1) {
        return values[count / 2];
    }
    return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}
