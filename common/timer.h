/**
 * @file timer.h
 * @brief Timers: a host monotonic clock, GPU events, and the median of repetitions.
 *
 * GPU work is timed with events recorded on the stream around it, so the time is the
 * GPU's, not the launch's (an asynchronous launch returns long before the sort ends; the
 * quicksort article of docs/sources.md, 003, measured exactly that mistake). Transfers are
 * timed apart.
 */
#ifndef KIT_TIMER_H
#define KIT_TIMER_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Milliseconds on the host's monotonic clock (for CPU work and whole commands). */
double kit_host_ms(void);

/** A pair of CUDA events around some GPU work on the default stream. */
typedef struct {
    cudaEvent_t start; /**< recorded by ::kit_gpu_timer_start */
    cudaEvent_t stop;  /**< recorded by ::kit_gpu_timer_stop */
} kit_gpu_timer;

/** Creates the two events. */
cudaError_t kit_gpu_timer_create(kit_gpu_timer *t);
/** Records the start event on the default stream. */
cudaError_t kit_gpu_timer_start(kit_gpu_timer *t);
/** Records the stop event, waits for it, and stores the elapsed milliseconds in @p ms. */
cudaError_t kit_gpu_timer_stop(kit_gpu_timer *t, float *ms);
/** Destroys the two events. */
void kit_gpu_timer_destroy(kit_gpu_timer *t);

/** Median of @p count values (the array is reordered); 0 when @p count is 0. */
double kit_median(double *values, size_t count);

#ifdef __cplusplus
}
#endif

#endif
