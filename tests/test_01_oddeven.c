/* GPU suites of Lab 01 (odd-even transposition sort): one suite per TODO, so each part of
 * the lab is tested on its own. Suite names are what the grader scores: 1.1_phase,
 * 1.2_sort, 1.3_block, 1.4_cooperative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"
#include "oddeven.h"
#include "runner.h"
#include "verify.h"

/* ---- 1.1 one phase ------------------------------------------------------------------------ */

/* What one phase must do, on the CPU, with the same schedule. */
static void cpu_phase(unsigned int *keys, size_t n, unsigned phase)
{
    for (size_t pair = 0; pair < oddeven_pair_count(n, phase); pair++) {
        size_t left = oddeven_pair_left(pair, phase);
        if (keys[left] > keys[left + 1]) {
            unsigned int t = keys[left];
            keys[left] = keys[left + 1];
            keys[left + 1] = t;
        }
    }
}

/* Runs one GPU phase on (n, dist, seed) and compares with cpu_phase() key by key. */
static int check_one_phase(size_t n, unsigned phase, kit_dist dist, uint64_t seed)
{
    unsigned int *expected = malloc((n ? n : 1) * sizeof *expected);
    unsigned int *got = malloc((n ? n : 1) * sizeof *got);
    int ok = 0;
    kit_generate_u32(expected, n, dist, seed);
    unsigned int *d_keys = kit_device_copy(expected, n);
    if (d_keys) {
        cudaError_t err = oddeven_phase(d_keys, n, phase);
        if (err != cudaSuccess) {
            kit_fail_cuda("oddeven_phase", err, n, dist, seed);
            cudaFree(d_keys);
        } else if (kit_device_fetch_free(d_keys, got, n)) {
            cpu_phase(expected, n, phase);
            ok = 1;
            for (size_t i = 0; i < n; i++) {
                if (got[i] != expected[i]) {
                    KIT_FAIL("oddeven_phase(n=%zu, phase=%u, dist=%s, seed=%llu): after one "
                             "phase keys[%zu] should be %u, got %u",
                             n, phase, kit_dist_name(dist), (unsigned long long)seed, i,
                             expected[i], got[i]);
                    ok = 0;
                    break;
                }
            }
        }
    }
    free(expected);
    free(got);
    return ok;
}

static void test_phase_small_sizes(void)
{
    for (size_t s = 0; s < kit_test_size_count && kit_test_sizes[s] <= 4097; s++) {
        for (int d = 0; d < KIT_DIST_COUNT; d++) {
            /* Phases 2 and 3 check that only the parity of the phase matters. */
            for (unsigned phase = 0; phase < 4; phase++) {
                if (!check_one_phase(kit_test_sizes[s], phase, (kit_dist)d, 100 + phase)) {
                    return;
                }
            }
        }
    }
}

/* Large enough that a phase done on the host (copy out, compare, copy back) costs CPU time
 * the grader sees (the rubric's "cpu"); one launch each on the GPU. */
static void test_phase_large_sizes(void)
{
    const size_t large[] = {(size_t)1 << 20, ((size_t)1 << 24) + 1};
    for (int i = 0; i < 2; i++) {
        for (unsigned phase = 0; phase < 2; phase++) {
            if (!check_one_phase(large[i], phase, KIT_DIST_UNIFORM, 7) ||
                !check_one_phase(large[i], phase, KIT_DIST_REVERSED, 7)) {
                return;
            }
        }
    }
}

/* The step bound: n phases of oddeven_phase sort any n keys (the test runs the loop). */
static cudaError_t sort_by_n_phases(unsigned int *d_keys, size_t n)
{
    for (size_t phase = 0; phase < n; phase++) {
        cudaError_t err = oddeven_phase(d_keys, n, (unsigned)phase);
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

static void test_phase_n_phases_sort(void)
{
    kit_check_sort_sweep(sort_by_n_phases, "n phases of oddeven_phase", 0, 1025, 3);
}

/* Few inputs, every kernel path: odd and even n, one and several blocks, a partial warp.
 * These are the tests compute-sanitizer runs (make gpu-check, grading/grade --sanitize). */
static const size_t quick_sizes[] = {2, 3, 33, 300, 2047};
#define QUICK_COUNT (sizeof quick_sizes / sizeof quick_sizes[0])

/* ---- 1.2 the host loop ------------------------------------------------------------------- */

static void test_sort_quick(void)
{
    kit_check_sort_quick(oddeven_sort, "oddeven_sort", quick_sizes, QUICK_COUNT, 4);
}

static void test_sort_small_sizes(void)
{
    kit_check_sort_sweep(oddeven_sort, "oddeven_sort", 0, 257, 5);
}

static void test_sort_boundary_sizes(void)
{
    kit_check_sort_sweep(oddeven_sort, "oddeven_sort", 258, 2049, 5);
}

static void test_sort_large_sizes(void)
{
    kit_check_sort_sweep(oddeven_sort, "oddeven_sort", 4096, 65536, 6);
}

/* ---- 1.3 shared memory, one block per array ---------------------------------------------- */

static cudaError_t block_sort_one(unsigned int *d_keys, size_t n)
{
    return oddeven_sort_block_batch(d_keys, n, 1);
}

static void test_block_quick(void)
{
    const size_t sizes[] = {2, 3, 33, 300, 2047, 2048};
    kit_check_sort_quick(block_sort_one, "oddeven_sort_block_batch(count=1)", sizes, 6, 7);
}

static void test_block_sizes(void)
{
    if (!kit_check_sort_sweep(block_sort_one, "oddeven_sort_block_batch(count=1)", 0,
                              ODDEVEN_BLOCK_MAX_N, 8)) {
        return;
    }
    unsigned int *d_keys = NULL;
    if (cudaMalloc((void **)&d_keys, (ODDEVEN_BLOCK_MAX_N + 1) * sizeof *d_keys) == cudaSuccess) {
        cudaError_t err = oddeven_sort_block_batch(d_keys, ODDEVEN_BLOCK_MAX_N + 1, 1);
        if (err != cudaErrorInvalidValue) {
            KIT_FAIL("oddeven_sort_block_batch(n=%d) must return cudaErrorInvalidValue, got %s",
                     ODDEVEN_BLOCK_MAX_N + 1, cudaGetErrorName(err));
        }
        cudaFree(d_keys);
    }
}

/* Sorts `count` arrays of n keys in one call and checks each against its snapshot. */
static int check_batch(const unsigned int *snapshot, size_t n, size_t count, const char *what)
{
    size_t total = n * count;
    unsigned int *got = malloc((total ? total : 1) * sizeof *got);
    int ok = 0;
    unsigned int *d_keys = kit_device_copy(snapshot, total);
    if (d_keys) {
        cudaError_t err = oddeven_sort_block_batch(d_keys, n, count);
        if (err != cudaSuccess) {
            KIT_FAIL("oddeven_sort_block_batch(n=%zu, count=%zu), %s: returned %s%s", n, count,
                     what, cudaGetErrorName(err),
                     err == cudaErrorNotSupported ? " (TODO 1.3 not written yet)" : "");
            cudaFree(d_keys);
        } else if (kit_device_fetch_free(d_keys, got, total)) {
            ok = 1;
            for (size_t b = 0; b < count && ok; b++) {
                kit_verdict v = kit_verify_u32(snapshot + b * n, got + b * n, n, 0);
                if (v.status != KIT_VERIFY_OK) {
                    KIT_FAIL("oddeven_sort_block_batch(n=%zu, count=%zu), %s, array %zu: %s", n,
                             count, what, b, v.message);
                    ok = 0;
                }
            }
        }
    }
    free(got);
    return ok;
}

static void test_block_batches(void)
{
    /* The last shape, 4M keys in one launch, is the one a host sort could not hide in. */
    const size_t shapes[][2] = {{33, 1000}, {100, 257}, {1024, 64},
                                {2048, 40}, {2, 5000},  {1024, 4096}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t n = shapes[s][0], count = shapes[s][1];
        unsigned int *keys = malloc(n * count * sizeof *keys);
        for (int d = 0; d < KIT_DIST_COUNT; d++) {
            /* Each array of the batch gets its own seed, so the arrays differ. */
            for (size_t b = 0; b < count; b++) {
                kit_generate_u32(keys + b * n, n, (kit_dist)d, 1000 + b);
            }
            char what[64];
            snprintf(what, sizeof what, "dist=%s, seeds 1000..%zu", kit_dist_name((kit_dist)d),
                     1000 + count - 1);
            if (!check_batch(keys, n, count, what)) {
                free(keys);
                return;
            }
        }
        free(keys);
    }
}

/* The 0-1 principle: a comparator network that sorts every 0/1 input sorts every input.
 * For each n <= 16 all 2^n inputs go to the GPU as one batch of 2^n arrays. */
static void test_block_zero_one_principle(void)
{
    for (size_t n = 1; n <= 16; n++) {
        size_t count = (size_t)1 << n;
        unsigned int *keys = malloc(n * count * sizeof *keys);
        for (size_t b = 0; b < count; b++) {
            for (size_t i = 0; i < n; i++) {
                keys[b * n + i] = (unsigned int)(b >> i) & 1u; /* bit i of b */
            }
        }
        char what[64];
        snprintf(what, sizeof what, "every 0/1 input of n=%zu", n);
        int ok = check_batch(keys, n, count, what);
        free(keys);
        if (!ok) {
            return;
        }
    }
}

/* ---- 1.4 cooperative: one launch ---------------------------------------------------------- */

static void test_cooperative_quick(void)
{
    kit_check_sort_quick(oddeven_sort_cooperative, "oddeven_sort_cooperative", quick_sizes,
                         QUICK_COUNT, 8);
}

static void test_cooperative_small_sizes(void)
{
    kit_check_sort_sweep(oddeven_sort_cooperative, "oddeven_sort_cooperative", 0, 4097, 9);
}

static void test_cooperative_large_sizes(void)
{
    kit_check_sort_sweep(oddeven_sort_cooperative, "oddeven_sort_cooperative", 4098, 65536, 10);
}

/* The quick tests (and 1.1's small sizes: one launch each) are also the tests the CPU emulation
 * runs (make emulate): every kernel and every TODO, with inputs that take seconds there. */
#define QUICK_MARKS (KIT_TEST_SANITIZE | KIT_TEST_EMULATE)

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("1.1_phase", 1);
    kit_add_marked_test(s, "one_phase_small_sizes", test_phase_small_sizes, QUICK_MARKS);
    kit_add_test(s, "one_phase_large_sizes", test_phase_large_sizes);
    kit_add_test(s, "n_phases_sort_any_input", test_phase_n_phases_sort);
    s = kit_add_suite("1.2_sort", 1);
    kit_add_marked_test(s, "quick", test_sort_quick, QUICK_MARKS);
    kit_add_test(s, "small_sizes", test_sort_small_sizes);
    kit_add_test(s, "boundary_sizes", test_sort_boundary_sizes);
    kit_add_test(s, "large_sizes", test_sort_large_sizes);
    s = kit_add_suite("1.3_block", 1);
    kit_add_marked_test(s, "quick", test_block_quick, QUICK_MARKS);
    kit_add_test(s, "sizes_up_to_2048", test_block_sizes);
    kit_add_test(s, "batches", test_block_batches);
    kit_add_test(s, "zero_one_principle", test_block_zero_one_principle);
    s = kit_add_suite("1.4_cooperative", 1);
    kit_add_marked_test(s, "quick", test_cooperative_quick, QUICK_MARKS);
    kit_add_test(s, "small_and_boundary_sizes", test_cooperative_small_sizes);
    kit_add_test(s, "large_sizes", test_cooperative_large_sizes);
}
