/**
 * @file gpu_harness.h
 * @brief What the GPU suites share: run a lab's function on a device copy of generated
 * data, and check the result against a host snapshot the function never sees.
 *
 * Every failure message names the function, the input (distribution, n, seed) and what the
 * verifier found (first bad index, expected vs. got), so a student can reproduce it with the
 * lab's driver: `build/student/bin/NAME -n N --dist DIST --seed SEED --check`.
 */
#ifndef KIT_GPU_HARNESS_H
#define KIT_GPU_HARNESS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "datagen.h"

/** A lab function that sorts @p n keys in place on the device. */
typedef cudaError_t (*kit_sort_u32_fn)(unsigned int *d_keys, size_t n);

/** The sizes every lab is tested on (0 to 3, warp and block edges, powers of two and not),
 * up to a maximum; see kit_sizes_up_to(). */
extern const size_t kit_test_sizes[];
/** Number of entries of ::kit_test_sizes. */
extern const size_t kit_test_size_count;

/**
 * Generates (dist, n, seed), sorts a device copy with @p sort, checks the result.
 * Returns 1 when it passed; on failure records a KIT_FAIL with the whole story and returns 0.
 */
int kit_check_sort_u32(kit_sort_u32_fn sort, const char *name, size_t n, kit_dist dist,
                       uint64_t seed);

/**
 * kit_check_sort_u32() over every size of ::kit_test_sizes in [min_n, max_n] and every
 * distribution; stops at the first failure (one clear message rather than hundreds).
 */
int kit_check_sort_sweep(kit_sort_u32_fn sort, const char *name, size_t min_n, size_t max_n,
                         uint64_t seed);

/**
 * A few chosen inputs rather than a sweep: sizes @p sizes (@p size_count of them) in the
 * uniform, reversed and few-unique distributions. Small enough to run under
 * compute-sanitizer, whose racecheck slows a kernel down a thousandfold.
 */
int kit_check_sort_quick(kit_sort_u32_fn sort, const char *name, const size_t *sizes,
                         size_t size_count, uint64_t seed);

/** Copies @p n keys to a new device buffer; NULL (and a KIT_FAIL) on error. */
unsigned int *kit_device_copy(const unsigned int *keys, size_t n);

/** Copies back and frees a device buffer; returns 0 on a CUDA error (and a KIT_FAIL). */
int kit_device_fetch_free(unsigned int *d_keys, unsigned int *keys, size_t n);

/**
 * Reports a lab function's error as a test failure. `cudaErrorNotSupported` is worded as
 * "not written yet" (the skeleton's answer); anything else names the CUDA error.
 */
void kit_fail_cuda(const char *name, cudaError_t err, size_t n, kit_dist dist, uint64_t seed);

#endif
