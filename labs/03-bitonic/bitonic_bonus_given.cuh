/**
 * @file bitonic_bonus_given.cuh
 * @brief Lab 03's given code for the bonus (TODO 3.5): the multistride tile and the bonus
 * sort's API.
 *
 * Included by bitonic_bonus.cu (your bonus file) and nowhere else; read it, use it, do not
 * edit it (the grader compiles your bitonic_bonus.cu with its own copy of this file).
 */
#pragma once

#include <stddef.h>

#include "bitonic.h"
#include "bitonic_common.cuh" /* runs_sort_fn and sort_padded(): TODO 3.4's padding */

/* ------------------------------------------------------------------------------------------
 * The multistride sort's tile (TODO 3.5, bonus; given: read it, use it)
 * ------------------------------------------------------------------------------------------ */

/** Threads of a multistride tile block, each holding ::BITONIC_MS_ITEMS_PER_THREAD keys. */
#define BITONIC_MS_BLOCK_THREADS (BITONIC_MS_TILE / BITONIC_MS_ITEMS_PER_THREAD)

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

/** Steps one thread can do in a row in its registers: log2 of ::BITONIC_MS_ITEMS_PER_THREAD. */
#define MULTISTRIDE_STEPS 4u

/* ------------------------------------------------------------------------------------------
 * The bonus sort's API (bitonic.h): the checks of bitonic_sort_batch, then your multistride
 * sort of the runs (TODO 3.5), through the padding of TODO 3.4 when n is not a power of two
 * ------------------------------------------------------------------------------------------ */

/** TODO 3.5, in bitonic_bonus.cu: the multistride network on every run of @p run keys of @p n. */
cudaError_t multistride_sort_runs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                  size_t run, int descending);

extern "C" cudaError_t bitonic_sort_multistride_batch(unsigned int *d_keys, unsigned int *d_values,
                                                      size_t n, size_t count, int descending)
{
    if (n < 2 || count == 0) {
        return cudaSuccess;
    }
    size_t m = bitonic_padded_length(n);
    if (m < n || count > (size_t)-1 / m) {
        return cudaErrorInvalidValue; /* the padded batch would not fit in a size_t */
    }
    /* As bitonic_sort_batch, with the multistride sort of the runs (and 3.4's padding). */
    if (m == n) {
        return multistride_sort_runs(d_keys, d_values, n * count, n, descending);
    }
    return sort_padded(d_keys, d_values, n, count, descending, multistride_sort_runs);
}

extern "C" cudaError_t bitonic_sort_multistride_pairs(unsigned int *d_keys, unsigned int *d_values,
                                                      size_t n, int descending)
{
    return bitonic_sort_multistride_batch(d_keys, d_values, n, 1, descending);
}

extern "C" cudaError_t bitonic_sort_multistride_keys(unsigned int *d_keys, size_t n, int descending)
{
    return bitonic_sort_multistride_batch(d_keys, NULL, n, 1, descending);
}
