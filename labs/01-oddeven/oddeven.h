/**
 * @file oddeven.h
 * @brief Lab 01: odd-even transposition ("brick") sort. The API; do not edit.
 *
 * The sort runs in phases. In phase `p` the keys are grouped into neighbouring pairs that
 * start at an even index (p even) or at an odd index (p odd), and every pair is put in
 * order by one compare-exchange. All pairs of one phase are disjoint, so they can all be
 * done at once, by one thread each. n phases sort any n keys (see the handout).
 *
 * All functions take device pointers, sort ascending in place, and return `cudaSuccess` or
 * the first CUDA error. A TODO not written yet returns `cudaErrorNotSupported`.
 */
#ifndef LAB01_ODDEVEN_H
#define LAB01_ODDEVEN_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest n that ::oddeven_sort_block_batch sorts: 1024 threads, two keys each. */
#define ODDEVEN_BLOCK_MAX_N 2048

/**
 * The phase schedule, shared by the kernels, the tests and the diagram tool: the index of
 * the left key of pair @p pair in phase @p phase. Pair `i` of an even phase is (2i, 2i+1);
 * of an odd phase, (2i+1, 2i+2).
 */
KIT_HOST_DEVICE static inline size_t oddeven_pair_left(size_t pair, unsigned phase)
{
    return 2 * pair + (phase & 1u);
}

/** Number of pairs in phase @p phase of an array of @p n keys. */
KIT_HOST_DEVICE static inline size_t oddeven_pair_count(size_t n, unsigned phase)
{
    return n < 1 + (phase & 1u) ? 0 : (n - (phase & 1u)) / 2;
}

/**
 * TODO 1.1: one phase over global memory, any n, any number of blocks.
 * Thread `i` of the grid compare-exchanges pair `i` of phase @p phase.
 */
cudaError_t oddeven_phase(unsigned int *d_keys, size_t n, unsigned phase);

/** TODO 1.2: the whole sort as n phases, one launch each (calls ::oddeven_phase). */
cudaError_t oddeven_sort(unsigned int *d_keys, size_t n);

/**
 * TODO 1.3: sorts @p count arrays of @p n keys each (n <= ::ODDEVEN_BLOCK_MAX_N), stored one
 * after the other; block `b` sorts array `b` in shared memory, with a barrier between
 * phases. Returns `cudaErrorInvalidValue` when n is too large.
 */
cudaError_t oddeven_sort_block_batch(unsigned int *d_keys, size_t n, size_t count);

/**
 * TODO 1.4 (bonus): the whole sort in one cooperative launch; a grid-wide barrier separates
 * the phases. Returns `cudaErrorCooperativeLaunchTooLarge` or `cudaErrorNotSupported` when
 * the GPU cannot do it.
 */
cudaError_t oddeven_sort_cooperative(unsigned int *d_keys, size_t n);

#ifdef __cplusplus
}
#endif

#endif
