/**
 * @file radix_given.cuh
 * @brief Lab 04's given code: the block's shape, the blocked loads and stores, the sorts'
 *        buffers, and the API functions that check their arguments and call your TODOs.
 *
 * Included by radix.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your radix.cu with its own copy of this file). The block size
 * ::THREADS_PER_BLOCK and blocks_for() come from common/kit_device.cuh.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cuda_check.h"
#include "kit_device.cuh"
#include "radix.h"

/** Items each thread holds in a block scan or a tile: THREADS_PER_BLOCK * ITEMS per tile. */
#define ITEMS 4u

/** Warps per block. */
#define WARPS (THREADS_PER_BLOCK / 32u)

/** Every lane of a warp, for the shuffles. */
#define FULL_MASK 0xFFFFFFFFu

/** Blocks of the kernel that reduces the keys' bits (it loops over the keys). */
#define KEY_BITS_BLOCKS 1024u

#if RADIX_TILE != THREADS_PER_BLOCK * ITEMS || RADIX_SCAN_TILE != THREADS_PER_BLOCK * ITEMS
#error "a tile and a scan block are THREADS_PER_BLOCK * ITEMS items"
#endif
#if 32 % RADIX_BITS != 0 || RADIX_DIGITS > THREADS_PER_BLOCK * ITEMS
#error "RADIX_BITS must divide 32 (try 1, 2, 4 or 8)"
#endif

/** Items each thread holds in a tile of the single-pass scan (TODO 4.5). */
#define LOOKBACK_ITEMS 16u

/** Keys each thread holds in a tile of a onesweep pass (TODO 4.6). */
#define ONESWEEP_ITEMS 16u

/** Passes of the onesweep sort: 32 bits in digits of ::RADIX_ONESWEEP_BITS. */
#define ONESWEEP_PASSES (32u / RADIX_ONESWEEP_BITS)

/** Blocks of the onesweep histogram kernel (it loops over the keys). */
#define ONESWEEP_HISTOGRAM_BLOCKS 1024u

#if RADIX_LOOKBACK_TILE != THREADS_PER_BLOCK * LOOKBACK_ITEMS ||                                   \
    RADIX_ONESWEEP_TILE != THREADS_PER_BLOCK * ONESWEEP_ITEMS ||                                   \
    RADIX_ONESWEEP_DIGITS != THREADS_PER_BLOCK
#error "a look-back tile is THREADS_PER_BLOCK * LOOKBACK_ITEMS items; onesweep: a thread per digit"
#endif

/* ------------------------------------------------------------------------------------------
 * Look-back status words (TODOs 4.5 and 4.6)
 * ------------------------------------------------------------------------------------------ */

/** A tile's status in a look-back: nothing published yet (what the reset leaves: 0). */
#define STATUS_X 0u
/** A tile's status in a look-back: its aggregate (its own sum or count) is published. */
#define STATUS_A 1u
/** A tile's status in a look-back: its inclusive prefix (everything up to and with it). */
#define STATUS_P 2u

/**
 * The single-pass scan's status word of one tile: the status (::STATUS_X, ::STATUS_A,
 * ::STATUS_P) in the high 32 bits, the value (an aggregate or an inclusive prefix) in the low
 * 32. Status and value travel in one 64-bit word, written with one store and read with one
 * load, so a reader never sees a status with another value than the one published with it.
 */
__host__ __device__ static inline unsigned long long lookback_word(unsigned int status,
                                                                   unsigned int value)
{
    return ((unsigned long long)status << 32) | value;
}

/** The status of a ::lookback_word. */
__host__ __device__ static inline unsigned int lookback_status(unsigned long long word)
{
    return (unsigned int)(word >> 32);
}

/** The value of a ::lookback_word. */
__host__ __device__ static inline unsigned int lookback_value(unsigned long long word)
{
    return (unsigned int)word;
}

/** The digit of @p key that the onesweep pass of bit offset @p shift sorts by (0 .. 255). */
__host__ __device__ static inline unsigned int onesweep_digit(unsigned int key, unsigned int shift)
{
    return (key >> shift) & (RADIX_ONESWEEP_DIGITS - 1u);
}

/** The low 30 bits of a onesweep status word: a count. */
#define ONESWEEP_COUNT_MASK ((1u << 30) - 1u)

/**
 * A onesweep pass's status word of one digit of one tile: the status in the top 2 bits, a
 * count of keys in the low 30 (the tile's count of the digit, or the inclusive count of the
 * digit in every tile up to this one: at most n, hence ::RADIX_ONESWEEP_MAX_N).
 */
__host__ __device__ static inline unsigned int onesweep_word(unsigned int status,
                                                             unsigned int count)
{
    return (status << 30) | count;
}

/** The status of a ::onesweep_word. */
__host__ __device__ static inline unsigned int onesweep_status(unsigned int word)
{
    return word >> 30;
}

/** The count of a ::onesweep_word. */
__host__ __device__ static inline unsigned int onesweep_count(unsigned int word)
{
    return word & ONESWEEP_COUNT_MASK;
}

/* ------------------------------------------------------------------------------------------
 * Moving a block's items (given: read them, use them)
 * ------------------------------------------------------------------------------------------ */

/**
 * Loads the ITEMS items of this thread in the *blocked* arrangement: thread t gets items
 * `base + t * ITEMS + k`, k = 0 .. ITEMS - 1 (consecutive items, so a thread's items are a
 * piece of the block's order); items at or past @p n get @p fill.
 */
__device__ void load_items(const unsigned int *in, size_t base, size_t n, unsigned int *items,
                           unsigned int fill)
{
    for (unsigned k = 0; k < ITEMS; k++) {
        size_t i = base + threadIdx.x * ITEMS + k;
        items[k] = i < n ? in[i] : fill;
    }
}

/** Stores this thread's items where ::load_items read them (those below @p n only). */
__device__ void store_items(unsigned int *out, size_t base, size_t n, const unsigned int *items)
{
    for (unsigned k = 0; k < ITEMS; k++) {
        size_t i = base + threadIdx.x * ITEMS + k;
        if (i < n) {
            out[i] = items[k];
        }
    }
}

/** The keys of tile @p tile of an array of @p n keys: RADIX_TILE, or fewer in the last. */
__device__ unsigned tile_count(size_t n, size_t tile)
{
    size_t left = n - tile * RADIX_TILE;
    return left < RADIX_TILE ? (unsigned)left : RADIX_TILE;
}

/* ------------------------------------------------------------------------------------------
 * The sorts' device buffers
 * ------------------------------------------------------------------------------------------ */

/** Scratch entries radix scan needs for @p n items: the blocks' sums of every level. */
size_t scan_scratch_count(size_t n)
{
    size_t count = 0;
    while (n > RADIX_SCAN_TILE) {
        n = (n + RADIX_SCAN_TILE - 1) / RADIX_SCAN_TILE;
        count += n;
    }
    return count;
}

/**
 * The lab's temporary device memory, kept from one API call to the next (kit_device.cuh):
 * a cudaMalloc costs time, and a sort is timed with its calls, so only the first call (or one
 * that needs more room) allocates, as a program that calls CUB keeps its temp storage.
 */
static kit_buffer_cache radix_cache;

/**
 * Device buffers that several functions use together, carved out of ::radix_cache.
 */
typedef struct {
    unsigned int *keys;    /**< the other half of a ping-pong: keys */
    unsigned int *values;  /**< ... and values (NULL when the sort has none) */
    unsigned int *flags;   /**< flags of a split, or the histogram table of a pass */
    unsigned int *scratch; /**< the scan's scratch room (NULL when it needs none) */
    unsigned int *bits;    /**< two words: the AND and the OR of every key */
} work_buffers;

/**
 * Carves @p n keys (and values when @p with_values) of ping-pong room, @p flag_count flags
 * and their scan's scratch, and the two words of the key bits out of ::radix_cache (each part
 * starts 256-byte aligned; a part of no words is NULL).
 */
cudaError_t alloc_work(work_buffers *w, size_t n, int with_values, size_t flag_count)
{
    const size_t word = sizeof(unsigned int);
    kit_buffer parts[] = {
        {(void **)&w->keys, n * word},
        {(void **)&w->values, with_values ? n * word : 0},
        {(void **)&w->flags, flag_count * word},
        {(void **)&w->scratch, scan_scratch_count(flag_count) * word},
        {(void **)&w->bits, 2 * word},
    };
    return kit_cached_buffers(&radix_cache, parts, (int)(sizeof parts / sizeof parts[0]));
}

/**
 * The single-pass scan's workspace (TODO 4.5): `bytes` bytes from `base` (in ::radix_cache)
 * that must be zero when the scan kernel starts (every status ::STATUS_X, the counter 0).
 */
typedef struct {
    void *base;                 /**< the workspace, `bytes` long */
    unsigned int *counter;      /**< the next tile number: the first word of base */
    unsigned long long *status; /**< one ::lookback_word per tile, after the counter's word */
    size_t bytes;               /**< 8 * (tiles + 1): what the reset zeroes, from base */
} lookback_buffers;

/** The number of tiles of ::RADIX_LOOKBACK_TILE values of @p n values. */
static inline size_t lookback_tile_count(size_t n)
{
    return (n + RADIX_LOOKBACK_TILE - 1) / RADIX_LOOKBACK_TILE;
}

/** The workspace of a single-pass scan of @p n > 0 values, from ::radix_cache. */
cudaError_t alloc_lookback(lookback_buffers *w, size_t n)
{
    w->bytes = (lookback_tile_count(n) + 1) * sizeof(unsigned long long);
    kit_buffer parts[] = {{&w->base, w->bytes}};
    CUDA_TRY(kit_cached_buffers(&radix_cache, parts, 1));
    w->counter = (unsigned int *)w->base;
    w->status = (unsigned long long *)w->base + 1;
    return cudaSuccess;
}

/** The number of tiles of ::RADIX_ONESWEEP_TILE keys of @p n keys. */
static inline size_t onesweep_tile_count(size_t n)
{
    return (n + RADIX_ONESWEEP_TILE - 1) / RADIX_ONESWEEP_TILE;
}

/**
 * The onesweep sort's buffers (TODO 4.6), from ::radix_cache: the ping-pong halves, the digit
 * counts of every pass, the passes' tile counters and the look-back status of one pass.
 */
typedef struct {
    unsigned int *keys;     /**< the other half of a ping-pong: keys */
    unsigned int *values;   /**< ... and values (NULL when the sort has none) */
    unsigned int *bins;     /**< ONESWEEP_PASSES * RADIX_ONESWEEP_DIGITS: `bins[pass * 256 + d]`
                                 counts the keys whose digit of that pass is d, then (scanned)
                                 where the first of them goes */
    unsigned int *counters; /**< ONESWEEP_PASSES words right after bins: each pass's next tile */
    unsigned int *status;   /**< tiles * RADIX_ONESWEEP_DIGITS ::onesweep_word, tile-major
                                 (`status[tile * 256 + d]`), reused by every pass */
    size_t tiles;           /**< onesweep_tile_count(n) */
} onesweep_buffers;

/** The buffers of a onesweep sort of @p n >= 2 keys (and values), from ::radix_cache. */
cudaError_t alloc_onesweep(onesweep_buffers *w, size_t n, int with_values)
{
    const size_t word = sizeof(unsigned int);
    w->tiles = onesweep_tile_count(n);
    kit_buffer parts[] = {
        {(void **)&w->keys, n * word},
        {(void **)&w->values, with_values ? n * word : 0},
        {(void **)&w->bins, (ONESWEEP_PASSES * RADIX_ONESWEEP_DIGITS + ONESWEEP_PASSES) * word},
        {(void **)&w->status, w->tiles * RADIX_ONESWEEP_DIGITS * word},
    };
    CUDA_TRY(kit_cached_buffers(&radix_cache, parts, (int)(sizeof parts / sizeof parts[0])));
    w->counters = w->bins + ONESWEEP_PASSES * RADIX_ONESWEEP_DIGITS;
    return cudaSuccess;
}

/** What the 32 bits of a key are. */
typedef enum {
    KEY_U32 = 0, /**< unsigned int: sorted as they are */
    KEY_I32 = 1, /**< int: kit_flip_i32() in, kit_unflip_i32() out */
    KEY_F32 = 2  /**< float: kit_flip_f32() in, kit_unflip_f32() out */
} key_type;

/* ------------------------------------------------------------------------------------------
 * Your host functions that the given code below calls (you write them in radix.cu)
 * ------------------------------------------------------------------------------------------ */

/** TODO 4.1, in radix.cu: the exclusive scan of @p n > 0 items with scratch room. */
cudaError_t scan_with_scratch(const unsigned int *d_in, unsigned int *d_out, size_t n,
                              unsigned int *scratch);

/** TODO 4.2, in radix.cu: one split by bit @p bit with the caller's flags and scratch. */
cudaError_t split_with(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                       unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                       unsigned int bit, unsigned int *flags, unsigned int *scratch);

/** TODO 4.2, in radix.cu: the 32 splits, ping-pong with the buffers @p w. */
cudaError_t sort_by_splits(unsigned int *d_keys, unsigned int *d_values, size_t n,
                           const work_buffers *w);

/** TODO 4.3, in radix.cu: launches the histogram kernel, one block per tile (n > 0). */
cudaError_t histograms(const unsigned int *d_keys, size_t n, unsigned int shift,
                       unsigned int *d_table);

/** TODO 4.3, in radix.cu: launches the tile sort kernel, one block per tile (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, unsigned int shift);

/** TODO 4.3, in radix.cu: launches the scatter kernel, one block per tile (n > 0). */
cudaError_t scatter(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                    unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                    unsigned int shift, const unsigned int *d_offsets);

/** TODO 4.3, in radix.cu: one pass with the caller's table and scratch. */
cudaError_t pass_with(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                      unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                      unsigned int shift, unsigned int *table, unsigned int *scratch);

/** TODO 4.3, in radix.cu: the sort of @p n >= 2 keys by digits with the buffers @p w. */
cudaError_t sort_by_digits(unsigned int *d_keys, unsigned int *d_values, size_t n,
                           const work_buffers *w, unsigned int *passes);

/** TODO 4.4, in radix.cu: flip in, sort by digits, flip out (@p n >= 2 keys of @p type). */
cudaError_t sort_typed(unsigned int *d_bits, unsigned int *d_values, size_t n, int type,
                       int descending);

/** TODO 4.5, in radix.cu: resets @p w and runs the single-pass scan of @p n > 0 values. */
cudaError_t scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n,
                          const lookback_buffers *w);

/** TODO 4.6, in radix.cu: the onesweep sort of @p n >= 2 keys (and values) with @p w. */
cudaError_t onesweep_sort(unsigned int *d_keys, unsigned int *d_values, size_t n,
                          const onesweep_buffers *w);

/* ------------------------------------------------------------------------------------------
 * The API (radix.h): argument checks and buffers, then your functions
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t radix_scan(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
    if (n == 0) {
        return cudaSuccess;
    }
    unsigned int *scratch = NULL;
    kit_buffer parts[] = {{(void **)&scratch, scan_scratch_count(n) * sizeof *scratch}};
    CUDA_TRY(kit_cached_buffers(&radix_cache, parts, 1));
    return scan_with_scratch(d_in, d_out, n, scratch);
}

extern "C" cudaError_t radix_split(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                                   unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                                   unsigned int bit)
{
    if (bit > 31u || n > UINT32_MAX || (d_values_in && !d_values_out)) {
        return cudaErrorInvalidValue; /* values in need somewhere to go */
    }
    if (n == 0) {
        return cudaSuccess;
    }
    work_buffers w;
    CUDA_TRY(alloc_work(&w, 0, 0, n));
    return split_with(d_keys_in, d_values_in, d_keys_out, d_values_out, n, bit, w.flags,
                      w.scratch);
}

extern "C" cudaError_t radix_sort_split(unsigned int *d_keys, unsigned int *d_values, size_t n)
{
    if (n > UINT32_MAX) {
        return cudaErrorInvalidValue;
    }
    if (n < 2) {
        return cudaSuccess;
    }
    work_buffers w;
    CUDA_TRY(alloc_work(&w, n, d_values != NULL, n));
    return sort_by_splits(d_keys, d_values, n, &w);
}

/** The buffers of a sort of @p n >= 2 keys (::alloc_work), then the sort by digits. */
cudaError_t sort_u32(unsigned int *d_keys, unsigned int *d_values, size_t n, unsigned int *passes)
{
    work_buffers w;
    CUDA_TRY(alloc_work(&w, n, d_values != NULL, RADIX_DIGITS * radix_tile_count(n)));
    return sort_by_digits(d_keys, d_values, n, &w, passes);
}

extern "C" cudaError_t radix_histograms(const unsigned int *d_keys, size_t n, unsigned int shift,
                                        unsigned int *d_table)
{
    if (shift % RADIX_BITS != 0 || shift >= 32u || n > UINT32_MAX) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : histograms(d_keys, n, shift, d_table);
}

extern "C" cudaError_t radix_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                        unsigned int shift)
{
    if (shift % RADIX_BITS != 0 || shift >= 32u || n > UINT32_MAX) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : sort_tiles(d_keys, d_values, n, shift);
}

extern "C" cudaError_t radix_scatter(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                                     unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                                     unsigned int shift, const unsigned int *d_offsets)
{
    if (shift % RADIX_BITS != 0 || shift >= 32u || n > UINT32_MAX ||
        (d_values_in && !d_values_out)) {
        return cudaErrorInvalidValue; /* values in need somewhere to go */
    }
    return n == 0 ? cudaSuccess
                  : scatter(d_keys_in, d_values_in, d_keys_out, d_values_out, n, shift, d_offsets);
}

extern "C" cudaError_t radix_pass(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                                  unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                                  unsigned int shift)
{
    if (shift % RADIX_BITS != 0 || shift >= 32u || n > UINT32_MAX ||
        (d_values_in && !d_values_out)) {
        return cudaErrorInvalidValue; /* values in need somewhere to go */
    }
    if (n == 0) {
        return cudaSuccess;
    }
    work_buffers w;
    CUDA_TRY(alloc_work(&w, 0, 0, RADIX_DIGITS * radix_tile_count(n)));
    return pass_with(d_keys_in, d_values_in, d_keys_out, d_values_out, n, shift, w.flags,
                     w.scratch);
}

extern "C" cudaError_t radix_sort_counted(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          unsigned int *d_passes)
{
    if (n > UINT32_MAX) {
        return cudaErrorInvalidValue;
    }
    unsigned int passes = 0;
    if (n >= 2) {
        CUDA_TRY(sort_u32(d_keys, d_values, n, &passes));
    }
    if (d_passes) {
        CUDA_TRY(cudaMemcpy(d_passes, &passes, sizeof passes, cudaMemcpyHostToDevice));
    }
    return cudaSuccess;
}

/** The API's checks, then sort_typed(). */
cudaError_t sort_checked(unsigned int *d_bits, unsigned int *d_values, size_t n, int type,
                         int descending)
{
    if (n > UINT32_MAX) {
        return cudaErrorInvalidValue;
    }
    return n < 2 ? cudaSuccess : sort_typed(d_bits, d_values, n, type, descending);
}

extern "C" cudaError_t radix_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                        int descending)
{
    return sort_checked(d_keys, d_values, n, KEY_U32, descending);
}

extern "C" cudaError_t radix_sort_keys(unsigned int *d_keys, size_t n, int descending)
{
    return sort_checked(d_keys, NULL, n, KEY_U32, descending);
}

extern "C" cudaError_t radix_sort_i32(int *d_keys, unsigned int *d_values, size_t n, int descending)
{
    return sort_checked((unsigned int *)d_keys, d_values, n, KEY_I32, descending);
}

extern "C" cudaError_t radix_sort_f32(float *d_keys, unsigned int *d_values, size_t n,
                                      int descending)
{
    return sort_checked((unsigned int *)d_keys, d_values, n, KEY_F32, descending);
}

extern "C" cudaError_t radix_scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
    if (n == 0) {
        return cudaSuccess;
    }
    if (lookback_tile_count(n) > 0x7FFFFFFFu) {
        return cudaErrorInvalidValue; /* more tiles than a grid has blocks */
    }
    lookback_buffers w;
    CUDA_TRY(alloc_lookback(&w, n));
    return scan_lookback(d_in, d_out, n, &w);
}

/** The onesweep API's checks and buffers, then onesweep_sort(). */
cudaError_t onesweep_checked(unsigned int *d_keys, unsigned int *d_values, size_t n)
{
    if (n > RADIX_ONESWEEP_MAX_N) {
        return cudaErrorInvalidValue; /* the look-back words count in 30 bits */
    }
    if (n < 2) {
        return cudaSuccess;
    }
    onesweep_buffers w;
    CUDA_TRY(alloc_onesweep(&w, n, d_values != NULL));
    return onesweep_sort(d_keys, d_values, n, &w);
}

extern "C" cudaError_t radix_sort_onesweep_keys(unsigned int *d_keys, size_t n)
{
    return onesweep_checked(d_keys, NULL, n);
}

extern "C" cudaError_t radix_sort_onesweep_pairs(unsigned int *d_keys, unsigned int *d_values,
                                                 size_t n)
{
    return onesweep_checked(d_keys, d_values, n);
}
