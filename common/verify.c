/* The verifier; see verify.h. */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sort.h"
#include "keyflip.h"

/* Every key type is checked in its ordered bits (keyflip.h); `show` prints a key of the
 * type from its ordered bits, so messages show the keys as the user knows them. */
typedef void (*show_fn)(char *buf, size_t size, uint32_t ordered);

static void show_u32(char *buf, size_t size, uint32_t ordered)
{
    snprintf(buf, size, "%u", ordered);
}
static void show_i32(char *buf, size_t size, uint32_t ordered)
{
    snprintf(buf, size, "%d", kit_unflip_i32(ordered));
}
static void show_f32(char *buf, size_t size, uint32_t ordered)
{
    float f = kit_unflip_f32(ordered);
    snprintf(buf, size, "%g (bits 0x%08x)", f, kit_float_bits(f));
}

static kit_verdict verdict(kit_verify_status status, size_t index)
{
    kit_verdict v;
    v.status = status;
    v.index = index;
    v.message[0] = '\0';
    return v;
}

/* Order and multiset, on ordered bits. `expected` is the snapshot sorted ascending. */
static kit_verdict check_keys(const uint32_t *expected, const uint32_t *out, size_t n,
                              int descending, show_fn show)
{
    char a[64], b[64];
    for (size_t i = 0; i + 1 < n; i++) {
        int bad = descending ? out[i] < out[i + 1] : out[i] > out[i + 1];
        if (bad) {
            kit_verdict v = verdict(KIT_VERIFY_ORDER, i);
            show(a, sizeof a, out[i]);
            show(b, sizeof b, out[i + 1]);
            snprintf(v.message, sizeof v.message,
                     "not sorted at index %zu: keys[%zu] = %s %s keys[%zu] = %s", i, i, a,
                     descending ? "<" : ">", i + 1, b);
            return v;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t want = descending ? expected[n - 1 - i] : expected[i];
        if (out[i] != want) {
            kit_verdict v = verdict(KIT_VERIFY_MULTISET, i);
            show(a, sizeof a, want);
            show(b, sizeof b, out[i]);
            snprintf(v.message, sizeof v.message,
                     "wrong keys at index %zu: expected %s, got %s (a key was lost, "
                     "duplicated or changed)",
                     i, a, b);
            return v;
        }
    }
    return verdict(KIT_VERIFY_OK, 0);
}

/* Copies keys into ordered bits; returns NULL when out of memory. */
static uint32_t *ordered_copy(const void *keys, size_t n, uint32_t (*to_ordered)(uint32_t))
{
    uint32_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        return NULL;
    }
    memcpy(copy, keys, n * sizeof *copy);
    for (size_t i = 0; to_ordered && i < n; i++) {
        copy[i] = to_ordered(copy[i]);
    }
    return copy;
}

static uint32_t ordered_i32(uint32_t bits)
{
    return kit_flip_i32((int32_t)bits);
}
static uint32_t ordered_f32(uint32_t bits)
{
    return kit_flip_f32(kit_bits_float(bits));
}

static kit_verdict verify_words(const void *snapshot, const void *output, size_t n, int flags,
                                uint32_t (*to_ordered)(uint32_t), show_fn show)
{
    uint32_t *expected = ordered_copy(snapshot, n, to_ordered);
    uint32_t *got = ordered_copy(output, n, to_ordered);
    kit_verdict v;
    if (!expected || !got || kit_cpu_radix_sort_u32(expected, n) != 0) {
        v = verdict(KIT_VERIFY_NO_MEMORY, 0);
        snprintf(v.message, sizeof v.message, "verifier: out of host memory for n = %zu", n);
    } else {
        v = check_keys(expected, got, n, flags & KIT_VERIFY_DESCENDING, show);
    }
    free(expected);
    free(got);
    return v;
}

kit_verdict kit_verify_u32(const uint32_t *snapshot, const uint32_t *output, size_t n, int flags)
{
    return verify_words(snapshot, output, n, flags, NULL, show_u32);
}

kit_verdict kit_verify_i32(const int32_t *snapshot, const int32_t *output, size_t n, int flags)
{
    return verify_words(snapshot, output, n, flags, ordered_i32, show_i32);
}

kit_verdict kit_verify_f32(const float *snapshot, const float *output, size_t n, int flags)
{
    return verify_words(snapshot, output, n, flags, ordered_f32, show_f32);
}

kit_verdict kit_verify_pairs_u32(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                 const uint32_t *out_values, size_t n, int flags)
{
    kit_verdict v = kit_verify_u32(snapshot_keys, out_keys, n, flags);
    if (v.status != KIT_VERIFY_OK) {
        return v;
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen) {
        v = verdict(KIT_VERIFY_NO_MEMORY, 0);
        snprintf(v.message, sizeof v.message, "verifier: out of host memory for n = %zu", n);
        return v;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t value = out_values[i];
        if (value >= n || seen[value]) {
            v = verdict(KIT_VERIFY_DETACHED, i);
            snprintf(v.message, sizeof v.message,
                     "bad value at index %zu: value %u is %s (values must be a permutation "
                     "of 0..n-1)",
                     i, value, value >= n ? "out of range" : "there twice");
            break;
        }
        seen[value] = 1;
        if (snapshot_keys[value] != out_keys[i]) {
            v = verdict(KIT_VERIFY_DETACHED, i);
            snprintf(v.message, sizeof v.message,
                     "value detached at index %zu: value %u belongs to key %u, found with key %u",
                     i, value, snapshot_keys[value], out_keys[i]);
            break;
        }
        if ((flags & KIT_VERIFY_STABLE) && i > 0 && out_keys[i - 1] == out_keys[i] &&
            out_values[i - 1] > value) {
            v = verdict(KIT_VERIFY_UNSTABLE, i - 1);
            snprintf(v.message, sizeof v.message,
                     "not stable at index %zu: equal keys %u carry values %u then %u", i - 1,
                     out_keys[i], out_values[i - 1], value);
            break;
        }
    }
    free(seen);
    return v;
}
