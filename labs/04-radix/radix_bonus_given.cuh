/**
 * @file radix_bonus_given.cuh
 * @brief Lab 04's given code for the bonus, radix_bonus.cu: the tiles of the single-pass scan
 *        and of onesweep, the look-back status words, their workspaces, and the API functions
 *        of TODOs 4.5 and 4.6 that check their arguments and call yours.
 *
 * Included by radix_bonus.cu (your bonus file) and nowhere else; read it, use it, do not edit it
 * (the grader compiles your radix_bonus.cu with its own copy of this file). The block's shape
 * (::RADIX_ITEMS_PER_THREAD, ::WARPS, ::FULL_MASK) and the buffer cache ::radix_cache come from
 * radix_common.cuh, which it includes; the block size ::KIT_BLOCK_THREADS and kit_blocks_for() from
 * common/kit_device.cuh.
 */
#pragma once

#include "radix_common.cuh"

/** Items each thread holds in a tile of the single-pass scan (TODO 4.5). */
#define RADIX_LOOKBACK_ITEMS_PER_THREAD 32u

/**
 * Nanoseconds a look-back warp sleeps (`__nanosleep`) before it reads a window again that still
 * holds an X: hundreds of warps polling the same few status words slow down the memory system
 * that the tiles they wait for need (on an H100, with an earlier version of the reference: 0.65x
 * the copy bandwidth without, 0.71x with).
 */
#define LOOKBACK_WAIT_NS 128u

/** Keys each thread holds in a tile of a onesweep pass (TODO 4.6). */
#define RADIX_ONESWEEP_ITEMS_PER_THREAD 24u

/** The `valid` mask of a onesweep thread whose keys are all in the array: one bit per key. */
#define ONESWEEP_ALL_VALID ((unsigned int)((1ull << RADIX_ONESWEEP_ITEMS_PER_THREAD) - 1u))

/** Passes of the onesweep sort: 32 bits in digits of ::RADIX_ONESWEEP_BITS. */
#define ONESWEEP_PASSES (32u / RADIX_ONESWEEP_BITS)

/** Blocks of the onesweep histogram kernel (it loops over the keys). */
#define ONESWEEP_HISTOGRAM_BLOCKS 1024u

#if RADIX_LOOKBACK_TILE != KIT_BLOCK_THREADS * RADIX_LOOKBACK_ITEMS_PER_THREAD ||                  \
    RADIX_ONESWEEP_TILE != KIT_BLOCK_THREADS * RADIX_ONESWEEP_ITEMS_PER_THREAD ||                  \
    RADIX_ONESWEEP_DIGITS != KIT_BLOCK_THREADS
#error "a tile is KIT_BLOCK_THREADS * its ITEMS_PER_THREAD items; onesweep: a thread per digit"
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

/**
 * The lanes of the calling warp whose @p digit (0 .. 255) equals this lane's: what
 * `__match_any_sync(FULL_MASK, digit)` returns, faster. The hardware's match instruction takes
 * longer the more distinct values a warp holds (a warp of uniform 8-bit digits holds about 20);
 * one ballot per bit of the digit does not: lane m is a peer of this lane when their digits
 * agree in every bit. Every lane of the warp must call it.
 */
__device__ static inline unsigned int onesweep_peers(unsigned int digit)
{
    unsigned int peers = FULL_MASK;
    for (unsigned b = 0; b < RADIX_ONESWEEP_BITS; b++) {
        unsigned int bit = (digit >> b) & 1u;
        unsigned int ones = __ballot_sync(FULL_MASK, bit);
        peers &= bit ? ones : ~ones;
    }
    return peers;
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
 * The workspaces, from ::radix_cache
 * ------------------------------------------------------------------------------------------ */

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

/** The workspace of a single-pass scan of @p n > 0 values, from ::radix_cache. */
cudaError_t alloc_lookback(lookback_buffers *w, size_t n)
{
    w->bytes = (kit_num_tiles(n, RADIX_LOOKBACK_TILE) + 1) * sizeof(unsigned long long);
    kit_buffer parts[] = {{&w->base, w->bytes}};
    CUDA_TRY(kit_cached_buffers(&radix_cache, parts, 1));
    w->counter = (unsigned int *)w->base;
    w->status = (unsigned long long *)w->base + 1;
    return cudaSuccess;
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
    size_t tiles;           /**< kit_num_tiles(n, RADIX_ONESWEEP_TILE) */
} onesweep_buffers;

/** The buffers of a onesweep sort of @p n >= 2 keys (and values), from ::radix_cache. */
cudaError_t alloc_onesweep(onesweep_buffers *w, size_t n, int with_values)
{
    const size_t word = sizeof(unsigned int);
    w->tiles = kit_num_tiles(n, RADIX_ONESWEEP_TILE);
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

/* ------------------------------------------------------------------------------------------
 * Your functions that the bonus calls: the block scan of radix.cu, your host functions here
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 4.1, in radix.cu: the exclusive scan of the block's KIT_BLOCK_THREADS *
 * ::RADIX_ITEMS_PER_THREAD items in the blocked arrangement, the block's sum in @p total, @p s_warp
 * (::WARPS + 1 words of shared memory) free again on return; every thread of the block calls it.
 * The bonus kernels call it from this other file (the two files are compiled as one translation
 * unit, radix.cu first): keep its name and parameters as they are.
 */
__device__ void block_exclusive_scan(unsigned int *items, unsigned int *s_warp,
                                     unsigned int *total);

/** TODO 4.5, in radix_bonus.cu: resets @p w and runs the single-pass scan of @p n > 0 values. */
cudaError_t scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n,
                          const lookback_buffers *w);

/** TODO 4.6, in radix_bonus.cu: the onesweep sort of @p n >= 2 keys (and values) with @p w. */
cudaError_t onesweep_sort(unsigned int *d_keys, unsigned int *d_values, size_t n,
                          const onesweep_buffers *w);

/* ------------------------------------------------------------------------------------------
 * The API of TODOs 4.5 and 4.6 (radix.h): argument checks and buffers, then your functions
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t radix_scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
    if (n == 0) {
        return cudaSuccess;
    }
    if (kit_num_tiles(n, RADIX_LOOKBACK_TILE) > 0x7FFFFFFFu) {
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
