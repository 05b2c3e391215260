/**
 * @file radix_given.cuh
 * @brief Lab 04's given code for radix.cu: the blocked loads and stores, the sorts' buffers,
 *        and the API functions of TODOs 4.1 to 4.4 that check their arguments and call yours.
 *
 * Included by radix.cu (your file) and nowhere else; read it, use it, do not edit it (the grader
 * compiles your radix.cu with its own copy of this file). The block's shape
 * (::RADIX_ITEMS_PER_THREAD, ::WARPS, ::FULL_MASK) comes from radix_common.cuh, which it includes;
 * the block size ::KIT_BLOCK_THREADS and kit_blocks_for() from common/kit_device.cuh. The bonus's
 * given code is radix_bonus_given.cuh (radix_bonus.cu's).
 */
#pragma once

#include "radix_common.cuh"

/** Blocks of the kernel that reduces the keys' bits (it loops over the keys). */
#define KEY_BITS_BLOCKS 1024u

#if 32 % RADIX_BITS != 0 || RADIX_DIGITS > KIT_BLOCK_THREADS * RADIX_ITEMS_PER_THREAD
#error "RADIX_BITS must divide 32 (try 1, 2, 4 or 8)"
#endif

/* ------------------------------------------------------------------------------------------
 * Moving a block's items (given: read them, use them)
 * ------------------------------------------------------------------------------------------ */

/**
 * Loads the RADIX_ITEMS_PER_THREAD items of this thread in the *blocked* arrangement: thread t gets
 * items `base + t * RADIX_ITEMS_PER_THREAD + k`, k = 0 .. RADIX_ITEMS_PER_THREAD - 1 (consecutive
 * items, so a thread's items are a piece of the block's order); items at or past @p n get @p fill.
 */
__device__ void load_items(const unsigned int *in, size_t base, size_t n, unsigned int *items,
                           unsigned int fill)
{
    for (unsigned k = 0; k < RADIX_ITEMS_PER_THREAD; k++) {
        size_t i = base + threadIdx.x * RADIX_ITEMS_PER_THREAD + k;
        items[k] = i < n ? in[i] : fill;
    }
}

/** Stores this thread's items where ::load_items read them (those below @p n only). */
__device__ void store_items(unsigned int *out, size_t base, size_t n, const unsigned int *items)
{
    for (unsigned k = 0; k < RADIX_ITEMS_PER_THREAD; k++) {
        size_t i = base + threadIdx.x * RADIX_ITEMS_PER_THREAD + k;
        if (i < n) {
            out[i] = items[k];
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * The sorts' device buffers
 * ------------------------------------------------------------------------------------------ */

/** Scratch entries radix scan needs for @p n items: the blocks' sums of every level. */
size_t scan_scratch_count(size_t n)
{
    size_t count = 0;
    while (n > RADIX_SCAN_TILE) {
        n = kit_num_tiles(n, RADIX_SCAN_TILE);
        count += n;
    }
    return count;
}

/* The lab's buffer cache, ::radix_cache (radix_common.cuh says why): defined here, once, and
 * shared with the bonus's API functions (radix_bonus_given.cuh). */
kit_buffer_cache radix_cache;

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

/* ------------------------------------------------------------------------------------------
 * The API of TODOs 4.1 to 4.4 (radix.h): argument checks and buffers, then your functions
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
    return split_with(d_keys_in, d_values_in, d_keys_out, d_values_out, n, bit, w.flags, w.scratch);
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
    CUDA_TRY(alloc_work(&w, n, d_values != NULL, RADIX_DIGITS * kit_num_tiles(n, RADIX_TILE)));
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
    CUDA_TRY(alloc_work(&w, 0, 0, RADIX_DIGITS * kit_num_tiles(n, RADIX_TILE)));
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
