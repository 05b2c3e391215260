/* Suites of Lab 02 (stable merge sort in three tiers): one suite per TODO, so each part of the
 * lab is tested on its own. Suite names are what the grader scores: 2.1_thread_per_merge,
 * 2.2_block_per_merge, 2.3_co_rank_host (on the CPU: no GPU needed), 2.3_merge_path, 2.4_sort,
 * and the bonus 2.6_register_merge (the sort with its merges in registers). The bonus 2.5 (a
 * host array sorted over streams) is not graded: its suite 2.5_streams runs where the test binary
 * holds the lab's own code (a GPU build, make emulate), not in the grader's (see below).
 *
 * Every input carries values that are the keys' positions in the input (0 .. n-1), so a value
 * names the key it must travel with, and stability is checked everywhere: equal keys must come
 * out with their values in increasing order. The tests of one pass (2.1, 2.2, 2.3) prepare
 * their input on the host (runs of `width` keys sorted by the CPU), so they need none of the
 * other TODOs; a pass's destination starts filled with a pattern, so a key it forgets shows. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sort.h"
#include "datagen.h"
#include "gpu_harness.h"
#include "merge_path_ref.h"
#include "mergesort.h"
#include "runner.h"
#include "verify.h"

/* A few that tell a lot: random, many duplicates (where stability bites), all equal. */
static const kit_dist few_dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_ALL_EQUAL};
#define FEW_DIST_COUNT (sizeof few_dists / sizeof few_dists[0])

/* ---- one pass of one tier, on runs prepared by the host ------------------------------------ */

/* A tier's pass, as the API gives it. */
typedef cudaError_t (*pass_fn)(const unsigned int *, const unsigned int *, unsigned int *,
                               unsigned int *, size_t, size_t);

typedef struct {
    pass_fn pass;
    const char *function; /* "mergesort_pass_thread" */
    const char *tier;     /* "tier 2.1, one thread per merge" */
} tier;

static const tier thread_tier = {mergesort_pass_thread, "mergesort_pass_thread",
                                 "tier 2.1, one thread per merge"};
static const tier block_tier = {mergesort_pass_block, "mergesort_pass_block",
                                "tier 2.2, one block per merge"};
static const tier path_tier = {mergesort_pass_merge_path, "mergesort_pass_merge_path",
                               "tier 2.3, merge path"};

/* The input of the pass of `width`: every run of `width` keys sorted (keys only; the values,
 * set afterwards, are positions in the pass's input). */
static void prepare_runs(unsigned int *keys, size_t n, size_t width)
{
    for (size_t start = 0; start < n; start += width) {
        kit_cpu_radix_sort_u32(keys + start, n - start < width ? n - start : width);
    }
}

/* Whether the pass's output is exactly the stable merge of each pair of runs: the keys, and
 * with values the input positions they carry. One linear walk, for the common case of a
 * correct pass (at width 1, a merge-by-merge check of 2^24 keys is 2^23 verifier calls); when
 * it is not, the merge-by-merge checks say how it is wrong. */
static int equals_stable_merges(const kit_pairs *p, size_t width, int with_values)
{
    for (size_t start = 0; start < p->n; start += 2 * width) {
        size_t mid = p->n - start < width ? p->n : start + width;
        size_t end = p->n - start < 2 * width ? p->n : start + 2 * width;
        size_t i = start, j = mid;
        for (size_t out = start; out < end; out++) {
            size_t from = j == end || (i < mid && p->in_keys[i] <= p->in_keys[j]) ? i++ : j++;
            if (p->out_keys[out] != p->in_keys[from] ||
                (with_values && p->out_values[out] != p->in_values[from])) {
                return 0;
            }
        }
    }
    return 1;
}

/* Runs one pass of `t` over p->in_keys (runs already prepared) into blank buffers, and checks
 * every merge of the pass: sorted, the same keys, values attached, stable. */
static int check_pass_input(const tier *t, kit_pairs *p, size_t width, const char *input,
                            int with_values)
{
    kit_device_pairs src = {NULL, NULL}, dst = {NULL, NULL};
    int ok = 0;
    char what[320];
    snprintf(what, sizeof what, "%s (%s)(n=%zu, width=%zu, %s%s)", t->function, t->tier, p->n,
             width, input, with_values ? "" : ", keys only");
    if (!kit_device_pairs_upload(&src, p, with_values) ||
        !kit_device_pairs_blank(&dst, p, with_values)) {
        goto done;
    }
    cudaError_t err = t->pass(src.keys, src.values, dst.keys, dst.values, p->n, width);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
        goto done;
    }
    if (!kit_device_pairs_download(what, &dst, p)) {
        goto done;
    }
    ok = equals_stable_merges(p, width, with_values);
    size_t merges = mergesort_merge_count(p->n, width < p->n ? width : p->n);
    for (size_t m = 0; !ok && m < merges; m++) {
        size_t start = m * 2 * width, len = p->n - start < 2 * width ? p->n - start : 2 * width;
        char segment[64];
        snprintf(segment, sizeof segment, "merge %zu of runs %zu and %zu", m, 2 * m, 2 * m + 1);
        if (!kit_check_pairs_segment(what, segment, p, with_values, start, len,
                                     KIT_VERIFY_STABLE)) {
            goto done; /* failed, with the merge's own message */
        }
    }
    if (!ok) { /* the merge-by-merge checks admit only the stable merge: not reached */
        KIT_FAIL("%s: the output is not the stable merge of its runs", what);
    }
done:
    kit_device_pairs_free(&src);
    kit_device_pairs_free(&dst);
    return ok;
}

/* Generates (n, dist, seed), prepares runs of `width`, runs the pass and checks it. */
static int check_pass(const tier *t, size_t n, size_t width, kit_dist dist, uint64_t seed,
                      int with_values)
{
    kit_pairs p;
    int ok = 0;
    if (kit_pairs_alloc(&p, n)) {
        kit_generate_u32(p.in_keys, n, dist, seed);
        prepare_runs(p.in_keys, n, width);
        char input[96];
        snprintf(input, sizeof input, "dist=%s, seed=%llu", kit_dist_name(dist),
                 (unsigned long long)seed);
        ok = check_pass_input(t, &p, width, input, with_values);
    }
    kit_pairs_free(&p);
    return ok;
}

/* Every n of `sizes` with every width of `widths`, in the distributions given, with values. */
static int check_pass_matrix(const tier *t, const size_t *sizes, size_t size_count,
                             const size_t *widths, size_t width_count, const kit_dist *dists,
                             size_t dist_count, uint64_t seed)
{
    for (size_t s = 0; s < size_count; s++) {
        for (size_t w = 0; w < width_count; w++) {
            for (size_t d = 0; d < dist_count; d++) {
                if (!check_pass(t, sizes[s], widths[w], dists[d], seed + sizes[s], 1)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* At one large n, width k in distribution k only: each width and each distribution reaches the
 * large size once (every pairing is tested at the smaller sizes), at a third of the cost. */
static int check_pass_paired(const tier *t, size_t n, const size_t *widths, const kit_dist *dists,
                             size_t count, uint64_t seed)
{
    for (size_t k = 0; k < count; k++) {
        if (!check_pass(t, n, widths[k], dists[k], seed + n, 1)) {
            return 0;
        }
    }
    return 1;
}

/* Small sizes around warps and blocks, with widths that leave unequal last runs. */
static const size_t small_sizes[] = {0,    1,    2,    3,    4,    7,    31,   32,
                                     33,   100,  255,  256,  257,  1000, 1023, 1024,
                                     1025, 2047, 2048, 2049, 4096, 4097, 9999};
#define SMALL_SIZE_COUNT (sizeof small_sizes / sizeof small_sizes[0])
static const size_t small_widths[] = {1, 2, 3, 4, 7, 8, 31, 32, 33, 100, 255, 256, 512, 1000, 1024};
#define SMALL_WIDTH_COUNT (sizeof small_widths / sizeof small_widths[0])

/* The seed text's example (two runs of 4; 7 at index 2 of the left run, with 2 smaller keys
 * in the right run, lands at 2 + 2 = 4), and one with equal keys across the runs: the left
 * run's 3s (values 1, 2) must come before the right run's (values 4, 5). */
static void check_examples(const tier *t)
{
    const unsigned int inputs[2][8] = {{1, 5, 7, 9, 2, 6, 8, 10}, {1, 3, 3, 5, 3, 3, 4, 9}};
    const unsigned int keys[2][8] = {{1, 2, 5, 6, 7, 8, 9, 10}, {1, 3, 3, 3, 3, 4, 5, 9}};
    const unsigned int values[2][8] = {{0, 4, 1, 5, 2, 6, 3, 7}, {0, 1, 2, 4, 5, 6, 3, 7}};
    const char *names[2] = {"the seed's example, left 1 5 7 9, right 2 6 8 10",
                            "equal keys across the runs, left 1 3 3 5, right 3 3 4 9"};
    for (int e = 0; e < 2; e++) {
        kit_pairs p;
        if (!kit_pairs_alloc(&p, 8)) {
            kit_pairs_free(&p);
            return;
        }
        memcpy(p.in_keys, inputs[e], sizeof inputs[e]);
        if (!check_pass_input(t, &p, 4, names[e], 1)) {
            kit_pairs_free(&p);
            return;
        }
        for (int i = 0; i < 8; i++) {
            if (p.out_keys[i] != keys[e][i] || p.out_values[i] != values[e][i]) {
                KIT_FAIL("%s (%s)(n=8, width=4), %s: at index %d expected key %u with value %u "
                         "(its input position), got key %u with value %u",
                         t->function, t->tier, names[e], i, keys[e][i], values[e][i], p.out_keys[i],
                         p.out_values[i]);
                break;
            }
        }
        kit_pairs_free(&p);
    }
}

/* Wrong widths are refused (checked only once the pass works: the skeleton passes none). */
static void check_refused(const tier *t, const size_t *bad_widths, size_t count)
{
    unsigned int *d_src = NULL, *d_dst = NULL;
    if (cudaMalloc((void **)&d_src, 4096 * sizeof *d_src) == cudaSuccess &&
        cudaMalloc((void **)&d_dst, 4096 * sizeof *d_dst) == cudaSuccess) {
        for (size_t b = 0; b < count; b++) {
            cudaError_t err = t->pass(d_src, NULL, d_dst, NULL, 4096, bad_widths[b]);
            if (err != cudaErrorInvalidValue) {
                KIT_FAIL("%s (%s)(n=4096, width=%zu) must return cudaErrorInvalidValue, got %s",
                         t->function, t->tier, bad_widths[b], cudaGetErrorName(err));
            }
        }
    }
    cudaFree(d_src);
    cudaFree(d_dst);
}

/* Few inputs, every path of a pass (values or not, a lone last run, a short last run): the
 * tests compute-sanitizer runs (make gpu-check, grading/grade --sanitize). */
static int check_pass_quick(const tier *t, size_t max_width)
{
    const size_t cases[][2] = {{8, 4}, {100, 7}, {1000, 256}, {2049, 1024}, {3000, 1024}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c][0], width = cases[c][1] < max_width ? cases[c][1] : max_width;
        if (!check_pass(t, n, width, KIT_DIST_FEW_UNIQUE, 20 + n, 1) ||
            !check_pass(t, n, width, KIT_DIST_UNIFORM, 20 + n, 0)) {
            return 0;
        }
    }
    return 1;
}

/* Keys only, every distribution, a few shapes. */
static int check_pass_keys_only(const tier *t, uint64_t seed)
{
    const size_t cases[][2] = {{1000, 1}, {4097, 32}, {9999, 1000}, {65536, 1024}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        FOR_EACH_DIST(dist)
        {
            if (!check_pass(t, cases[c][0], cases[c][1], dist, seed, 0)) {
                return 0;
            }
        }
    }
    return 1;
}

/* Every distribution at one larger shape (the datagen extremes hold 0 and UINT_MAX). */
static int check_pass_all_dists(const tier *t, size_t n, size_t width, uint64_t seed)
{
    FOR_EACH_DIST(dist)
    {
        if (!check_pass(t, n, width, dist, seed, 1)) {
            return 0;
        }
    }
    return 1;
}

/* ---- 2.1 one thread per merge --------------------------------------------------------------- */

static void test_thread_quick(void)
{
    check_pass_quick(&thread_tier, (size_t)-1);
}

static void test_thread_seed_example(void)
{
    check_examples(&thread_tier);
}

static void test_thread_small(void)
{
    check_pass_matrix(&thread_tier, small_sizes, SMALL_SIZE_COUNT, small_widths, SMALL_WIDTH_COUNT,
                      few_dists, FEW_DIST_COUNT, 100);
}

static void test_thread_unequal_last_runs(void)
{
    /* Widths that leave a short last run, a lone last run, or one run of everything. */
    const size_t n = 100003;
    const size_t widths[] = {5, 64, 1000, 4096, 50000, 50001, 66000, 100002, 100003, 200000};
    check_pass_matrix(&thread_tier, &n, 1, widths, sizeof widths / sizeof widths[0], few_dists,
                      FEW_DIST_COUNT, 101);
}

static void test_thread_all_dists(void)
{
    check_pass_all_dists(&thread_tier, 65537, 16, 102);
}

static void test_thread_keys_only(void)
{
    check_pass_keys_only(&thread_tier, 103);
}

static void test_thread_large(void)
{
    const size_t n = (size_t)1 << 22;
    const size_t widths[] = {1, 8, 64};
    if (check_pass_paired(&thread_tier, n, widths, few_dists, FEW_DIST_COUNT, 104)) {
        const size_t zero = 0;
        check_refused(&thread_tier, &zero, 1);
    }
}

/* ---- 2.2 one block per merge ---------------------------------------------------------------- */

static void test_block_quick(void)
{
    check_pass_quick(&block_tier, MERGESORT_TILE / 2);
}

static void test_block_seed_example(void)
{
    check_examples(&block_tier);
}

static void test_block_small(void)
{
    check_pass_matrix(&block_tier, small_sizes, SMALL_SIZE_COUNT, small_widths, SMALL_WIDTH_COUNT,
                      few_dists, FEW_DIST_COUNT, 200);
}

static void test_block_unequal_last_runs(void)
{
    const size_t sizes[] = {100003, 65536 + 1000};
    const size_t widths[] = {5, 64, 333, 1000, 1024};
    check_pass_matrix(&block_tier, sizes, 2, widths, sizeof widths / sizeof widths[0], few_dists,
                      FEW_DIST_COUNT, 201);
}

static void test_block_all_dists(void)
{
    if (check_pass_all_dists(&block_tier, 65537, 16, 202) &&
        check_pass_all_dists(&block_tier, 65537, MERGESORT_TILE / 2, 202)) {
        const size_t bad[] = {0, MERGESORT_TILE / 2 + 1, MERGESORT_TILE};
        check_refused(&block_tier, bad, 3);
    }
}

static void test_block_keys_only(void)
{
    check_pass_keys_only(&block_tier, 203);
}

static void test_block_large(void)
{
    const size_t n = ((size_t)1 << 24) + 777;
    const size_t widths[] = {1, 32, MERGESORT_TILE / 2};
    check_pass_paired(&block_tier, n, widths, few_dists, FEW_DIST_COUNT, 204);
}

/* ---- 2.3 the co-rank, on the host ------------------------------------------------------------ */

/* Prints the runs of a small example into `text`. */
static void describe_runs(char *text, size_t size, const unsigned int *keys, size_t n, size_t mid)
{
    size_t used = (size_t)snprintf(text, size, "left [");
    for (size_t i = 0; i < n && used < size; i++) {
        used += (size_t)snprintf(text + used, size - used, "%s%u",
                                 i == mid ? "], right [" : (i ? " " : ""), keys[i]);
    }
    if (used < size) {
        snprintf(text + used, size - used, "%s]", mid == n ? "], right [" : "");
    }
}

/* Every k of one pair of runs against the brute force: kit_merge_co_rank_ref() of
 * merge_path_ref.h, a stable merge that counts the left keys among the first k outputs. */
static int check_co_rank_all_k(const unsigned int *keys, size_t n, size_t mid, const char *input)
{
    for (size_t k = 0; k <= n; k++) {
        size_t expected = kit_merge_co_rank_ref(keys, n, mid, k);
        size_t got = mergesort_co_rank(keys, n, mid, k);
        if (got != expected) {
            char runs[400] = "";
            if (n <= 40) {
                describe_runs(runs, sizeof runs, keys, n, mid);
            }
            if (got == (size_t)-1) {
                KIT_FAIL("mergesort_co_rank (tier 2.3, co-rank on the host)(n=%zu, mid=%zu, "
                         "k=%zu, %s) returned (size_t)-1: not written yet (the skeleton's stub), "
                         "or it refused valid arguments %s",
                         n, mid, k, input, runs);
            } else {
                KIT_FAIL("mergesort_co_rank (tier 2.3, co-rank on the host)(n=%zu, mid=%zu, "
                         "k=%zu, %s): expected %zu keys from the left run (%zu from the right), "
                         "got %zu; equal keys: the left run's go first %s",
                         n, mid, k, input, expected, k - expected, got, runs);
            }
            return 0;
        }
    }
    return 1;
}

/* Fills keys[0 .. mid) and keys[mid .. n) from `dist`, each run sorted. */
static void make_runs(unsigned int *keys, size_t n, size_t mid, kit_dist dist, uint64_t seed)
{
    kit_generate_u32(keys, n, dist, seed);
    kit_cpu_radix_sort_u32(keys, mid);
    kit_cpu_radix_sort_u32(keys + mid, n - mid);
}

/* Every split of every pair of runs of up to 8 keys each, keys from {0, 1, 2, 3}: every tie. */
static void test_co_rank_every_small_split(void)
{
    unsigned int keys[16];
    for (size_t na = 0; na <= 8; na++) {
        for (size_t nb = 0; nb <= 8; nb++) {
            for (uint64_t seed = 0; seed < 6; seed++) {
                kit_rng rng;
                kit_rng_seed(&rng, 300 + seed * 100 + na * 10 + nb);
                for (size_t i = 0; i < na + nb; i++) {
                    keys[i] = (unsigned int)kit_rng_below(&rng, 4);
                }
                kit_cpu_radix_sort_u32(keys, na);
                kit_cpu_radix_sort_u32(keys + na, nb);
                char input[64];
                snprintf(input, sizeof input, "keys 0..3, seed=%llu",
                         (unsigned long long)(300 + seed * 100 + na * 10 + nb));
                if (!check_co_rank_all_k(keys, na + nb, na, input)) {
                    return;
                }
            }
        }
    }
}

/* The shapes that trip a search: all equal, every left key below every right one and the
 * other way round, and the type's extremes. */
static void test_co_rank_special_runs(void)
{
    unsigned int keys[64];
    const size_t shapes[][2] = {{1, 0}, {0, 1}, {1, 1}, {5, 27}, {32, 32}, {27, 5}, {63, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t na = shapes[s][0], nb = shapes[s][1], n = na + nb;
        const char *names[] = {"all keys equal", "left below right", "right below left",
                               "left 0 and UINT_MAX, right in between", "dist=extremes"};
        for (int c = 0; c < 5; c++) {
            for (size_t i = 0; i < n; i++) {
                int left = i < na;
                switch (c) {
                case 0:
                    keys[i] = 7;
                    break;
                case 1:
                    keys[i] = left ? (unsigned int)i : 1000u + (unsigned int)i;
                    break;
                case 2:
                    keys[i] = left ? 1000u + (unsigned int)i : (unsigned int)i;
                    break;
                case 3:
                    keys[i] = left ? (i < na / 2 ? 0u : UINT_MAX) : 5u;
                    break;
                default:
                    break;
                }
            }
            if (c == 4) {
                make_runs(keys, n, na, KIT_DIST_EXTREMES, 310 + s);
            }
            if (!check_co_rank_all_k(keys, n, na, names[c])) {
                return;
            }
        }
    }
}

/* Longer runs of every distribution, every k. */
static void test_co_rank_longer_runs(void)
{
    const size_t shapes[][2] = {{1000, 777}, {2048, 2048}, {1, 3000}, {3000, 1}};
    unsigned int *keys = malloc(4096 * sizeof *keys);
    if (!keys) {
        KIT_FAIL("test setup: out of host memory");
        return;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t na = shapes[s][0], nb = shapes[s][1];
        FOR_EACH_DIST(dist)
        {
            make_runs(keys, na + nb, na, dist, 320 + s);
            char input[96];
            snprintf(input, sizeof input, "dist=%s, seed=%llu", kit_dist_name(dist),
                     (unsigned long long)(320 + s));
            if (!check_co_rank_all_k(keys, na + nb, na, input)) {
                free(keys);
                return;
            }
        }
    }
    free(keys);
}

/* Arguments out of range give (size_t)-1 (checked once the search works). */
static void test_co_rank_bad_arguments(void)
{
    const unsigned int keys[4] = {1, 2, 3, 4};
    if (!check_co_rank_all_k(keys, 4, 2, "left 1 2, right 3 4")) {
        return;
    }
    const size_t bad[][3] = {{4, 5, 0}, {4, 2, 5}, {0, 1, 0}};
    for (int b = 0; b < 3; b++) {
        size_t got = mergesort_co_rank(keys, bad[b][0], bad[b][1], bad[b][2]);
        if (got != (size_t)-1) {
            KIT_FAIL("mergesort_co_rank(n=%zu, mid=%zu, k=%zu) must return (size_t)-1 (mid or k "
                     "past n), got %zu",
                     bad[b][0], bad[b][1], bad[b][2], got);
        }
    }
    if (mergesort_co_rank(NULL, 0, 0, 0) != 0) {
        KIT_FAIL("mergesort_co_rank(NULL, n=0, mid=0, k=0) must return 0: no keys, none taken");
    }
}

/* ---- 2.3 merge path on the GPU -------------------------------------------------------------- */

/* The splits of a pass, the slow way: the merge path of each merge of the pass walked once
 * (kit_merge_path_walk() of merge_path_ref.h), noting the left keys taken at every multiple of
 * MERGESORT_TILE and at the merge's end. */
static void expected_splits(const unsigned int *keys, size_t n, size_t width, size_t *splits)
{
    size_t pieces = mergesort_path_pieces(n, width), merges = mergesort_merge_count(n, width);
    for (size_t m = 0; m < merges; m++) {
        size_t start = m * 2 * width;
        size_t na = n - start < width ? n - start : width;
        size_t nb = n - start - na < width ? n - start - na : width;
        size_t *out = splits + m * (pieces + 1);
        kit_merge_path_point at = {0, 0};
        for (size_t p = 0; p <= pieces; p++) {
            size_t k = p * MERGESORT_TILE < na + nb ? p * MERGESORT_TILE : na + nb;
            kit_merge_path_walk(keys + start, na, keys + start + na, nb, k, &at);
            out[p] = at.i;
        }
    }
}

/* mergesort_merge_path_splits on prepared runs against expected_splits. */
static int check_splits(size_t n, size_t width, kit_dist dist, uint64_t seed)
{
    size_t count = mergesort_split_count(n, width);
    unsigned int *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *expected = malloc((count ? count : 1) * sizeof *expected);
    size_t *got = malloc((count ? count : 1) * sizeof *got);
    unsigned int *d_keys = NULL;
    size_t *d_splits = NULL;
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what,
             "mergesort_merge_path_splits (tier 2.3, merge path)(n=%zu, width=%zu, dist=%s, "
             "seed=%llu)",
             n, width, kit_dist_name(dist), (unsigned long long)seed);
    if (!keys || !expected || !got) {
        KIT_FAIL("test setup: out of host memory for n = %zu", n);
        goto done;
    }
    kit_generate_u32(keys, n, dist, seed);
    prepare_runs(keys, n, width);
    expected_splits(keys, n, width, expected);
    d_keys = kit_device_copy(keys, n);
    if (!d_keys) {
        goto done;
    }
    if (cudaMalloc((void **)&d_splits, (count ? count : 1) * sizeof *d_splits) != cudaSuccess ||
        cudaMemset(d_splits, 0xA5, (count ? count : 1) * sizeof *d_splits) != cudaSuccess) {
        KIT_FAIL("test setup: cudaMalloc of %zu splits failed", count);
        goto done;
    }
    cudaError_t err = mergesort_merge_path_splits(d_keys, n, width, d_splits);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
        goto done;
    }
    err = cudaDeviceSynchronize();
    if (err == cudaSuccess && count > 0) {
        err = cudaMemcpy(got, d_splits, count * sizeof *got, cudaMemcpyDeviceToHost);
    }
    if (err != cudaSuccess) {
        KIT_FAIL("%s: a kernel failed while running: %s (%s)", what, cudaGetErrorName(err),
                 cudaGetErrorString(err));
        goto done;
    }
    size_t pieces = mergesort_path_pieces(n, width);
    for (size_t s = 0; s < count; s++) {
        if (got[s] != expected[s]) {
            size_t m = s / (pieces + 1), p = s % (pieces + 1);
            KIT_FAIL("%s: split %zu (merge %zu, piece boundary %zu, output index %zu of the "
                     "merge, capped at its length): expected co-rank %zu, got %zu",
                     what, s, m, p, p * (size_t)MERGESORT_TILE, expected[s], got[s]);
            goto done;
        }
    }
    ok = 1;
done:
    cudaDeviceSynchronize();
    cudaFree(d_keys);
    cudaFree(d_splits);
    free(keys);
    free(expected);
    free(got);
    return ok;
}

static void test_path_quick(void)
{
    if (check_splits(5000, 2048, KIT_DIST_FEW_UNIQUE, 400) &&
        check_splits(3000, 1000, KIT_DIST_UNIFORM, 400)) {
        check_pass_quick(&path_tier, (size_t)-1);
    }
}

static void test_path_seed_example(void)
{
    check_examples(&path_tier);
}

static void test_path_splits(void)
{
    const size_t cases[][2] = {{1, 1},        {2, 1},         {100, 3},     {2048, 1024},
                               {2049, 1024},  {4096, 2048},   {5000, 2048}, {9999, 4096},
                               {70000, 4096}, {70000, 35000}, {70000, 1},   {100003, 65536}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t d = 0; d < FEW_DIST_COUNT; d++) {
            if (!check_splits(cases[c][0], cases[c][1], few_dists[d], 401)) {
                return;
            }
        }
    }
}

static void test_path_small(void)
{
    check_pass_matrix(&path_tier, small_sizes, SMALL_SIZE_COUNT, small_widths, SMALL_WIDTH_COUNT,
                      few_dists, FEW_DIST_COUNT, 402);
}

static void test_path_wide_merges(void)
{
    const size_t sizes[] = {65536, 100003, 1000003};
    const size_t widths[] = {2048, 3000, 4096, 32768, 50001, 65536, 500000, 524288, 1000003};
    check_pass_matrix(&path_tier, sizes, 3, widths, sizeof widths / sizeof widths[0], few_dists,
                      FEW_DIST_COUNT, 403);
}

static void test_path_all_dists(void)
{
    if (check_pass_all_dists(&path_tier, 65537, 32768, 404) &&
        check_pass_all_dists(&path_tier, 65537, 7, 404)) {
        const size_t zero = 0;
        check_refused(&path_tier, &zero, 1);
    }
}

static void test_path_keys_only(void)
{
    check_pass_keys_only(&path_tier, 405);
}

static void test_path_large(void)
{
    /* One merge of two runs of 2^23 over 8192 blocks; then runs of unequal length. */
    const size_t sizes[] = {(size_t)1 << 24, ((size_t)1 << 24) - 12345};
    const size_t widths[] = {(size_t)1 << 23};
    if (check_pass_matrix(&path_tier, sizes, 2, widths, 1, few_dists, FEW_DIST_COUNT, 406)) {
        check_splits((size_t)1 << 24, (size_t)1 << 22, KIT_DIST_FEW_UNIQUE, 406);
    }
}

/* ---- 2.4 the sort -----------------------------------------------------------------------------
 */

/* A whole sort as the API gives it: its tiles, pairs and keys only, and how messages name
 * them. */
typedef struct {
    cudaError_t (*tiles)(unsigned int *, unsigned int *, size_t);
    cudaError_t (*pairs)(unsigned int *, unsigned int *, size_t);
    cudaError_t (*keys)(unsigned int *, size_t);
    const char *tiles_name; /* "mergesort_sort_tiles" */
    const char *pairs_name;
    const char *keys_name;
    const char *tier; /* "2.4, the sort" */
    size_t tile;      /* keys per tile */
} sorter;

static const sorter shared_sort = {
    mergesort_sort_tiles,   mergesort_sort_pairs,  mergesort_sort_keys, "mergesort_sort_tiles",
    "mergesort_sort_pairs", "mergesort_sort_keys", "2.4, the sort",     MERGESORT_TILE};
static const sorter reg_sort = {mergesort_sort_tiles_reg,   mergesort_sort_pairs_reg,
                                mergesort_sort_keys_reg,    "mergesort_sort_tiles_reg",
                                "mergesort_sort_pairs_reg", "mergesort_sort_keys_reg",
                                "2.6, merges in registers", MERGESORT_REG_TILE};

/* Sorts the tiles of (n, dist, seed) with `so` and checks each one: sorted and stable. */
static int check_tiles_of(const sorter *so, size_t n, kit_dist dist, uint64_t seed, int with_values)
{
    kit_pairs p;
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[200];
    snprintf(what, sizeof what, "%s (%s: the tiles of %zu keys)(n=%zu, dist=%s, seed=%llu%s)",
             so->tiles_name, so->tier, so->tile, n, kit_dist_name(dist), (unsigned long long)seed,
             with_values ? "" : ", keys only");
    if (!kit_pairs_alloc(&p, n)) {
        goto done;
    }
    kit_generate_u32(p.in_keys, n, dist, seed);
    if (!kit_device_pairs_upload(&d, &p, with_values)) {
        goto done;
    }
    cudaError_t err = so->tiles(d.keys, d.values, n);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, &p)) {
        ok = 1;
        for (size_t base = 0; ok && base < n; base += so->tile) {
            char segment[48];
            snprintf(segment, sizeof segment, "tile %zu", base / so->tile);
            size_t len = n - base < so->tile ? n - base : so->tile;
            ok = kit_check_pairs_segment(what, segment, &p, with_values, base, len,
                                         KIT_VERIFY_STABLE);
        }
    }
    kit_device_pairs_free(&d);
done:
    kit_pairs_free(&p);
    return ok;
}

/* The tiles of 2.4. */
static int check_tiles(size_t n, kit_dist dist, uint64_t seed, int with_values)
{
    return check_tiles_of(&shared_sort, n, dist, seed, with_values);
}

/* Sorts p->in_keys (values 0..n-1) with so->pairs, or so->keys when !with_values, and checks
 * the result: sorted, the same keys, and stable. */
static int check_sort_input_of(const sorter *so, kit_pairs *p, const char *input, int with_values)
{
    kit_device_pairs d = {NULL, NULL};
    int ok = 0;
    char what[240];
    snprintf(what, sizeof what, "%s (%s)(n=%zu, %s)", with_values ? so->pairs_name : so->keys_name,
             so->tier, p->n, input);
    if (!kit_device_pairs_upload(&d, p, with_values)) {
        return 0;
    }
    cudaError_t err = with_values ? so->pairs(d.keys, d.values, p->n) : so->keys(d.keys, p->n);
    if (err != cudaSuccess) {
        kit_fail_call(what, err);
    } else if (kit_device_pairs_download(what, &d, p)) {
        ok = kit_check_pairs_segment(what, "", p, with_values, 0, p->n, KIT_VERIFY_STABLE);
    }
    kit_device_pairs_free(&d);
    return ok;
}

static int check_sort_of(const sorter *so, size_t n, kit_dist dist, uint64_t seed, int with_values)
{
    kit_pairs p;
    int ok = 0;
    if (kit_pairs_alloc(&p, n)) {
        char input[96];
        snprintf(input, sizeof input, "dist=%s, seed=%llu", kit_dist_name(dist),
                 (unsigned long long)seed);
        kit_generate_u32(p.in_keys, n, dist, seed);
        ok = check_sort_input_of(so, &p, input, with_values);
    }
    kit_pairs_free(&p);
    return ok;
}

/* The sort of 2.4. */
static int check_sort(size_t n, kit_dist dist, uint64_t seed, int with_values)
{
    return check_sort_of(&shared_sort, n, dist, seed, with_values);
}

/* What a sweep (kit_check_sweep()) of a sort hands its check. */
typedef struct {
    const sorter *so;
    int with_values;
} sort_case;

/* check_sort_of() as a check of kit_check_sweep(): ctx points to a sort_case. */
static int check_sort_case(size_t n, kit_dist dist, uint64_t seed, const void *ctx)
{
    const sort_case *c = ctx;
    return check_sort_of(c->so, n, dist, seed, c->with_values);
}

static const sort_case WITH_VALUES = {&shared_sort, 1}, KEYS_ONLY = {&shared_sort, 0};

/* The tiles, and sorts that reach every kernel of the sort: one pass (3000 keys) and several
 * (9999), with values and without. */
static void test_sort_quick(void)
{
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_EXTREMES};
    for (size_t d = 0; d < 3; d++) {
        if (!check_tiles(3000, dists[d], 500, 1) || !check_sort(3000, dists[d], 500, 1) ||
            !check_sort(9999, dists[d], 500, 1) || !check_sort(33, dists[d], 500, 0)) {
            return;
        }
    }
}

static void test_sort_tiles(void)
{
    const size_t sizes[] = {
        1, 2, 33, 1000, MERGESORT_TILE, MERGESORT_TILE + 1, 5 * MERGESORT_TILE, (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        FOR_EACH_DIST(dist)
        {
            if (!check_tiles(sizes[s], dist, 501, 1) || !check_tiles(sizes[s], dist, 501, 0)) {
                return;
            }
        }
    }
}

static void test_sort_small_sizes(void)
{
    kit_check_sweep(check_sort_case, &WITH_VALUES, 0, 4097, NULL, 0, 502);
}

static void test_sort_medium_sizes(void)
{
    /* Beside the kit's sizes, ones whose last pass merges runs of very unequal length. */
    const size_t extra[] = {3 * MERGESORT_TILE + 1, 100003, ((size_t)1 << 20) + 12345};
    kit_check_sweep(check_sort_case, &WITH_VALUES, 4098, (size_t)1 << 22, extra, 3, 503);
}

static void test_sort_keys_only(void)
{
    const size_t extra[] = {(size_t)1 << 20, 1000003};
    kit_check_sweep(check_sort_case, &KEYS_ONLY, 0, 65536, extra, 2, 504);
}

/* Stability where it bites hardest: all keys equal (the output values must be 0..n-1 in
 * order) and two keys (the zero-one distribution), at sizes with unequal last runs. */
static void test_sort_stability(void)
{
    const size_t sizes[] = {2049, 6000, 65537, 1000003};
    const kit_dist dists[] = {KIT_DIST_ALL_EQUAL, KIT_DIST_ZERO_ONE, KIT_DIST_FEW_UNIQUE};
    for (size_t s = 0; s < 4; s++) {
        for (size_t d = 0; d < 3; d++) {
            if (!check_sort(sizes[s], dists[d], 505, 1)) {
                return;
            }
        }
    }
}

/* 2^24 pairs in three distributions (kit_large_dist()): every distribution is sorted at the
 * medium sizes; here the size is what is tested. */
static void test_sort_large(void)
{
    for (unsigned k = 0; k < KIT_LARGE_DIST_COUNT; k++) {
        if (!check_sort((size_t)1 << 24, kit_large_dist(2, k), 506, 1)) {
            return;
        }
    }
}

static void test_sort_large_keys_only(void)
{
    for (size_t d = 0; d < FEW_DIST_COUNT; d++) {
        if (!check_sort((size_t)1 << 24, few_dists[d], 507, 0)) {
            return;
        }
    }
}

static void test_sort_large_unequal_runs(void)
{
    /* The last pass merges 2^23 keys with 2^22 + 5: runs of unequal length at every width. */
    const size_t n = 3 * ((size_t)1 << 22) + 5;
    for (size_t d = 0; d < FEW_DIST_COUNT; d++) {
        if (!check_sort(n, few_dists[d], 508, 1)) {
            return;
        }
    }
}

/* ---- 2.6 (bonus) merges in registers -------------------------------------------------------- */

#define REG_TILE_KEYS ((size_t)MERGESORT_REG_TILE)

/* ---- 2.5 (bonus, not graded) a host array sorted over streams ------------------------------- */

/* TODO 2.5 is not graded, and the grader's verdict process could not call it anyway: it hands
 * the student's process device buffers, never host memory (grading/calls/api_02_mergesort.c has
 * no entry for it). So the verdict process leaves this weak reference NULL and registers no
 * 2.5 suite; the test binaries that link the lab's object (a GPU build's, make emulate's) run
 * it. */
#pragma weak mergesort_sort_host_streams

/* Sorts (n, dist, seed) in host memory (pageable: the copies need not overlap to be right)
 * with mergesort_sort_host_streams(chunk, streams), and checks the keys: sorted, the same keys. */
static int check_streams(size_t n, size_t chunk, int streams, kit_dist dist, uint64_t seed)
{
    kit_pairs p;
    int ok = 0;
    if (kit_pairs_alloc_parts(&p, n, 0)) {
        char what[240];
        snprintf(what, sizeof what,
                 "mergesort_sort_host_streams (2.5, a host array over streams)(n=%zu, chunk=%zu, "
                 "streams=%d, dist=%s, seed=%llu, keys only)",
                 n, chunk, streams, kit_dist_name(dist), (unsigned long long)seed);
        kit_generate_u32(p.in_keys, n, dist, seed);
        memcpy(p.out_keys, p.in_keys, n * sizeof *p.in_keys);
        cudaError_t err = mergesort_sort_host_streams(p.out_keys, n, chunk, streams);
        if (err != cudaSuccess) {
            kit_fail_call(what, err);
        } else {
            ok = kit_check_pairs_segment(what, "", &p, 0, 0, n, 0);
        }
    }
    kit_pairs_free(&p);
    return ok;
}

/* Every path of 2.5 on small arrays: one chunk (longer than a tile: merge-path passes inside
 * the chunk's sort); four chunks on three streams (stream 0 takes two), a merge pass on stream
 * 0, and a last pass in three segments on three streams; nine chunks of less than a tile on
 * nine streams, two merge passes and five segments; eight chunks on one stream. */
static void test_streams_quick(void)
{
    const struct {
        size_t n, chunk;
        int streams;
    } cases[] = {{3000, 4096, 2}, {10000, 3000, 3}, {9000, 1000, 16}, {5000, 700, 1}};
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t d = 0; d < 2; d++) {
            if (!check_streams(cases[c].n, cases[c].chunk, cases[c].streams, dists[d], 700 + c)) {
                return;
            }
        }
    }
}

static const sort_case REG_WITH_VALUES = {&reg_sort, 1}, REG_KEYS_ONLY = {&reg_sort, 0};

/* Around one tile, a tile and a thread more, several tiles, and a pass's last tile short
 * (3 tiles: the second pass merges 2 tiles with 1). */
static const size_t reg_edge_sizes[] = {MERGESORT_REG_ITEMS_PER_THREAD - 1,
                                        MERGESORT_REG_ITEMS_PER_THREAD,
                                        MERGESORT_REG_ITEMS_PER_THREAD + 1,
                                        REG_TILE_KEYS - 1,
                                        REG_TILE_KEYS,
                                        REG_TILE_KEYS + 1,
                                        REG_TILE_KEYS + MERGESORT_REG_ITEMS_PER_THREAD,
                                        2 * REG_TILE_KEYS - 1,
                                        2 * REG_TILE_KEYS,
                                        2 * REG_TILE_KEYS + 1,
                                        3 * REG_TILE_KEYS,
                                        3 * REG_TILE_KEYS + 1,
                                        4 * REG_TILE_KEYS - 1,
                                        4 * REG_TILE_KEYS,
                                        4 * REG_TILE_KEYS + 1,
                                        5 * REG_TILE_KEYS + 7,
                                        9 * REG_TILE_KEYS - 5};
#define REG_EDGE_SIZE_COUNT (sizeof reg_edge_sizes / sizeof reg_edge_sizes[0])

/* The tiles, and sorts through one merge pass (3000 keys) and three (5 tiles and 7 keys: a
 * short last tile and a lone run), with values and without: what compute-sanitizer runs. */
static void test_reg_quick(void)
{
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_EXTREMES};
    for (size_t d = 0; d < 3; d++) {
        if (!check_tiles_of(&reg_sort, 3000, dists[d], 600, 1) ||
            !check_sort_of(&reg_sort, 3000, dists[d], 600, 1) ||
            !check_sort_of(&reg_sort, 5 * REG_TILE_KEYS + 7, dists[d], 600, 1) ||
            !check_sort_of(&reg_sort, 5 * REG_TILE_KEYS + 7, dists[d], 600, 0) ||
            !check_sort_of(&reg_sort, 33, dists[d], 600, 0)) {
            return;
        }
    }
}

/* The block sort alone: sizes around a thread's keys, a warp, a block and the tile. */
static void test_reg_tiles(void)
{
    const size_t sizes[] = {1,
                            2,
                            3,
                            MERGESORT_REG_ITEMS_PER_THREAD,
                            MERGESORT_REG_ITEMS_PER_THREAD + 1,
                            31,
                            32,
                            33,
                            32 * MERGESORT_REG_ITEMS_PER_THREAD + 1,
                            REG_TILE_KEYS - 1,
                            REG_TILE_KEYS,
                            REG_TILE_KEYS + 1,
                            5 * REG_TILE_KEYS + 7,
                            (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        FOR_EACH_DIST(dist)
        {
            if (!check_tiles_of(&reg_sort, sizes[s], dist, 601, 1) ||
                !check_tiles_of(&reg_sort, sizes[s], dist, 601, 0)) {
                return;
            }
        }
    }
}

/* The kit's sizes up to 4097 (0 to 3, warps, blocks), and the tile's edges. */
static void test_reg_small_sizes(void)
{
    kit_check_sweep(check_sort_case, &REG_WITH_VALUES, 0, 4097, reg_edge_sizes, REG_EDGE_SIZE_COUNT,
                    602);
}

/* The kit's sizes up to 2^22, and sizes whose passes end in short or lone runs. */
static void test_reg_medium_sizes(void)
{
    const size_t extra[] = {100003, 1000003, 1000 * REG_TILE_KEYS + 1, ((size_t)1 << 20) + 12345};
    kit_check_sweep(check_sort_case, &REG_WITH_VALUES, 4098, (size_t)1 << 22, extra, 4, 603);
}

static void test_reg_keys_only(void)
{
    const size_t extra[] = {REG_TILE_KEYS - 1, REG_TILE_KEYS + 1, 3 * REG_TILE_KEYS + 1,
                            (size_t)1 << 20, 1000003};
    kit_check_sweep(check_sort_case, &REG_KEYS_ONLY, 0, 65536, extra, 5, 604);
}

/* Equal keys everywhere, two keys, a few keys: the merge's ties must go to the left run, the
 * network's to the earlier register, the co-rank's to the left too. */
static void test_reg_stability(void)
{
    const size_t sizes[] = {REG_TILE_KEYS + 1, 6000, 65537, 1000003};
    const kit_dist dists[] = {KIT_DIST_ALL_EQUAL, KIT_DIST_ZERO_ONE, KIT_DIST_FEW_UNIQUE};
    for (size_t s = 0; s < 4; s++) {
        for (size_t d = 0; d < 3; d++) {
            if (!check_sort_of(&reg_sort, sizes[s], dists[d], 605, 1)) {
                return;
            }
        }
    }
}

/* Two large sorts: 2^24 pairs with many ties (few-unique: stability at every pass), and 2^24
 * keys only (uniform). */
static void test_reg_large(void)
{
    if (check_sort_of(&reg_sort, (size_t)1 << 24, kit_large_dist(0, 1), 606, 1)) {
        check_sort_of(&reg_sort, (size_t)1 << 24, kit_large_dist(0, 0), 606, 0);
    }
}

/* Two large sorts of a size no tile divides (the last pass merges 2^23 keys with 2^22 + 5):
 * pairs (uniform), and keys only (reversed). */
static void test_reg_large_non_multiple(void)
{
    const size_t n = 3 * ((size_t)1 << 22) + 5;
    if (check_sort_of(&reg_sort, n, kit_large_dist(0, 0), 607, 1)) {
        check_sort_of(&reg_sort, n, kit_large_dist(0, 2), 607, 0);
    }
}

/* The quick tests are also the tests the CPU emulation runs (make emulate), with the other
 * small ones that take it a second or less: the seed's examples, the co-rank on the host, and
 * the sweeps of small sizes of 2.1, 2.4 and 2.6. */
#define QUICK_MARKS (KIT_TEST_SANITIZE | KIT_TEST_EMULATE)

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("2.1_thread_per_merge", 1);
    kit_add_marked_test(s, "quick", test_thread_quick, QUICK_MARKS);
    kit_add_marked_test(s, "seed_example", test_thread_seed_example, KIT_TEST_EMULATE);
    kit_add_marked_test(s, "small_sizes_and_widths", test_thread_small, KIT_TEST_EMULATE);
    kit_add_test(s, "unequal_last_runs", test_thread_unequal_last_runs);
    kit_add_test(s, "all_distributions", test_thread_all_dists);
    kit_add_test(s, "keys_only", test_thread_keys_only);
    kit_add_test(s, "large_2_22", test_thread_large);

    s = kit_add_suite("2.2_block_per_merge", 1);
    kit_add_marked_test(s, "quick", test_block_quick, QUICK_MARKS);
    kit_add_marked_test(s, "seed_example", test_block_seed_example, KIT_TEST_EMULATE);
    kit_add_test(s, "small_sizes_and_widths", test_block_small);
    kit_add_test(s, "unequal_last_runs", test_block_unequal_last_runs);
    kit_add_test(s, "all_distributions", test_block_all_dists);
    kit_add_test(s, "keys_only", test_block_keys_only);
    kit_add_test(s, "large_2_24", test_block_large);

    s = kit_add_suite("2.3_co_rank_host", 0);
    kit_add_marked_test(s, "every_small_split", test_co_rank_every_small_split, KIT_TEST_EMULATE);
    kit_add_marked_test(s, "special_runs", test_co_rank_special_runs, KIT_TEST_EMULATE);
    kit_add_marked_test(s, "longer_runs", test_co_rank_longer_runs, KIT_TEST_EMULATE);
    kit_add_marked_test(s, "bad_arguments", test_co_rank_bad_arguments, KIT_TEST_EMULATE);

    s = kit_add_suite("2.3_merge_path", 1);
    kit_add_marked_test(s, "quick", test_path_quick, QUICK_MARKS);
    kit_add_marked_test(s, "seed_example", test_path_seed_example, KIT_TEST_EMULATE);
    kit_add_test(s, "splits", test_path_splits);
    kit_add_test(s, "small_sizes_and_widths", test_path_small);
    kit_add_test(s, "wide_merges", test_path_wide_merges);
    kit_add_test(s, "all_distributions", test_path_all_dists);
    kit_add_test(s, "keys_only", test_path_keys_only);
    kit_add_test(s, "large_2_24", test_path_large);

    s = kit_add_suite("2.4_sort", 1);
    kit_add_marked_test(s, "quick", test_sort_quick, QUICK_MARKS);
    kit_add_test(s, "tiles", test_sort_tiles);
    kit_add_marked_test(s, "small_sizes", test_sort_small_sizes, KIT_TEST_EMULATE);
    kit_add_test(s, "medium_sizes", test_sort_medium_sizes);
    kit_add_test(s, "keys_only", test_sort_keys_only);
    kit_add_test(s, "stability", test_sort_stability);
    kit_add_test(s, "large_2_24", test_sort_large);
    kit_add_test(s, "large_2_24_keys_only", test_sort_large_keys_only);
    kit_add_test(s, "large_unequal_runs", test_sort_large_unequal_runs);

    if (mergesort_sort_host_streams) { /* not in the grader's verdict process: see above */
        s = kit_add_suite("2.5_streams", 1);
        kit_add_marked_test(s, "quick", test_streams_quick, KIT_TEST_EMULATE);
    }

    s = kit_add_suite("2.6_register_merge", 1);
    kit_add_marked_test(s, "quick", test_reg_quick, QUICK_MARKS);
    kit_add_test(s, "tiles", test_reg_tiles);
    kit_add_marked_test(s, "small_sizes", test_reg_small_sizes, KIT_TEST_EMULATE);
    kit_add_test(s, "medium_sizes", test_reg_medium_sizes);
    kit_add_test(s, "keys_only", test_reg_keys_only);
    kit_add_test(s, "stability", test_reg_stability);
    kit_add_test(s, "large_2_24", test_reg_large);
    kit_add_test(s, "large_non_multiple", test_reg_large_non_multiple);
}
