/*
 * The seed article's "simple quicksort", as a baseline for `quicksort --bench` only (it is not
 * part of the lab's API, and not the file you edit). Its algorithm as published: one thread
 * per segment, a two-way partition around the middle key, selection sort below 32 keys or
 * from depth 16, one child grid per side; made to run under CUDA 12+: children go to
 * cudaStreamFireAndForget instead of streams the parent waits on, indices are size_t, and a
 * child launch that fails is counted instead of ignored. labs/05-quicksort/lab.mk links it
 * into the driver.
 */
#include "cuda_check.h"

/** The seed's limits. */
#define SEED_MAX_DEPTH 16
#define SEED_SELECTION_SORT 32

/** One thread's selection sort of keys[lo, hi]: the seed's O(m^2) fallback. */
__device__ void seed_selection_sort(unsigned int *keys, size_t lo, size_t hi)
{
    for (size_t i = lo; i <= hi; i++) {
        unsigned int min_key = keys[i];
        size_t min_at = i;
        for (size_t j = i + 1; j <= hi; j++) {
            if (keys[j] < min_key) {
                min_key = keys[j];
                min_at = j;
            }
        }
        keys[min_at] = keys[i];
        keys[i] = min_key;
    }
}

/** One thread sorts keys[lo, hi] (inclusive, as in the seed) and launches its two children. */
__global__ void seed_quicksort_kernel(unsigned int *keys, size_t lo, size_t hi, int depth,
                                      unsigned int *failures)
{
    if (depth >= SEED_MAX_DEPTH || hi - lo <= SEED_SELECTION_SORT) {
        seed_selection_sort(keys, lo, hi);
        return;
    }
    /* Hoare's partition around the middle key; l and r are one past / before the parts, and
     * may cross below lo (r = lo - 1 wraps, so the comparisons use l and r + 1). */
    unsigned int pivot = keys[lo + (hi - lo) / 2];
    size_t l = lo, r_plus_1 = hi + 1;
    while (l < r_plus_1) {
        unsigned int left = keys[l], right = keys[r_plus_1 - 1];
        while (left < pivot) {
            left = keys[++l];
        }
        while (right > pivot) {
            right = keys[--r_plus_1 - 1];
        }
        if (l < r_plus_1) {
            keys[l++] = right;
            keys[--r_plus_1] = left;
        }
    }
    if (lo + 1 < r_plus_1) { /* lo < r */
        seed_quicksort_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(keys, lo, r_plus_1 - 1,
                                                                    depth + 1, failures);
        if (cudaGetLastError() != cudaSuccess) {
            atomicAdd(failures, 1u);
        }
    }
    if (l < hi) {
        seed_quicksort_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(keys, l, hi, depth + 1,
                                                                    failures);
        if (cudaGetLastError() != cudaSuccess) {
            atomicAdd(failures, 1u);
        }
    }
}

/** Sorts n keys with the seed's algorithm; the whole tree is waited for. */
extern "C" cudaError_t quicksort_seed_baseline(unsigned int *d_keys, size_t n)
{
    if (n < 2) {
        return cudaSuccess;
    }
    unsigned int *d_failures = NULL, failures = 0;
    CUDA_TRY(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (size_t)1 << 20));
    CUDA_TRY(cudaMalloc((void **)&d_failures, sizeof *d_failures));
    CUDA_TRY(cudaMemset(d_failures, 0, sizeof *d_failures));
    seed_quicksort_kernel<<<1, 1>>>(d_keys, 0, n - 1, 0, d_failures);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaDeviceSynchronize());
    CUDA_TRY(cudaMemcpy(&failures, d_failures, sizeof failures, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaFree(d_failures));
    return failures ? cudaErrorLaunchPendingCountExceeded : cudaSuccess;
}
