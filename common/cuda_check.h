/**
 * @file cuda_check.h
 * @brief Checking every CUDA call: file, line and CUDA's own message.
 *
 * Two flavours, because the kit has two kinds of callers:
 * - `CUDA_CHECK(call)` is for programs (drivers, tests' setup): on error it prints
 *   `oddeven.cu:42: call failed: message` (the file and line of the call) and exits with
 *   ::KIT_EXIT_CUDA.
 * - `CUDA_TRY(call)` is for the labs' API functions, which return a `cudaError_t`: on error
 *   it prints the same line and returns the error to the caller, so a test can report it
 *   and a driver can decide what to do.
 *
 * A kernel launch reports nothing by itself: follow every launch with
 * `CUDA_TRY(cudaGetLastError())`.
 */
#ifndef KIT_CUDA_CHECK_H
#define KIT_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Prints where and what failed, e.g. `oddeven.cu:42: cudaMalloc(...): cudaErrorMemoryAllocation:
 * out of memory`, on stderr. */
void kit_report_cuda_error(cudaError_t err, const char *what, const char *file, int line);

#ifdef __cplusplus
}
#endif

/** Runs @p call; on error prints where and why, then exits with ::KIT_EXIT_CUDA. */
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t kit_err_ = (call);                                                             \
        if (kit_err_ != cudaSuccess) {                                                             \
            kit_report_cuda_error(kit_err_, #call, __FILE__, __LINE__);                            \
            exit(KIT_EXIT_CUDA);                                                                   \
        }                                                                                          \
    } while (0)

/** Runs @p call; on error prints where and why, then returns the error from the caller. */
#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t kit_err_ = (call);                                                             \
        if (kit_err_ != cudaSuccess) {                                                             \
            kit_report_cuda_error(kit_err_, #call, __FILE__, __LINE__);                            \
            return kit_err_;                                                                       \
        }                                                                                          \
    } while (0)

/**
 * A skeleton's stub for a TODO not written yet: marks the function's parameters as used (so
 * the compiler does not warn) and returns `cudaErrorNotSupported`, which the tests and the
 * drivers report as "not written yet". `KIT_TODO_STUB(d_keys, n);` is the function's whole
 * body; delete the line when you write the TODO.
 */
#define KIT_TODO_STUB(...) return kit_todo_stub(0, __VA_ARGS__)

/** What KIT_TODO_STUB returns: `cudaErrorNotSupported`, its arguments only named. */
static inline cudaError_t kit_todo_stub(int nothing, ...)
{
    (void)nothing;
    return cudaErrorNotSupported;
}

#endif
