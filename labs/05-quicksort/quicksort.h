/**
 * @file quicksort.h
 * @brief Lab 05: quicksort with dynamic parallelism (CUDA 12+). The API; do not edit.
 *
 * Quicksort picks a *pivot*, splits a segment into the keys less than, equal to and greater
 * than it (a three-way partition), and sorts the two outer parts the same way. On the GPU
 * the recursion becomes a tree of grids: with *dynamic parallelism* (CDP) a kernel launches
 * the grids of its two children itself, without going back to the host.
 *
 * The lab builds it in tiers, each tested on its own:
 * - TODO 5.1 quicksort_simple(): the seed article's algorithm done right for CUDA 12+: one
 *   thread per segment, children launched into `cudaStreamFireAndForget`, an insertion sort
 *   below ::QUICKSORT_SIMPLE_CUTOFF keys;
 * - TODO 5.2 quicksort_partition(): one partition done by many blocks, each claiming its
 *   places in the output with one atomic per side;
 * - TODO 5.3 quicksort_choose_pivot(), quicksort_sort_small(), quicksort_sort_fallback():
 *   a pivot that no input of the kit defeats, the end game in shared memory, and the sort
 *   that takes over at the depth bound;
 * - TODO 5.4 quicksort_sort() (the CDP tree of 5.2 and 5.3, with the pending-launch limit
 *   raised from n) and quicksort_sort_host_loop() (the same partitions, level by level,
 *   launched from the host).
 *
 * Keys are `unsigned int`, sorted ascending, in place; quicksort is not stable. All functions
 * take device pointers, return `cudaSuccess` or the first CUDA error, and
 * `cudaErrorInvalidValue` when the arguments break the rule stated for the function. A TODO
 * not written yet returns `cudaErrorNotSupported`. A launch that fails *inside* the tree (a
 * kernel's own launch of a child, e.g. past the pending-launch limit) is counted in device
 * memory, and the sort then returns `cudaErrorLaunchPendingCountExceeded`, never a
 * half-sorted array with `cudaSuccess`.
 */
#ifndef LAB05_QUICKSORT_H
#define LAB05_QUICKSORT_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "keyflip.h" /* KIT_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

/** 5.1: a segment of at most this many keys is sorted by its thread (insertion sort). */
#define QUICKSORT_SIMPLE_CUTOFF 32u

/**
 * The depth bound of every version: a grid at recursion depth ::QUICKSORT_MAX_DEPTH launches
 * no children; its segments are sorted by a fallback whose cost stays O(m log m) (5.1, one
 * thread's heap sort) or O(m log^2 m) (5.3, one block's sorting network). (A fill grid of
 * 5.4, launched by a partition one level above, is at the bound and launches nothing.) The
 * host's launch is depth 0; the hardware refuses launches nested deeper than 24.
 */
#define QUICKSORT_MAX_DEPTH 20

/** 5.3: a segment of at most this many keys is sorted by one block in shared memory. */
#define QUICKSORT_SMALL 2048u

/** 5.2: threads of a partition block; every block of the sort has this many. */
#define QUICKSORT_BLOCK_THREADS 256u

/** 5.2: keys of a tile each thread of a partition block holds in registers. */
#define QUICKSORT_ITEMS_PER_THREAD 8u

/** 5.2: keys one partition block handles: its threads times their keys. */
#define QUICKSORT_TILE (QUICKSORT_BLOCK_THREADS * QUICKSORT_ITEMS_PER_THREAD)

/** 5.3: samples a pivot is chosen from (a ninther: the median of three medians of three). */
#define QUICKSORT_SAMPLES 9u

/**
 * Bytes the host loop may copy to the host in one call: 3 counters (24 bytes) per level,
 * read to size the next level's launches. The CDP sorts copy back only their launch-failure
 * counter.
 */
#define QUICKSORT_LOOP_READBACK_BYTES (24u * (QUICKSORT_MAX_DEPTH + 2u))

/**
 * Where sample @p k (0 .. ::QUICKSORT_SAMPLES - 1) of a segment of @p n keys (n >= 1) is
 * taken, shared by the kernels and the tests: the segment is cut into 9 strata of n / 9 keys,
 * and sample k is a pseudo-random key of stratum k (a hash of n and k picks it). Spread over
 * the segment, the samples see the shape of sorted, reversed and organ-pipe inputs; taken at
 * scrambled places, no regular pattern of keys can put them all at its ends. Below 9 keys,
 * sample k is key k % n.
 */
KIT_HOST_DEVICE static inline size_t quicksort_sample_index(size_t n, unsigned k)
{
    if (n < QUICKSORT_SAMPLES) {
        return k % n;
    }
    size_t stratum = n / QUICKSORT_SAMPLES;
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ull + (uint64_t)(k + 1) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    return stratum * k + (size_t)(h % stratum);
}

/** The median of three keys (the middle one in sorted order). */
KIT_HOST_DEVICE static inline unsigned int quicksort_median3(unsigned int a, unsigned int b,
                                                             unsigned int c)
{
    unsigned int lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : (c > hi ? hi : c);
}

/**
 * TODO 5.1: sorts @p n keys with one thread per segment: the thread takes the middle key as
 * its pivot, partitions its segment in place three ways (less, equal, greater: all-equal
 * input ends after one pass), and launches one child grid of one thread for each outer part
 * that holds 2 keys or more, into `cudaStreamFireAndForget`. A segment of at most
 * ::QUICKSORT_SIMPLE_CUTOFF keys is sorted by its thread (insertion sort), and one at depth
 * ::QUICKSORT_MAX_DEPTH by its thread's heap sort. The host waits for the whole tree with
 * one `cudaDeviceSynchronize()`.
 *
 * @param pending_launches the value for `cudaLimitDevRuntimePendingLaunchCount`: 0 means
 *        "what n needs" (TODO 5.4 computes it); the tests pass a value far too low on purpose
 *        and expect `cudaErrorLaunchPendingCountExceeded` or a sorted array.
 */
cudaError_t quicksort_simple(unsigned int *d_keys, size_t n, size_t pending_launches);

/**
 * TODO 5.2: one three-way partition of the @p n keys of @p d_in around @p pivot into
 * @p d_out, by ceil(n / ::QUICKSORT_TILE) blocks: the L keys less than the pivot end in
 * `d_out[0, L)`, the E keys equal to it in `d_out[L, L + E)` (copies of the pivot), the G
 * greater keys in `d_out[n - G, n)`, each part in any order. `d_counts[0]` gets L and
 * `d_counts[1]` gets G (device memory, two values). @p d_in is not changed and must not
 * overlap @p d_out.
 */
cudaError_t quicksort_partition(const unsigned int *d_in, unsigned int *d_out, size_t n,
                                unsigned int pivot, unsigned long long *d_counts);

/**
 * TODO 5.3: the pivot of a segment of @p n keys (n >= 1), written to `*d_pivot` (device
 * memory): the ninther of the keys at quicksort_sample_index(n, 0 .. 8), that is
 * median3(median3(s0, s1, s2), median3(s3, s4, s5), median3(s6, s7, s8)).
 */
cudaError_t quicksort_choose_pivot(const unsigned int *d_keys, size_t n, unsigned int *d_pivot);

/**
 * TODO 5.3: the end game. Sorts every run of @p segment keys (run r: keys r * segment ...,
 * the last run may be shorter) with one block per run in shared memory. @p segment is
 * 1 .. ::QUICKSORT_SMALL.
 */
cudaError_t quicksort_sort_small(unsigned int *d_keys, size_t n, size_t segment);

/**
 * TODO 5.3: the sort that takes over at the depth bound: one block sorts all @p n keys in
 * global memory with a sorting network, O(n log^2 n) work, whatever the keys.
 */
cudaError_t quicksort_sort_fallback(unsigned int *d_keys, size_t n);

/**
 * TODO 5.4: the full sort, a tree of grids: 5.2's partitions, 5.3's pivots, segments of at
 * most ::QUICKSORT_SMALL keys sorted in shared memory, the fallback at the depth bound;
 * children launched by the last block of their parent's partition into
 * `cudaStreamFireAndForget`. Uses a second buffer of n keys.
 * @param pending_launches as for quicksort_simple() (0: what n needs).
 */
cudaError_t quicksort_sort(unsigned int *d_keys, size_t n, size_t pending_launches);

/**
 * TODO 5.4: the same partitions without dynamic parallelism: the host launches every level
 * of the tree (its segments' pivots, partitions, and children) and reads back three counters
 * per level to size the next one (at most ::QUICKSORT_LOOP_READBACK_BYTES bytes in all).
 */
cudaError_t quicksort_sort_host_loop(unsigned int *d_keys, size_t n);

#ifdef __cplusplus
}
#endif

#endif
