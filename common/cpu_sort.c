/* CPU reference sorts; see cpu_sort.h. */
#include "cpu_sort.h"

#include <stdlib.h>
#include <string.h>

#include "keyflip.h"
#include "parallel.h"

/* ---- merge sort ------------------------------------------------------------------------ */

/* Keys are handled as 32-bit words; `rank` maps a word to its place in the order. */
typedef uint32_t (*rank_fn)(uint32_t bits);

static uint32_t rank_u32(uint32_t bits)
{
    return bits;
}
static uint32_t rank_i32(uint32_t bits)
{
    return kit_flip_i32((int32_t)bits);
}
static uint32_t rank_f32(uint32_t bits)
{
    return kit_flip_f32(kit_bits_float(bits));
}

/* Bottom-up merge sort, ping-ponging between the keys and a scratch buffer. Taking from the
 * left run on ties is what makes it stable. Values (optional) move with their keys. */
static int merge_sort_words(uint32_t *keys, uint32_t *values, size_t n, rank_fn rank)
{
    if (n < 2) {
        return 0;
    }
    uint32_t *tmp_keys = malloc(n * sizeof *tmp_keys);
    uint32_t *tmp_values = values ? malloc(n * sizeof *tmp_values) : NULL;
    if (!tmp_keys || (values && !tmp_values)) {
        free(tmp_keys);
        free(tmp_values);
        return -1;
    }
    uint32_t *src_k = keys, *dst_k = tmp_keys, *src_v = values, *dst_v = tmp_values;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, out = lo;
            while (i < mid || j < hi) {
                int take_left = j >= hi || (i < mid && rank(src_k[i]) <= rank(src_k[j]));
                size_t from = take_left ? i++ : j++;
                dst_k[out] = src_k[from];
                if (values) {
                    dst_v[out] = src_v[from];
                }
                out++;
            }
        }
        uint32_t *t = src_k;
        src_k = dst_k;
        dst_k = t;
        t = src_v;
        src_v = dst_v;
        dst_v = t;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, n * sizeof *keys);
        if (values) {
            memcpy(values, src_v, n * sizeof *values);
        }
    }
    free(tmp_keys);
    free(tmp_values);
    return 0;
}

int kit_cpu_merge_sort_u32(uint32_t *keys, size_t n)
{
    return merge_sort_words(keys, NULL, n, rank_u32);
}
int kit_cpu_merge_sort_i32(int32_t *keys, size_t n)
{
    return merge_sort_words((uint32_t *)keys, NULL, n, rank_i32);
}
int kit_cpu_merge_sort_f32(float *keys, size_t n)
{
    return merge_sort_words((uint32_t *)keys, NULL, n, rank_f32);
}
int kit_cpu_merge_sort_pairs_u32(uint32_t *keys, uint32_t *values, size_t n)
{
    return merge_sort_words(keys, values, n, rank_u32);
}

/* ---- LSD radix sort with byte counters ------------------------------------------------- */

typedef enum { LAST_PASS_UNSIGNED, LAST_PASS_SIGNED, LAST_PASS_FLOAT } last_pass_kind;

/* The radix sort cuts the keys into shares of consecutive keys (parallel.h), each counted
 * and scattered by a thread of its own; below KIT_PARALLEL_MIN_ITEMS there is one share. A
 * pass stays stable: share s's keys of a bucket go after those of shares 0 .. s-1. */
typedef struct {
    size_t from, to;     /* the share: keys [from, to) of src */
    const uint32_t *src; /* one pass: its source and target */
    uint32_t *dst;
    unsigned shift;
    int back_to_front;           /* the float pass: negative buckets filled back to front */
    size_t count[256];           /* the share's histogram of the pass's byte */
    size_t start[256], end[256]; /* where the share's next key of each bucket goes */
} radix_share;

static void count_share(void *arg)
{
    radix_share *s = arg;
    memset(s->count, 0, sizeof s->count);
    for (size_t i = s->from; i < s->to; i++) {
        s->count[(s->src[i] >> s->shift) & 0xFF]++;
    }
}

static void scatter_share(void *arg)
{
    radix_share *s = arg;
    const uint32_t *src = s->src;
    uint32_t *dst = s->dst;
    unsigned shift = s->shift;
    if (!s->back_to_front) { /* one loop without a test per key: 1.7x faster */
        for (size_t i = s->from; i < s->to; i++) {
            uint32_t key = src[i];
            dst[s->start[(key >> shift) & 0xFF]++] = key;
        }
        return;
    }
    for (size_t i = s->from; i < s->to; i++) {
        uint32_t key = src[i];
        unsigned bucket = (key >> shift) & 0xFF;
        if (bucket >= 128) {
            dst[--s->end[bucket]] = key; /* negative floats: back to front */
        } else {
            dst[s->start[bucket]++] = key;
        }
    }
}

/* Where each share's keys go in the counting-sort pass. For the last pass of signed and float
 * keys the buckets are visited in a different order (negatives first); for floats the negative
 * buckets are also filled back to front, reversing their order, so there the first share's
 * keys take the bucket's last places. */
static void place_shares(radix_share *shares, size_t share_count, last_pass_kind kind)
{
    size_t offset = 0;
    for (int step = 0; step < 256; step++) {
        int bucket;
        if (kind == LAST_PASS_UNSIGNED) {
            bucket = step;
        } else if (kind == LAST_PASS_SIGNED) {
            bucket = (step + 128) & 0xFF; /* 0x80..0xFF (negative) first, then 0x00..0x7F */
        } else {
            bucket = step < 128 ? 255 - step : step - 128; /* 0xFF..0x80, then 0x00..0x7F */
        }
        size_t bucket_start = offset;
        for (size_t s = 0; s < share_count; s++) {
            shares[s].start[bucket] = offset;
            offset += shares[s].count[bucket];
        }
        for (size_t s = 0; kind == LAST_PASS_FLOAT && s < share_count; s++) {
            shares[s].end[bucket] = offset - (shares[s].start[bucket] - bucket_start);
        }
    }
}

/* The order the radix passes give, as one unsigned rank per key. */
static uint32_t rank_of(uint32_t bits, last_pass_kind kind)
{
    return kind == LAST_PASS_SIGNED  ? rank_i32(bits)
           : kind == LAST_PASS_FLOAT ? rank_f32(bits)
                                     : bits;
}

/* Below this many keys, insertion sort: the radix sort's scratch buffer and 4 x 256 counters
 * cost more than the keys (the tests verify millions of two-key merges one by one). */
#define RADIX_SMALL_N 64

/* Stable insertion sort by rank: the same order as the radix passes, no memory. */
static void insertion_sort_words(uint32_t *keys, size_t n, last_pass_kind kind)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t key = keys[i], rank = rank_of(key, kind);
        size_t j = i;
        for (; j > 0 && rank_of(keys[j - 1], kind) > rank; j--) {
            keys[j] = keys[j - 1];
        }
        keys[j] = key;
    }
}

static int radix_sort_words(uint32_t *keys, size_t n, last_pass_kind last)
{
    if (n < RADIX_SMALL_N) {
        insertion_sort_words(keys, n, last);
        return 0;
    }
    uint32_t *tmp = malloc(n * sizeof *tmp);
    size_t share_count = kit_parallel_shares(n);
    radix_share *shares = malloc(share_count * sizeof *shares);
    if (!tmp || !shares) {
        free(tmp);
        free(shares);
        return -1;
    }
    /* One share: all four byte histograms in one read of the data. */
    size_t whole[4][256] = {{0}};
    for (size_t i = 0; share_count == 1 && i < n; i++) {
        for (int b = 0; b < 4; b++) {
            whole[b][(keys[i] >> (8 * b)) & 0xFF]++;
        }
    }
    uint32_t *src = keys, *dst = tmp;
    for (unsigned b = 0; b < 4; b++) {
        last_pass_kind kind = b == 3 ? last : LAST_PASS_UNSIGNED;
        for (size_t s = 0; s < share_count; s++) {
            shares[s].from = kit_share_begin(n, s, share_count);
            shares[s].to = kit_share_begin(n, s + 1, share_count);
            shares[s].src = src;
            shares[s].dst = dst;
            shares[s].shift = 8 * b;
            shares[s].back_to_front = kind == LAST_PASS_FLOAT;
        }
        /* Several shares: each pass counts its byte in the keys as the last pass left them,
         * so that a share's histogram is of its own keys. */
        if (share_count == 1) {
            memcpy(shares[0].count, whole[b], sizeof whole[b]);
        } else {
            kit_parallel_run(count_share, shares, sizeof *shares, share_count);
        }
        size_t same = 0, bucket = (src[0] >> (8 * b)) & 0xFF;
        for (size_t s = 0; s < share_count; s++) {
            same += shares[s].count[bucket];
        }
        /* A constant byte leaves the order as it is, even for the signed and float passes,
         * except a float pass over negatives, which must still reverse them. */
        int must_reverse = b == 3 && last == LAST_PASS_FLOAT && (src[0] & 0x80000000u);
        if (same == n && !must_reverse) {
            continue;
        }
        place_shares(shares, share_count, kind);
        kit_parallel_run(scatter_share, shares, sizeof *shares, share_count);
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) {
        memcpy(keys, src, n * sizeof *keys);
    }
    free(tmp);
    free(shares);
    return 0;
}

int kit_cpu_radix_sort_u32(uint32_t *keys, size_t n)
{
    return radix_sort_words(keys, n, LAST_PASS_UNSIGNED);
}
int kit_cpu_radix_sort_i32(int32_t *keys, size_t n)
{
    return radix_sort_words((uint32_t *)keys, n, LAST_PASS_SIGNED);
}
int kit_cpu_radix_sort_f32(float *keys, size_t n)
{
    return radix_sort_words((uint32_t *)keys, n, LAST_PASS_FLOAT);
}
