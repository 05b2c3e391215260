/**
 * @file bitonic_given.cuh
 * @brief Lab 03's given code: the block sizes and a tile of keys in shared memory.
 *
 * Included by bitonic.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your bitonic.cu with its own copy of this file).
 */
#pragma once

#include <stddef.h>

#include "bitonic.h"
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

/* ------------------------------------------------------------------------------------------
 * The multistride sort's tile (TODO 3.5, bonus; given: read it, use it)
 * ------------------------------------------------------------------------------------------ */

/** Threads of a multistride tile block: each holds ::BITONIC_MS_KEYS keys of the tile. */
#define MULTISTRIDE_THREADS (BITONIC_MS_TILE / BITONIC_MS_KEYS)

/**
 * Which key of a multistride tile (0 .. ::BITONIC_MS_TILE - 1) thread @p thread holds in its
 * register @p reg (0 .. 15) in *arrangement* @p bit (0, 4 or 8): the register number gives
 * the four index bits @p bit .. @p bit + 3, and the thread's 8 bits fill the others in order.
 *
 * | @p bit | index of register r of thread t | the thread holds | its registers do strides |
 * |---|---|---|---|
 * | 8 | `t + 256 r` | keys 256 apart (a warp: 32 neighbours, coalesced) | 2048 .. 256 |
 * | 4 | `(t % 16) + 16 r + 256 (t / 16)` | keys 16 apart | 128 .. 16 |
 * | 0 | `16 t + r` | 16 neighbouring keys | 8 .. 1 |
 *
 * In arrangement @p bit, the comparator of stride `s` (s from `1 << bit` to `8 << bit`) pairs
 * two registers of one thread, `s >> bit` apart: no other thread is involved. The bits are
 * disjoint, so the index of register r is `multistride_index(t, 0, bit) | (r << bit)`.
 */
__device__ __forceinline__ unsigned multistride_index(unsigned thread, unsigned reg, unsigned bit)
{
    unsigned below = thread & ((1u << bit) - 1u);
    return below | (reg << bit) | ((thread >> bit) << (bit + 4));
}

/**
 * Where key @p i of a multistride tile lives in shared memory: @p i with its low 5 bits (the
 * bank) XORed with bits 5 .. 8 and bit 8 of @p i (`i ^ ((i >> 5) % 16) ^ ((i >> 4) & 16)`).
 * In each of the three arrangements of ::multistride_index, the 32 threads of a warp that
 * read or write the same register reach 32 different banks (with plain `i`, arrangement 0
 * would put 16 threads on each of two banks). It is linear in the bits of @p i:
 * `multistride_slot(a ^ b) == multistride_slot(a) ^ multistride_slot(b)`, so the slot of
 * register r is the slot of register 0 XOR `multistride_slot(r << bit)`, a constant when
 * `r` and `bit` are.
 */
__device__ __forceinline__ unsigned multistride_slot(unsigned i)
{
    return i ^ (((i >> 5) & 15u) | ((i >> 4) & 16u));
}

/** Steps one thread can do in a row in its registers: log2 of ::BITONIC_MS_KEYS. */
#define MULTISTRIDE_STEPS 4u
