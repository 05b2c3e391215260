/**
 * @file mergesort_common.cuh
 * @brief Lab 02's given declarations that both student files use: the blocks' sizes, the
 *        merges of a pass, the sort's buffers, and the launchers of mergesort.cu that
 *        mergesort_bonus.cu calls.
 *
 * Included by mergesort_given.cuh and mergesort_bonus_given.cuh, so by both of your files;
 * read it, use it, do not edit it (the grader has its own copy). It holds what both given
 * headers need (sizes, types, `static inline` helpers and prototypes); `#pragma once` keeps
 * it single in the one translation unit the two files are compiled as. It includes
 * common/kit_device.cuh, which gives ::KIT_BLOCK_THREADS, kit_blocks_for(), kit_num_tiles(),
 * kit_tile_keys(), load_shared(), store_shared() and the sort's buffers in one allocation
 * (kit_alloc_buffers()).
 */
#pragma once

#include <stddef.h>

#include "cuda_check.h"
#include "kit_device.cuh"
#include "mergesort.h"

/** Threads of the blocks that hold ::MERGESORT_TILE keys in shared memory (tiers 2.2-2.4). */
#define MERGESORT_BLOCK_THREADS 256

/* ------------------------------------------------------------------------------------------
 * Merges of a pass (given: read them, use them)
 * ------------------------------------------------------------------------------------------ */

/** Merge `m` of a pass: where its left run starts, and the lengths of its two runs. */
typedef struct {
    size_t start; /**< index of the first key of the left run */
    size_t na;    /**< keys of the left run (less than the width only at the end) */
    size_t nb;    /**< keys of the right run, which starts at start + na (0: a lone run) */
} merge_runs;

/**
 * Merge @p m of the pass of width @p width over @p n keys (`m` < mergesort_merge_count()):
 * runs `2m` and `2m + 1`, either or both cut short by the end of the array.
 */
KIT_HOST_DEVICE static inline merge_runs merge_at(size_t n, size_t width, size_t m)
{
    merge_runs r;
    r.start = m * 2 * width;
    size_t left = n - r.start;
    r.na = left < width ? left : width;
    r.nb = left - r.na < width ? left - r.na : width;
    return r;
}

/* ------------------------------------------------------------------------------------------
 * The buffers of a sort
 * ------------------------------------------------------------------------------------------ */

/** The buffers of a sort: the scratch half of the ping-pong, and the merge-path splits. */
typedef struct {
    unsigned int *keys;   /**< n keys */
    unsigned int *values; /**< n values, NULL for keys only */
    size_t *splits;       /**< the most splits any pass needs */
} sort_buffers;

/** The most splits a merge-path pass of the sort needs (widths MERGESORT_TILE, 2x, ...). */
static inline size_t most_splits(size_t n)
{
    size_t most = 0;
    for (size_t width = MERGESORT_TILE; width < n; width *= 2) {
        size_t count = mergesort_split_count(n, width);
        most = count > most ? count : most;
    }
    return most;
}

/* ------------------------------------------------------------------------------------------
 * What your mergesort.cu defines that mergesort_bonus.cu calls too (each one's comment in
 * mergesort.cu says what it must do)
 * ------------------------------------------------------------------------------------------ */

/** TODO 2.3 (mergesort.cu): the merge-path splits of a pass, on @p stream. */
cudaError_t merge_path_partition(const unsigned int *keys, size_t n, size_t width, size_t *splits,
                                 cudaStream_t stream);

/** TODO 2.3 (mergesort.cu): block `first_piece + blockIdx.x` makes one piece of a merge-path
 * pass (the bonus 2.5 launches it on a few pieces at a time). */
__global__ void __launch_bounds__(MERGESORT_BLOCK_THREADS)
    merge_path_piece_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                            unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                            size_t width, size_t pieces, const size_t *splits, size_t first_piece);

/** TODO 2.3 (mergesort.cu): a merge-path pass, on @p stream. */
cudaError_t pass_merge_path(const unsigned int *src_keys, const unsigned int *src_values,
                            unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                            size_t width, size_t *splits, cudaStream_t stream);

/** TODO 2.4 (mergesort.cu): sorts each tile of ::MERGESORT_TILE keys, on @p stream. */
cudaError_t sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                       unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                       cudaStream_t stream);

/** TODO 2.4 (mergesort.cu): the sort of n > ::MERGESORT_TILE keys with the buffers @p b. */
cudaError_t sort_with_buffers(unsigned int *keys, unsigned int *values, size_t n,
                              const sort_buffers *b, cudaStream_t stream);
