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

/** @cond KIT_INTERNAL */
#define KIT_UNUSED_1_(a) (void)(a)
#define KIT_UNUSED_2_(a, ...) (void)(a), KIT_UNUSED_1_(__VA_ARGS__)
#define KIT_UNUSED_3_(a, ...) (void)(a), KIT_UNUSED_2_(__VA_ARGS__)
#define KIT_UNUSED_4_(a, ...) (void)(a), KIT_UNUSED_3_(__VA_ARGS__)
#define KIT_UNUSED_5_(a, ...) (void)(a), KIT_UNUSED_4_(__VA_ARGS__)
#define KIT_UNUSED_6_(a, ...) (void)(a), KIT_UNUSED_5_(__VA_ARGS__)
#define KIT_UNUSED_7_(a, ...) (void)(a), KIT_UNUSED_6_(__VA_ARGS__)
#define KIT_UNUSED_8_(a, ...) (void)(a), KIT_UNUSED_7_(__VA_ARGS__)
#define KIT_UNUSED_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, name, ...) name
/** @endcond */

/**
 * Marks 1 to 8 parameters as used, in host and device code alike: the stub of a skeleton's
 * device function that returns something other than a `cudaError_t` (then `return 0;`).
 */
#define KIT_UNUSED(...)                                                                            \
    ((void)(KIT_UNUSED_PICK_(__VA_ARGS__, KIT_UNUSED_8_, KIT_UNUSED_7_, KIT_UNUSED_6_,             \
                             KIT_UNUSED_5_, KIT_UNUSED_4_, KIT_UNUSED_3_, KIT_UNUSED_2_,           \
                             KIT_UNUSED_1_, )(__VA_ARGS__)))

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
