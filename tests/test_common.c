/* Host suites for common/: generators, CPU sorts, key flips, verifier, timers. One GPU
 * suite runs the key flips in a kernel and compares them with the host's. */
#define _POSIX_C_SOURCE 200809L /* mkstemp() */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_csv.h"
#include "cpu_sort.h"
#include "cuda_check.h"
#include "datagen.h"
#include "keyflip.h"
#include "keyflip_device.h"
#include "kit_tiles.h"
#include "parallel.h"
#include "runner.h"
#include "timer.h"
#include "verify.h"

static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 65537};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

static uint32_t *alloc_u32(size_t n)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        abort();
    }
    return p;
}

/* ---- generators ------------------------------------------------------------------------- */

static void test_generators_are_reproducible(void)
{
    size_t n = 4096;
    uint32_t *a = alloc_u32(n), *b = alloc_u32(n), *c = alloc_u32(n);
    for (int d = 0; d < KIT_DIST_COUNT; d++) {
        kit_generate_u32(a, n, (kit_dist)d, 7);
        kit_generate_u32(b, n, (kit_dist)d, 7);
        kit_generate_u32(c, n, (kit_dist)d, 8);
        if (memcmp(a, b, n * sizeof *a) != 0) {
            KIT_FAIL("%s: seed 7 gave two different arrays", kit_dist_name((kit_dist)d));
        }
        if (d != KIT_DIST_ZERO_ONE && d != KIT_DIST_EXTREMES && memcmp(a, c, n * sizeof *a) == 0) {
            KIT_FAIL("%s: seeds 7 and 8 gave the same array", kit_dist_name((kit_dist)d));
        }
    }
    free(a);
    free(b);
    free(c);
}

static void test_generator_shapes(void)
{
    size_t n = 10001;
    uint32_t *k = alloc_u32(n);
    kit_generate_u32(k, n, KIT_DIST_SORTED, 1);
    for (size_t i = 0; i + 1 < n; i++) {
        if (k[i] > k[i + 1]) {
            KIT_FAIL("sorted: keys[%zu] = %u > keys[%zu] = %u", i, k[i], i + 1, k[i + 1]);
            break;
        }
    }
    kit_generate_u32(k, n, KIT_DIST_REVERSED, 1);
    for (size_t i = 0; i + 1 < n; i++) {
        if (k[i] < k[i + 1]) {
            KIT_FAIL("reversed: keys[%zu] = %u < keys[%zu] = %u", i, k[i], i + 1, k[i + 1]);
            break;
        }
    }
    kit_generate_u32(k, n, KIT_DIST_ALL_EQUAL, 1);
    for (size_t i = 1; i < n; i++) {
        if (k[i] != k[0]) {
            KIT_FAIL("all-equal: keys[%zu] = %u != keys[0] = %u", i, k[i], k[0]);
            break;
        }
    }
    kit_generate_u32(k, n, KIT_DIST_ZERO_ONE, 1);
    size_t ones = 0;
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT(k[i] <= 1);
        ones += k[i];
    }
    CU_ASSERT(ones > n / 4 && ones < 3 * n / 4);
    kit_generate_u32(k, n, KIT_DIST_FEW_UNIQUE, 1);
    kit_cpu_radix_sort_u32(k, n);
    size_t distinct = 1;
    for (size_t i = 1; i < n; i++) {
        distinct += k[i] != k[i - 1];
    }
    CU_ASSERT(distinct >= 2 && distinct <= 8);
    kit_generate_u32(k, n, KIT_DIST_ORGAN_PIPE, 1);
    size_t peak = 0;
    for (size_t i = 1; i < n; i++) {
        if (k[i] > k[peak]) {
            peak = i;
        }
    }
    CU_ASSERT(peak > n / 4 && peak < 3 * n / 4);
    for (size_t i = 0; i + 1 < n; i++) {
        int rising = i < peak;
        if (rising ? k[i] > k[i + 1] : k[i] < k[i + 1]) {
            KIT_FAIL("organ-pipe: not %s at index %zu (peak at %zu)", rising ? "rising" : "falling",
                     i, peak);
            break;
        }
    }
    kit_generate_u32(k, n, KIT_DIST_NEARLY_SORTED, 1);
    size_t descents = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        descents += k[i] > k[i + 1];
    }
    CU_ASSERT(descents > 0 && descents <= 2 * (n / 100 + 1));
    kit_generate_u32(k, n, KIT_DIST_EXTREMES, 1);
    int has_zero = 0, has_max = 0;
    for (size_t i = 0; i < n; i++) {
        has_zero |= k[i] == 0;
        has_max |= k[i] == 0xFFFFFFFFu;
    }
    CU_ASSERT(has_zero && has_max);
    free(k);
}

static void test_float_extremes_present(void)
{
    size_t n = 4096;
    float *f = malloc(n * sizeof *f);
    int neg_zero = 0, pos_inf = 0, neg_inf = 0, nan = 0;
    kit_generate_f32(f, n, KIT_DIST_EXTREMES, 3);
    for (size_t i = 0; i < n; i++) {
        neg_zero |= f[i] == 0.0f && signbit(f[i]);
        pos_inf |= isinf(f[i]) && f[i] > 0;
        neg_inf |= isinf(f[i]) && f[i] < 0;
        nan |= isnan(f[i]);
    }
    CU_ASSERT(neg_zero && pos_inf && neg_inf && nan);
    free(f);
    int32_t *s = malloc(n * sizeof *s);
    int has_min = 0, has_max = 0;
    kit_generate_i32(s, n, KIT_DIST_EXTREMES, 3);
    for (size_t i = 0; i < n; i++) {
        has_min |= s[i] == INT32_MIN;
        has_max |= s[i] == INT32_MAX;
    }
    CU_ASSERT(has_min && has_max);
    free(s);
}

static void test_pairs_values_are_indices(void)
{
    size_t n = 1000;
    uint32_t *k = alloc_u32(n), *v = alloc_u32(n), *k2 = alloc_u32(n);
    kit_generate_pairs_u32(k, v, n, KIT_DIST_UNIFORM, 5);
    kit_generate_u32(k2, n, KIT_DIST_UNIFORM, 5);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(v[i], i);
    }
    CU_ASSERT(memcmp(k, k2, n * sizeof *k) == 0);
    free(k);
    free(v);
    free(k2);
}

static void test_dist_names_round_trip(void)
{
    for (int d = 0; d < KIT_DIST_COUNT; d++) {
        kit_dist parsed;
        CU_ASSERT_EQUAL(kit_dist_parse(kit_dist_name((kit_dist)d), &parsed), 0);
        CU_ASSERT_EQUAL(parsed, d);
    }
    kit_dist unused;
    CU_ASSERT_EQUAL(kit_dist_parse("gaussian", &unused), -1);
    CU_ASSERT_EQUAL(kit_dist_parse("", &unused), -1);
}

/* ---- CPU sorts ---------------------------------------------------------------------------- */

static void test_merge_and_radix_agree_u32(void)
{
    for (size_t s = 0; s < SIZE_COUNT; s++) {
        size_t n = sizes[s];
        uint32_t *in = alloc_u32(n), *a = alloc_u32(n), *b = alloc_u32(n);
        for (int d = 0; d < KIT_DIST_COUNT; d++) {
            kit_generate_u32(in, n, (kit_dist)d, 11);
            memcpy(a, in, n * sizeof *in);
            memcpy(b, in, n * sizeof *in);
            CU_ASSERT_EQUAL(kit_cpu_merge_sort_u32(a, n), 0);
            CU_ASSERT_EQUAL(kit_cpu_radix_sort_u32(b, n), 0);
            if (memcmp(a, b, n * sizeof *a) != 0) {
                KIT_FAIL("u32 n=%zu dist=%s: merge and radix sort disagree", n,
                         kit_dist_name((kit_dist)d));
            }
            kit_verdict v = kit_verify_u32(in, a, n, 0);
            if (v.status != KIT_VERIFY_OK) {
                KIT_FAIL("u32 n=%zu dist=%s: %s", n, kit_dist_name((kit_dist)d), v.message);
            }
        }
        free(in);
        free(a);
        free(b);
    }
}

static void test_merge_and_radix_agree_i32_f32(void)
{
    for (size_t s = 0; s < SIZE_COUNT; s++) {
        size_t n = sizes[s];
        size_t bytes = (n ? n : 1) * 4;
        int32_t *ia = malloc(bytes), *ib = malloc(bytes);
        float *fa = malloc(bytes), *fb = malloc(bytes);
        for (int d = 0; d < KIT_DIST_COUNT; d++) {
            kit_generate_i32(ia, n, (kit_dist)d, 12);
            memcpy(ib, ia, n * 4);
            kit_cpu_merge_sort_i32(ia, n);
            kit_cpu_radix_sort_i32(ib, n);
            if (memcmp(ia, ib, n * 4) != 0) {
                KIT_FAIL("i32 n=%zu dist=%s: merge and radix sort disagree", n,
                         kit_dist_name((kit_dist)d));
            }
            for (size_t i = 0; i + 1 < n; i++) {
                if (ia[i] > ia[i + 1]) {
                    KIT_FAIL("i32 n=%zu: not sorted at %zu", n, i);
                    break;
                }
            }
            kit_generate_f32(fa, n, (kit_dist)d, 12);
            memcpy(fb, fa, n * 4);
            kit_cpu_merge_sort_f32(fa, n);
            kit_cpu_radix_sort_f32(fb, n);
            if (memcmp(fa, fb, n * 4) != 0) {
                KIT_FAIL("f32 n=%zu dist=%s: merge and radix sort disagree", n,
                         kit_dist_name((kit_dist)d));
            }
        }
        free(ia);
        free(ib);
        free(fa);
        free(fb);
    }
}

static void test_float_total_order(void)
{
    /* The documented order: -NaN < -inf < -1 < -0.0 < +0.0 < denormal < 1 < +inf < +NaN.
     * Once as it is (9 keys: the small-n insertion sort) and eight times over (72 keys: the
     * radix passes). */
    float expected[] = {-NAN, -INFINITY, -1.0f, -0.0f, 0.0f, FLT_TRUE_MIN, 1.0f, INFINITY, NAN};
    enum { KEYS = sizeof expected / sizeof expected[0], MOST_COPIES = 8 };
    float shuffled[] = {1.0f, NAN, -0.0f, -INFINITY, FLT_TRUE_MIN, 0.0f, -NAN, INFINITY, -1.0f};
    for (size_t copies = 1; copies <= MOST_COPIES; copies += MOST_COPIES - 1) {
        float a[KEYS * MOST_COPIES], b[KEYS * MOST_COPIES];
        size_t n = KEYS * copies;
        for (size_t i = 0; i < n; i++) {
            a[i] = b[i] = shuffled[i % KEYS];
        }
        kit_cpu_merge_sort_f32(a, n);
        kit_cpu_radix_sort_f32(b, n);
        for (size_t i = 0; i < n; i++) {
            float want = expected[i / copies];
            if (kit_float_bits(a[i]) != kit_float_bits(want) ||
                kit_float_bits(b[i]) != kit_float_bits(want)) {
                KIT_FAIL("float order of %zu keys at %zu: expected bits 0x%08x, merge 0x%08x, "
                         "radix 0x%08x",
                         n, i, kit_float_bits(want), kit_float_bits(a[i]), kit_float_bits(b[i]));
                break;
            }
        }
    }
}

static void test_radix_constant_bytes_and_all_negative(void)
{
    /* Keys below 256: three constant bytes, three passes skipped. */
    uint32_t small[] = {200, 3, 255, 0, 17, 3};
    uint32_t small_sorted[] = {0, 3, 3, 17, 200, 255};
    kit_cpu_radix_sort_u32(small, 6);
    CU_ASSERT(memcmp(small, small_sorted, sizeof small) == 0);
    /* All negative floats with one top byte: the last pass is still needed to reverse. */
    float neg[] = {-1.5f, -1.25f, -1.75f, -1.0f};
    float neg_sorted[] = {-1.75f, -1.5f, -1.25f, -1.0f};
    kit_cpu_radix_sort_f32(neg, 4);
    CU_ASSERT(memcmp(neg, neg_sorted, sizeof neg) == 0);
    int32_t ints[] = {5, -3, INT32_MIN, 0, INT32_MAX, -1};
    int32_t ints_sorted[] = {INT32_MIN, -3, -1, 0, 5, INT32_MAX};
    kit_cpu_radix_sort_i32(ints, 6);
    CU_ASSERT(memcmp(ints, ints_sorted, sizeof ints) == 0);
}

/* Above KIT_PARALLEL_MIN_ITEMS the radix sort cuts the keys into shares, one thread each (on
 * a machine of several CPUs): its passes must still be stable and put every share's keys in
 * their bucket's places, the float pass's reversed negatives included. n is no multiple of
 * the share count, so the shares differ in size. */
static void test_radix_sort_in_shares(void)
{
    size_t n = 3 * KIT_PARALLEL_MIN_ITEMS + 12345;
    uint32_t *a = alloc_u32(n), *b = alloc_u32(n);
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_EXTREMES,
                              KIT_DIST_ORGAN_PIPE};
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
        kit_generate_u32(a, n, dists[d], 31);
        memcpy(b, a, n * sizeof *a);
        kit_cpu_merge_sort_u32(a, n);
        CU_ASSERT_EQUAL(kit_cpu_radix_sort_u32(b, n), 0);
        if (memcmp(a, b, n * sizeof *a) != 0) {
            KIT_FAIL("u32 n=%zu dist=%s in %zu shares: merge and radix sort disagree", n,
                     kit_dist_name(dists[d]), kit_parallel_shares(n));
        }
        kit_generate_i32((int32_t *)a, n, dists[d], 32);
        memcpy(b, a, n * sizeof *a);
        kit_cpu_merge_sort_i32((int32_t *)a, n);
        kit_cpu_radix_sort_i32((int32_t *)b, n);
        if (memcmp(a, b, n * sizeof *a) != 0) {
            KIT_FAIL("i32 n=%zu dist=%s: merge and radix sort disagree", n,
                     kit_dist_name(dists[d]));
        }
        kit_generate_f32((float *)a, n, dists[d], 33);
        for (size_t i = 0; d == 0 && i < n; i += 3) { /* a third negative */
            ((float *)a)[i] = -((float *)a)[i];
        }
        memcpy(b, a, n * sizeof *a);
        kit_cpu_merge_sort_f32((float *)a, n);
        kit_cpu_radix_sort_f32((float *)b, n);
        if (memcmp(a, b, n * sizeof *a) != 0) {
            KIT_FAIL("f32 n=%zu dist=%s: merge and radix sort disagree", n,
                     kit_dist_name(dists[d]));
        }
    }
    /* Negative floats of one top byte: the last pass is still made, to reverse them. */
    float *f = (float *)a;
    for (size_t i = 0; i < n; i++) {
        f[i] = -1.0f - (float)((i * 7919) % 100000) / 200000.0f;
    }
    memcpy(b, a, n * sizeof *a);
    kit_cpu_merge_sort_f32(f, n);
    kit_cpu_radix_sort_f32((float *)b, n);
    CU_ASSERT(memcmp(a, b, n * sizeof *a) == 0);
    free(a);
    free(b);
}

static void test_merge_sort_pairs_is_stable(void)
{
    size_t n = 5000;
    uint32_t *k = alloc_u32(n), *v = alloc_u32(n), *snap = alloc_u32(n);
    kit_generate_pairs_u32(k, v, n, KIT_DIST_FEW_UNIQUE, 4);
    memcpy(snap, k, n * sizeof *k);
    kit_cpu_merge_sort_pairs_u32(k, v, n);
    kit_verdict verdict = kit_verify_pairs_u32(snap, k, v, n, KIT_VERIFY_STABLE);
    if (verdict.status != KIT_VERIFY_OK) {
        KIT_FAIL("%s", verdict.message);
    }
    free(k);
    free(v);
    free(snap);
}

/* ---- the tile counts of the kit's vocabulary (kit_tiles.h) -------------------------------- */

static void test_tile_counts(void)
{
    CU_ASSERT_EQUAL(kit_num_tiles(0, 1024), 0);
    CU_ASSERT_EQUAL(kit_num_tiles(1, 1024), 1);
    CU_ASSERT_EQUAL(kit_num_tiles(1024, 1024), 1);
    CU_ASSERT_EQUAL(kit_num_tiles(1025, 1024), 2);
    CU_ASSERT_EQUAL(kit_num_tiles(6 * 2432, 2432), 6); /* a tile that is no power of two */
    CU_ASSERT_EQUAL(kit_tile_keys(1025, 0, 1024), 1024);
    CU_ASSERT_EQUAL(kit_tile_keys(1025, 1024, 1024), 1); /* the last tile: what is left */
    CU_ASSERT_EQUAL(kit_tile_keys(2048, 1024, 1024), 1024);
    CU_ASSERT_EQUAL(kit_tile_keys((size_t)1 << 40, ((size_t)1 << 40) - 5, 2432), 5);
}

/* ---- key flips ---------------------------------------------------------------------------- */

static void test_flips_round_trip_and_keep_order(void)
{
    kit_rng rng;
    kit_rng_seed(&rng, 99);
    for (int i = 0; i < 100000; i++) {
        uint32_t x = (uint32_t)kit_rng_next(&rng), y = (uint32_t)kit_rng_next(&rng);
        int32_t a = (int32_t)x, b = (int32_t)y;
        CU_ASSERT_EQUAL(kit_unflip_i32(kit_flip_i32(a)), a);
        if ((a < b) != (kit_flip_i32(a) < kit_flip_i32(b))) {
            KIT_FAIL("signed flip breaks the order of %d and %d", a, b);
        }
        float f = kit_bits_float(x), g = kit_bits_float(y);
        CU_ASSERT_EQUAL(kit_float_bits(kit_unflip_f32(kit_flip_f32(f))), x);
        if (!isnan(f) && !isnan(g) && f < g && !(kit_flip_f32(f) < kit_flip_f32(g))) {
            KIT_FAIL("float flip breaks the order of %g and %g", f, g);
        }
    }
    CU_ASSERT(kit_flip_f32(-0.0f) < kit_flip_f32(0.0f));
    CU_ASSERT(kit_flip_f32(INFINITY) < kit_flip_f32(NAN));
    CU_ASSERT(kit_flip_f32(-NAN) < kit_flip_f32(-INFINITY));
    CU_ASSERT_EQUAL(kit_flip_i32(INT32_MIN), 0u);
    CU_ASSERT_EQUAL(kit_flip_i32(INT32_MAX), 0xFFFFFFFFu);
}

static void test_flips_on_device_match_host(void)
{
    size_t n = 4096;
    int32_t *ints = malloc(n * 4), *ints_back = malloc(n * 4);
    float *floats = malloc(n * 4), *floats_back = malloc(n * 4);
    uint32_t *ibits = alloc_u32(n), *fbits = alloc_u32(n);
    kit_generate_i32(ints, n, KIT_DIST_EXTREMES, 1);
    kit_generate_f32(floats, n, KIT_DIST_EXTREMES, 1);
    void *d[6];
    for (int i = 0; i < 6; i++) {
        CUDA_CHECK(cudaMalloc(&d[i], n * 4));
    }
    CUDA_CHECK(cudaMemcpy(d[0], ints, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d[1], floats, n * 4, cudaMemcpyHostToDevice));
    cudaError_t err = flip_keys_on_device(d[0], d[1], n, d[2], d[3], d[4], d[5]);
    if (err != cudaSuccess) {
        KIT_FAIL("flip kernel: %s", cudaGetErrorString(err));
    } else {
        CUDA_CHECK(cudaMemcpy(ibits, d[2], n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(fbits, d[3], n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(ints_back, d[4], n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(floats_back, d[5], n * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) {
            if (ibits[i] != kit_flip_i32(ints[i]) || fbits[i] != kit_flip_f32(floats[i]) ||
                ints_back[i] != ints[i] ||
                kit_float_bits(floats_back[i]) != kit_float_bits(floats[i])) {
                KIT_FAIL("device flip differs from host at %zu (int %d, float bits 0x%08x)", i,
                         ints[i], kit_float_bits(floats[i]));
                break;
            }
        }
    }
    for (int i = 0; i < 6; i++) {
        CUDA_CHECK(cudaFree(d[i]));
    }
    free(ints);
    free(ints_back);
    free(floats);
    free(floats_back);
    free(ibits);
    free(fbits);
}

/* ---- verifier: plant each kind of error and check it is caught where it is ---------------- */

static void expect_verdict(kit_verdict v, kit_verify_status status, size_t index, const char *what)
{
    if (v.status != status || (status != KIT_VERIFY_OK && v.index != index)) {
        KIT_FAIL("%s: expected status %d at index %zu, got status %d at index %zu (%s)", what,
                 status, index, v.status, v.index, v.message);
    }
    if (status != KIT_VERIFY_OK && strstr(v.message, "index") == NULL) {
        KIT_FAIL("%s: the message does not name the index: %s", what, v.message);
    }
}

static void test_verifier_catches_planted_errors(void)
{
    size_t n = 1000;
    uint32_t *in = alloc_u32(n), *out = alloc_u32(n), *vals = alloc_u32(n);
    kit_generate_pairs_u32(in, vals, n, KIT_DIST_UNIFORM, 21);
    memcpy(out, in, n * sizeof *in);
    kit_cpu_merge_sort_pairs_u32(out, vals, n);
    expect_verdict(kit_verify_pairs_u32(in, out, vals, n, KIT_VERIFY_STABLE), KIT_VERIFY_OK, 0,
                   "correct output");

    uint32_t t = out[500]; /* one inversion */
    out[500] = out[501];
    out[501] = t;
    expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_ORDER, 500, "inversion");
    out[501] = out[500];
    out[500] = t;

    uint32_t saved = out[700]; /* a key lost: replaced by a copy of its neighbour */
    out[700] = out[699];
    expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_MULTISET, 700, "lost key");
    out[700] = saved;

    out[0] = out[0] > 0 ? out[0] - 1 : 0; /* a changed key that keeps the order */
    if (out[0] != in[vals[0]]) {
        expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_MULTISET, 0, "changed key");
    }
    out[0] = in[vals[0]];

    uint32_t v = vals[300]; /* a value detached from its key */
    vals[300] = vals[301];
    vals[301] = v;
    if (out[300] != out[301]) {
        expect_verdict(kit_verify_pairs_u32(in, out, vals, n, 0), KIT_VERIFY_DETACHED, 300,
                       "detached value");
    }
    vals[301] = vals[300]; /* swap back, then duplicate one value */
    vals[300] = v;
    vals[301] = vals[300];
    expect_verdict(kit_verify_pairs_u32(in, out, vals, n, 0), KIT_VERIFY_DETACHED, 301,
                   "duplicated value");
    free(in);
    free(out);
    free(vals);
}

static void test_verifier_catches_instability_and_direction(void)
{
    uint32_t in[] = {5, 3, 5, 1};
    uint32_t out[] = {1, 3, 5, 5};
    uint32_t stable[] = {3, 1, 0, 2};
    uint32_t unstable[] = {3, 1, 2, 0};
    expect_verdict(kit_verify_pairs_u32(in, out, stable, 4, KIT_VERIFY_STABLE), KIT_VERIFY_OK, 0,
                   "stable");
    expect_verdict(kit_verify_pairs_u32(in, out, unstable, 4, 0), KIT_VERIFY_OK, 0,
                   "unstable but not asked");
    expect_verdict(kit_verify_pairs_u32(in, out, unstable, 4, KIT_VERIFY_STABLE),
                   KIT_VERIFY_UNSTABLE, 2, "unstable");
    uint32_t down[] = {5, 5, 3, 1};
    expect_verdict(kit_verify_u32(in, down, 4, KIT_VERIFY_DESCENDING), KIT_VERIFY_OK, 0,
                   "descending");
    expect_verdict(kit_verify_u32(in, out, 4, KIT_VERIFY_DESCENDING), KIT_VERIFY_ORDER, 0,
                   "ascending when descending was asked");
    expect_verdict(kit_verify_u32(in, in, 0, 0), KIT_VERIFY_OK, 0, "n = 0");
    float fin[] = {NAN, -0.0f, 0.0f};
    float fbad[] = {0.0f, -0.0f, NAN};
    expect_verdict(kit_verify_f32(fin, fbad, 3, 0), KIT_VERIFY_ORDER, 0, "+0.0 before -0.0");
}

/* The fast path (a fingerprint instead of a sort) must give the verdicts a sort gives: the
 * same status, at the same index, in the same order of precedence. */
static void test_verifier_fast_path_keeps_the_verdicts(void)
{
    uint32_t a[] = {1, 4, 7, 7, 9}, b[] = {7, 9, 1, 7, 4}, c[] = {2, 3, 7, 7, 9};
    uint64_t secret = kit_fingerprint_secret();
    CU_ASSERT_EQUAL(kit_multiset_fingerprint(a, 5, secret), kit_multiset_fingerprint(b, 5, secret));
    /* {1, 4} and {2, 3}: the same sum, another multiset; and a key duplicated in place of one. */
    CU_ASSERT_NOT_EQUAL(kit_multiset_fingerprint(a, 5, secret),
                        kit_multiset_fingerprint(c, 5, secret));
    uint32_t d[] = {1, 4, 7, 9, 9};
    CU_ASSERT_NOT_EQUAL(kit_multiset_fingerprint(a, 5, secret),
                        kit_multiset_fingerprint(d, 5, secret));

    uint32_t in[] = {9, 4, 7, 1, 7}, sorted[] = {1, 4, 7, 7, 9}, vals[] = {3, 1, 2, 4, 0};
    expect_verdict(kit_verify_pairs_u32(in, sorted, vals, 5, KIT_VERIFY_STABLE), KIT_VERIFY_OK, 0,
                   "pairs, correct");
    uint32_t changed[] = {1, 4, 7, 8, 9}; /* sorted, a key changed: its value is detached too */
    expect_verdict(kit_verify_pairs_u32(in, changed, vals, 5, 0), KIT_VERIFY_MULTISET, 3,
                   "pairs, a changed key comes before its detached value");
    expect_verdict(kit_verify_u32(in, changed, 5, 0), KIT_VERIFY_MULTISET, 3, "keys, changed");
    uint32_t swapped[] = {3, 1, 4, 2, 0}; /* equal keys 7 with their values swapped */
    expect_verdict(kit_verify_pairs_u32(in, sorted, swapped, 5, KIT_VERIFY_STABLE),
                   KIT_VERIFY_UNSTABLE, 2, "pairs, unstable");

    int32_t iin[] = {-5, 3, -1}, igood[] = {-5, -1, 3}, ibad[] = {-5, -2, 3};
    expect_verdict(kit_verify_i32(iin, igood, 3, 0), KIT_VERIFY_OK, 0, "signed, correct");
    expect_verdict(kit_verify_i32(iin, ibad, 3, 0), KIT_VERIFY_MULTISET, 1, "signed, changed");
    expect_verdict(kit_verify_i32(iin, iin, 3, 0), KIT_VERIFY_ORDER, 1, "signed, not sorted");
    float fin[] = {2.5f, -1.0f, 0.0f}, fgood[] = {-1.0f, 0.0f, 2.5f}, fbad[] = {-1.0f, 0.0f, 3.5f};
    expect_verdict(kit_verify_f32(fin, fgood, 3, 0), KIT_VERIFY_OK, 0, "float, correct");
    expect_verdict(kit_verify_f32(fin, fbad, 3, 0), KIT_VERIFY_MULTISET, 2, "float, changed");
}

/* Above KIT_PARALLEL_MIN_ITEMS the verifier checks a correct output in shares, one thread
 * each; any fault sends it back to the one-thread checks, so every verdict must be theirs: a
 * fault planted on each side of a share boundary, or in a pair that straddles it, is named at
 * its own index. */
static void test_verifier_in_shares(void)
{
    size_t n = 4 * KIT_PARALLEL_MIN_ITEMS + 7;
    uint32_t *in = alloc_u32(n), *out = alloc_u32(n), *vals = alloc_u32(n);
    kit_generate_pairs_u32(in, vals, n, KIT_DIST_FEW_UNIQUE, 41);
    memcpy(out, in, n * sizeof *in);
    kit_cpu_merge_sort_pairs_u32(out, vals, n);
    expect_verdict(kit_verify_pairs_u32(in, out, vals, n, KIT_VERIFY_STABLE), KIT_VERIFY_OK, 0,
                   "large, correct");
    expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_OK, 0, "large keys, correct");
    size_t shares = kit_parallel_shares(n);
    size_t edge = kit_share_begin(n, shares > 1 ? 1 : 0, shares > 1 ? shares : 2);
    /* Where the order breaks: keys distinct from their neighbours' around the edge. */
    size_t spots[] = {edge - 1, edge, n / 2 + 3};
    for (size_t k = 0; k < sizeof spots / sizeof spots[0]; k++) {
        size_t i = spots[k];
        uint32_t saved = out[i];
        out[i] = out[i + 1] + 1; /* bigger than the next key: an inversion at i */
        if (out[i] > out[i + 1]) {
            expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_ORDER, i, "large inversion");
            expect_verdict(kit_verify_pairs_u32(in, out, vals, n, 0), KIT_VERIFY_ORDER, i,
                           "large pairs inversion");
        }
        out[i] = saved;
        /* A value swapped with its neighbour's: detached where the keys differ, unstable
         * where they are equal (few unique keys: mostly equal). */
        uint32_t v = vals[i];
        vals[i] = vals[i + 1];
        vals[i + 1] = v;
        expect_verdict(kit_verify_pairs_u32(in, out, vals, n, KIT_VERIFY_STABLE),
                       out[i] == out[i + 1] ? KIT_VERIFY_UNSTABLE : KIT_VERIFY_DETACHED, i,
                       "large swapped values");
        vals[i + 1] = vals[i];
        vals[i] = v;
        vals[i] = vals[i + 1]; /* a duplicated value, found at its second place */
        expect_verdict(kit_verify_pairs_u32(in, out, vals, n, 0), KIT_VERIFY_DETACHED,
                       out[i] == out[i + 1] ? i + 1 : i, "large duplicated value");
        vals[i] = (uint32_t)n; /* out of range */
        expect_verdict(kit_verify_pairs_u32(in, out, vals, n, 0), KIT_VERIFY_DETACHED, i,
                       "large value out of range");
        vals[i] = v;
    }
    /* A key lost (its neighbour's copy in its place keeps the order): the multiset. */
    size_t lost = edge;
    while (lost + 1 < n && out[lost] == out[lost - 1]) {
        lost++;
    }
    uint32_t saved = out[lost];
    out[lost] = out[lost - 1];
    expect_verdict(kit_verify_u32(in, out, n, 0), KIT_VERIFY_MULTISET, lost, "large lost key");
    out[lost] = saved;
    expect_verdict(kit_verify_pairs_u32(in, out, vals, n, KIT_VERIFY_STABLE), KIT_VERIFY_OK, 0,
                   "large, correct again");
    /* Pairs in any order (a step of a sort): the input itself, then a value moved to another
     * key across the share edge, then one seen twice. */
    for (size_t i = 0; i < n; i++) {
        vals[i] = (uint32_t)i;
    }
    expect_verdict(kit_verify_attached_u32(in, in, vals, n), KIT_VERIFY_OK, 0,
                   "large unsorted pairs, attached");
    size_t other = edge + 1;
    while (other + 1 < n && in[other] == in[edge - 1]) {
        other++;
    }
    vals[edge - 1] = (uint32_t)other;
    vals[other] = (uint32_t)(edge - 1);
    expect_verdict(kit_verify_attached_u32(in, in, vals, n), KIT_VERIFY_DETACHED, edge - 1,
                   "large unsorted pairs, values exchanged");
    vals[edge - 1] = (uint32_t)(edge - 1);
    vals[other] = (uint32_t)other;
    vals[edge] = (uint32_t)(edge - 1);
    expect_verdict(kit_verify_attached_u32(in, in, vals, n), KIT_VERIFY_DETACHED, edge,
                   "large unsorted pairs, a value twice (or with another key)");
    free(in);
    free(out);
    free(vals);
}

/* ---- timers ------------------------------------------------------------------------------- */

static void test_median_and_clock(void)
{
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    CU_ASSERT_DOUBLE_EQUAL(kit_median(odd, 3), 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(kit_median(even, 4), 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(kit_median(NULL, 0), 0.0, 1e-12);
    double a = kit_host_ms(), b = kit_host_ms();
    CU_ASSERT(b >= a);
}

/* ---- the benchmark's CSV rows ------------------------------------------------------------ */

/* Writes the header and @p row to a temporary file and reads it all back into @p text. */
static void csv_text(const kit_bench_row *row, char *text, size_t size)
{
    FILE *f = tmpfile();
    text[0] = '\0';
    if (!f) {
        KIT_FAIL("tmpfile() failed");
        return;
    }
    if (kit_bench_csv_header(f) != 0 || kit_bench_csv_row(f, row) != 0) {
        KIT_FAIL("kit_bench_csv_header/row reported a failed write to a temporary file");
    }
    rewind(f);
    size_t got = fread(text, 1, size - 1, f);
    text[got] = '\0';
    fclose(f);
}

static const char bench_header[] = "device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,"
                                   "cub_radix_ms,cub_merge_ms,std_sort_ms,floor_ms,"
                                   "cub_radix_pairs_ms\n";

static void test_bench_csv_rows(void)
{
    const char *header = bench_header;
    kit_bench_row row = {"NVIDIA H100 80GB HBM3",
                         "abc1234",
                         "04-radix",
                         "keys",
                         "uniform",
                         13000,
                         (size_t)1 << 24,
                         1.5,
                         0.5,
                         0.9,
                         1200,
                         0.25,
                         0};
    char text[1024];
    csv_text(&row, text, sizeof text);
    const char *expected = "NVIDIA H100 80GB HBM3,13000,abc1234,04-radix,keys,16777216,uniform,"
                           "1.5000,11.1848,0.5000,0.9000,1200.0000,0.2500,\n";
    if (strncmp(text, header, strlen(header)) != 0 || strcmp(text + strlen(header), expected)) {
        KIT_FAIL("a plain row: got\n%s\nexpected the header, then\n%s", text, expected);
        return;
    }
    /* A device name with a comma and a quote is quoted, its quote doubled, a line break made a
     * space; no floor leaves its field empty. */
    kit_bench_row odd = {"GPU \"X\", rev\n2",
                         "unknown",
                         "02-mergesort",
                         "pairs",
                         "uniform",
                         12080,
                         1000,
                         2.0,
                         1.0,
                         1.0,
                         3.0,
                         -1,
                         0};
    csv_text(&odd, text, sizeof text);
    expected = "\"GPU \"\"X\"\", rev 2\",12080,unknown,02-mergesort,pairs,1000,uniform,2.0000,"
               "0.0005,1.0000,1.0000,3.0000,,\n";
    if (strcmp(text + strlen(header), expected) != 0) {
        KIT_FAIL("a row to quote: got\n%s\nexpected\n%s", text + strlen(header), expected);
    }
    /* A tier of pairs: CUB's sort of pairs in the last field, after the floor or its empty
     * field. */
    kit_bench_row pairs = {"NVIDIA H100 80GB HBM3",
                           "abc1234",
                           "radix",
                           "onesweep_pairs",
                           "uniform",
                           13000,
                           (size_t)1 << 26,
                           4.0,
                           1.5,
                           3.0,
                           5000,
                           2.5,
                           2.0};
    csv_text(&pairs, text, sizeof text);
    expected = "NVIDIA H100 80GB HBM3,13000,abc1234,radix,onesweep_pairs,67108864,uniform,"
               "4.0000,16.7772,1.5000,3.0000,5000.0000,2.5000,2.0000\n";
    if (strcmp(text + strlen(header), expected) != 0) {
        KIT_FAIL("a row of pairs: got\n%s\nexpected\n%s", text + strlen(header), expected);
    }
    pairs.floor_ms = -1;
    csv_text(&pairs, text, sizeof text);
    expected = "NVIDIA H100 80GB HBM3,13000,abc1234,radix,onesweep_pairs,67108864,uniform,"
               "4.0000,16.7772,1.5000,3.0000,5000.0000,,2.0000\n";
    if (strcmp(text + strlen(header), expected) != 0) {
        KIT_FAIL("a row of pairs without a floor: got\n%s\nexpected\n%s", text + strlen(header),
                 expected);
    }
}

/* A file in the temporary folder holding @p text; its path in @p path. 0, or -1. */
static int temporary_file(char *path, size_t size, const char *text)
{
    const char *folder = getenv("TMPDIR");
    snprintf(path, size, "%s/kit_bench_csv_XXXXXX", folder && *folder ? folder : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        KIT_FAIL("mkstemp(%s) failed", path);
        return -1;
    }
    size_t length = strlen(text);
    int wrote = write(fd, text, length) == (ssize_t)length;
    close(fd);
    if (!wrote) {
        KIT_FAIL("could not write %s", path);
        remove(path);
        return -1;
    }
    return 0;
}

/* The whole file at @p path into @p text. */
static void read_back(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(text, 1, size - 1, f) : 0;
    text[got] = '\0';
    if (f) {
        fclose(f);
    }
}

/* Appends @p row to @p path through kit_bench_csv_open(); 0, or -1 when it refused the file. */
static int append_row(const char *path, const kit_bench_row *row)
{
    FILE *csv = kit_bench_csv_open(path, "test_common");
    if (!csv) {
        return -1;
    }
    if (kit_bench_csv_row(csv, row) != 0) {
        KIT_FAIL("kit_bench_csv_row could not write to %s", path);
    }
    fclose(csv);
    return 0;
}

static void test_bench_csv_open(void)
{
    kit_bench_row row = {"GPU", "abc1234", "radix", "pairs", "uniform", 13000, 1000,
                         2.0,   1.0,       1.0,     3.0,     -1,        1.5};
    const char *line = "GPU,13000,abc1234,radix,pairs,1000,uniform,2.0000,0.0005,1.0000,1.0000,"
                       "3.0000,,1.5000\n";
    char path[512], text[2048], expected[2048];
    /* An empty file gets the header, then rows; a second run appends below them. */
    if (temporary_file(path, sizeof path, "") != 0) {
        return;
    }
    if (append_row(path, &row) != 0 || append_row(path, &row) != 0) {
        KIT_FAIL("kit_bench_csv_open refused a file it wrote itself (%s)", path);
    }
    read_back(path, text, sizeof text);
    snprintf(expected, sizeof expected, "%s%s%s", bench_header, line, line);
    if (strcmp(text, expected) != 0) {
        KIT_FAIL("two runs into one file: got\n%s\nexpected\n%s", text, expected);
    }
    remove(path);
    /* A file of the kit before cub_radix_pairs_ms (13 columns): refused and left as it was,
     * not given rows of another shape. */
    const char *old = "device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,cub_radix_ms,"
                      "cub_merge_ms,std_sort_ms,floor_ms\n"
                      "GPU,13000,abc1234,radix,keys,1000,uniform,2.0000,0.0005,1.0000,1.0000,"
                      "3.0000,\n";
    if (temporary_file(path, sizeof path, old) != 0) {
        return;
    }
    fprintf(stderr, "(test_common: a refusal of an older file is expected here)\n");
    if (append_row(path, &row) == 0) {
        KIT_FAIL("kit_bench_csv_open appended to a file with another header (%s)", path);
    }
    read_back(path, text, sizeof text);
    if (strcmp(text, old) != 0) {
        KIT_FAIL("a refused file was changed: got\n%s\nexpected\n%s", text, old);
    }
    remove(path);
}

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("datagen", 0);
    kit_add_test(s, "reproducible", test_generators_are_reproducible);
    kit_add_test(s, "shapes", test_generator_shapes);
    kit_add_test(s, "float_and_signed_extremes", test_float_extremes_present);
    kit_add_test(s, "pairs_values_are_indices", test_pairs_values_are_indices);
    kit_add_test(s, "names_round_trip", test_dist_names_round_trip);
    s = kit_add_suite("cpu_sort", 0);
    kit_add_test(s, "merge_radix_agree_u32", test_merge_and_radix_agree_u32);
    kit_add_test(s, "merge_radix_agree_i32_f32", test_merge_and_radix_agree_i32_f32);
    kit_add_test(s, "float_total_order", test_float_total_order);
    kit_add_test(s, "radix_special_passes", test_radix_constant_bytes_and_all_negative);
    kit_add_test(s, "merge_pairs_stable", test_merge_sort_pairs_is_stable);
    kit_add_test(s, "radix_in_shares", test_radix_sort_in_shares);
    s = kit_add_suite("kit_tiles", 0);
    kit_add_test(s, "num_tiles_and_tile_keys", test_tile_counts);
    s = kit_add_suite("keyflip", 0);
    kit_add_test(s, "round_trip_and_order", test_flips_round_trip_and_keep_order);
    s = kit_add_suite("verify", 0);
    kit_add_test(s, "planted_errors", test_verifier_catches_planted_errors);
    kit_add_test(s, "stability_and_direction", test_verifier_catches_instability_and_direction);
    kit_add_test(s, "fast_path_verdicts", test_verifier_fast_path_keeps_the_verdicts);
    kit_add_test(s, "verdicts_in_shares", test_verifier_in_shares);
    s = kit_add_suite("bench_csv", 0);
    kit_add_test(s, "rows", test_bench_csv_rows);
    kit_add_test(s, "open_appends_or_refuses", test_bench_csv_open);
    s = kit_add_suite("timer", 0);
    kit_add_test(s, "median_and_clock", test_median_and_clock);
    s = kit_add_suite("keyflip_device", 1);
    kit_add_test(s, "device_matches_host", test_flips_on_device_match_host);
}
