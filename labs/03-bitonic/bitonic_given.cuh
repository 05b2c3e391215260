/**
 * @file bitonic_given.cuh
 * @brief Lab 03's given code: the block sizes and a tile of keys in shared memory.
 *
 * Included by bitonic.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your bitonic.cu with its own copy of this file). The bonus's given code is
 * in bitonic_bonus_given.cuh, and what both files share in bitonic_common.cuh.
 */
#pragma once

#include <stddef.h>

#include "bitonic.h"
#include "bitonic_common.cuh"
#include "kit_device.cuh" /* THREADS_PER_BLOCK and blocks_for(): the global step, the padding */

/** Threads of a tile block: each owns 4 keys of the tile, so 2 comparators of every step. */
#define TILE_THREADS (BITONIC_TILE / 4)

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

/** The number of keys of tile @p tile of an array of @p n keys (the last may be partial). */
__device__ unsigned tile_count(size_t n, size_t tile)
{
    size_t left = n - tile * BITONIC_TILE;
    return left < BITONIC_TILE ? (unsigned)left : BITONIC_TILE;
}
