/* The verifier; see verify.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, O_CLOEXEC */
#include "verify.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_sort.h"
#include "keyflip.h"
#include "parallel.h"

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

/* ---- the multiset's fingerprint ---------------------------------------------------------- */

/* splitmix64's finalizer: a bijection that spreads every input bit over the output. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t kit_multiset_fingerprint(const uint32_t *keys, size_t n, uint64_t secret)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += mix64(secret + keys[i]);
    }
    return sum;
}

uint64_t kit_fingerprint_secret(void)
{
    uint64_t secret = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &secret, sizeof secret) != (ssize_t)sizeof secret) {
            secret = 0;
        }
        close(fd);
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return mix64(secret ^ ((uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec));
}

/* This process's key, made at its first check. */
static uint64_t process_secret(void)
{
    static uint64_t secret;
    static int made;
    if (!made) {
        secret = kit_fingerprint_secret();
        made = 1;
    }
    return secret;
}

/* ---- the checks ------------------------------------------------------------------------- */

/* The first two neighbours out of order (ordered bits: to_ordered of each key, or the key
 * itself when it is NULL); an OK verdict when there are none. */
static kit_verdict check_order(const uint32_t *out, size_t n, int descending,
                               uint32_t (*to_ordered)(uint32_t), show_fn show)
{
    char a[64], b[64];
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t left = to_ordered ? to_ordered(out[i]) : out[i];
        uint32_t right = to_ordered ? to_ordered(out[i + 1]) : out[i + 1];
        if (descending ? left < right : left > right) {
            kit_verdict v = verdict(KIT_VERIFY_ORDER, i);
            show(a, sizeof a, left);
            show(b, sizeof b, right);
            snprintf(v.message, sizeof v.message,
                     "not sorted at index %zu: keys[%zu] = %s %s keys[%zu] = %s", i, i, a,
                     descending ? "<" : ">", i + 1, b);
            return v;
        }
    }
    return verdict(KIT_VERIFY_OK, 0);
}

/* The multiset, on ordered bits of an output already in order: `expected` is the snapshot
 * sorted ascending, and the first key that differs is named. */
static kit_verdict check_keys(const uint32_t *expected, const uint32_t *out, size_t n,
                              int descending, show_fn show)
{
    char a[64], b[64];
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

/* The full check: the snapshot sorted by the CPU reference sort, compared key by key. */
static kit_verdict sorted_snapshot_check(const void *snapshot, const void *output, size_t n,
                                         int flags, uint32_t (*to_ordered)(uint32_t), show_fn show)
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

/* ---- the common case, share by share -------------------------------------------------- */

/* A correct output of many keys is checked by a few threads, a share of consecutive indices
 * each (parallel.h): a share only says whether all is well in it. When a share finds anything
 * wrong, the checks above run again over the whole output, one thread, to name the first
 * failure, so that the verdict is always theirs. */
typedef struct {
    const uint32_t *snapshot, *out, *values; /* values: NULL for keys alone */
    size_t n, from, to;
    uint64_t secret;
    int descending, stable, any_order; /* any_order: pairs whose keys need not be sorted */
    uint32_t (*to_ordered)(uint32_t);
    int well;     /* nothing wrong seen in this share */
    uint64_t sum; /* the share's part of what must add up to 0 over all shares */
} check_share;

/* Indices [from, to): each key in order after the one before it (the key before `from`
 * included), and its part of the difference of the two fingerprints. */
static void words_share(void *arg)
{
    check_share *c = arg;
    c->well = 1;
    for (size_t i = c->from ? c->from : 1; i < c->to; i++) {
        uint32_t left = c->to_ordered ? c->to_ordered(c->out[i - 1]) : c->out[i - 1];
        uint32_t right = c->to_ordered ? c->to_ordered(c->out[i]) : c->out[i];
        if (c->descending ? left < right : left > right) {
            c->well = 0;
            return;
        }
    }
    c->sum = kit_multiset_fingerprint(c->out + c->from, c->to - c->from, c->secret) -
             kit_multiset_fingerprint(c->snapshot + c->from, c->to - c->from, c->secret);
}

/* Indices [from, to) of key/value pairs: keys in order (unless any_order), each value below n
 * and carrying its own key, equal keys' values rising where stability is asked; and the share's
 * part of the fingerprint of the values less that of 0 .. n-1, so that the values are a
 * permutation of 0 .. n-1 when the parts add up to 0 (the same keyed fingerprint as the
 * keys'). */
static void pairs_share(void *arg)
{
    check_share *c = arg;
    const uint32_t *snapshot = c->snapshot, *out = c->out, *values = c->values;
    uint64_t secret = c->secret, sum = 0;
    c->well = 0;
    for (size_t i = c->from; i < c->to; i++) {
        uint32_t value = values[i];
        if (value >= c->n || snapshot[value] != out[i]) {
            return;
        }
        if (i > 0 && !c->any_order &&
            ((c->descending ? out[i - 1] < out[i] : out[i - 1] > out[i]) ||
             (c->stable && out[i - 1] == out[i] && values[i - 1] > value))) {
            return;
        }
    }
    /* A loop of its own: beside the gather above, it kept fewer of the gather's cache misses
     * in flight (2.5x slower on 2^24 pairs). */
    for (size_t i = c->from; i < c->to; i++) {
        sum += mix64(secret + values[i]) - mix64(secret + i);
    }
    c->sum = sum;
    c->well = 1;
}

/* Whether all is well in every share of `work` over n indices, with parts adding up to 0. */
static int all_well(check_share proto, void (*work)(void *))
{
    check_share shares[KIT_PARALLEL_MAX];
    size_t count = kit_parallel_shares(proto.n);
    for (size_t s = 0; s < count; s++) {
        shares[s] = proto;
        shares[s].from = kit_share_begin(proto.n, s, count);
        shares[s].to = kit_share_begin(proto.n, s + 1, count);
        shares[s].sum = 0;
    }
    kit_parallel_run(work, shares, sizeof shares[0], count);
    uint64_t sum = 0;
    for (size_t s = 0; s < count; s++) {
        if (!shares[s].well) {
            return 0;
        }
        sum += shares[s].sum;
    }
    return sum == 0;
}

/* Order, then the multiset: its fingerprint first; the snapshot is sorted (for the message
 * that names the first wrong key) only when the fingerprints differ. The verdict is the one a
 * sort of every snapshot gives. */
static kit_verdict verify_words(const void *snapshot, const void *output, size_t n, int flags,
                                uint32_t (*to_ordered)(uint32_t), show_fn show)
{
    check_share proto = {.snapshot = snapshot,
                         .out = output,
                         .n = n,
                         .secret = process_secret(),
                         .descending = flags & KIT_VERIFY_DESCENDING,
                         .to_ordered = to_ordered};
    if (all_well(proto, words_share)) {
        return verdict(KIT_VERIFY_OK, 0);
    }
    kit_verdict order = check_order(output, n, flags & KIT_VERIFY_DESCENDING, to_ordered, show);
    if (order.status != KIT_VERIFY_OK) {
        return order;
    }
    uint64_t secret = process_secret();
    if (kit_multiset_fingerprint(snapshot, n, secret) ==
        kit_multiset_fingerprint(output, n, secret)) {
        return verdict(KIT_VERIFY_OK, 0);
    }
    return sorted_snapshot_check(snapshot, output, n, flags, to_ordered, show);
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

/* Each value a distinct index that still carries its key, and stability when asked: the
 * first failure, or OK. */
static kit_verdict check_values(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                const uint32_t *out_values, size_t n, int flags)
{
    kit_verdict v = verdict(KIT_VERIFY_OK, 0);
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

/* When the values are a permutation of 0..n-1 and each carries its own key, the output's keys
 * are the snapshot's: the multiset is checked (by kit_verify_u32()) only to say which failure
 * comes first, as before: order, keys, then values. */
kit_verdict kit_verify_pairs_u32(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                 const uint32_t *out_values, size_t n, int flags)
{
    check_share proto = {.snapshot = snapshot_keys,
                         .out = out_keys,
                         .values = out_values,
                         .n = n,
                         .secret = process_secret(),
                         .descending = flags & KIT_VERIFY_DESCENDING,
                         .stable = flags & KIT_VERIFY_STABLE};
    if (all_well(proto, pairs_share)) {
        return verdict(KIT_VERIFY_OK, 0);
    }
    kit_verdict v = check_order(out_keys, n, flags & KIT_VERIFY_DESCENDING, NULL, show_u32);
    if (v.status != KIT_VERIFY_OK) {
        return v;
    }
    v = check_values(snapshot_keys, out_keys, out_values, n, flags);
    if (v.status == KIT_VERIFY_OK || v.status == KIT_VERIFY_NO_MEMORY) {
        return v;
    }
    kit_verdict keys = kit_verify_u32(snapshot_keys, out_keys, n, flags);
    return keys.status != KIT_VERIFY_OK ? keys : v;
}

kit_verdict kit_verify_attached_u32(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                    const uint32_t *out_values, size_t n)
{
    check_share proto = {.snapshot = snapshot_keys,
                         .out = out_keys,
                         .values = out_values,
                         .n = n,
                         .secret = process_secret(),
                         .any_order = 1};
    if (all_well(proto, pairs_share)) {
        return verdict(KIT_VERIFY_OK, 0);
    }
    return check_values(snapshot_keys, out_keys, out_values, n, 0);
}
