/**
 * @file bitonic_bonus.cu
 * @brief Lab 03, bonus: the multistride bitonic sort. Your second file: fill in TODO 3.5.
 *
 * The bonus of Lab 03 (TODO 3.5), in a file of its own beside bitonic.cu: read the handout's
 * TODO 3.5 (labs/03-bitonic/README.md) first, once TODO 3.4 of bitonic.cu passes.
 * `build/student/test_03_bitonic -s 3.5_multistride` runs its tests. It is worth bonus points
 * only: left as it is (or left out of a submission), it scores 0 and changes nothing else.
 *
 * The same network as bitonic.cu's sort, in fewer passes over global memory: a thread holds
 * 16 keys in registers and does several steps of the network alone. Layers, from the bottom:
 * registers (a thread), a tile in shared memory (a block), a pass over global memory (the
 * grid), and the host loop. Arrays whose n is not a power of two go through the padding of
 * TODO 3.4 (sort_padded() in bitonic_given.cuh, which calls your sort_through_padding()).
 */
#include "bitonic.h"
#include "cuda_check.h"

/* Given, in bitonic_bonus_given.cuh (read it): what your kernels use, BITONIC_MS_BLOCK_THREADS and
 * MULTISTRIDE_STEPS and a tile's arrangements in registers (multistride_index()) and in shared
 * memory (multistride_slot()); and the bonus sort's API, which calls your
 * multistride_sort_runs(). */
#include "bitonic_bonus_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 3.5 (bonus): multistride passes. A thread holds BITONIC_MS_ITEMS_PER_THREAD = 16 keys in
 * registers (arrangements: multistride_index() in bitonic_bonus_given.cuh). One pass over a tile of
 * BITONIC_MS_TILE = 4096 keys does every stride below the tile: four in registers, an exchange
 * through shared memory, four more, another exchange, the last four. One pass over global memory
 * does up to MULTISTRIDE_STEPS = 4 strides of a tile or more.
 * ------------------------------------------------------------------------------------------ */

/* TODO 3.5: helpers: comparator and steps in registers, exchanges, a tile pass */

/**
 * TODO 3.5. Keys only: block b does stages @p first_size, 2 * first_size, ..., @p last_size
 * on tile b (keys `b * BITONIC_MS_TILE` ..., fewer in a partial last tile), each stage's steps
 * of stride `min(size, BITONIC_MS_TILE) / 2` down to 1, in one pass: thread t loads keys
 * t + 256 r (arrangement 8), does the strides of each group of four in registers, exchanging
 * the tile through shared memory between groups, and stores the tile as it loaded it. With
 * stages 2 .. min(run, tile) it sorts every tile (as TODO 3.1 does); with one stage
 * `size` > the tile it ends that stage (as TODO 3.3 does).
 */
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
    multistride_tile_keys_kernel(unsigned int *keys, size_t n, size_t first_size, size_t last_size,
                                 size_t run, int descending)
{
    /* TODO 3.5: a tile of keys in shared memory, the body without values */
}

/**
 * TODO 3.5. ::multistride_tile_keys_kernel for keys and values: each value moves with its
 * key, in registers and through shared memory. (Two kernels rather than one that tests for
 * values: that one holds room for the values even when it sorts keys only, 56 registers per
 * thread in ours against 36 for the keys-only kernel (sm_90, CUDA 13.0), so fewer of its
 * blocks fit on an SM.)
 */
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
    multistride_tile_pairs_kernel(unsigned int *keys, unsigned int *values, size_t n,
                                  size_t first_size, size_t last_size, size_t run, int descending)
{
    /* TODO 3.5: tiles of keys and values in shared memory, the body with values */
}

/**
 * TODO 3.5: launches ::multistride_tile_pairs_kernel, or ::multistride_tile_keys_kernel when
 * @p d_values is NULL, one block per tile of the n keys (n > 0).
 */
cudaError_t multistride_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                              size_t first_size, size_t last_size, size_t run, int descending)
{
    /* TODO 3.5: one block of BITONIC_MS_BLOCK_THREADS per tile, the last partial */
    KIT_TODO_STUB(d_keys, d_values, n, first_size, last_size, run, descending);
}

/* TODO 3.5: the body that both global kernels share: load, steps in registers, store */

/**
 * TODO 3.5. Keys only: steps of stride @p top, top / 2, ..., `low` = top >> (steps - 1) of
 * stage @p size in one pass over global memory (1 <= @p steps <= MULTISTRIDE_STEPS): thread q
 * holds the 2^steps keys these steps combine, `first + r * low` for r < 2^steps, where `first`
 * is q with `steps` zero bits inserted at the position of low's bit (bitonic_pair_low()
 * inserts one); it does the steps in registers and writes the keys back. A warp's 32 threads
 * read 32 neighbouring keys per register. The keys of a thread differ only in bits below
 * `size`, so one direction serves all its comparators.
 */
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
    multistride_global_keys_kernel(unsigned int *keys, size_t n, size_t size, size_t top,
                                   unsigned steps, size_t run, int descending)
{
    /* TODO 3.5: one thread per 2^steps keys, the body without values */
}

/** TODO 3.5. ::multistride_global_keys_kernel for keys and values. */
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
    multistride_global_pairs_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t size,
                                    size_t top, unsigned steps, size_t run, int descending)
{
    /* TODO 3.5: one thread per 2^steps pairs, the body with values */
}

/**
 * TODO 3.5: launches ::multistride_global_pairs_kernel, or ::multistride_global_keys_kernel
 * when @p d_values is NULL, one thread per 2^steps keys (n > 0).
 */
cudaError_t multistride_global(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                               size_t top, unsigned steps, size_t run, int descending)
{
    /* TODO 3.5: n >> steps threads in blocks of BITONIC_MS_BLOCK_THREADS */
    KIT_TODO_STUB(d_keys, d_values, n, size, top, steps, run, descending);
}

/**
 * TODO 3.5: the whole network on n keys (n > 0, a multiple of @p run, a power of two), as
 * ::sort_runs does it but in fewer passes: one tile pass for stages 2 .. min(run, tile); then
 * for each larger stage, its strides of a tile or more in global passes of up to
 * MULTISTRIDE_STEPS strides each, and one tile pass for the strides below the tile.
 */
cudaError_t multistride_sort_runs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                  size_t run, int descending)
{
    /* TODO 3.5: tiles; per stage: fused global passes down to the tile, a tile pass */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
}
