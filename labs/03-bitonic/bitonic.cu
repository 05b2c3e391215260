/**
 * @file bitonic.cu
 * @brief Lab 03: bitonic sort of key/value pairs. Your file: fill in the TODOs.
 *
 * Read labs/03-bitonic/README.md first. Each TODO is tested on its own:
 * `build/student/test_03_bitonic -s 3.1_tiles` runs the tests of TODO 3.1, and so on. The
 * bonus, TODO 3.5, is in a file of its own, bitonic_bonus.cu.
 *
 * Layers, from the bottom: one comparator (a thread), a tile in shared memory (a block), one
 * step over global memory (the grid), and the host code that puts the steps in order.
 * Every function works on keys and, when `values` is not NULL, on the values that travel
 * with them.
 */
#include <limits.h>

#include "bitonic.h"
#include "cuda_check.h"

/* Given, in bitonic_given.cuh (read it: your kernels use much of it): BITONIC_BLOCK_THREADS, a
 * tile in shared memory (tile_slot(), load_tile(), store_tile()), the padded sort's buffers
 * (padded_buffers) and sort_padded(), which allocates them and calls your sort_through_padding(),
 * and the API functions of bitonic.h that only check their arguments and call yours (all but
 * bitonic_sort_batch). Through it, common/kit_device.cuh: KIT_BLOCK_THREADS, kit_blocks_for(),
 * kit_num_tiles() and kit_tile_keys(); and bitonic_common.cuh: runs_sort_fn, the type of the
 * runs sort the padding takes. */
#include "bitonic_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 3.1: the comparator, one step in a tile, the tile sort. `run` is the length of the
 * sorted runs the whole sort produces: for one array, the n these functions get; for a batch,
 * the padded length of one array (not of the whole batch: n is then `count * run`).
 * ------------------------------------------------------------------------------------------ */

/**
 * The comparator, on a tile in shared memory: puts the keys at tile indices @p lo < @p hi
 * in ascending order (the larger key at @p hi), or in descending order when @p descending;
 * when @p tile_values is not NULL the two values move with their keys. Equal keys stay
 * where they are.
 */
__device__ void compare_exchange(unsigned int *tile_keys, unsigned int *tile_values, unsigned lo,
                                 unsigned hi, int descending)
{
    /* TODO 3.1: read both keys once; swap keys and values only when out of order */
}

/**
 * One step (size, stride) of the network inside a tile in shared memory, for the tile that starts
 * at key @p base of the array and holds @p count keys: thread t does comparators t and
 * `t + BITONIC_BLOCK_THREADS` (the tile's ::BITONIC_TILE / 2 comparators over its
 * ::BITONIC_BLOCK_THREADS threads), in the direction bitonic_descending_at() gives for the key's
 * index in the whole array, then waits at a barrier, so the next step sees every exchange of this
 * one. Used by the tile sort (3.1) and by the shared merge (3.3).
 */
__device__ void tile_step(unsigned int *tile_keys, unsigned int *tile_values, size_t base,
                          unsigned count, size_t size, size_t stride, size_t run, int descending)
{
    /* TODO 3.1: two comparators per thread, then a barrier */
}

/**
 * TODO 3.1. Block b sorts tile b (keys `b * BITONIC_TILE` ..., fewer in a partial last
 * tile) in shared memory: stages size = 2, 4, ..., min(run, ::BITONIC_TILE), each with steps
 * stride = size / 2 ... 1, each step a ::tile_step.
 */
__global__ void __launch_bounds__(BITONIC_BLOCK_THREADS)
    bitonic_sort_tile_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t run,
                             int descending)
{
    __shared__ unsigned int tile_keys[BITONIC_TILE];
    __shared__ unsigned int tile_values[BITONIC_TILE];
    size_t base = (size_t)blockIdx.x * BITONIC_TILE;
    unsigned count = kit_tile_keys(n, base, BITONIC_TILE);
    load_tile(keys, values, base, count, tile_keys, tile_values);
    /* TODO 3.1: every stage up to the tile (or the run), each step a tile_step */
    store_tile(keys, values, base, count, tile_keys, tile_values);
}

/** TODO 3.1: launches ::bitonic_sort_tile_kernel over every tile of the n keys (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t run,
                       int descending)
{
    /* TODO 3.1: one block of BITONIC_BLOCK_THREADS per tile, the last may be partial */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.2: one step over global memory
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.2. One step (size, stride) over global memory: thread c of the grid does
 * comparator c, keys bitonic_pair_low(c, stride) and `stride` further. Both keys (and
 * values) are read once into registers and always written back, exchanged or not: the one
 * that belongs first in the comparator's direction to the lower index.
 */
__global__ void bitonic_merge_global_kernel(unsigned int *keys, unsigned int *values, size_t n,
                                            size_t size, size_t stride, size_t run, int descending)
{
    /* TODO 3.2: find the pair, read it into registers, write it back in order */
}

/** TODO 3.2: launches ::bitonic_merge_global_kernel, one thread per comparator (n > 0). */
cudaError_t merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t stride, size_t run, int descending)
{
    /* TODO 3.2: n / 2 comparators, KIT_BLOCK_THREADS threads per block */
    KIT_TODO_STUB(d_keys, d_values, n, size, stride, run, descending);
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.3: the end of a stage in shared memory
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.3. The end of stage `size` in shared memory: block b loads tile b, does the steps
 * of stride min(size, ::BITONIC_TILE) / 2 down to 1, each a ::tile_step (written in
 * TODO 3.1), and stores the tile.
 */
__global__ void __launch_bounds__(BITONIC_BLOCK_THREADS)
    bitonic_merge_shared_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t size,
                                size_t run, int descending)
{
    __shared__ unsigned int tile_keys[BITONIC_TILE];
    __shared__ unsigned int tile_values[BITONIC_TILE];
    size_t base = (size_t)blockIdx.x * BITONIC_TILE;
    unsigned count = kit_tile_keys(n, base, BITONIC_TILE);
    load_tile(keys, values, base, count, tile_keys, tile_values);
    /* TODO 3.3: the steps of the stage whose stride is below the tile */
    store_tile(keys, values, base, count, tile_keys, tile_values);
}

/** TODO 3.3: launches ::bitonic_merge_shared_kernel, one block per tile (n > 0). */
cudaError_t merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t run, int descending)
{
    /* TODO 3.3: one block of BITONIC_BLOCK_THREADS threads per tile */
    KIT_TODO_STUB(d_keys, d_values, n, size, run, descending);
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.4: the whole sort, any n (padding), batches
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.4: the whole network on n keys (n > 0, a multiple of @p run, a power of two): the
 * tiles, then every larger stage as its global steps and one shared merge. Every run of
 * @p run keys comes out sorted in the direction asked.
 */
cudaError_t sort_runs(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t run,
                      int descending)
{
    /* TODO 3.4: tiles; then per stage: global steps down to the tile, a shared merge */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
}

/**
 * TODO 3.4. Copies @p count arrays of @p n keys (and values) into a padded buffer of
 * @p count arrays of @p m keys: thread j writes padded key j, which is key `j % m` of
 * array `j / m` when `j % m < n`, and @p sentinel otherwise (its value: 0).
 */
__global__ void pad_kernel(const unsigned int *keys, const unsigned int *values, size_t n, size_t m,
                           size_t padded_total, unsigned int sentinel, unsigned int *padded_keys,
                           unsigned int *padded_values)
{
    /* TODO 3.4: one thread per padded key: a real key or the sentinel */
}

/**
 * TODO 3.4. After the padded sort, every key equal to the sentinel (real or padding) is at
 * the end of its padded array, and the real part of array b, its first n keys, ends with
 * as many sentinel keys as array b had, but their values may be padding's. Thread i looks
 * at input pair i (the caller's buffers still hold the input): if its key is the sentinel,
 * it takes the next free place from the end of array b's real part (counter b) and writes
 * its value there, in the padded buffer. `total` is n * count, the real pairs of all arrays
 * (the padded buffer holds m * count).
 */
__global__ void restore_sentinel_values_kernel(const unsigned int *keys, const unsigned int *values,
                                               size_t n, size_t total, size_t m,
                                               unsigned int sentinel, unsigned int *padded_values,
                                               unsigned long long *counters)
{
    /* TODO 3.4: a sentinel key's value goes to the next place from the end */
}

/**
 * TODO 3.4. The inverse of ::pad_kernel: thread i copies pair i of the output (key
 * `i % n` of array `i / n`) from the padded buffer; the padding is left behind. `total` is
 * n * count, the output pairs of all arrays.
 */
__global__ void unpad_kernel(const unsigned int *padded_keys, const unsigned int *padded_values,
                             size_t n, size_t m, size_t total, unsigned int *keys,
                             unsigned int *values)
{
    /* TODO 3.4: one thread per output pair */
}

/**
 * TODO 3.4: sorts @p count arrays of @p n keys (n not a power of two) through the padded
 * buffers @p p of arrays of m = bitonic_padded_length(n) keys: pad with a sentinel that sorts
 * after every real key (UINT_MAX ascending, 0 descending), sort the runs of m keys with
 * @p sort_runs_of (::sort_runs for this lab's sort), give the sentinel keys of the real part
 * their real values back (with values), unpad.
 */
cudaError_t sort_through_padding(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                 size_t count, int descending, const padded_buffers *p,
                                 runs_sort_fn sort_runs_of)
{
    /* TODO 3.4: pad, sort, restore the sentinel keys' values, unpad */
    KIT_TODO_STUB(d_keys, d_values, n, count, descending, p, sort_runs_of);
}

/* ------------------------------------------------------------------------------------------
 * The sort of bitonic.h (TODO 3.4): its argument checks are given; the rest is yours. The other
 * API functions are in bitonic_given.cuh.
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t bitonic_sort_batch(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          size_t count, int descending)
{
    if (n < 2 || count == 0) {
        return cudaSuccess;
    }
    size_t m = bitonic_padded_length(n);
    if (m < n || count > (size_t)-1 / m) {
        return cudaErrorInvalidValue; /* the padded batch would not fit in a size_t */
    }
    /* TODO 3.4: a power of two sorts in place as runs of n; other n through padding */
    KIT_TODO_STUB(d_keys, d_values, descending);
}
