/* GPU suites of Lab 04 (radix sort built on scan): one suite per TODO, so each part of the lab
 * is tested on its own. Suite names are what the grader scores: 4.1_scan, 4.2_split,
 * 4.3_digits, 4.4_types_pairs, and the bonus suites 4.5_lookback_scan
 * and 4.6_onesweep; 4.0_references is a host suite that checks this file's own CPU models (it needs
 * no GPU and is worth no points).
 *
 * Every input that carries values carries its keys' positions (0 .. n-1), so a value names
 * the key it must travel with, and every check is also a check of stability. The tests of a
 * single step (a split, the histograms, a tile sort, a scatter, a pass) compare the output
 * exactly with a CPU model of that step on the same input: the CPU computes what the step must
 * write, before the step runs. The scatter's offsets come from the CPU too, so the scatter is
 * tested without the student's scan; the tile sort and the scatter are built on the block scan
 * of TODO 4.1, as the handout says. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sort.h"
#include "datagen.h"
#include "gpu_harness.h"
#include "keyflip.h"
#include "radix.h"
#include "runner.h"
#include "verify.h"

static const char *direction_name(int descending)
{
    return descending ? "descending" : "ascending";
}

/* ---- CPU models of each step ---------------------------------------------------------------- */

/* The exclusive scan, modulo 2^32. */
static void cpu_exclusive_scan(const unsigned int *in, unsigned int *out, size_t n)
{
    unsigned int sum = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned int v = in[i];
        out[i] = sum;
        sum += v;
    }
}

/* The stable split by one bit: zeros, then ones, each in input order. */
static void cpu_split(const unsigned int *keys, const unsigned int *values, size_t n,
                      unsigned int bit, unsigned int *out_keys, unsigned int *out_values)
{
    size_t place = 0;
    for (unsigned one = 0; one < 2; one++) {
        for (size_t i = 0; i < n; i++) {
            if (((keys[i] >> bit) & 1u) == one) {
                out_keys[place] = keys[i];
                out_values[place] = values[i];
                place++;
            }
        }
    }
}

/* The histogram table of a pass, digit-major, as radix_histograms() must write it. */
static void cpu_table(const unsigned int *keys, size_t n, unsigned int shift, unsigned int *table)
{
    size_t tiles = kit_num_tiles(n, RADIX_TILE);
    memset(table, 0, RADIX_DIGITS * tiles * sizeof *table);
    for (size_t i = 0; i < n; i++) {
        table[radix_table_index(radix_digit(keys[i], shift), i / RADIX_TILE, tiles)]++;
    }
}

/* The stable counting sort of keys[0 .. n) by the digit at `shift` (the output of a pass, or of
 * one tile's local sort). */
static int cpu_sort_by_digit(const unsigned int *keys, const unsigned int *values, size_t n,
                             unsigned int shift, unsigned int *out_keys, unsigned int *out_values)
{
    size_t *start = calloc(RADIX_DIGITS + 1, sizeof *start);
    if (!start) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        start[radix_digit(keys[i], shift) + 1]++;
    }
    for (unsigned d = 0; d < RADIX_DIGITS; d++) {
        start[d + 1] += start[d];
    }
    for (size_t i = 0; i < n; i++) {
        size_t dst = start[radix_digit(keys[i], shift)]++;
        out_keys[dst] = keys[i];
        out_values[dst] = values[i];
    }
    free(start);
    return 1;
}

/* The number of passes the sort must run: those whose digit is not the same in every key. */
static unsigned cpu_passes_needed(const unsigned int *keys, size_t n)
{
    unsigned int all = 0xFFFFFFFFu, any = 0;
    for (size_t i = 0; i < n; i++) {
        all &= keys[i];
        any |= keys[i];
    }
    unsigned passes = 0;
    for (unsigned shift = 0; n >= 2 && shift < 32u; shift += RADIX_BITS) {
        passes += radix_digit(all ^ any, shift) != 0;
    }
    return passes;
}

/* ---- memory of one test: gpu_harness's kit_pairs ----------------------------------------------
 * p.in_keys and p.in_values (0 .. n-1) are the input, p.expect_* what the CPU model of the step
 * says it must write, p.out_* what came back. On the device a step reads a kit_device_pairs
 * copy of the input and writes into it (a tile sort, a sort) or into a blank one
 * (kit_device_pairs_blank(): a place the step never writes shows). */

/* The host memory of a test compared with a model: input, values, the model's answer. */
#define MODEL_PAIRS (KIT_PAIRS_VALUES | KIT_PAIRS_EXPECT)

/* Compares what came back with the model's answer, key and value at every index; the first
 * difference is the failure. `shift` < 32 adds the tile and the digit to the message. */
static int compare_exact(const char *what, const kit_pairs *p, int with_values, unsigned int shift)
{
    for (size_t i = 0; i < p->n; i++) {
        int key_bad = p->out_keys[i] != p->expect_keys[i];
        int value_bad = with_values && p->out_values[i] != p->expect_values[i];
        if (!key_bad && !value_bad) {
            continue;
        }
        char where[96] = "";
        if (shift < 32u) {
            snprintf(where, sizeof where, " (tile %zu, expected digit %u)", i / RADIX_TILE,
                     radix_digit(p->expect_keys[i], shift));
        }
        if (with_values) {
            KIT_FAIL("%s: first difference at index %zu%s: expected key %u with value %u (the "
                     "input's key %u), got key %u with value %u",
                     what, i, where, p->expect_keys[i], p->expect_values[i], p->expect_values[i],
                     p->out_keys[i], p->out_values[i]);
        } else {
            KIT_FAIL("%s: first difference at index %zu%s: expected key %u, got %u", what, i, where,
                     p->expect_keys[i], p->out_keys[i]);
        }
        return 0;
    }
    return 1;
}

/* A size's seed: every (test, n) gets its own input, printed in every message. */
static uint64_t seed_for(uint64_t base, size_t n)
{
    return base * 1000003u + n;
}

/* The sizes of DESIGN.md up to `max_n` (kit_test_sizes, then larger ones). */
static const size_t big_sizes[] = {(size_t)1 << 22, ((size_t)1 << 22) + 3, (size_t)1 << 24};

/* ---- 4.0 the CPU models (a host suite) --------------------------------------------------------
 */

/* The models against each other and against the kit's CPU sorts: a sort made of passes of
 * cpu_sort_by_digit is the kit's radix sort, and a split by bit 0 is a pass of 1-bit digits. */
static void test_references(void)
{
    const size_t n = 5000;
    kit_pairs p;
    unsigned int *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    unsigned int *va = malloc(n * sizeof *va), *vb = malloc(n * sizeof *vb);
    if (!kit_pairs_alloc(&p, n) || !a || !b || !va || !vb) {
        KIT_FAIL("test setup: out of host memory");
        goto done;
    }
    FOR_EACH_DIST(dist)
    {
        kit_generate_u32(p.in_keys, n, dist, 7);
        memcpy(a, p.in_keys, n * sizeof *a);
        memcpy(va, p.in_values, n * sizeof *va);
        for (unsigned shift = 0; shift < 32u; shift += RADIX_BITS) {
            cpu_sort_by_digit(a, va, n, shift, b, vb);
            memcpy(a, b, n * sizeof *a);
            memcpy(va, vb, n * sizeof *va);
        }
        kit_verdict v = kit_verify_pairs_u32(p.in_keys, a, va, n, KIT_VERIFY_STABLE);
        if (v.status != KIT_VERIFY_OK) {
            KIT_FAIL("CPU model: passes of cpu_sort_by_digit (dist=%s): %s", kit_dist_name(dist),
                     v.message);
        }
        unsigned int table[RADIX_DIGITS * 5];
        cpu_table(p.in_keys, n, 0, table);
        unsigned int sum = 0;
        for (size_t i = 0; i < RADIX_DIGITS * kit_num_tiles(n, RADIX_TILE); i++) {
            sum += table[i];
        }
        CU_ASSERT_EQUAL(sum, n);
    }
    /* The scan of 0/1 flags counts ones; the split agrees with a 1-bit sort. */
    unsigned int flags[6] = {1, 0, 1, 1, 0, 1}, s[6];
    cpu_exclusive_scan(flags, s, 6);
    CU_ASSERT(s[0] == 0 && s[1] == 1 && s[2] == 1 && s[3] == 2 && s[4] == 3 && s[5] == 3);
    const unsigned int keys[6] = {5, 2, 7, 3, 0, 1}, values[6] = {0, 1, 2, 3, 4, 5};
    unsigned int out_k[6], out_v[6];
    cpu_split(keys, values, 6, 0, out_k, out_v);
    const unsigned int want[6] = {2, 0, 5, 7, 3, 1};
    CU_ASSERT(memcmp(out_k, want, sizeof want) == 0);
    /* The header's helpers. */
    CU_ASSERT_EQUAL(kit_num_tiles(0, RADIX_TILE), 0);
    CU_ASSERT_EQUAL(kit_num_tiles(RADIX_TILE, RADIX_TILE), 1);
    CU_ASSERT_EQUAL(kit_num_tiles(RADIX_TILE + 1, RADIX_TILE), 2);
    CU_ASSERT_EQUAL(radix_digit(0xABCDEF12u, 0), 0xABCDEF12u & (RADIX_DIGITS - 1));
    CU_ASSERT_EQUAL(radix_digit(0xABCDEF12u, 32 - RADIX_BITS), 0xABCDEF12u >> (32 - RADIX_BITS));
    CU_ASSERT_EQUAL(radix_table_index(2, 3, 10), 23);
    const unsigned int few[4] = {0x10, 0x30, 0x20, 0x10};
    /* Bits 4 and 5 vary: one digit when they fall in the same one (8 bits), else two (1). */
    CU_ASSERT_EQUAL(cpu_passes_needed(few, 4), 4 / RADIX_BITS == 5 / RADIX_BITS ? 1u : 2u);
    const unsigned int same[3] = {9, 9, 9};
    CU_ASSERT_EQUAL(cpu_passes_needed(same, 3), 0);
done:
    kit_pairs_free(&p);
    free(a);
    free(b);
    free(va);
    free(vb);
}

/* ---- 4.1 scan ---------------------------------------------------------------------------------
 */

/* Which scan check_scan() calls: radix_scan, radix_scan_block, radix_scan_lookback. */
enum { SCAN_MULTI = 0, SCAN_BLOCK = 1, SCAN_LOOKBACK = 2 };

/* Scans (n, dist, seed) on the GPU, with radix_scan_block when `block` is SCAN_BLOCK,
 * radix_scan_lookback when it is SCAN_LOOKBACK, else radix_scan; in place or into a second
 * buffer. The values are keys of the distribution: uniform keys make
 * sums that wrap many times. Keys only (no kit_pairs values): the 2^28 values of the largest
 * scan need 3 GiB of host memory this way, not 7. */
static int check_scan(size_t n, kit_dist dist, uint64_t seed, int block, int in_place)
{
    kit_pairs p;
    kit_device_pairs in = {NULL, NULL}, out = {NULL, NULL};
    int ok = 0;
    char what[200];
    const char *name = block == SCAN_LOOKBACK ? "radix_scan_lookback"
                       : block == SCAN_BLOCK  ? "radix_scan_block"
                                              : "radix_scan";
    unsigned tile = block == SCAN_LOOKBACK ? RADIX_LOOKBACK_TILE : RADIX_SCAN_TILE;
    snprintf(what, sizeof what, "%s(n=%zu, values=%s, seed=%llu, %s)", name, n, kit_dist_name(dist),
             (unsigned long long)seed, in_place ? "in place" : "into another buffer");
    if (!kit_pairs_alloc_parts(&p, n, KIT_PAIRS_EXPECT)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    cpu_exclusive_scan(p.in_keys, p.expect_keys, n);
    if (!kit_device_pairs_upload(&in, &p, 0) ||
        (!in_place && !kit_device_pairs_blank(&out, &p, 0))) {
        goto done;
    }
    const kit_device_pairs *result = in_place ? &in : &out;
    cudaError_t err = block == SCAN_LOOKBACK ? radix_scan_lookback(in.keys, result->keys, n)
                      : block == SCAN_BLOCK  ? radix_scan_block(in.keys, result->keys, n)
                                             : radix_scan(in.keys, result->keys, n);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, result, &p)) {
        ok = 1;
        for (size_t i = 0; i < n && ok; i++) {
            if (p.out_keys[i] != p.expect_keys[i]) {
                KIT_FAIL("%s: out[%zu] should be %u (the sum of in[0..%zu), modulo 2^32), got %u "
                         "(%s %zu of %u values)",
                         what, i, p.expect_keys[i], i, p.out_keys[i],
                         block == SCAN_LOOKBACK ? "tile" : "block", i / tile, tile);
                ok = 0;
            }
        }
    }
done:
    kit_device_pairs_free(&in);
    kit_device_pairs_free(&out);
    kit_pairs_free(&p);
    return ok;
}

static const kit_dist scan_dists[] = {KIT_DIST_UNIFORM, KIT_DIST_ZERO_ONE, KIT_DIST_FEW_UNIQUE,
                                      KIT_DIST_ALL_EQUAL, KIT_DIST_EXTREMES};
#define SCAN_DIST_COUNT (sizeof scan_dists / sizeof scan_dists[0])

static void test_scan_quick(void)
{
    const size_t block_sizes[] = {1, 33, RADIX_SCAN_TILE};
    for (size_t s = 0; s < 3; s++) {
        if (!check_scan(block_sizes[s], KIT_DIST_UNIFORM, seed_for(10, block_sizes[s]), 1, 0)) {
            return;
        }
    }
    if (!check_scan(RADIX_SCAN_TILE + 1, KIT_DIST_UNIFORM, seed_for(10, 1025), 0, 0)) {
        return;
    }
    check_scan(5000, KIT_DIST_ZERO_ONE, seed_for(10, 5000), 0, 1);
}

/* One block: every size of DESIGN.md that fits, every kind of values, in place and not. */
static void test_scan_block(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        if (n > RADIX_SCAN_TILE) {
            continue;
        }
        for (size_t k = 0; k < SCAN_DIST_COUNT; k++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                if (!check_scan(n, scan_dists[k], seed_for(11, n), 1, in_place)) {
                    return;
                }
            }
        }
    }
    /* Too many for one block is refused (checked once the scan works). */
    unsigned int *d = NULL;
    if (cudaMalloc((void **)&d, (RADIX_SCAN_TILE + 1) * sizeof *d) == cudaSuccess) {
        cudaError_t err = radix_scan_block(d, d, RADIX_SCAN_TILE + 1);
        if (err != cudaErrorInvalidValue) {
            KIT_FAIL("radix_scan_block(n=%u) must return cudaErrorInvalidValue (more than one "
                     "block), got %s",
                     RADIX_SCAN_TILE + 1, cudaGetErrorName(err));
        }
        cudaFree(d);
    }
}

/* Any n: every size of DESIGN.md, every kind of values, in place and not. */
static void test_scan_sizes(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        for (size_t k = 0; k < SCAN_DIST_COUNT; k++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                if (!check_scan(n, scan_dists[k], seed_for(12, n), 0, in_place)) {
                    return;
                }
            }
        }
    }
}

/* Sizes around the levels of blocks: one block, one block of block sums, two levels. */
static void test_scan_levels(void)
{
    const size_t t = RADIX_SCAN_TILE;
    const size_t sizes[] = {t - 1, t, t + 1, 2 * t, t * t - 1, t * t, t * t + 1, t * t + t + 1};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (!check_scan(sizes[s], KIT_DIST_UNIFORM, seed_for(13, sizes[s]), 0, 0) ||
            !check_scan(sizes[s], KIT_DIST_ALL_EQUAL, seed_for(13, sizes[s]), 0, 1)) {
            return;
        }
    }
}

/* The recursion of 4.1 at its second level, once, for the CPU emulation (make emulate), where
 * levels_of_blocks takes a minute: t * t + t + 1 values make t + 2 blocks, whose t + 2 block sums
 * take two blocks of their own, whose sums take one more. */
static void test_scan_two_levels(void)
{
    const size_t t = RADIX_SCAN_TILE;
    check_scan(t * t + t + 1, KIT_DIST_UNIFORM, seed_for(16, t * t + t + 1), 0, 0);
}

static void test_scan_large_2_24(void)
{
    for (size_t k = 0; k < SCAN_DIST_COUNT; k++) {
        if (!check_scan((size_t)1 << 24, scan_dists[k], 14, 0, k % 2)) {
            return;
        }
    }
}

static void test_scan_large_2_26(void)
{
    if (!check_scan((size_t)1 << 26, KIT_DIST_UNIFORM, 15, 0, 0)) {
        return;
    }
    check_scan(((size_t)1 << 26) - 1, KIT_DIST_ZERO_ONE, 15, 0, 1);
}

/* 2^28 values (1 GiB), in place, where the GPU has the room. When it has not, the test is
 * skipped, which is not passed. Under the grader, cudaMemGetInfo() answers with what the
 * grader's own probe measured, never with what the lab's process says. */
static void test_scan_large_2_28(void)
{
    size_t n = (size_t)1 << 28, free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess ||
        free_bytes < n * sizeof(unsigned int) + ((size_t)256 << 20)) {
        kit_skip_test("radix_scan at n = 2^28 needs 1.25 GiB of GPU memory; %zu MiB are free",
                      free_bytes >> 20);
        return;
    }
    check_scan(n, KIT_DIST_UNIFORM, 16, 0, 1);
}

/* ---- 4.2 split by one bit ------------------------------------------------------------------- */

/* radix_split of (n, dist, seed) by `bit`, against the CPU's stable split. */
static int check_split(size_t n, kit_dist dist, uint64_t seed, unsigned int bit, int with_values)
{
    kit_pairs p;
    kit_device_pairs in = {NULL, NULL}, out = {NULL, NULL};
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "radix_split(n=%zu, dist=%s, seed=%llu, bit=%u%s)", n,
             kit_dist_name(dist), (unsigned long long)seed, bit, with_values ? "" : ", keys only");
    if (!kit_pairs_alloc_parts(&p, n, MODEL_PAIRS)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    cpu_split(p.in_keys, p.in_values, n, bit, p.expect_keys, p.expect_values);
    if (!kit_device_pairs_upload(&in, &p, with_values) ||
        !kit_device_pairs_blank(&out, &p, with_values)) {
        goto done;
    }
    cudaError_t err = radix_split(in.keys, in.values, out.keys, out.values, n, bit);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &out, &p)) {
        ok = compare_exact(what, &p, with_values, 32);
    }
done:
    kit_device_pairs_free(&in);
    kit_device_pairs_free(&out);
    kit_pairs_free(&p);
    return ok;
}

/* A full sort (radix_sort_split or radix_sort_counted) of (n, dist, seed), checked for order,
 * keys, values and stability. */
static int check_u32_sort(const char *name, size_t n, kit_dist dist, uint64_t seed, int with_values)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "%s(n=%zu, dist=%s, seed=%llu%s)", name, n, kit_dist_name(dist),
             (unsigned long long)seed, with_values ? "" : ", keys only");
    if (!kit_pairs_alloc(&p, n)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = strcmp(name, "radix_sort_split") == 0
                          ? radix_sort_split(d.keys, d.values, n)
                          : radix_sort_counted(d.keys, d.values, n, NULL);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        ok = kit_check_pairs_segment(what, "", &p, with_values, 0, n, KIT_VERIFY_STABLE);
    }
done:
    kit_device_pairs_free(&d);
    kit_pairs_free(&p);
    return ok;
}

static void test_split_quick(void)
{
    if (!check_split(100, KIT_DIST_UNIFORM, 20, 0, 1)) {
        return;
    }
    if (!check_split(1000, KIT_DIST_EXTREMES, 20, 31, 1)) {
        return;
    }
    check_u32_sort("radix_sort_split", 300, KIT_DIST_FEW_UNIQUE, 20, 1);
}

/* Every size up to 2^16 + 1, every distribution, low, middle and high bits. */
static void test_split_sizes(void)
{
    const unsigned int bits[] = {0, 1, 7, 16, 31};
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        if (n > 65536) {
            continue;
        }
        FOR_EACH_DIST(dist)
        {
            for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
                if (!check_split(n, dist, seed_for(21, n), bits[b], 1)) {
                    return;
                }
            }
        }
    }
}

/* Every bit of one input, keys only, and a bad bit refused. */
static void test_split_every_bit(void)
{
    for (unsigned int bit = 0; bit < 32; bit++) {
        if (!check_split(4097, KIT_DIST_UNIFORM, 22, bit, 0)) {
            return;
        }
    }
    unsigned int *d = NULL;
    if (cudaMalloc((void **)&d, 8 * sizeof *d) == cudaSuccess) {
        cudaError_t err = radix_split(d, NULL, d + 4, NULL, 4, 32);
        if (err != cudaErrorInvalidValue) {
            KIT_FAIL("radix_split(n=4, bit=32) must return cudaErrorInvalidValue, got %s",
                     cudaGetErrorName(err));
        }
        cudaFree(d);
    }
}

/* The 32-pass sort: every size up to 2^16 + 1, every distribution. */
static void test_split_sort(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        if (n > 65536) {
            continue;
        }
        FOR_EACH_DIST(dist)
        {
            if (!check_u32_sort("radix_sort_split", n, dist, seed_for(23, n), n % 2 == 0)) {
                return;
            }
        }
    }
}

static void test_split_large(void)
{
    if (!check_split((size_t)1 << 24, KIT_DIST_UNIFORM, 24, 13, 1)) {
        return;
    }
    if (!check_split(((size_t)1 << 22) + 3, KIT_DIST_FEW_UNIQUE, 24, 2, 1)) {
        return;
    }
    check_u32_sort("radix_sort_split", (size_t)1 << 22, KIT_DIST_UNIFORM, 24, 1);
}

/* ---- 4.3 digits -------------------------------------------------------------------------------
 */

/* Keys as the passes below `shift` leave them: sorted (stably) by their bits below `shift`.
 * The input of pass `shift` in a real sort. */
static int prepare_pass_input(kit_pairs *p, unsigned int shift)
{
    unsigned int *k = malloc((p->n ? p->n : 1) * sizeof *k),
                 *v = malloc((p->n ? p->n : 1) * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        KIT_FAIL("test setup: out of host memory");
        return 0;
    }
    for (unsigned s = 0; s < shift; s += RADIX_BITS) {
        cpu_sort_by_digit(p->in_keys, p->in_values, p->n, s, k, v);
        memcpy(p->in_keys, k, p->n * sizeof *k);
        memcpy(p->in_values, v, p->n * sizeof *v);
    }
    free(k);
    free(v);
    return 1;
}

/* radix_histograms of (n, dist, seed) for the pass at `shift`, against the CPU's table. */
static int check_histograms(size_t n, kit_dist dist, uint64_t seed, unsigned int shift)
{
    size_t tiles = kit_num_tiles(n, RADIX_TILE), entries = RADIX_DIGITS * tiles;
    unsigned int *keys = malloc((n ? n : 1) * sizeof *keys);
    unsigned int *expect = malloc((entries ? entries : 1) * sizeof *expect);
    unsigned int *got = malloc((entries ? entries : 1) * sizeof *got);
    unsigned int *d_keys = NULL, *d_table = NULL;
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "radix_histograms(n=%zu, dist=%s, seed=%llu, pass %u: shift %u)", n,
             kit_dist_name(dist), (unsigned long long)seed, shift / RADIX_BITS, shift);
    if (!keys || !expect || !got) {
        KIT_FAIL("test setup: out of host memory");
        goto done;
    }
    kit_generate_u32(keys, n, dist, seed);
    cpu_table(keys, n, shift, expect);
    memset(got, 0xFF, (entries ? entries : 1) * sizeof *got);
    if (!(d_keys = kit_device_copy(keys, n)) || !(d_table = kit_device_copy(got, entries))) {
        goto done;
    }
    cudaError_t err = radix_histograms(d_keys, n, shift, d_table);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_fetch(what, d_table, got, entries)) {
        ok = 1;
        for (size_t i = 0; i < entries && ok; i++) {
            if (got[i] != expect[i]) {
                KIT_FAIL("%s: table[%zu], the count of digit %zu in tile %zu (of %zu), should be "
                         "%u, got %u",
                         what, i, i / tiles, i % tiles, tiles, expect[i], got[i]);
                ok = 0;
            }
        }
    }
done:
    cudaDeviceSynchronize();
    cudaFree(d_keys);
    cudaFree(d_table);
    free(keys);
    free(expect);
    free(got);
    return ok;
}

/* radix_sort_tiles of (n, dist, seed) at `shift`: each tile, on its own, the CPU's stable sort
 * by the digit. */
static int check_tiles(size_t n, kit_dist dist, uint64_t seed, unsigned int shift, int with_values)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "radix_sort_tiles(n=%zu, dist=%s, seed=%llu, pass %u: shift %u%s)",
             n, kit_dist_name(dist), (unsigned long long)seed, shift / RADIX_BITS, shift,
             with_values ? "" : ", keys only");
    if (!kit_pairs_alloc_parts(&p, n, MODEL_PAIRS)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    for (size_t base = 0; base < n; base += RADIX_TILE) {
        size_t len = n - base < RADIX_TILE ? n - base : RADIX_TILE;
        if (!cpu_sort_by_digit(p.in_keys + base, p.in_values + base, len, shift,
                               p.expect_keys + base, p.expect_values + base)) {
            KIT_FAIL("test setup: out of host memory");
            goto done;
        }
    }
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = radix_sort_tiles(d.keys, d.values, n, shift);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        ok = compare_exact(what, &p, with_values, shift);
    }
done:
    kit_device_pairs_free(&d);
    kit_pairs_free(&p);
    return ok;
}

/* radix_scatter (with_pass 0: offsets from the CPU's table and scan) or radix_pass (with_pass
 * 1: the whole pass) of (n, dist, seed) at `shift`, on the input the earlier passes leave
 * (keys sorted by their lower digits), against the CPU's stable sort by the digit. */
static int check_scatter(size_t n, kit_dist dist, uint64_t seed, unsigned int shift,
                         int with_values, int with_pass)
{
    kit_pairs p;
    kit_device_pairs in = {NULL, NULL}, out = {NULL, NULL};
    unsigned int *offsets = NULL, *d_offsets = NULL;
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "%s(n=%zu, dist=%s, seed=%llu, pass %u: shift %u%s)",
             with_pass ? "radix_pass" : "radix_scatter", n, kit_dist_name(dist),
             (unsigned long long)seed, shift / RADIX_BITS, shift, with_values ? "" : ", keys only");
    size_t entries = RADIX_DIGITS * kit_num_tiles(n, RADIX_TILE);
    if (!kit_pairs_alloc_parts(&p, n, MODEL_PAIRS) ||
        !(offsets = malloc((entries ? entries : 1) * sizeof *offsets))) {
        KIT_FAIL("test setup: out of host memory");
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (!prepare_pass_input(&p, shift)) {
        goto done;
    }
    /* The values say where each key was in this pass's input. */
    for (size_t i = 0; i < n; i++) {
        p.in_values[i] = (unsigned int)i;
    }
    cpu_sort_by_digit(p.in_keys, p.in_values, n, shift, p.expect_keys, p.expect_values);
    cpu_table(p.in_keys, n, shift, offsets);
    cpu_exclusive_scan(offsets, offsets, entries);
    if (!kit_device_pairs_upload(&in, &p, with_values) ||
        !kit_device_pairs_blank(&out, &p, with_values)) {
        goto done;
    }
    if (!with_pass && !(d_offsets = kit_device_copy(offsets, entries))) {
        goto done;
    }
    cudaError_t err =
        with_pass ? radix_pass(in.keys, in.values, out.keys, out.values, n, shift)
                  : radix_scatter(in.keys, in.values, out.keys, out.values, n, shift, d_offsets);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &out, &p)) {
        ok = compare_exact(what, &p, with_values, shift);
    }
done:
    kit_device_pairs_free(&in);
    kit_device_pairs_free(&out);
    cudaFree(d_offsets);
    free(offsets);
    kit_pairs_free(&p);
    return ok;
}

/* radix_sort_counted of (n, dist, seed): sorted, stable, and exactly the passes whose digit
 * varies, read back from the device counter. */
static int check_counted(size_t n, kit_dist dist, uint64_t seed, unsigned int below)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    unsigned int *d_passes = NULL, passes = 0xFFFFFFFFu;
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "radix_sort_counted(n=%zu, dist=%s, seed=%llu%s)", n,
             kit_dist_name(dist), (unsigned long long)seed, below ? ", keys below 2^16" : "");
    if (!kit_pairs_alloc(&p, n)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    for (size_t i = 0; below && i < n; i++) {
        p.in_keys[i] %= below;
    }
    unsigned expect_passes = cpu_passes_needed(p.in_keys, n);
    if (!kit_device_pairs_upload(&d, &p, 1) || !(d_passes = kit_device_copy(&passes, 1))) {
        goto done;
    }
    cudaError_t err = radix_sort_counted(d.keys, d.values, n, d_passes);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p) &&
               kit_device_fetch(what, d_passes, &passes, 1) &&
               kit_check_pairs_segment(what, "", &p, 1, 0, n, KIT_VERIFY_STABLE)) {
        if (passes != expect_passes) {
            KIT_FAIL("%s ran %u passes (the count it wrote to d_passes), expected %u: a pass "
                     "must run when its digit differs between two keys, and be skipped when "
                     "every key has the same digit (of %u passes of %u bits)",
                     what, passes, expect_passes, RADIX_PASSES, RADIX_BITS);
        } else {
            ok = 1;
        }
    }
done:
    kit_device_pairs_free(&d);
    cudaFree(d_passes);
    kit_pairs_free(&p);
    return ok;
}

static void test_digits_quick(void)
{
    if (!check_histograms(3000, KIT_DIST_UNIFORM, 30, 0)) {
        return;
    }
    if (!check_tiles(3000, KIT_DIST_UNIFORM, 30, RADIX_BITS, 1)) {
        return;
    }
    if (!check_scatter(3000, KIT_DIST_FEW_UNIQUE, 30, 0, 1, 0)) {
        return;
    }
    if (!check_scatter(3000, KIT_DIST_UNIFORM, 30, 32 - RADIX_BITS, 1, 1)) {
        return;
    }
    check_counted(3000, KIT_DIST_UNIFORM, 30, 0);
}

/* The sizes of the single-step tests: small, tile boundaries, several tiles. */
static const size_t step_sizes[] = {1,    2,    3,    31,   32,   33,   255,  256,  257,      1000,
                                    1023, 1024, 1025, 2047, 2048, 2049, 4097, 9999, 65536 + 5};
#define STEP_SIZE_COUNT (sizeof step_sizes / sizeof step_sizes[0])

static void test_digits_histograms(void)
{
    for (size_t s = 0; s < STEP_SIZE_COUNT; s++) {
        FOR_EACH_DIST(dist)
        {
            for (unsigned shift = 0; shift < 32u; shift += RADIX_BITS) {
                if (!check_histograms(step_sizes[s], dist, seed_for(31, step_sizes[s]), shift)) {
                    return;
                }
            }
        }
    }
}

static void test_digits_tiles(void)
{
    for (size_t s = 0; s < STEP_SIZE_COUNT; s++) {
        FOR_EACH_DIST(dist)
        {
            for (unsigned shift = 0; shift < 32u; shift += RADIX_BITS) {
                if (!check_tiles(step_sizes[s], dist, seed_for(32, step_sizes[s]), shift,
                                 shift % (2 * RADIX_BITS) == 0)) {
                    return;
                }
            }
        }
    }
}

static void test_digits_scatter(void)
{
    for (size_t s = 0; s < STEP_SIZE_COUNT; s++) {
        FOR_EACH_DIST(dist)
        {
            for (unsigned shift = 0; shift < 32u; shift += RADIX_BITS) {
                if (!check_scatter(step_sizes[s], dist, seed_for(33, step_sizes[s]), shift,
                                   shift % (2 * RADIX_BITS) == 0, 0)) {
                    return;
                }
            }
        }
    }
}

/* Every digit pass alone, on the input the passes before it leave. */
static void test_digits_every_pass(void)
{
    const size_t sizes[] = {1, 2, 33, 1025, 4097, 65536 + 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        FOR_EACH_DIST(dist)
        {
            for (unsigned shift = 0; shift < 32u; shift += RADIX_BITS) {
                if (!check_scatter(sizes[s], dist, seed_for(34, sizes[s]), shift, 1, 1)) {
                    return;
                }
            }
        }
    }
}

static void test_digits_sort(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        FOR_EACH_DIST(dist)
        {
            if (!check_counted(n, dist, seed_for(35, n), 0)) {
                return;
            }
        }
    }
}

/* Keys below 2^16 take half the passes (or fewer); constant keys none; uniform keys all. */
static void test_digits_pass_skipping(void)
{
    const size_t sizes[] = {2, 1000, 100000};
    for (size_t s = 0; s < 3; s++) {
        if (!check_counted(sizes[s], KIT_DIST_UNIFORM, seed_for(36, sizes[s]), 1u << 16) ||
            !check_counted(sizes[s], KIT_DIST_FEW_UNIQUE, seed_for(36, sizes[s]), 1u << 16) ||
            !check_counted(sizes[s], KIT_DIST_ALL_EQUAL, seed_for(36, sizes[s]), 0) ||
            !check_counted(sizes[s], KIT_DIST_ZERO_ONE, seed_for(36, sizes[s]), 0) ||
            !check_counted(sizes[s], KIT_DIST_UNIFORM, seed_for(36, sizes[s]), 0)) {
            return;
        }
    }
    /* The promise of the header, on its own: 2^16 uniform keys below 2^16 (every low digit
     * varies) must take exactly RADIX_PASSES / 2 passes. */
    size_t n = 65536;
    unsigned int *keys = malloc(n * sizeof *keys), *d_keys = NULL, *d_passes = NULL,
                 passes = 0xFFFFFFFFu;
    if (!keys) {
        KIT_FAIL("test setup: out of host memory");
        return;
    }
    kit_generate_u32(keys, n, KIT_DIST_UNIFORM, 37);
    for (size_t i = 0; i < n; i++) {
        keys[i] &= 0xFFFFu;
    }
    if ((d_keys = kit_device_copy(keys, n)) && (d_passes = kit_device_copy(&passes, 1))) {
        cudaError_t err = radix_sort_counted(d_keys, NULL, n, d_passes);
        if (err != cudaSuccess) {
            kit_fail_call("radix_sort_counted(n=65536, dist=uniform below 2^16, seed=37, keys "
                          "only)",
                          err);
        } else if (kit_device_fetch("radix_sort_counted", d_passes, &passes, 1) &&
                   passes != RADIX_PASSES / 2) {
            KIT_FAIL("radix_sort_counted(n=65536, dist=uniform below 2^16, seed=37, keys only) "
                     "ran %u passes, expected %u (half of %u: the high digits are 0 in every key)",
                     passes, RADIX_PASSES / 2, RADIX_PASSES);
        }
    }
    cudaDeviceSynchronize();
    cudaFree(d_keys);
    cudaFree(d_passes);
    free(keys);
}

/* Steps at 2^22 + 3 (many tiles, a partial last one) and the sort at 2^24. */
static void test_digits_large_steps(void)
{
    size_t n = big_sizes[1];
    if (!check_histograms(n, KIT_DIST_UNIFORM, 38, 2 * RADIX_BITS)) {
        return;
    }
    if (!check_tiles(n, KIT_DIST_UNIFORM, 38, 0, 1)) {
        return;
    }
    if (!check_scatter(n, KIT_DIST_NEARLY_SORTED, 38, 32 - RADIX_BITS, 1, 0)) {
        return;
    }
    check_scatter(n, KIT_DIST_UNIFORM, 38, RADIX_BITS, 1, 1);
}

static void test_digits_large_sort(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(0, k);
        if (!check_counted(big_sizes[2], dist, 39, 0)) {
            return;
        }
    }
}

/* ---- 4.4 key types, pairs, descending -----------------------------------------------------------
 */

typedef enum { TYPE_U32, TYPE_I32, TYPE_F32 } key_type;

static const char *type_name(key_type type, int with_values)
{
    if (type == TYPE_I32) {
        return "radix_sort_i32";
    }
    if (type == TYPE_F32) {
        return "radix_sort_f32";
    }
    return with_values ? "radix_sort_pairs" : "radix_sort_keys";
}

/* The order the sort must produce, as unsigned keys: the kit's flips, all bits turned around
 * for descending. Sorting these ascending and stably is what the sort must do. */
static unsigned int order_key(unsigned int bits, key_type type, int descending)
{
    unsigned int u = bits;
    if (type == TYPE_I32) {
        u = kit_flip_i32((int32_t)bits);
    } else if (type == TYPE_F32) {
        u = kit_flip_f32(kit_bits_float(bits));
    }
    return descending ? ~u : u;
}

/* Sorts p->in_keys (the bits of keys of `type`) on the GPU and checks order, keys (bit for bit),
 * values and stability through order_key(). */
static int check_typed_keys(kit_pairs *p, const char *input, key_type type, int descending,
                            int with_values)
{
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what, "%s(n=%zu, %s, %s%s)", type_name(type, with_values), p->n, input,
             direction_name(descending), with_values ? "" : ", keys only");
    if (!kit_device_pairs_upload(&d, p, with_values)) {
        return 0;
    }
    cudaError_t err;
    if (type == TYPE_I32) {
        err = radix_sort_i32((int *)d.keys, d.values, p->n, descending);
    } else if (type == TYPE_F32) {
        err = radix_sort_f32((float *)d.keys, d.values, p->n, descending);
    } else if (with_values) {
        err = radix_sort_pairs(d.keys, d.values, p->n, descending);
    } else {
        err = radix_sort_keys(d.keys, p->n, descending);
    }
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, p)) {
        for (size_t i = 0; i < p->n; i++) {
            p->expect_keys[i] = order_key(p->in_keys[i], type, descending);
            p->out_keys[i] = order_key(p->out_keys[i], type, descending);
        }
        kit_verdict v = with_values ? kit_verify_pairs_u32(p->expect_keys, p->out_keys,
                                                           p->out_values, p->n, KIT_VERIFY_STABLE)
                                    : kit_verify_u32(p->expect_keys, p->out_keys, p->n, 0);
        ok = v.status == KIT_VERIFY_OK;
        if (!ok) {
            KIT_FAIL("%s: %s (keys compared as their order-preserving unsigned maps%s)", what,
                     v.message, descending ? ", turned around" : "");
        }
    }
    kit_device_pairs_free(&d);
    return ok;
}

/* Generates (n, dist, seed) of the type and checks its sort. */
static int check_typed(size_t n, kit_dist dist, uint64_t seed, key_type type, int descending,
                       int with_values)
{
    kit_pairs p;
    int ok = 0;
    if (kit_pairs_alloc_parts(&p, n, MODEL_PAIRS)) {
        if (type == TYPE_I32) {
            kit_generate_i32((int32_t *)p.in_keys, n, dist, seed);
        } else if (type == TYPE_F32) {
            kit_generate_f32((float *)p.in_keys, n, dist, seed);
        } else {
            kit_generate_u32(p.in_keys, n, dist, seed);
        }
        char input[96];
        snprintf(input, sizeof input, "dist=%s, seed=%llu", kit_dist_name(dist),
                 (unsigned long long)seed);
        ok = check_typed_keys(&p, input, type, descending, with_values);
    }
    kit_pairs_free(&p);
    return ok;
}

static void test_types_quick(void)
{
    if (!check_typed(1000, KIT_DIST_FEW_UNIQUE, 40, TYPE_U32, 0, 1)) {
        return;
    }
    if (!check_typed(1000, KIT_DIST_UNIFORM, 40, TYPE_U32, 1, 1)) {
        return;
    }
    if (!check_typed(100, KIT_DIST_EXTREMES, 40, TYPE_I32, 0, 1)) {
        return;
    }
    check_typed(100, KIT_DIST_EXTREMES, 40, TYPE_F32, 1, 1);
}

static void test_types_pairs(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        FOR_EACH_DIST(dist)
        {
            BOTH_DIRECTIONS(down)
            {
                if (!check_typed(n, dist, seed_for(41, n), TYPE_U32, down, 1)) {
                    return;
                }
            }
        }
    }
}

static void test_types_keys_only(void)
{
    const size_t sizes[] = {0, 1, 2, 33, 1025, 65536 + 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        FOR_EACH_DIST(dist)
        {
            BOTH_DIRECTIONS(down)
            {
                if (!check_typed(sizes[s], dist, seed_for(42, sizes[s]), TYPE_U32, down, 0)) {
                    return;
                }
            }
        }
    }
}

/* Repeats `count` chosen keys, shuffled, to n keys: every special next to every other. */
static void fill_from(unsigned int *keys, size_t n, const unsigned int *chosen, size_t count,
                      uint64_t seed)
{
    kit_rng rng;
    kit_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        keys[i] = chosen[kit_rng_below(&rng, count)];
    }
}

static void test_types_signed_extremes(void)
{
    const int32_t chosen[] = {INT32_MIN, INT32_MAX, -1, 0, 1, INT32_MIN + 1, INT32_MAX - 1, -2};
    unsigned int bits[8];
    for (int i = 0; i < 8; i++) {
        bits[i] = (unsigned int)chosen[i];
    }
    const size_t sizes[] = {8, 33, 1025, 5000};
    for (size_t s = 0; s < 4; s++) {
        BOTH_DIRECTIONS(down)
        {
            kit_pairs p;
            int ok = 0;
            if (kit_pairs_alloc_parts(&p, sizes[s], MODEL_PAIRS)) {
                fill_from(p.in_keys, p.n, bits, 8, seed_for(43, sizes[s]));
                char input[96];
                snprintf(input, sizeof input, "INT_MIN, INT_MAX, -1, 0, 1, ... repeated, seed=%llu",
                         (unsigned long long)seed_for(43, sizes[s]));
                ok = check_typed_keys(&p, input, TYPE_I32, down, 1);
            }
            kit_pairs_free(&p);
            if (!ok) {
                return;
            }
        }
    }
    FOR_EACH_DIST(dist)
    {
        BOTH_DIRECTIONS(down)
        {
            if (!check_typed(4097, dist, 44, TYPE_I32, down, 1)) {
                return;
            }
        }
    }
}

static void test_types_float_specials(void)
{
    const float chosen[] = {-0.0f,       0.0f,     INFINITY,     -INFINITY,     NAN,     -NAN,
                            FLT_MAX,     -FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, -FLT_MIN,
                            FLT_MIN / 2, 1.0f,     -1.0f,        0.5f};
    const size_t count = sizeof chosen / sizeof chosen[0];
    unsigned int bits[sizeof chosen / sizeof chosen[0]];
    for (size_t i = 0; i < count; i++) {
        bits[i] = kit_float_bits(chosen[i]);
    }
    const size_t sizes[] = {16, 33, 1025, 5000};
    for (size_t s = 0; s < 4; s++) {
        BOTH_DIRECTIONS(down)
        {
            kit_pairs p;
            int ok = 0;
            if (kit_pairs_alloc_parts(&p, sizes[s], MODEL_PAIRS)) {
                if (sizes[s] == count) {
                    memcpy(p.in_keys, bits, sizeof bits);
                } else {
                    fill_from(p.in_keys, p.n, bits, count, seed_for(45, sizes[s]));
                }
                char input[128];
                snprintf(input, sizeof input,
                         "-0.0, +0.0, +-inf, +-NaN, +-subnormals, +-FLT_MAX ..., seed=%llu",
                         (unsigned long long)seed_for(45, sizes[s]));
                ok = check_typed_keys(&p, input, TYPE_F32, down, 1);
            }
            kit_pairs_free(&p);
            if (!ok) {
                return;
            }
        }
    }
    FOR_EACH_DIST(dist)
    {
        BOTH_DIRECTIONS(down)
        {
            if (!check_typed(4097, dist, 46, TYPE_F32, down, 1)) {
                return;
            }
        }
    }
}

/* 2^24 ascending pairs, in three distributions (kit_large_dist()). */
static void test_types_large_pairs(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(2, k);
        if (!check_typed(big_sizes[2], dist, 47, TYPE_U32, 0, 1)) {
            return;
        }
    }
}

static void test_types_large_descending(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(3, k);
        if (!check_typed(big_sizes[2], dist, 48, TYPE_U32, 1, 1)) {
            return;
        }
    }
}

static void test_types_large_i32(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(1, k);
        if (!check_typed(big_sizes[2], dist, 49, TYPE_I32, dist % 2, 1)) {
            return;
        }
    }
}

static void test_types_large_f32(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(1, k);
        if (!check_typed(big_sizes[2], dist, 50, TYPE_F32, dist % 2, 1)) {
            return;
        }
    }
}

static void test_types_large_not_power_of_two(void)
{
    if (!check_typed(big_sizes[1], KIT_DIST_UNIFORM, 51, TYPE_U32, 0, 0)) {
        return;
    }
    check_typed(3 * ((size_t)1 << 22) + 5, KIT_DIST_FEW_UNIQUE, 51, TYPE_U32, 1, 1);
}

/* ---- 4.5 (bonus) single-pass scan with decoupled look-back -------------------------------------
 * The same checks as radix_scan's (check_scan with SCAN_LOOKBACK): the CPU's scan modulo 2^32,
 * in place and not. The sizes go around tiles of RADIX_LOOKBACK_TILE values and around windows
 * of 32 tiles (a warp looks back at 32 predecessors at once). */

static void test_lookback_quick(void)
{
    const size_t t = RADIX_LOOKBACK_TILE;
    if (!check_scan(1, KIT_DIST_UNIFORM, seed_for(60, 1), SCAN_LOOKBACK, 0) ||
        !check_scan(t + 1, KIT_DIST_UNIFORM, seed_for(60, t + 1), SCAN_LOOKBACK, 0)) {
        return;
    }
    check_scan(3 * t + 5, KIT_DIST_ZERO_ONE, seed_for(60, 3 * t + 5), SCAN_LOOKBACK, 1);
}

/* Every size of DESIGN.md, every kind of values, in place and not. */
static void test_lookback_sizes(void)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        for (size_t k = 0; k < SCAN_DIST_COUNT; k++) {
            for (int in_place = 0; in_place < 2; in_place++) {
                if (!check_scan(n, scan_dists[k], seed_for(61, n), SCAN_LOOKBACK, in_place)) {
                    return;
                }
            }
        }
    }
}

/* Around tiles (one, two, a partial last one) and windows of 32 tiles (the look-back's steps). */
static void test_lookback_tiles(void)
{
    const size_t t = RADIX_LOOKBACK_TILE;
    const size_t sizes[] = {t - 1,      t,      t + 1,      2 * t - 1,  2 * t + 1,
                            31 * t + 5, 32 * t, 33 * t + 1, 65 * t - 1, 100 * t + 7};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (!check_scan(sizes[s], KIT_DIST_UNIFORM, seed_for(62, sizes[s]), SCAN_LOOKBACK, 0) ||
            !check_scan(sizes[s], KIT_DIST_ALL_EQUAL, seed_for(62, sizes[s]), SCAN_LOOKBACK, 1) ||
            !check_scan(sizes[s], KIT_DIST_EXTREMES, seed_for(62, sizes[s]), SCAN_LOOKBACK, 0)) {
            return;
        }
    }
}

/* 2^24 + 1 values (a last tile of one value), and 2^24 - 3 extremes in place (sums wrap). */
static void test_lookback_large_2_24(void)
{
    size_t n = (size_t)1 << 24;
    if (!check_scan(n + 1, KIT_DIST_UNIFORM, 63, SCAN_LOOKBACK, 0)) {
        return;
    }
    check_scan(n - 3, KIT_DIST_EXTREMES, 63, SCAN_LOOKBACK, 1);
}

/* ---- 4.6 (bonus) onesweep radix sort ------------------------------------------------------------
 * Sorted, the same keys, and with values (each key's input position) every value with its key
 * and equal keys in input order: stable. */

/* Sorts (n, dist, seed) with the onesweep sort, pairs when *ctx (an int) is not 0. */
static int check_onesweep(size_t n, kit_dist dist, uint64_t seed, const void *ctx)
{
    int with_values = *(const int *)ctx;
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "%s(n=%zu, dist=%s, seed=%llu)",
             with_values ? "radix_sort_onesweep_pairs" : "radix_sort_onesweep_keys", n,
             kit_dist_name(dist), (unsigned long long)seed);
    if (!kit_pairs_alloc_parts(&p, n, with_values ? KIT_PAIRS_VALUES : 0)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = with_values ? radix_sort_onesweep_pairs(d.keys, d.values, n)
                                  : radix_sort_onesweep_keys(d.keys, n);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        kit_verdict v = with_values ? kit_verify_pairs_u32(p.in_keys, p.out_keys, p.out_values, n,
                                                           KIT_VERIFY_STABLE)
                                    : kit_verify_u32(p.in_keys, p.out_keys, n, 0);
        ok = v.status == KIT_VERIFY_OK;
        if (!ok) {
            KIT_FAIL("%s: %s", what, v.message);
        }
    }
done:
    kit_device_pairs_free(&d);
    kit_pairs_free(&p);
    return ok;
}

static const int onesweep_keys_only = 0, onesweep_pairs = 1;

static void test_onesweep_quick(void)
{
    const size_t t = RADIX_ONESWEEP_TILE;
    if (!check_onesweep(1000, KIT_DIST_FEW_UNIQUE, seed_for(70, 1000), &onesweep_pairs) ||
        !check_onesweep(t + 1, KIT_DIST_UNIFORM, seed_for(70, t + 1), &onesweep_keys_only)) {
        return;
    }
    check_onesweep(3 * t + 5, KIT_DIST_REVERSED, seed_for(70, 3 * t + 5), &onesweep_pairs);
}

/* Keys only: every size of DESIGN.md up to 2^20, every distribution. */
static void test_onesweep_keys(void)
{
    kit_check_sweep(check_onesweep, &onesweep_keys_only, 0, (size_t)1 << 20, NULL, 0, 71);
}

/* Pairs: every size of DESIGN.md, every distribution, stable. */
static void test_onesweep_pairs(void)
{
    kit_check_sweep(check_onesweep, &onesweep_pairs, 0, (size_t)1 << 22, NULL, 0, 72);
}

/* Around tiles and many tiles (look-back over long chains), keys alone and pairs (two
 * kernels), then the largest n refused. */
static void test_onesweep_tiles(void)
{
    const size_t t = RADIX_ONESWEEP_TILE;
    const size_t sizes[] = {t - 1, t, t + 1, 2 * t - 1, 3 * t + 1, 33 * t + 7, 300 * t + 11};
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_EXTREMES};
    const int *kinds[] = {&onesweep_keys_only, &onesweep_pairs};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t k = 0; k < 3; k++) {
            for (size_t kind = 0; kind < 2; kind++) {
                if (!check_onesweep(sizes[s], dists[k], seed_for(73, sizes[s]), kinds[kind])) {
                    return;
                }
            }
        }
    }
    /* Its words count in 30 bits: more keys are refused (checked once the sort works). */
    cudaError_t err = radix_sort_onesweep_keys(NULL, (size_t)RADIX_ONESWEEP_MAX_N + 1);
    if (err != cudaErrorInvalidValue) {
        KIT_FAIL("radix_sort_onesweep_keys(n=%zu) must return cudaErrorInvalidValue (more than "
                 "RADIX_ONESWEEP_MAX_N keys), got %s",
                 (size_t)RADIX_ONESWEEP_MAX_N + 1, cudaGetErrorName(err));
    }
}

/* 2^24 uniform keys, and 2^24 + 1 few-unique keys (a last tile of one key). */
/* Just past 2^18 keys, the most that one round of a grid-stride loop over 1024 blocks of 256
 * threads covers (the given histogram grid, ONESWEEP_HISTOGRAM_BLOCKS): its threads take a second
 * round here, and a stride that counts a key twice shows. The smallest n that reaches it, so
 * that the emulation (marked [emulate]) reaches it too. */
static void test_onesweep_past_one_grid(void)
{
    size_t n = ((size_t)1 << 18) + 2 * RADIX_ONESWEEP_TILE + 5;
    check_onesweep(n, KIT_DIST_UNIFORM, seed_for(76, n), &onesweep_keys_only);
}

static void test_onesweep_large_keys(void)
{
    size_t n = (size_t)1 << 24;
    if (!check_onesweep(n, KIT_DIST_UNIFORM, 74, &onesweep_keys_only)) {
        return;
    }
    check_onesweep(n + 1, KIT_DIST_FEW_UNIQUE, 74, &onesweep_keys_only);
}

/* 2^24 uniform pairs, and 2^24 - 3 pairs of extremes (long runs of equal keys: stability). */
static void test_onesweep_large_pairs(void)
{
    size_t n = (size_t)1 << 24;
    if (!check_onesweep(n, KIT_DIST_UNIFORM, 75, &onesweep_pairs)) {
        return;
    }
    check_onesweep(n - 3, KIT_DIST_EXTREMES, 75, &onesweep_pairs);
}

/* The quick tests are also the tests the CPU emulation runs (make emulate): every kernel and
 * every TODO, bonus tiers included, with inputs that take a second or less there. So are a few
 * more that take seconds there (KIT_TEST_EMULATE alone): one block at every size and the refusal
 * of more, a split by every bit, histograms at tile boundaries, the float specials; and the
 * look-back scan's tile boundaries, up to 100 tiles, so that in the emulation's random order,
 * where many blocks run at once, a look-back walks past windows of 32 tiles. */
#define QUICK_MARKS (KIT_TEST_SANITIZE | KIT_TEST_EMULATE)

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("4.0_references", 0);
    kit_add_test(s, "cpu_models", test_references);

    s = kit_add_suite("4.1_scan", 1);
    kit_add_marked_test(s, "quick", test_scan_quick, QUICK_MARKS);
    kit_add_marked_test(s, "one_block", test_scan_block, KIT_TEST_EMULATE);
    kit_add_test(s, "all_sizes", test_scan_sizes);
    kit_add_test(s, "levels_of_blocks", test_scan_levels);
    kit_add_marked_test(s, "two_levels", test_scan_two_levels, KIT_TEST_EMULATE);
    kit_add_test(s, "large_2_24", test_scan_large_2_24);
    kit_add_test(s, "large_2_26", test_scan_large_2_26);
    kit_add_test(s, "large_2_28", test_scan_large_2_28);

    s = kit_add_suite("4.2_split", 1);
    kit_add_marked_test(s, "quick", test_split_quick, QUICK_MARKS);
    kit_add_test(s, "split_sizes", test_split_sizes);
    kit_add_marked_test(s, "split_every_bit", test_split_every_bit, KIT_TEST_EMULATE);
    kit_add_test(s, "sort_by_32_splits", test_split_sort);
    kit_add_test(s, "large_2_24_split", test_split_large);

    s = kit_add_suite("4.3_digits", 1);
    kit_add_marked_test(s, "quick", test_digits_quick, QUICK_MARKS);
    kit_add_marked_test(s, "histograms", test_digits_histograms, KIT_TEST_EMULATE);
    kit_add_test(s, "tile_sort", test_digits_tiles);
    kit_add_test(s, "scatter", test_digits_scatter);
    kit_add_test(s, "every_pass", test_digits_every_pass);
    kit_add_test(s, "sort_all_sizes", test_digits_sort);
    kit_add_test(s, "pass_skipping", test_digits_pass_skipping);
    kit_add_test(s, "large_steps", test_digits_large_steps);
    kit_add_test(s, "large_2_24_sort", test_digits_large_sort);

    s = kit_add_suite("4.4_types_pairs", 1);
    kit_add_marked_test(s, "quick", test_types_quick, QUICK_MARKS);
    kit_add_test(s, "pairs_all_sizes", test_types_pairs);
    kit_add_test(s, "keys_only", test_types_keys_only);
    kit_add_test(s, "signed_extremes", test_types_signed_extremes);
    kit_add_marked_test(s, "float_specials", test_types_float_specials, KIT_TEST_EMULATE);
    kit_add_test(s, "large_2_24_pairs", test_types_large_pairs);
    kit_add_test(s, "large_2_24_descending", test_types_large_descending);
    kit_add_test(s, "large_2_24_i32", test_types_large_i32);
    kit_add_test(s, "large_2_24_f32", test_types_large_f32);
    kit_add_test(s, "large_not_power_of_two", test_types_large_not_power_of_two);

    s = kit_add_suite("4.5_lookback_scan", 1);
    kit_add_marked_test(s, "quick", test_lookback_quick, QUICK_MARKS);
    kit_add_test(s, "all_sizes", test_lookback_sizes);
    kit_add_marked_test(s, "tile_boundaries", test_lookback_tiles, KIT_TEST_EMULATE);
    kit_add_test(s, "large_2_24", test_lookback_large_2_24);

    s = kit_add_suite("4.6_onesweep", 1);
    kit_add_marked_test(s, "quick", test_onesweep_quick, QUICK_MARKS);
    kit_add_test(s, "keys_all_sizes", test_onesweep_keys);
    kit_add_test(s, "pairs_all_sizes", test_onesweep_pairs);
    kit_add_test(s, "tile_boundaries", test_onesweep_tiles);
    kit_add_marked_test(s, "past_one_grid", test_onesweep_past_one_grid, KIT_TEST_EMULATE);
    kit_add_test(s, "large_2_24_keys", test_onesweep_large_keys);
    kit_add_test(s, "large_2_24_pairs", test_onesweep_large_pairs);
}
