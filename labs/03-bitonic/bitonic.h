/**
 * @file bitonic.h
 * @brief Lab 03: bitonic sort of key/value pairs. The API; do not edit.
 *
 * Bitonic sort is a sorting network: a fixed schedule of compare-exchanges that does not
 * depend on the keys. It runs in *stages* `size` = 2, 4, ..., N (N the number of keys, a
 * power of two); stage `size` merges pairs of sorted runs of `size`/2 keys into sorted runs
 * of `size` keys, in *steps* of `stride` = `size`/2, `size`/4, ..., 1. In the step of
 * stride `s`, comparator `c` compares the keys at bitonic_pair_low(c, s) and `s` places
 * further; every comparator of a step is independent of the others. The direction of each
 * comparator comes from bitonic_descending_at(). The kernels, the tests and the handout's
 * diagram all use these two functions, so they all run the same schedule.
 *
 * The GPU version cuts the schedule where shared memory ends: a *tile* of ::BITONIC_TILE
 * keys fits in one block's shared memory, so every step with a stride below the tile is done
 * inside tiles (TODO 3.1 and 3.3), and only the steps with a larger stride go through global
 * memory, one launch each (TODO 3.2). The bonus sort (TODO 3.5) runs the same schedule with
 * fewer passes over global memory.
 *
 * Keys are `unsigned int`; each key may carry an `unsigned int` value that moves with it
 * (`d_values` may be NULL everywhere: then only keys are sorted). All functions take device
 * pointers, work in place, and return `cudaSuccess` or the first CUDA error;
 * `cudaErrorInvalidValue` when the arguments break the rule stated for the function. A TODO
 * not written yet returns `cudaErrorNotSupported`. Bitonic sort is not stable: equal keys
 * may come out with their values in any order.
 */
#ifndef LAB03_BITONIC_H
#define LAB03_BITONIC_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Keys per tile: what one block sorts or merges in shared memory (keys and values: 16 KiB).
 * A power of two; steps with a stride of a tile or more go through global memory.
 */
#define BITONIC_TILE 2048u

/**
 * The comparators of one step, shared by the kernels, the tests and the diagram tool: the
 * index of the lower key of comparator @p c in the step of stride @p stride (a power of
 * two). The upper key is @p stride places further. It is @p c with a 0 bit inserted at the
 * position of @p stride's bit, so comparators 0, 1, 2, ... of stride 4 start at
 * 0, 1, 2, 3, 8, 9, 10, 11, 16, ...: each key below that bit is paired with the key
 * above it. An array of n keys (n a multiple of 2 * stride) has n / 2 comparators per step.
 */
KIT_HOST_DEVICE static inline size_t bitonic_pair_low(size_t c, size_t stride)
{
    return 2 * c - (c & (stride - 1));
}

/**
 * The direction of a comparator: nonzero when the comparator whose lower key is at index
 * @p i, in stage @p size, must put the larger key first (at @p i).
 *
 * Stage @p size builds sorted runs of @p size keys, and these runs alternate: run
 * `i / size` is ascending when it is even and descending when it is odd, so that every two
 * neighbouring runs form a bitonic sequence for the next stage. @p run is the length of the
 * runs the whole sort produces (the padded n for one array, the padded array length for a
 * batch): in the last stage, `size == run`, every run goes the same way. @p descending
 * turns every direction around.
 *
 * For one array of n keys (run = n), the result is simply `((i & size) != 0) != descending`,
 * since `i & size` is 0 for every i < n when size >= n.
 */
KIT_HOST_DEVICE static inline int bitonic_descending_at(size_t i, size_t size, size_t run,
                                                        int descending)
{
    int odd_run = size < run && (i & size) != 0;
    return odd_run != (descending != 0);
}

/** The smallest power of two that is at least @p n (1 for n <= 1): the padded length. */
KIT_HOST_DEVICE static inline size_t bitonic_padded_length(size_t n)
{
    size_t p = 1;
    while (p < n && p <= (size_t)-1 / 2) {
        p *= 2;
    }
    return p; /* less than n only when n > SIZE_MAX / 2 + 1: callers check */
}

/**
 * TODO 3.1: sorts every tile of ::BITONIC_TILE keys in shared memory, one block per tile.
 * Tile `t` (keys `t * BITONIC_TILE` ...) ends up ascending when `t` is even and descending
 * when it is odd (the other way round when @p descending), so every pair of tiles is a
 * bitonic sequence: these are stages 2 .. ::BITONIC_TILE of a sort of n keys. @p n must be a
 * multiple of ::BITONIC_TILE.
 */
cudaError_t bitonic_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                               int descending);

/**
 * TODO 3.2: one step (@p size, @p stride) over global memory: every comparator of the step,
 * one thread each, directions from bitonic_descending_at(i, size, n, descending). @p stride
 * and @p size are powers of two with `2 * stride <= size`, and @p n is a multiple of
 * `2 * stride`. The sort uses it for strides of a tile or more; any stride works.
 */
cudaError_t bitonic_merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                 size_t size, size_t stride, int descending);

/**
 * TODO 3.3: the rest of stage @p size in shared memory, one block per tile: every step whose
 * stride is below the tile, strides `min(size, BITONIC_TILE) / 2` down to 1, in one launch.
 * Directions as in ::bitonic_merge_global. @p size is a power of two of at least 2, and @p n
 * a multiple of ::BITONIC_TILE. For size > ::BITONIC_TILE, every tile must be a bitonic
 * sequence (as the global steps of the stage leave it), and comes out sorted.
 */
cudaError_t bitonic_merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                 size_t size, int descending);

/**
 * TODO 3.4: sorts @p n key/value pairs, any n, ascending (or descending when @p descending).
 * When n is not a power of two, the keys are copied into a padded buffer whose extra keys
 * are sentinels (UINT_MAX ascending, 0 descending); no sentinel and no padding value ever
 * reaches the output, even when real keys equal the sentinel. @p d_values may be NULL.
 */
cudaError_t bitonic_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                               int descending);

/** Sorts keys only: ::bitonic_sort_pairs with no values. */
cudaError_t bitonic_sort_keys(unsigned int *d_keys, size_t n, int descending);

/**
 * TODO 3.4: sorts @p count arrays of @p n pairs each, stored one after the other (array `b`
 * at `d_keys + b * n`), each on its own, all in the same direction, in one sort whose runs
 * are the (padded) arrays. @p d_values may be NULL.
 */
cudaError_t bitonic_sort_batch(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t count,
                               int descending);

/**
 * Keys per thread of the multistride sort (TODO 3.5): each thread holds this many keys (and
 * values) in registers, so the steps whose strides stay inside them, four in a row, need no
 * memory at all, and one pass over global memory can do four strides.
 */
#define BITONIC_MS_ITEMS_PER_THREAD 16u

/**
 * Keys per tile of the multistride sort (TODO 3.5): 256 threads of ::BITONIC_MS_ITEMS_PER_THREAD
 * keys (keys and values: 32 KiB of shared memory). A power of two; steps with a stride of a tile or
 * more go through global memory.
 */
#define BITONIC_MS_TILE 4096u

/**
 * TODO 3.5 (bonus): sorts @p count arrays of @p n pairs each, as ::bitonic_sort_batch does
 * (same arguments, same result), with fewer passes over global memory: every step with a
 * stride below ::BITONIC_MS_TILE in one pass per stage (registers and shared memory), and up
 * to four steps with larger strides fused into each pass over global memory. Arrays whose n is
 * not a power of two go through the padding of TODO 3.4. @p d_values may be NULL.
 */
cudaError_t bitonic_sort_multistride_batch(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                           size_t count, int descending);

/** TODO 3.5 (bonus): sorts @p n pairs, any n: ::bitonic_sort_multistride_batch of one array. */
cudaError_t bitonic_sort_multistride_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                           int descending);

/** TODO 3.5 (bonus): sorts keys only: ::bitonic_sort_multistride_pairs with no values. */
cudaError_t bitonic_sort_multistride_keys(unsigned int *d_keys, size_t n, int descending);

#ifdef __cplusplus
}
#endif

#endif
