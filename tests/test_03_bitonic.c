/* GPU suites of Lab 03 (bitonic sort of key/value pairs): one suite per TODO, so each part of
 * the lab is tested on its own. Suite names are what the grader scores: 3.1_tiles,
 * 3.2_merge_global, 3.3_merge_shared, 3.4_sort, and the bonus 3.5_multistride (the sort of 3.4
 * with fewer passes: the same checks, through its own API; arrays whose n is not a power of
 * two also need 3.4's padding).
 *
 * Every input carries values that are the keys' positions in the input (0 .. n-1), so a
 * value names the key it must travel with: the checks find a value left behind by its key,
 * lost, or doubled. The tests of 3.2 and 3.3 prepare their input on the host (runs sorted by
 * the CPU, tiles made bitonic), so they need none of the other TODOs. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "cpu_sort.h"
#include "datagen.h"
#include "gpu_harness.h"
#include "runner.h"
#include "verify.h"

/* ---- what every suite shares --------------------------------------------------------------- */

static const char *direction_name(int descending)
{
    return descending ? "descending" : "ascending";
}

/* The verifier's flags for keys sorted in direction `descending`. */
static int direction_flags(int descending)
{
    return descending ? KIT_VERIFY_DESCENDING : 0;
}

/* The same schedule on the CPU: one step (size, stride) of a sort whose runs have `run` keys. */
static void cpu_step(unsigned int *keys, unsigned int *values, size_t n, size_t size, size_t stride,
                     size_t run, int descending)
{
    for (size_t c = 0; c < n / 2; c++) {
        size_t lo = bitonic_pair_low(c, stride), hi = lo + stride;
        if (hi >= n) {
            continue;
        }
        int down = bitonic_descending_at(lo, size, run, descending);
        if (down ? keys[lo] < keys[hi] : keys[lo] > keys[hi]) {
            unsigned int t = keys[lo];
            keys[lo] = keys[hi];
            keys[hi] = t;
            t = values[lo];
            values[lo] = values[hi];
            values[hi] = t;
        }
    }
}

/* Sorts keys[start .. start + len) on the CPU, ascending or descending. */
static void host_sort_range(unsigned int *keys, size_t start, size_t len, int descending)
{
    kit_cpu_radix_sort_u32(keys + start, len);
    for (size_t i = start, j = start + len - 1; descending && i < j; i++, j--) {
        unsigned int t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
    }
}

/* The input of stage `size`, as stage size / 2 leaves it: every run of size / 2 keys sorted
 * in its direction, so every run of `size` keys is a bitonic sequence. */
static void prepare_stage(unsigned int *keys, size_t n, size_t size, size_t run, int descending)
{
    size_t half = size / 2;
    for (size_t start = 0; half >= 2 && start < n; start += half) {
        host_sort_range(keys, start, half, bitonic_descending_at(start, half, run, descending));
    }
}

/* The input of the shared merge of stage `size` > BITONIC_TILE, as the global steps leave it:
 * every run of `size` keys in order tile by tile, and each tile a bitonic sequence: its keys,
 * in the run's order, each sent at random to a rising front or a falling back part. */
static int prepare_bitonic_tiles(unsigned int *keys, size_t n, size_t size, int descending,
                                 uint64_t seed)
{
    unsigned int *tile = malloc(BITONIC_TILE * sizeof *tile);
    if (!tile) {
        KIT_FAIL("test setup: out of host memory");
        return 0;
    }
    for (size_t start = 0; start < n; start += size) {
        host_sort_range(keys, start, size, bitonic_descending_at(start, size, n, descending));
    }
    kit_rng rng;
    kit_rng_seed(&rng, seed);
    for (size_t base = 0; base < n; base += BITONIC_TILE) {
        size_t front = 0, back = BITONIC_TILE;
        for (size_t i = 0; i < BITONIC_TILE; i++) {
            if (kit_rng_next(&rng) & 1) {
                tile[front++] = keys[base + i];
            } else {
                tile[--back] = keys[base + i];
            }
        }
        memcpy(keys + base, tile, BITONIC_TILE * sizeof *tile);
    }
    free(tile);
    return 1;
}

/* ---- 3.1 the tiles ------------------------------------------------------------------------- */

/* Sorts the tiles of (n, dist, seed) and checks each: tile t ascending when t is even, the
 * other way round when descending. */
static int check_tiles(size_t n, kit_dist dist, uint64_t seed, int descending, int with_values)
{
    kit_pairs p;
    kit_device_pairs d;
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "bitonic_sort_tiles(n=%zu, dist=%s, seed=%llu, %s%s)", n,
             kit_dist_name(dist), (unsigned long long)seed, direction_name(descending),
             with_values ? "" : ", keys only");
    if (!kit_pairs_alloc(&p, n)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = bitonic_sort_tiles(d.keys, d.values, n, descending);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        ok = 1;
        for (size_t t = 0; ok && t < n / BITONIC_TILE; t++) {
            char segment[48];
            snprintf(segment, sizeof segment, "tile %zu", t);
            int down = (t % 2 == 1) != (descending != 0);
            ok = kit_check_pairs_segment(what, segment, &p, with_values, t * BITONIC_TILE,
                                         BITONIC_TILE, direction_flags(down));
        }
    }
    kit_device_pairs_free(&d);
done:
    kit_pairs_free(&p);
    return ok;
}

static int check_tiles_sweep(const size_t *sizes, size_t count, const kit_dist *dists,
                             size_t dist_count, uint64_t seed)
{
    for (size_t s = 0; s < count; s++) {
        for (size_t k = 0; k < dist_count; k++) {
            BOTH_DIRECTIONS(down)
            {
                if (!check_tiles(sizes[s], dists[k], seed + sizes[s], down, 1)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static const kit_dist all_dists[] = {
    KIT_DIST_UNIFORM,       KIT_DIST_SORTED,     KIT_DIST_REVERSED,
    KIT_DIST_ALL_EQUAL,     KIT_DIST_FEW_UNIQUE, KIT_DIST_ZERO_ONE,
    KIT_DIST_NEARLY_SORTED, KIT_DIST_ORGAN_PIPE, KIT_DIST_EXTREMES,
};
#define ALL_DISTS all_dists, sizeof all_dists / sizeof all_dists[0]
/* A few that tell a lot: random, many duplicates, and the type's extremes. */
static const kit_dist few_dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_EXTREMES};
#define FEW_DISTS few_dists, sizeof few_dists / sizeof few_dists[0]
/* The quick tests' inputs: random, one that moves every key, many duplicates. */
static const kit_dist quick_dists[] = {KIT_DIST_UNIFORM, KIT_DIST_REVERSED, KIT_DIST_FEW_UNIQUE};

/* Few inputs, every kernel path (one and two tiles, both directions, with and without
 * values): the test compute-sanitizer runs (make gpu-check, grading/grade --sanitize). */
static void test_tiles_quick(void)
{
    for (size_t k = 0; k < sizeof quick_dists / sizeof quick_dists[0]; k++) {
        if (!check_tiles(BITONIC_TILE, quick_dists[k], 30, 0, 1) ||
            !check_tiles(2 * BITONIC_TILE, quick_dists[k], 30, 1, 1)) {
            return;
        }
    }
    check_tiles(2 * BITONIC_TILE, KIT_DIST_UNIFORM, 30, 0, 0);
}

static void test_tiles_one_and_two(void)
{
    const size_t sizes[] = {BITONIC_TILE, 2 * BITONIC_TILE};
    check_tiles_sweep(sizes, 2, ALL_DISTS, 31);
}

static void test_tiles_many(void)
{
    const size_t sizes[] = {3 * BITONIC_TILE, 16 * BITONIC_TILE, 1u << 20};
    if (!check_tiles_sweep(sizes, 3, ALL_DISTS, 32)) {
        return;
    }
    /* Wrong sizes are refused (checked only once the tiles sort: the skeleton passes none). */
    unsigned int *d_keys = NULL;
    if (cudaMalloc((void **)&d_keys, 3000 * sizeof *d_keys) == cudaSuccess) {
        cudaError_t err = bitonic_sort_tiles(d_keys, NULL, 3000, 0);
        if (err != cudaErrorInvalidValue) {
            KIT_FAIL("bitonic_sort_tiles(n=3000) must return cudaErrorInvalidValue (n is not a "
                     "multiple of BITONIC_TILE), got %s",
                     cudaGetErrorName(err));
        }
        cudaFree(d_keys);
    }
}

static void test_tiles_keys_only(void)
{
    FOR_EACH_DIST(dist)
    {
        BOTH_DIRECTIONS(down)
        {
            if (!check_tiles(4 * BITONIC_TILE, dist, 33, down, 0)) {
                return;
            }
        }
    }
}

static void test_tiles_large(void)
{
    const size_t sizes[] = {(size_t)1 << 24};
    check_tiles_sweep(sizes, 1, FEW_DISTS, 34);
}

/* ---- 3.2 a step over global memory -------------------------------------------------------- */

/* Stage `size` of a sort of n keys, on input prepared by the host (each run of size / 2
 * sorted in its direction): the steps of stride size / 2 down to `last_stride` run one at a
 * time through bitonic_merge_global and each result is compared with the same step on the
 * CPU (the keys exactly; the values must stay with their keys). When size >= n (the last
 * stage), the CPU then does the steps left, and the array must be sorted. */
static int check_global_steps(size_t n, size_t size, size_t last_stride, kit_dist dist,
                              uint64_t seed, int descending, int with_values)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    unsigned int *cpu_keys = malloc((n ? n : 1) * sizeof *cpu_keys);
    unsigned int *cpu_values = malloc((n ? n : 1) * sizeof *cpu_values);
    int ok = 0;
    char what[240];
    if (!kit_pairs_alloc(&p, n) || !cpu_keys || !cpu_values) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    prepare_stage(p.in_keys, n, size, n, descending);
    memcpy(cpu_keys, p.in_keys, n * sizeof *cpu_keys);
    memcpy(cpu_values, p.in_values, n * sizeof *cpu_values);
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    ok = 1;
    for (size_t stride = size / 2; ok && stride >= last_stride; stride /= 2) {
        snprintf(what, sizeof what,
                 "bitonic_merge_global(n=%zu, size=%zu, stride=%zu, %s%s) on dist=%s, seed=%llu "
                 "with every run of %zu keys sorted first",
                 n, size, stride, direction_name(descending), with_values ? "" : ", keys only",
                 kit_dist_name(dist), (unsigned long long)seed, size / 2);
        cudaError_t err = bitonic_merge_global(d.keys, d.values, n, size, stride, descending);
        if (err != cudaSuccess) {
            kit_fail_call(what, err);
            ok = 0;
            break;
        }
        if (!kit_device_pairs_download(what, &d, &p)) {
            ok = 0;
            break;
        }
        cpu_step(cpu_keys, cpu_values, n, size, stride, n, descending);
        for (size_t i = 0; i < n; i++) {
            if (p.out_keys[i] != cpu_keys[i]) {
                size_t c_lo = i & ~stride; /* the comparator's lower key */
                KIT_FAIL("%s: keys[%zu] should be %u after this step, got %u (its comparator "
                         "pairs keys %zu and %zu, %s)",
                         what, i, cpu_keys[i], p.out_keys[i], c_lo, c_lo + stride,
                         bitonic_descending_at(c_lo, size, n, descending) ? "larger first"
                                                                          : "smaller first");
                ok = 0;
                break;
            }
        }
        if (ok && with_values) {
            ok = kit_check_pairs_attached(what, &p);
        }
    }
    if (ok && size >= n) {
        /* The last stage: the CPU does the small strides, and the array must be sorted. */
        if (!with_values) {
            memcpy(p.out_values, p.in_values, n * sizeof *p.out_values); /* not checked */
        }
        for (size_t stride = last_stride / 2; stride > 0; stride /= 2) {
            cpu_step(p.out_keys, p.out_values, n, size, stride, n, descending);
        }
        snprintf(what, sizeof what,
                 "bitonic_merge_global(n=%zu, size=%zu, strides %zu..%zu, %s%s) on dist=%s, "
                 "seed=%llu, the smaller strides done by the CPU",
                 n, size, size / 2, last_stride, direction_name(descending),
                 with_values ? "" : ", keys only", kit_dist_name(dist), (unsigned long long)seed);
        ok = kit_check_pairs_segment(what, "", &p, with_values, 0, n, direction_flags(descending));
    }
    kit_device_pairs_free(&d);
done:
    kit_pairs_free(&p);
    free(cpu_keys);
    free(cpu_values);
    return ok;
}

/* The last stage of a sort of n = 2^k keys, strides n/2 down to the tile, every dist, both
 * directions. */
static int check_last_stage_sweep(const size_t *sizes, size_t count, const kit_dist *dists,
                                  size_t dist_count, uint64_t seed)
{
    for (size_t s = 0; s < count; s++) {
        for (size_t k = 0; k < dist_count; k++) {
            BOTH_DIRECTIONS(down)
            {
                if (!check_global_steps(sizes[s], sizes[s], BITONIC_TILE, dists[k], seed + sizes[s],
                                        down, 1)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void test_global_quick(void)
{
    for (size_t k = 0; k < sizeof quick_dists / sizeof quick_dists[0]; k++) {
        if (!check_global_steps(2 * BITONIC_TILE, 2 * BITONIC_TILE, BITONIC_TILE, quick_dists[k],
                                40, (int)(k % 2), 1)) {
            return;
        }
    }
    /* Small strides, runs alternating, keys only. */
    check_global_steps(64, 64, 1, KIT_DIST_UNIFORM, 40, 1, 0);
    check_global_steps(64, 16, 1, KIT_DIST_UNIFORM, 40, 0, 1);
}

static void test_global_one_step(void)
{
    const size_t sizes[] = {2 * BITONIC_TILE};
    check_last_stage_sweep(sizes, 1, ALL_DISTS, 41);
}

/* The whole network as global steps only (any stride works): every stage of n = 2 .. 1024. */
static void test_global_whole_network_small(void)
{
    for (size_t n = 2; n <= 1024; n *= 2) {
        FOR_EACH_DIST(dist)
        {
            BOTH_DIRECTIONS(down)
            {
                for (size_t size = 2; size <= n; size *= 2) {
                    if (!check_global_steps(n, size, 1, dist, 42 + n, down, 1)) {
                        return;
                    }
                }
            }
        }
    }
}

static void test_global_last_stages(void)
{
    const size_t sizes[] = {(size_t)1 << 13, (size_t)1 << 16, (size_t)1 << 20};
    if (!check_last_stage_sweep(sizes, 3, ALL_DISTS, 43)) {
        return;
    }
    /* Wrong steps are refused (checked only once the steps work: the skeleton passes none). */
    unsigned int *d_keys = NULL;
    if (cudaMalloc((void **)&d_keys, 8192 * sizeof *d_keys) == cudaSuccess) {
        const size_t bad[][3] = {{8192, 4096, 3000}, {8192, 4096, 4096}, {6144, 8192, 4096}};
        for (int b = 0; b < 3; b++) {
            cudaError_t err =
                bitonic_merge_global(d_keys, NULL, bad[b][0], bad[b][1], bad[b][2], 0);
            if (err != cudaErrorInvalidValue) {
                KIT_FAIL("bitonic_merge_global(n=%zu, size=%zu, stride=%zu) must return "
                         "cudaErrorInvalidValue, got %s",
                         bad[b][0], bad[b][1], bad[b][2], cudaGetErrorName(err));
            }
        }
        cudaFree(d_keys);
    }
}

/* Stages below the last: the runs of `size` alternate directions within one step. */
static void test_global_alternating_runs(void)
{
    const size_t n = (size_t)1 << 16;
    for (size_t size = 2 * BITONIC_TILE; size < n; size *= 2) {
        FOR_EACH_DIST(dist)
        {
            BOTH_DIRECTIONS(down)
            {
                if (!check_global_steps(n, size, BITONIC_TILE, dist, 44, down, 1)) {
                    return;
                }
            }
        }
    }
}

static void test_global_keys_only(void)
{
    FOR_EACH_DIST(dist)
    {
        BOTH_DIRECTIONS(down)
        {
            if (!check_global_steps(8 * BITONIC_TILE, 8 * BITONIC_TILE, BITONIC_TILE, dist, 45,
                                    down, 0) ||
                !check_global_steps(4 * BITONIC_TILE, 2 * BITONIC_TILE, BITONIC_TILE, dist, 46,
                                    down, 0)) {
                return;
            }
        }
    }
}

/* 2^24 keys: each step downloaded and checked, so a few inputs only (about 4 s each). */
static void test_global_large(void)
{
    /* Each direction once at 2^24 (every step of the last stage checked against the CPU's):
     * the distributions are tested at the smaller sizes. */
    const size_t n = (size_t)1 << 24;
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_EXTREMES};
    for (int k = 0; k < 2; k++) {
        if (!check_global_steps(n, n, BITONIC_TILE, dists[k], 47 + k, k % 2, 1)) {
            return;
        }
    }
}

/* ---- 3.3 the shared merge ------------------------------------------------------------------ */

/* bitonic_merge_shared(size) on input prepared by the host: for size > BITONIC_TILE, each run
 * sorted and each tile made bitonic (what the global steps leave); for smaller sizes, each
 * run of size / 2 sorted (what stage size / 2 leaves). Every run of `size` keys (or the whole
 * array, when size >= n) must come out sorted in its direction. */
static int check_shared_merge(size_t n, size_t size, kit_dist dist, uint64_t seed, int descending,
                              int with_values)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what,
             "bitonic_merge_shared(n=%zu, size=%zu, %s%s) on dist=%s, seed=%llu with %s", n, size,
             direction_name(descending), with_values ? "" : ", keys only", kit_dist_name(dist),
             (unsigned long long)seed,
             size > BITONIC_TILE ? "each tile made bitonic first"
                                 : "every run of size/2 keys sorted first");
    if (!kit_pairs_alloc(&p, n)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (size > BITONIC_TILE) {
        if (!prepare_bitonic_tiles(p.in_keys, n, size, descending, seed)) {
            goto done;
        }
    } else {
        prepare_stage(p.in_keys, n, size, n, descending);
    }
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = bitonic_merge_shared(d.keys, d.values, n, size, descending);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        size_t run = size < n ? size : n;
        ok = 1;
        for (size_t start = 0; ok && start < n; start += run) {
            char segment[48];
            snprintf(segment, sizeof segment, "run %zu", start / run);
            ok = kit_check_pairs_segment(
                what, segment, &p, with_values, start, run,
                direction_flags(bitonic_descending_at(start, size, n, descending)));
        }
    }
    kit_device_pairs_free(&d);
done:
    kit_pairs_free(&p);
    return ok;
}

static int check_shared_sweep(const size_t *sizes, size_t count, const kit_dist *dists,
                              size_t dist_count, uint64_t seed)
{
    for (size_t s = 0; s < count; s++) {
        for (size_t k = 0; k < dist_count; k++) {
            BOTH_DIRECTIONS(down)
            {
                if (!check_shared_merge(sizes[s], sizes[s], dists[k], seed + sizes[s], down, 1)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

static void test_shared_quick(void)
{
    for (size_t k = 0; k < sizeof quick_dists / sizeof quick_dists[0]; k++) {
        if (!check_shared_merge(2 * BITONIC_TILE, 2 * BITONIC_TILE, quick_dists[k], 50,
                                (int)(k % 2), 1)) {
            return;
        }
    }
    /* A stage inside the tiles (runs alternating), keys only. */
    check_shared_merge(2 * BITONIC_TILE, 256, KIT_DIST_UNIFORM, 50, 1, 0);
}

static void test_shared_two_tiles(void)
{
    const size_t sizes[] = {2 * BITONIC_TILE};
    check_shared_sweep(sizes, 1, ALL_DISTS, 51);
}

/* Sizes up to the tile: the whole stage happens inside tiles, runs alternating within one. */
static void test_shared_stages_inside_a_tile(void)
{
    for (size_t size = 2; size <= BITONIC_TILE; size *= 2) {
        for (size_t k = 0; k < sizeof few_dists / sizeof few_dists[0]; k++) {
            BOTH_DIRECTIONS(down)
            {
                if (!check_shared_merge(BITONIC_TILE, size, few_dists[k], 52, down, 1)) {
                    return;
                }
            }
        }
    }
}

static void test_shared_last_stages(void)
{
    const size_t sizes[] = {(size_t)1 << 13, (size_t)1 << 16, (size_t)1 << 20};
    if (!check_shared_sweep(sizes, 3, ALL_DISTS, 53)) {
        return;
    }
    /* Wrong sizes are refused (checked only once the merge works: the skeleton passes none). */
    unsigned int *d_keys = NULL;
    if (cudaMalloc((void **)&d_keys, 8192 * sizeof *d_keys) == cudaSuccess) {
        const size_t bad[][2] = {{3000, 4096}, {8192, 3000}, {8192, 1}};
        for (int b = 0; b < 3; b++) {
            cudaError_t err = bitonic_merge_shared(d_keys, NULL, bad[b][0], bad[b][1], 0);
            if (err != cudaErrorInvalidValue) {
                KIT_FAIL("bitonic_merge_shared(n=%zu, size=%zu) must return "
                         "cudaErrorInvalidValue, got %s",
                         bad[b][0], bad[b][1], cudaGetErrorName(err));
            }
        }
        cudaFree(d_keys);
    }
}

static void test_shared_alternating_runs(void)
{
    const size_t n = (size_t)1 << 16;
    for (size_t size = 2; size < n; size *= 2) {
        FOR_EACH_DIST(dist)
        {
            BOTH_DIRECTIONS(down)
            {
                if (!check_shared_merge(n, size, dist, 54, down, 1)) {
                    return;
                }
            }
        }
    }
}

static void test_shared_keys_only(void)
{
    FOR_EACH_DIST(dist)
    {
        BOTH_DIRECTIONS(down)
        {
            if (!check_shared_merge(4 * BITONIC_TILE, 4 * BITONIC_TILE, dist, 55, down, 0) ||
                !check_shared_merge(4 * BITONIC_TILE, 256, dist, 56, down, 0)) {
                return;
            }
        }
    }
}

static void test_shared_large(void)
{
    const size_t sizes[] = {(size_t)1 << 24};
    check_shared_sweep(sizes, 1, FEW_DISTS, 57);
}

/* ---- 3.4 the sort ---------------------------------------------------------------------------- */

/* The whole sort a test calls: the graded one (3.4) or the multistride bonus (3.5), which take
 * the same arguments and must give the same results. */
typedef struct {
    const char *pairs_name, *keys_name, *batch_name;
    cudaError_t (*pairs)(unsigned int *d_keys, unsigned int *d_values, size_t n, int descending);
    cudaError_t (*keys)(unsigned int *d_keys, size_t n, int descending);
    cudaError_t (*batch)(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t count,
                         int descending);
} sort_api;

static const sort_api GRADED = {"bitonic_sort_pairs", "bitonic_sort_keys", "bitonic_sort_batch",
                                bitonic_sort_pairs,   bitonic_sort_keys,   bitonic_sort_batch};

/* Sorts p->in_keys (and values 0..n-1) with api's pairs sort, or its keys sort when
 * !with_values, and checks the result. `input` describes the input for the message. */
static int check_sort_input(const sort_api *api, kit_pairs *p, const char *input, int descending,
                            int with_values)
{
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what, "%s(n=%zu, %s, %s)", with_values ? api->pairs_name : api->keys_name,
             p->n, input, direction_name(descending));
    if (!kit_device_pairs_upload(&d, p, with_values)) {
        return 0;
    }
    cudaError_t err = with_values ? api->pairs(d.keys, d.values, p->n, descending)
                                  : api->keys(d.keys, p->n, descending);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, p)) {
        ok =
            kit_check_pairs_segment(what, "", p, with_values, 0, p->n, direction_flags(descending));
    }
    kit_device_pairs_free(&d);
    return ok;
}

static int check_sort(const sort_api *api, size_t n, kit_dist dist, uint64_t seed, int descending,
                      int with_values)
{
    kit_pairs p;
    int ok = 0;
    if (kit_pairs_alloc(&p, n)) {
        char input[96];
        snprintf(input, sizeof input, "dist=%s, seed=%llu", kit_dist_name(dist),
                 (unsigned long long)seed);
        kit_generate_u32(p.in_keys, n, dist, seed);
        ok = check_sort_input(api, &p, input, descending, with_values);
    }
    kit_pairs_free(&p);
    return ok;
}

/* What a sweep of check_sort_case() sorts with: which sort, and whether with values. */
typedef struct {
    const sort_api *api;
    int with_values;
} sort_case;

/* check_sort() both ways, as a check of kit_check_sweep(): ctx points to a sort_case. */
static int check_sort_case(size_t n, kit_dist dist, uint64_t seed, const void *ctx)
{
    const sort_case *c = ctx;
    BOTH_DIRECTIONS(down)
    {
        if (!check_sort(c->api, n, dist, seed, down, c->with_values)) {
            return 0;
        }
    }
    return 1;
}

static const sort_case GRADED_PAIRS = {&GRADED, 1}, GRADED_KEYS = {&GRADED, 0};

/* Sorts `count` arrays of n keys in one call; values are positions within each array, and
 * each array is checked against its own snapshot. */
static int check_batch(const sort_api *api, const unsigned int *keys, size_t n, size_t count,
                       int descending, const char *input)
{
    size_t total = n * count;
    unsigned int *values = malloc((total ? total : 1) * sizeof *values);
    unsigned int *out_keys = malloc((total ? total : 1) * sizeof *out_keys);
    unsigned int *out_values = malloc((total ? total : 1) * sizeof *out_values);
    unsigned int *d_keys = NULL, *d_values = NULL;
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what, "%s(n=%zu, count=%zu, %s), %s", api->batch_name, n, count,
             direction_name(descending), input);
    if (!values || !out_keys || !out_values) {
        KIT_FAIL("test setup: out of host memory for %zu keys", total);
        goto done;
    }
    for (size_t i = 0; i < total; i++) {
        values[i] = (unsigned int)(i % n);
    }
    d_keys = kit_device_copy(keys, total);
    d_values = d_keys ? kit_device_copy(values, total) : NULL;
    if (!d_values) {
        goto done;
    }
    cudaError_t err = api->batch(d_keys, d_values, n, count, descending);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
        goto done;
    }
    if (!kit_device_fetch_free(d_keys, out_keys, total)) {
        d_keys = NULL;
        goto done;
    }
    d_keys = NULL;
    if (!kit_device_fetch_free(d_values, out_values, total)) {
        d_values = NULL;
        goto done;
    }
    d_values = NULL;
    ok = 1;
    for (size_t b = 0; b < count && ok; b++) {
        kit_verdict v = kit_verify_pairs_u32(keys + b * n, out_keys + b * n, out_values + b * n, n,
                                             descending ? KIT_VERIFY_DESCENDING : 0);
        if (v.status != KIT_VERIFY_OK) {
            KIT_FAIL("%s: array %zu (values are positions within the array): %s", what, b,
                     v.message);
            ok = 0;
        }
    }
done:
    cudaDeviceSynchronize();
    cudaFree(d_keys);
    cudaFree(d_values);
    free(values);
    free(out_keys);
    free(out_values);
    return ok;
}

/* Batches in each of the distributions given: array b of a batch gets seed + b, so the arrays
 * differ. */
static int check_batch_shapes(const sort_api *api, const size_t (*shapes)[2], size_t shape_count,
                              const kit_dist *dists, size_t dist_count, uint64_t seed)
{
    for (size_t s = 0; s < shape_count; s++) {
        size_t n = shapes[s][0], count = shapes[s][1], total = n * count;
        unsigned int *keys = malloc((total > 0 ? total : 1) * sizeof *keys);
        if (!keys) {
            KIT_FAIL("test setup: out of host memory for %zu keys", n * count);
            return 0;
        }
        for (size_t d = 0; d < dist_count; d++) {
            kit_dist dist = dists[d];
            for (size_t b = 0; b < count; b++) {
                kit_generate_u32(keys + b * n, n, dist, seed + b);
            }
            char input[96];
            snprintf(input, sizeof input, "dist=%s, seeds %llu..%llu", kit_dist_name(dist),
                     (unsigned long long)seed, (unsigned long long)(seed + count - 1));
            BOTH_DIRECTIONS(down)
            {
                if (!check_batch(api, keys, n, count, down, input)) {
                    free(keys);
                    return 0;
                }
            }
        }
        free(keys);
    }
    return 1;
}

/* Small inputs that still reach every kernel: n = 3000 pads to 4096, which is two tiles, a
 * global step, a shared merge, and the sentinel fix-up (the extremes hold UINT_MAX and 0);
 * 4096 needs no padding; 33 fits in one partial tile. */
static void test_sort_quick(void)
{
    const size_t sizes[] = {3000, 33, 2, 1, 0};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        BOTH_DIRECTIONS(down)
        {
            if (!check_sort(&GRADED, sizes[s], KIT_DIST_EXTREMES, 61, down, 1)) {
                return;
            }
        }
    }
    if (!check_sort(&GRADED, 2 * BITONIC_TILE, KIT_DIST_REVERSED, 61, 0, 1) ||
        !check_sort(&GRADED, 100, KIT_DIST_FEW_UNIQUE, 61, 1, 0)) {
        return;
    }
    const size_t shapes[][2] = {{5, 7}};
    unsigned int keys[35];
    kit_generate_u32(keys, 35, KIT_DIST_EXTREMES, 62);
    BOTH_DIRECTIONS(down)
    {
        if (!check_batch(&GRADED, keys, shapes[0][0], shapes[0][1], down,
                         "dist=extremes, seed=62")) {
            return;
        }
    }
}

static void test_sort_small_sizes(void)
{
    kit_check_sweep(check_sort_case, &GRADED_PAIRS, 0, 4097, NULL, 0, 63);
}

static void test_sort_keys_only(void)
{
    const size_t extra[] = {(size_t)1 << 20, 1000003};
    kit_check_sweep(check_sort_case, &GRADED_KEYS, 0, 65536, extra, 2, 64);
}

static void test_sort_medium_sizes(void)
{
    const size_t extra[] = {100000, 3 * BITONIC_TILE + 1};
    kit_check_sweep(check_sort_case, &GRADED_PAIRS, 4098, (size_t)1 << 22, extra, 2, 65);
}

/* Real keys equal to the sentinel (UINT_MAX ascending, 0 descending), beside the padding:
 * no padding value may come out, and every real value must. */
static void check_sentinel_keys(const sort_api *api)
{
    const size_t sizes[] = {3, 1000, 2049, 5000, 70001, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        kit_pairs p;
        if (!kit_pairs_alloc(&p, n)) {
            kit_pairs_free(&p);
            return;
        }
        /* Every key the sentinel, then every other one, then one in a hundred. */
        const unsigned every[] = {1, 2, 100};
        for (int k = 0; k < 3; k++) {
            BOTH_DIRECTIONS(down)
            {
                unsigned int sentinel = down ? 0u : UINT_MAX;
                kit_rng rng;
                kit_rng_seed(&rng, 66 + n);
                for (size_t i = 0; i < n; i++) {
                    unsigned int other = (unsigned int)(kit_rng_next(&rng) >> 33) + 1u;
                    p.in_keys[i] = i % every[k] == 0 ? sentinel : other;
                }
                char input[96];
                snprintf(input, sizeof input, "keys: %s %s (the sentinel), the others random",
                         every[k] == 1 ? "all" : (every[k] == 2 ? "every 2nd" : "every 100th"),
                         down ? "0" : "UINT_MAX");
                if (!check_sort_input(api, &p, input, down, 1)) {
                    kit_pairs_free(&p);
                    return;
                }
            }
        }
        kit_pairs_free(&p);
    }
}

static void test_sort_sentinel_keys(void)
{
    check_sentinel_keys(&GRADED);
}

static void test_sort_batches(void)
{
    const size_t shapes[][2] = {{1, 10},   {2, 1000},  {3, 1000},  {7, 513},  {20, 4096},
                                {33, 300}, {1000, 50}, {2048, 40}, {2049, 8}, {4096, 5},
                                {5000, 6}, {65536, 4}, {100000, 3}};
    check_batch_shapes(&GRADED, shapes, sizeof shapes / sizeof shapes[0], ALL_DISTS, 1000);
}

/* The 0-1 principle: a comparator network that sorts every 0/1 input sorts every input. For
 * each n <= 20 all 2^n inputs go to the GPU as one batch of 2^n arrays. */
static void check_zero_one(const sort_api *api, int descending)
{
    for (size_t n = 1; n <= 20; n++) {
        size_t count = (size_t)1 << n;
        unsigned int *keys = malloc(n * count * sizeof *keys);
        if (!keys) {
            KIT_FAIL("test setup: out of host memory for n = %zu", n);
            return;
        }
        for (size_t b = 0; b < count; b++) {
            for (size_t i = 0; i < n; i++) {
                keys[b * n + i] = (unsigned int)(b >> i) & 1u; /* bit i of b */
            }
        }
        char input[64];
        snprintf(input, sizeof input, "every 0/1 input of n=%zu (array b holds the bits of b)", n);
        int ok = check_batch(api, keys, n, count, descending, input);
        free(keys);
        if (!ok) {
            return;
        }
    }
}

static void test_sort_zero_one_ascending(void)
{
    check_zero_one(&GRADED, 0);
}

static void test_sort_zero_one_descending(void)
{
    check_zero_one(&GRADED, 1);
}

static void test_sort_large_ascending(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(0, k);
        if (!check_sort(&GRADED, (size_t)1 << 24, dist, 67, 0, 1)) {
            return;
        }
    }
}

static void test_sort_large_descending(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        kit_dist dist = kit_large_dist(1, k);
        if (!check_sort(&GRADED, (size_t)1 << 24, dist, 67, 1, 1)) {
            return;
        }
    }
}

static void test_sort_large_not_power_of_two(void)
{
    const size_t n = 3 * ((size_t)1 << 22) + 5; /* pads to 2^24 */
    for (size_t k = 0; k < sizeof few_dists / sizeof few_dists[0]; k++) {
        BOTH_DIRECTIONS(down)
        {
            if (!check_sort(&GRADED, n, few_dists[k], 68, down, 1)) {
                return;
            }
        }
    }
}

static void test_sort_large_batches(void)
{
    /* Every distribution is sorted in batches by test_sort_batches; here the size is tested. */
    const size_t shapes[][2] = {{(size_t)1 << 20, 8}, {((size_t)1 << 20) + 1, 3}};
    check_batch_shapes(&GRADED, shapes, 2, FEW_DISTS, 2000);
}

/* ---- 3.5 (bonus) the multistride sort ---------------------------------------------------- */

/* The same checks as 3.4's, through the multistride sort's API. */
static const sort_api MULTISTRIDE = {
    "bitonic_sort_multistride_pairs", "bitonic_sort_multistride_keys",
    "bitonic_sort_multistride_batch", bitonic_sort_multistride_pairs,
    bitonic_sort_multistride_keys,    bitonic_sort_multistride_batch};
static const sort_case MULTISTRIDE_PAIRS = {&MULTISTRIDE, 1}, MULTISTRIDE_KEYS = {&MULTISTRIDE, 0};

/* Small inputs that still reach every kernel of 3.5, with and without values: 4 tiles of
 * BITONIC_MS_TILE keys take the tile sort, a global pass of one step (stage 8192), one of two
 * steps (stage 16384: strides 8192 and 4096) and two tile merges; 3000 pads to one tile (and
 * the extremes hold the sentinels); 33 is one partial tile; a batch of 7 arrays of 5. The test
 * compute-sanitizer runs. */
static void test_multistride_quick(void)
{
    const size_t sizes[] = {3000, 33, 2, 1, 0};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        BOTH_DIRECTIONS(down)
        {
            if (!check_sort(&MULTISTRIDE, sizes[s], KIT_DIST_EXTREMES, 71, down, 1)) {
                return;
            }
        }
    }
    if (!check_sort(&MULTISTRIDE, 4 * BITONIC_MS_TILE, KIT_DIST_REVERSED, 71, 0, 1) ||
        !check_sort(&MULTISTRIDE, 4 * BITONIC_MS_TILE, KIT_DIST_UNIFORM, 71, 1, 0) ||
        !check_sort(&MULTISTRIDE, 3000, KIT_DIST_FEW_UNIQUE, 71, 1, 0)) {
        return;
    }
    unsigned int keys[35];
    kit_generate_u32(keys, 35, KIT_DIST_EXTREMES, 72);
    BOTH_DIRECTIONS(down)
    {
        if (!check_batch(&MULTISTRIDE, keys, 5, 7, down, "dist=extremes, seed=72")) {
            return;
        }
    }
}

/* Up to two tiles, and the edges of the first global passes. */
static void test_multistride_small_sizes(void)
{
    const size_t extra[] = {8191, 8192, 8193};
    kit_check_sweep(check_sort_case, &MULTISTRIDE_PAIRS, 0, 4097, extra, 3, 73);
}

/* Passes of every width, for the emulation (make emulate), where the medium sizes take minutes:
 * 65536 has stages whose strides above the tile go in passes of one, two, three and four
 * strides, and 2^17 + 3 (padded to 2^18) adds stage 2^17's five (a pass of four, then one of
 * one) and stage 2^18's six (four, then two), keys only, descending. */
static void test_multistride_every_pass_width(void)
{
    if (check_sort(&MULTISTRIDE, 65536, KIT_DIST_UNIFORM, 79, 0, 1)) {
        check_sort(&MULTISTRIDE, ((size_t)1 << 17) + 3, KIT_DIST_FEW_UNIQUE, 79, 1, 0);
    }
}

/* Every way the global strides of a stage split into passes of up to four: 9999 and 16384
 * (2 strides), 65536 (4), 2^17 + 3 (padded to 2^18: 5 = 4 + 1, then 6 = 4 + 2), 2^20 (8: 4 + 4),
 * 2^22 (10: 4 + 4 + 2). */
static void test_multistride_medium_sizes(void)
{
    const size_t extra[] = {3 * BITONIC_MS_TILE + 1, ((size_t)1 << 17) + 3};
    kit_check_sweep(check_sort_case, &MULTISTRIDE_PAIRS, 4098, (size_t)1 << 22, extra, 2, 74);
}

static void test_multistride_keys_only(void)
{
    const size_t extra[] = {(size_t)1 << 20, 1000003};
    kit_check_sweep(check_sort_case, &MULTISTRIDE_KEYS, 0, 65536, extra, 2, 75);
}

static void test_multistride_sentinel_keys(void)
{
    check_sentinel_keys(&MULTISTRIDE);
}

static void test_multistride_batches(void)
{
    const size_t shapes[][2] = {{1, 10},   {2, 1000}, {3, 1000}, {7, 513},   {20, 4096}, {33, 300},
                                {2049, 8}, {4097, 5}, {8192, 4}, {65536, 4}, {100000, 3}};
    check_batch_shapes(&MULTISTRIDE, shapes, sizeof shapes / sizeof shapes[0], ALL_DISTS, 1100);
}

static void test_multistride_zero_one_ascending(void)
{
    check_zero_one(&MULTISTRIDE, 0);
}

static void test_multistride_zero_one_descending(void)
{
    check_zero_one(&MULTISTRIDE, 1);
}

/* 2^24: two sorts per test, other distributions than 3.4's large tests. */
static void test_multistride_large_pairs(void)
{
    if (check_sort(&MULTISTRIDE, (size_t)1 << 24, kit_large_dist(2, 0), 76, 0, 1)) {
        check_sort(&MULTISTRIDE, (size_t)1 << 24, kit_large_dist(2, 2), 76, 1, 1);
    }
}

static void test_multistride_large_keys(void)
{
    if (check_sort(&MULTISTRIDE, (size_t)1 << 24, kit_large_dist(3, 1), 77, 0, 0)) {
        check_sort(&MULTISTRIDE, (size_t)1 << 24, kit_large_dist(3, 2), 77, 1, 0);
    }
}

static void test_multistride_large_not_power_of_two(void)
{
    const size_t n = 3 * ((size_t)1 << 22) + 5; /* pads to 2^24 */
    if (check_sort(&MULTISTRIDE, n, KIT_DIST_UNIFORM, 78, 0, 1)) {
        check_sort(&MULTISTRIDE, n, KIT_DIST_EXTREMES, 78, 1, 1);
    }
}

/* The quick tests are also the tests the CPU emulation runs (make emulate), with the other
 * small ones that take it a few seconds at most: one and two tiles in every distribution, the
 * whole network of small n as global steps, the stages inside a tile, the sweeps of small sizes
 * of 3.4 and 3.5, and passes of every width of 3.5. */
#define QUICK_MARKS (KIT_TEST_SANITIZE | KIT_TEST_EMULATE)

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("3.1_tiles", 1);
    kit_add_marked_test(s, "quick", test_tiles_quick, QUICK_MARKS);
    kit_add_marked_test(s, "one_and_two_tiles", test_tiles_one_and_two, KIT_TEST_EMULATE);
    kit_add_test(s, "many_tiles", test_tiles_many);
    kit_add_test(s, "keys_only", test_tiles_keys_only);
    kit_add_test(s, "large_2_24", test_tiles_large);

    s = kit_add_suite("3.2_merge_global", 1);
    kit_add_marked_test(s, "quick", test_global_quick, QUICK_MARKS);
    kit_add_test(s, "one_step_two_tiles", test_global_one_step);
    kit_add_marked_test(s, "whole_network_small_n", test_global_whole_network_small,
                        KIT_TEST_EMULATE);
    kit_add_test(s, "last_stages", test_global_last_stages);
    kit_add_test(s, "alternating_runs", test_global_alternating_runs);
    kit_add_test(s, "keys_only", test_global_keys_only);
    kit_add_test(s, "large_2_24", test_global_large);

    s = kit_add_suite("3.3_merge_shared", 1);
    kit_add_marked_test(s, "quick", test_shared_quick, QUICK_MARKS);
    kit_add_test(s, "two_tiles", test_shared_two_tiles);
    kit_add_marked_test(s, "stages_inside_a_tile", test_shared_stages_inside_a_tile,
                        KIT_TEST_EMULATE);
    kit_add_test(s, "last_stages", test_shared_last_stages);
    kit_add_test(s, "alternating_runs", test_shared_alternating_runs);
    kit_add_test(s, "keys_only", test_shared_keys_only);
    kit_add_test(s, "large_2_24", test_shared_large);

    s = kit_add_suite("3.4_sort", 1);
    kit_add_marked_test(s, "quick", test_sort_quick, QUICK_MARKS);
    kit_add_marked_test(s, "small_sizes", test_sort_small_sizes, KIT_TEST_EMULATE);
    kit_add_test(s, "medium_sizes", test_sort_medium_sizes);
    kit_add_test(s, "keys_only", test_sort_keys_only);
    kit_add_test(s, "sentinel_keys", test_sort_sentinel_keys);
    kit_add_test(s, "batches", test_sort_batches);
    kit_add_test(s, "zero_one_principle_ascending", test_sort_zero_one_ascending);
    kit_add_test(s, "zero_one_principle_descending", test_sort_zero_one_descending);
    kit_add_test(s, "large_2_24_ascending", test_sort_large_ascending);
    kit_add_test(s, "large_2_24_descending", test_sort_large_descending);
    kit_add_test(s, "large_not_power_of_two", test_sort_large_not_power_of_two);
    kit_add_test(s, "large_batches", test_sort_large_batches);

    s = kit_add_suite("3.5_multistride", 1);
    kit_add_marked_test(s, "quick", test_multistride_quick, QUICK_MARKS);
    kit_add_marked_test(s, "small_sizes", test_multistride_small_sizes, KIT_TEST_EMULATE);
    kit_add_marked_test(s, "every_pass_width", test_multistride_every_pass_width, KIT_TEST_EMULATE);
    kit_add_test(s, "medium_sizes", test_multistride_medium_sizes);
    kit_add_test(s, "keys_only", test_multistride_keys_only);
    kit_add_test(s, "sentinel_keys", test_multistride_sentinel_keys);
    kit_add_test(s, "batches", test_multistride_batches);
    kit_add_test(s, "zero_one_principle_ascending", test_multistride_zero_one_ascending);
    kit_add_test(s, "zero_one_principle_descending", test_multistride_zero_one_descending);
    kit_add_test(s, "large_2_24_pairs", test_multistride_large_pairs);
    kit_add_test(s, "large_2_24_keys", test_multistride_large_keys);
    kit_add_test(s, "large_not_power_of_two", test_multistride_large_not_power_of_two);
}
