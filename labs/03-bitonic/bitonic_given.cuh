/**
 * @file bitonic_given.cuh
 * @brief Lab 03's given code for bitonic.cu: the block sizes, a tile of keys in shared memory,
 *        the padded sort's buffers, and the API of bitonic.h's tiers (argument checks) around
 *        the launchers you write.
 *
 * Included by bitonic.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your bitonic.cu with its own copy of this file). The bonus's given code is
 * in bitonic_bonus_given.cuh, and what both files share in bitonic_common.cuh.
 */
#pragma once

#include <stddef.h>

#include "bitonic.h"
#include "bitonic_common.cuh"
#include "kit_device.cuh" /* KIT_BLOCK_THREADS, kit_blocks_for(), tile counts, kit_alloc_buffers */

/** Keys of the tile each thread of a tile block owns: 4, so 2 comparators of every step. */
#define BITONIC_ITEMS_PER_THREAD 4u

/** Threads of a tile block (tiers 3.1 and 3.3): ::BITONIC_TILE / ::BITONIC_ITEMS_PER_THREAD. */
#define BITONIC_BLOCK_THREADS (BITONIC_TILE / BITONIC_ITEMS_PER_THREAD)

/* ------------------------------------------------------------------------------------------
 * A tile in shared memory (given: read it, use it)
 * ------------------------------------------------------------------------------------------ */

/**
 * Where key @p i of a tile (0 <= i < ::BITONIC_TILE) lives in shared memory: a XOR swizzle
 * that flips the low 5 bits of i in every other group of 32 keys. Shared memory has 32
 * banks of 4 bytes, and a step of stride 1 to 16 has the 32 threads of a warp read keys
 * 2t, 2t + 2, ... (stride 1) or similar: with plain `i`, two threads hit each bank, and
 * the access takes twice as long. With the swizzle, every step of every stride, and the
 * copies to and from global memory, reach 32 different banks. (Try `tile_slot(i) = i`
 * and measure.)
 */
__device__ __forceinline__ unsigned tile_slot(unsigned i)
{
    return i ^ ((i & 32u) ? 31u : 0u);
}

/**
 * Copies @p count keys (and values, when @p values is not NULL) from global memory at
 * @p base into the block's tile, thread t copying keys t, t + blockDim.x, ... (coalesced),
 * then waits at a barrier, so the whole tile is ready when it returns.
 */
__device__ void load_tile(const unsigned int *keys, const unsigned int *values, size_t base,
                          unsigned count, unsigned int *tile_keys, unsigned int *tile_values)
{
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        tile_keys[tile_slot(i)] = keys[base + i];
        if (values) {
            tile_values[tile_slot(i)] = values[base + i];
        }
    }
    __syncthreads();
}

/**
 * Waits at a barrier (every thread's last step is done), then copies the tile back to
 * global memory at @p base, the same way ::load_tile read it.
 */
__device__ void store_tile(unsigned int *keys, unsigned int *values, size_t base, unsigned count,
                           const unsigned int *tile_keys, const unsigned int *tile_values)
{
    __syncthreads();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        keys[base + i] = tile_keys[tile_slot(i)];
        if (values) {
            values[base + i] = tile_values[tile_slot(i)];
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * What your bitonic.cu defines, for the given code below (each one's comment there says what
 * it must do)
 * ------------------------------------------------------------------------------------------ */

/** TODO 3.1 (bitonic.cu): launches the tile sort over every tile of the n keys (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t run,
                       int descending);

/** TODO 3.2 (bitonic.cu): launches one step (size, stride) over global memory (n > 0). */
cudaError_t merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t stride, size_t run, int descending);

/** TODO 3.3 (bitonic.cu): launches the end of stage `size` in shared memory (n > 0). */
cudaError_t merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t run, int descending);

/** The buffers of a padded sort: @p count arrays of @p m keys (values, counters: optional). */
typedef struct {
    unsigned int *keys;           /**< count * m keys */
    unsigned int *values;         /**< count * m values, NULL for keys only */
    unsigned long long *counters; /**< one per array, NULL for keys only */
} padded_buffers;

/** TODO 3.4 (bitonic.cu): sorts @p count arrays of @p n keys through the padded buffers @p p,
 * the runs sorted by @p sort_runs_of. */
cudaError_t sort_through_padding(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                 size_t count, int descending, const padded_buffers *p,
                                 runs_sort_fn sort_runs_of);

/* ------------------------------------------------------------------------------------------
 * The padded sort (given): its buffers, then your sort_through_padding()
 * ------------------------------------------------------------------------------------------ */

/**
 * Allocates the padded buffers (one allocation: kit_alloc_buffers()), sorts through them with
 * @p sort_runs_of, and frees them. bitonic_sort_batch() (TODO 3.4) calls it with `sort_runs`,
 * the bonus sort (bitonic_bonus_given.cuh) with its own runs sort.
 */
cudaError_t sort_padded(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t count,
                        int descending, runs_sort_fn sort_runs_of)
{
    size_t padded_total = bitonic_padded_length(n) * count;
    padded_buffers p = {NULL, NULL, NULL};
    void *block = NULL;
    kit_buffer buffers[] = {{(void **)&p.keys, padded_total * sizeof *p.keys},
                            {(void **)&p.values, d_values ? padded_total * sizeof *p.values : 0},
                            {(void **)&p.counters, d_values ? count * sizeof *p.counters : 0}};
    cudaError_t err = kit_alloc_buffers(&block, buffers, 3); /* says so itself when it fails */
    if (err == cudaSuccess) {
        err = sort_through_padding(d_keys, d_values, n, count, descending, &p, sort_runs_of);
    }
    cudaError_t freed = kit_free_buffers(&block);
    return err != cudaSuccess ? err : freed;
}

/* ------------------------------------------------------------------------------------------
 * The API of bitonic.h's tiers: argument checks, then your launchers with run = n. The sort,
 * bitonic_sort_batch(), is TODO 3.4 in bitonic.cu; bitonic_sort_pairs() and
 * bitonic_sort_keys() are a batch of one.
 * ------------------------------------------------------------------------------------------ */

/** Whether @p x is a power of two (and not 0). */
static inline int is_power_of_two(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

extern "C" cudaError_t bitonic_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          int descending)
{
    if (n % BITONIC_TILE != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : sort_tiles(d_keys, d_values, n, n, descending);
}

extern "C" cudaError_t bitonic_merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                            size_t size, size_t stride, int descending)
{
    if (!is_power_of_two(stride) || !is_power_of_two(size) || stride > size / 2 ||
        n % (2 * stride) != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : merge_global(d_keys, d_values, n, size, stride, n, descending);
}

extern "C" cudaError_t bitonic_merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                            size_t size, int descending)
{
    if (!is_power_of_two(size) || size < 2 || n % BITONIC_TILE != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : merge_shared(d_keys, d_values, n, size, n, descending);
}

extern "C" cudaError_t bitonic_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          int descending)
{
    return bitonic_sort_batch(d_keys, d_values, n, 1, descending);
}

extern "C" cudaError_t bitonic_sort_keys(unsigned int *d_keys, size_t n, int descending)
{
    return bitonic_sort_batch(d_keys, NULL, n, 1, descending);
}
