/**
 * @file mergesort_given.cuh
 * @brief Lab 02's given code for mergesort.cu: the tile blocks' share per thread, and the API
 *        of mergesort.h's tiers (argument checks, buffers) around the launchers you write.
 *
 * Included by mergesort.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your mergesort.cu with its own copy of this file). It includes
 * mergesort_common.cuh, the given parts that mergesort_bonus.cu sees too
 * (::MERGESORT_BLOCK_THREADS, merge_at(), ::sort_buffers, most_splits(), and the prototypes of your
 * launchers that the bonus calls), and through it common/kit_device.cuh, which gives
 * ::KIT_BLOCK_THREADS, kit_blocks_for(), the tile counts kit_num_tiles() and kit_tile_keys(),
 * load_shared(), store_shared() and the sort's buffers in one allocation (kit_alloc_buffers()).
 * The bonus API (TODOs 2.5 and 2.6) is in mergesort_bonus_given.cuh.
 */
#pragma once

#include <stddef.h>

#include "cuda_check.h"
#include "mergesort_common.cuh"

/** Keys each thread of a tile block owns. */
#define MERGESORT_ITEMS_PER_THREAD (MERGESORT_TILE / MERGESORT_BLOCK_THREADS)

/* ------------------------------------------------------------------------------------------
 * What your mergesort.cu defines, for the given code below (each one's comment there says
 * what it must do; the launchers that mergesort_bonus.cu calls too are in
 * mergesort_common.cuh)
 * ------------------------------------------------------------------------------------------ */

/** TODO 2.1 (mergesort.cu): a pass of one thread per merge. */
cudaError_t pass_thread(const unsigned int *src_keys, const unsigned int *src_values,
                        unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width);

/** TODO 2.2 (mergesort.cu): a pass of one block per merge. */
cudaError_t pass_block(const unsigned int *src_keys, const unsigned int *src_values,
                       unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width);

/** TODO 2.3 (mergesort.cu): how many of the first @p k keys of the merge of @p a and @p b come
 * from @p a. */
KIT_HOST_DEVICE size_t merge_path_co_rank(const unsigned int *a, size_t na, const unsigned int *b,
                                          size_t nb, size_t k);

/* ------------------------------------------------------------------------------------------
 * The API of mergesort.h's tiers: argument checks, then the launchers of mergesort.cu.
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t mergesort_pass_thread(const unsigned int *d_src_keys,
                                             const unsigned int *d_src_values,
                                             unsigned int *d_dst_keys, unsigned int *d_dst_values,
                                             size_t n, size_t width)
{
    if (width == 0) {
        return cudaErrorInvalidValue;
    }
    if (!d_src_values || !d_dst_values) {
        d_src_values = d_dst_values = NULL; /* keys only */
    }
    width = width < n ? width : n; /* a width of n or more: one lone run, copied */
    return n == 0 ? cudaSuccess
                  : pass_thread(d_src_keys, d_src_values, d_dst_keys, d_dst_values, n, width);
}

extern "C" cudaError_t mergesort_pass_block(const unsigned int *d_src_keys,
                                            const unsigned int *d_src_values,
                                            unsigned int *d_dst_keys, unsigned int *d_dst_values,
                                            size_t n, size_t width)
{
    if (width == 0 || width > MERGESORT_TILE / 2) {
        return cudaErrorInvalidValue;
    }
    if (!d_src_values || !d_dst_values) {
        d_src_values = d_dst_values = NULL;
    }
    width = width < n ? width : n;
    return n == 0 ? cudaSuccess
                  : pass_block(d_src_keys, d_src_values, d_dst_keys, d_dst_values, n, width);
}

extern "C" size_t mergesort_co_rank(const unsigned int *keys, size_t n, size_t mid, size_t k)
{
    if (mid > n || k > n || (n > 0 && !keys)) {
        return (size_t)-1;
    }
    return merge_path_co_rank(keys, mid, keys + mid, n - mid, k);
}

extern "C" cudaError_t mergesort_merge_path_splits(const unsigned int *d_keys, size_t n,
                                                   size_t width, size_t *d_splits)
{
    if (width == 0) {
        return cudaErrorInvalidValue;
    }
    width = width < n ? width : n;
    return n == 0 ? cudaSuccess : merge_path_partition(d_keys, n, width, d_splits, 0);
}

extern "C" cudaError_t mergesort_pass_merge_path(const unsigned int *d_src_keys,
                                                 const unsigned int *d_src_values,
                                                 unsigned int *d_dst_keys,
                                                 unsigned int *d_dst_values, size_t n, size_t width)
{
    if (width == 0) {
        return cudaErrorInvalidValue;
    }
    if (!d_src_values || !d_dst_values) {
        d_src_values = d_dst_values = NULL;
    }
    width = width < n ? width : n;
    if (n == 0) {
        return cudaSuccess;
    }
    size_t *splits = NULL;
    CUDA_TRY(cudaMalloc((void **)&splits, mergesort_split_count(n, width) * sizeof *splits));
    cudaError_t err =
        pass_merge_path(d_src_keys, d_src_values, d_dst_keys, d_dst_values, n, width, splits, 0);
    cudaError_t freed = cudaFree(splits);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t mergesort_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n)
{
    return n == 0 ? cudaSuccess : sort_tiles(d_keys, d_values, d_keys, d_values, n, 0);
}

extern "C" cudaError_t mergesort_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n)
{
    if (n <= MERGESORT_TILE) {
        return n <= 1 ? cudaSuccess : sort_tiles(d_keys, d_values, d_keys, d_values, n, 0);
    }
    sort_buffers b = {NULL, NULL, NULL};
    void *block = NULL;
    kit_buffer buffers[] = {{(void **)&b.keys, n * sizeof *b.keys},
                            {(void **)&b.values, d_values ? n * sizeof *b.values : 0},
                            {(void **)&b.splits, most_splits(n) * sizeof *b.splits}};
    cudaError_t err = kit_alloc_buffers(&block, buffers, 3); /* says so itself when it fails */
    if (err == cudaSuccess) {
        err = sort_with_buffers(d_keys, d_values, n, &b, 0);
    }
    cudaError_t freed = kit_free_buffers(&block);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t mergesort_sort_keys(unsigned int *d_keys, size_t n)
{
    return mergesort_sort_pairs(d_keys, NULL, n);
}
