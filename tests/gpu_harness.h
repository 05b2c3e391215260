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

/** Loops `kit_dist d` over every input distribution of datagen.h. */
#define FOR_EACH_DIST(d) for (kit_dist d = (kit_dist)0; d < KIT_DIST_COUNT; d = (kit_dist)(d + 1))

/** How many distributions a test at the largest sizes uses: see kit_large_dist(). */
#define KIT_LARGE_DIST_COUNT 3

/**
 * Distribution @p k (0 to ::KIT_LARGE_DIST_COUNT - 1) of set @p set (0 to 3) for a test at
 * the largest sizes (2^22, 2^24 keys): uniform and two others, the four sets together
 * reaching every distribution. A large input strains sizes, grids and counters, which every
 * distribution strains alike, and every distribution is tested at every smaller size: nine
 * of them at 2^24 made a lab's large tests a third of its grading time for nothing three do
 * not catch. A lab's large tests take different sets.
 */
kit_dist kit_large_dist(unsigned set, unsigned k);

/** Loops `int d` over both directions: 0 ascending, 1 descending. */
#define BOTH_DIRECTIONS(d) for (int d = 0; d < 2; d++)

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
 * One check of a sweep (see kit_check_sweep()): generates the input (@p n, @p dist, @p seed),
 * runs the code under test on it and checks the result; @p ctx is what the caller of the sweep
 * passed (which function, keys only or with values...). Returns 1 when it passed; on failure
 * records a KIT_FAIL with the whole story and returns 0.
 */
typedef int (*kit_sweep_check_fn)(size_t n, kit_dist dist, uint64_t seed, const void *ctx);

/**
 * The sweep every lab's sort is tested with: @p check on every size of ::kit_test_sizes in
 * [min_n, max_n], then on each of the @p extra_count sizes of @p extra (NULL when none; taken
 * whatever their size), each size in every distribution, with seed + n as the seed. Stops at
 * the first failure (one clear message rather than hundreds) and returns 0 then, else 1.
 */
int kit_check_sweep(kit_sweep_check_fn check, const void *ctx, size_t min_n, size_t max_n,
                    const size_t *extra, size_t extra_count, uint64_t seed);

/**
 * kit_check_sort_u32() over every size of ::kit_test_sizes in [min_n, max_n] and every
 * distribution (kit_check_sweep()); stops at the first failure.
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
 * Waits for the GPU, then copies @p n keys (or values) of a device buffer to @p keys, leaving
 * the buffer allocated; returns 0 on a CUDA error (and a KIT_FAIL naming @p what).
 */
int kit_device_fetch(const char *what, const unsigned int *d_keys, unsigned int *keys, size_t n);

/**
 * Reports a lab function's error as a test failure. `cudaErrorNotSupported` is worded as
 * "not written yet" (the skeleton's answer); anything else names the CUDA error.
 */
void kit_fail_cuda(const char *name, cudaError_t err, size_t n, kit_dist dist, uint64_t seed);

/* ---- key/value pairs: inputs whose values are positions, checked segment by segment ---- */

/**
 * Host memory for one key/value test input: the input keys (also the snapshot the checks
 * compare with), their values 0..n-1 (each key's position, so a value names the key it must
 * travel with and, for a stable sort, the order equal keys must keep), what came back from the
 * GPU, and scratch room for the checks; for a test that compares with a CPU model of one step,
 * also what the model says the step must write.
 */
typedef struct {
    size_t n;                    /**< number of pairs */
    unsigned int *in_keys;       /**< the input keys, filled by the test */
    unsigned int *in_values;     /**< 0 .. n-1, filled by kit_pairs_alloc() */
    unsigned int *out_keys;      /**< keys back from the GPU */
    unsigned int *out_values;    /**< values back from the GPU */
    unsigned int *scratch;       /**< room for the checks */
    unsigned int *expect_keys;   /**< the model's keys (::KIT_PAIRS_EXPECT), else NULL */
    unsigned int *expect_values; /**< the model's values (::KIT_PAIRS_EXPECT), else NULL */
} kit_pairs;

/** What kit_pairs_alloc_parts() allocates beside in_keys and out_keys. */
enum {
    KIT_PAIRS_VALUES = 1, /**< in_values (0..n-1), out_values and scratch; else they are NULL */
    KIT_PAIRS_EXPECT = 2  /**< expect_keys, and expect_values with ::KIT_PAIRS_VALUES */
};

/** Allocates @p p for @p n pairs, values 0..n-1; 0 (and a KIT_FAIL) when out of memory. */
int kit_pairs_alloc(kit_pairs *p, size_t n);

/**
 * kit_pairs_alloc() of the parts named by @p parts (::KIT_PAIRS_VALUES, ::KIT_PAIRS_EXPECT):
 * keys only, for instance, when n is so large that host memory counts.
 */
int kit_pairs_alloc_parts(kit_pairs *p, size_t n, int parts);

/** Frees what kit_pairs_alloc() allocated (also after it failed). */
void kit_pairs_free(kit_pairs *p);

/** Device copies of a test input. */
typedef struct {
    unsigned int *keys;   /**< n keys on the device */
    unsigned int *values; /**< n values, NULL for keys only */
} kit_device_pairs;

/** Copies p's input (and its values when @p with_values) to new device buffers; 0 on error. */
int kit_device_pairs_upload(kit_device_pairs *d, const kit_pairs *p, int with_values);

/**
 * Allocates device buffers for p->n pairs (values when @p with_values) filled with a pattern
 * (0xA5 bytes) that no test expects: the destination of a pass, so a key it fails to write
 * shows. 0 on error.
 */
int kit_device_pairs_blank(kit_device_pairs *d, const kit_pairs *p, int with_values);

/**
 * Waits for the GPU and copies the device buffers into p->out_* (the values when d->values is
 * not NULL); 0 (and a KIT_FAIL naming @p what) on error.
 */
int kit_device_pairs_download(const char *what, const kit_device_pairs *d, kit_pairs *p);

/** Waits for the GPU (a failed kernel may still run) and frees the device buffers. */
void kit_device_pairs_free(kit_device_pairs *d);

/**
 * Reports a lab call's error; @p what names the call and its input (function, tier, n,
 * distribution, seed...). `cudaErrorNotSupported` reads "not written yet".
 */
void kit_fail_call(const char *what, cudaError_t err);

/**
 * Checks keys [base, base + len) of p's output against the same keys of its input: sorted
 * (descending with ::KIT_VERIFY_DESCENDING in @p flags), the same keys, and with values each
 * value still with its key (values of the segment are made relative to @p base) and, with
 * ::KIT_VERIFY_STABLE, equal keys in input order. A failure names @p what, the segment
 * (@p segment, e.g. "merge 3", unless it is the whole array) and what the verifier found.
 */
int kit_check_pairs_segment(const char *what, const char *segment, const kit_pairs *p,
                            int with_values, size_t base, size_t len, int flags);

/**
 * For outputs that are not sorted yet: every value 0..n-1 is there once, with the key it came
 * with.
 */
int kit_check_pairs_attached(const char *what, const kit_pairs *p);

#endif
