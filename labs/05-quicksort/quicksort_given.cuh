/**
 * @file quicksort_given.cuh
 * @brief Lab 05's given code: the tree's types and bookkeeping, the helpers your kernels
 *        call, the kernels and host code around your TODOs, and the API of quicksort.h.
 *
 * Included by quicksort.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your quicksort.cu with its own copy of this file). The given kernels and
 * the API call functions that your file defines: they are declared here, in
 * "What your file defines", so that this file can come first.
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "kit_device.cuh"
#include "quicksort.h"

/** Warps of a block of ::QUICKSORT_BLOCK_THREADS threads. */
#define WARPS (QUICKSORT_BLOCK_THREADS / 32u)

/** An equal part longer than this is filled by a grid of its own, not by one block. */
#define FILL_BY_BLOCK_MAX (16u * QUICKSORT_BLOCK_THREADS)

/** The most the pending-launch limit is raised to (each pending launch reserves memory). */
#define PENDING_LAUNCHES_MAX ((size_t)1 << 20)

/** The CUDA runtime's default pending-launch limit: never set a lower one by ourselves. */
#define PENDING_LAUNCHES_DEFAULT 2048u

/* ------------------------------------------------------------------------------------------
 * The tree's bookkeeping (given: read it, use it)
 * ------------------------------------------------------------------------------------------ */

/** What every grid of one sort shares. */
typedef struct {
    unsigned int *out;          /**< the caller's array: every key ends here, sorted */
    unsigned int *tmp;          /**< the second buffer; partitions go out -> tmp -> out ... */
    unsigned long long *slots;  /**< 3 counters per partition in flight, see ::slot_of */
    unsigned int *failures;     /**< launches that failed inside the tree */
    unsigned long long *counts; /**< quicksort_partition() only: where L and G go */
} sort_tree;

/** A segment of the array: keys [lo, lo + len), currently in `tmp` when in_tmp, else `out`. */
typedef struct {
    size_t lo;  /**< its first key */
    size_t len; /**< its number of keys */
    int in_tmp; /**< nonzero: its keys are in `tmp` now, else in `out` */
} segment;

/**
 * The counters of the partition of a segment that starts at @p lo: `slot[0]` keys less than
 * the pivot, `slot[1]` keys greater, `slot[2]` blocks done. Partitions in flight at the same
 * time hold disjoint segments of more than ::QUICKSORT_SMALL keys, so their `lo /
 * QUICKSORT_SMALL` differ; a parent has read its counters before it launches a child that
 * may reuse them.
 */
__device__ unsigned long long *slot_of(const sort_tree *tree, size_t lo)
{
    return tree->slots + 3 * (lo / QUICKSORT_SMALL);
}

/** Where a segment's keys are now. */
__device__ unsigned int *segment_src(const sort_tree *tree, segment s)
{
    return s.in_tmp ? tree->tmp : tree->out;
}

/** Where a segment's partition writes its keys: the other buffer. */
__device__ unsigned int *segment_dst(const sort_tree *tree, segment s)
{
    return s.in_tmp ? tree->out : tree->tmp;
}

/**
 * Called by the thread that just launched a kernel from the device: a launch that failed
 * (past the pending-launch limit, out of memory) is counted, so the host can report it.
 */
__device__ void count_launch_failure(unsigned int *failures)
{
    if (cudaGetLastError() != cudaSuccess) {
        atomicAdd(failures, 1u);
    }
}

/**
 * A key written by another block of the same grid: read through L2 (`__ldcg`), never from
 * this SM's L1, which is not coherent with other SMs' writes.
 */
__device__ __forceinline__ unsigned int load_fresh(const unsigned int *p)
{
    return __ldcg(p);
}

/* ------------------------------------------------------------------------------------------
 * 5.1 one thread per segment
 * ------------------------------------------------------------------------------------------ */

/** Swaps two keys in global memory. */
__device__ void swap_keys(unsigned int *keys, size_t i, size_t j)
{
    unsigned int t = keys[i];
    keys[i] = keys[j];
    keys[j] = t;
}

/**
 * One thread's heap sort of keys[lo, hi): O(m log m) whatever the keys, no recursion, no
 * extra memory. 5.1 falls back to it at the depth bound (the seed's selection sort there was
 * O(m^2): minutes on a sorted array of 2^22 keys).
 */
__device__ void heap_sort(unsigned int *keys, size_t lo, size_t hi)
{
    unsigned int *a = keys + lo;
    size_t m = hi - lo;
    for (size_t end = m, start = m / 2; end > 1;) {
        if (start > 0) {
            start--; /* building the heap: sift down every inner node, the last first */
        } else {
            end--; /* taking the largest out: it goes to the end of the shrinking heap */
            swap_keys(a, 0, end);
        }
        size_t root = start;
        for (size_t child = 2 * root + 1; child < end; child = 2 * root + 1) {
            if (child + 1 < end && a[child + 1] > a[child]) {
                child++;
            }
            if (a[root] >= a[child]) {
                break;
            }
            swap_keys(a, root, child);
            root = child;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * 5.2 a block-parallel partition
 * ------------------------------------------------------------------------------------------ */

/**
 * Exclusive prefix sum of @p x over the block (::QUICKSORT_BLOCK_THREADS threads): thread t gets
 * the sum of x over threads 0 .. t-1, and `*total` the sum over all. A scan inside each warp
 * with shuffles, then one over the warps' totals. Every thread of the block must call it.
 */
__device__ unsigned block_exclusive_scan(unsigned x, unsigned *total)
{
    __shared__ unsigned warp_totals[WARPS];
    unsigned lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
    unsigned inclusive = x;
    for (unsigned offset = 1; offset < 32u; offset *= 2) {
        unsigned y = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if (lane >= offset) {
            inclusive += y;
        }
    }
    if (lane == 31u) {
        warp_totals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < WARPS ? warp_totals[lane] : 0u;
        for (unsigned offset = 1; offset < 32u; offset *= 2) {
            unsigned y = __shfl_up_sync(0xffffffffu, w, offset);
            if (lane >= offset) {
                w += y;
            }
        }
        if (lane < WARPS) {
            warp_totals[lane] = w; /* now inclusive over the warps */
        }
    }
    __syncthreads();
    unsigned before = warp > 0 ? warp_totals[warp - 1] : 0u;
    *total = warp_totals[WARPS - 1];
    __syncthreads(); /* everyone has read warp_totals before a next call writes it */
    return before + inclusive - x;
}

/**
 * Marks this block done with the partition whose counters are @p slot, after making its
 * writes visible to the whole device; returns nonzero in every thread of the block that
 * finished last (the one that may read every block's output). Every thread must call it.
 */
__device__ int last_block_done(unsigned long long *slot)
{
    __shared__ int last;
    __threadfence(); /* this thread's writes reach the device before the count says so */
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(&slot[2], 1ull) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        __threadfence(); /* and nothing after this is read before the others' writes */
    }
    return last;
}

/** Fills keys[0, count) with @p key: thread i of the grid writes keys i, i + grid size, ... */
__global__ void fill_kernel(unsigned int *keys, size_t count, unsigned int key)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        keys[i] = key;
    }
}

/** The block fills keys[0, count) with @p key. */
__device__ void block_fill(unsigned int *keys, size_t count, unsigned int key)
{
    for (size_t i = threadIdx.x; i < count; i += blockDim.x) {
        keys[i] = key;
    }
}

/* ------------------------------------------------------------------------------------------
 * 5.3 the pivot and the end game
 * ------------------------------------------------------------------------------------------ */

/**
 * The comparator of the block's network: the smaller of a[i], a[j] (i < j) goes to i.
 * @p a may point to shared or to global memory.
 */
__device__ void compare_ascending(unsigned int *a, size_t i, size_t j)
{
    unsigned int x = a[i], y = a[j];
    if (x > y) {
        a[i] = y;
        a[j] = x;
    }
}

/* ------------------------------------------------------------------------------------------
 * 5.4 the host loop's types
 * ------------------------------------------------------------------------------------------ */

/** A segment of one level of the host loop: where its keys are, its pivot, its tiles. */
typedef struct {
    segment seg;        /**< its keys */
    unsigned int pivot; /**< its pivot, chosen by level_prepare_kernel() */
    size_t first_tile;  /**< its tiles are blocks first_tile ... of the level's partition */
} level_segment;

/** What a level tells the host: the next level's size, and the small segments it left. */
typedef struct {
    unsigned long long segments; /**< big children for the next level */
    unsigned long long tiles;    /**< their tiles: the next partition's blocks */
    unsigned long long small;    /**< small children, for level_small_kernel */
} level_counts;

/** The device buffers of the host loop. */
typedef struct {
    sort_tree tree;          /**< out, tmp and the slots (one per segment of a level) */
    level_segment *level[2]; /**< this level's segments and the next one's */
    segment *small;          /**< small children of this level */
    unsigned *owner;         /**< owner[b]: the segment that block b of the partition works on */
    level_counts *counts;    /**< the level's counts, read back by the host */
} loop_buffers;

/* ------------------------------------------------------------------------------------------
 * What your file defines (declared here: the given code below calls it)
 * ------------------------------------------------------------------------------------------ */

/** TODO 5.3, in quicksort.cu: the ninther of keys[0, n), chosen by one thread. */
__device__ unsigned int choose_pivot(const unsigned int *keys, size_t n);

/** TODO 5.3, in quicksort.cu: the block sorts src[0, m) (m <= ::QUICKSORT_SMALL) into out. */
__device__ void block_sort_small(const unsigned int *src, unsigned int *out, size_t m);

/** TODO 5.3, in quicksort.cu: the depth bound's fallback, by one block, src[0, m) to out. */
__device__ void block_sort_fallback(const unsigned int *src, unsigned int *out, size_t m);

/** TODO 5.4, in quicksort.cu: thread 0 starts the partition grid of a big child. */
__device__ void launch_partition(const sort_tree *tree, segment child, int depth);

/** TODO 5.4, in quicksort.cu: the partition of @p seg, one block per tile. */
__global__ void partition_kernel(sort_tree tree, segment seg, unsigned int pivot, int depth,
                                 int recurse);

/** TODO 5.4, in quicksort.cu: the pending launches a tree over @p n keys may need. */
size_t pending_launches_for(size_t n, size_t leaf, size_t per_segment);

/** TODO 5.1, in quicksort.cu: the simple tree over n >= 2 keys, and the wait for it. */
cudaError_t simple_sort(unsigned int *d_keys, size_t n, size_t pending_launches,
                        unsigned int *d_failures);

/** TODO 5.2, in quicksort.cu: the partition grid of quicksort_partition(). */
cudaError_t partition_once(const unsigned int *d_in, unsigned int *d_out, size_t n,
                           unsigned int pivot, unsigned long long *d_counts,
                           unsigned long long *d_slot);

/** TODO 5.3, in quicksort.cu: launches ::choose_pivot_kernel. */
cudaError_t pivot_once(const unsigned int *d_keys, size_t n, unsigned int *d_pivot);

/** TODO 5.3, in quicksort.cu: launches ::sort_small_kernel. */
cudaError_t sort_small_runs(unsigned int *d_keys, size_t n, size_t segment);

/** TODO 5.3, in quicksort.cu: launches ::sort_fallback_kernel. */
cudaError_t sort_fallback_once(unsigned int *d_keys, size_t n);

/** TODO 5.4, in quicksort.cu: the CDP sort of n > ::QUICKSORT_SMALL keys, its buffers given. */
cudaError_t cdp_sort(const sort_tree *tree, size_t n, size_t pending_launches);

/** TODO 5.4, in quicksort.cu: the host loop over n > ::QUICKSORT_SMALL keys, its buffers given. */
cudaError_t host_loop_sort(loop_buffers *b, size_t n);

/* ------------------------------------------------------------------------------------------
 * The kernels around your device functions
 * ------------------------------------------------------------------------------------------ */

/** One thread writes the pivot of keys[0, n) to *pivot (5.3's ::choose_pivot). */
__global__ void choose_pivot_kernel(const unsigned int *keys, size_t n, unsigned int *pivot)
{
    *pivot = choose_pivot(keys, n);
}

/** Block b sorts keys[b * segment, ...), at most `segment` keys, in shared memory (5.3). */
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
    sort_small_kernel(unsigned int *keys, size_t n, size_t segment)
{
    size_t lo = (size_t)blockIdx.x * segment;
    size_t m = n - lo < segment ? n - lo : segment;
    block_sort_small(keys + lo, keys + lo, m);
}

/** One block sorts keys[0, n) with the fallback network in global memory (5.3). */
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
    sort_fallback_kernel(unsigned int *keys, size_t n)
{
    block_sort_fallback(keys, keys, n);
}

/** The root of the tree: one thread starts the partition of all n keys, at depth 1 (5.4). */
__global__ void quicksort_root_kernel(sort_tree tree, size_t n)
{
    segment all = {0, n, 0};
    launch_partition(&tree, all, 1);
}

/** Block b sorts small segment b of a level in shared memory, into `tree.out`. */
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
    level_small_kernel(const segment *small, sort_tree tree)
{
    segment s = small[blockIdx.x];
    block_sort_small(segment_src(&tree, s) + s.lo, tree.out + s.lo, s.len);
}

/* ------------------------------------------------------------------------------------------
 * Host
 * ------------------------------------------------------------------------------------------ */

/**
 * Sets cudaLimitDevRuntimePendingLaunchCount to @p limit, unless it already is (setting it
 * reserves memory again, which costs time).
 */
cudaError_t set_pending_launch_limit(size_t limit)
{
    size_t now = 0;
    CUDA_TRY(cudaDeviceGetLimit(&now, cudaLimitDevRuntimePendingLaunchCount));
    if (now != limit) {
        CUDA_TRY(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    }
    return cudaSuccess;
}

/**
 * Waits for the whole tree (one synchronize on the host: the root grid is complete when
 * every grid it launched is), then reads the tree's failure counter: a launch that failed
 * inside the tree is an error of the sort.
 */
cudaError_t wait_for_tree(const unsigned int *d_failures, const char *what)
{
    CUDA_TRY(cudaDeviceSynchronize());
    unsigned int failures = 0;
    CUDA_TRY(cudaMemcpy(&failures, d_failures, sizeof failures, cudaMemcpyDeviceToHost));
    if (failures > 0) {
        fprintf(stderr,
                "%s: %u launches inside the tree failed (the pending-launch limit is too low?): "
                "the keys are not sorted\n",
                what, failures);
        return cudaErrorLaunchPendingCountExceeded;
    }
    return cudaSuccess;
}

/** The slots of a tree over n keys: one per QUICKSORT_SMALL keys (see ::slot_of). */
size_t slot_count(size_t n)
{
    return n / QUICKSORT_SMALL + 1;
}

/* ------------------------------------------------------------------------------------------
 * The API of quicksort.h: argument checks and buffers, then your launchers
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t quicksort_simple(unsigned int *d_keys, size_t n, size_t pending_launches)
{
    if (n < 2) {
        return cudaSuccess;
    }
    unsigned int *d_failures = NULL;
    CUDA_TRY(cudaMalloc((void **)&d_failures, sizeof *d_failures));
    cudaError_t err = simple_sort(d_keys, n, pending_launches, d_failures);
    cudaError_t freed = cudaFree(d_failures);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t quicksort_partition(const unsigned int *d_in, unsigned int *d_out, size_t n,
                                           unsigned int pivot, unsigned long long *d_counts)
{
    if (n == 0) {
        CUDA_TRY(cudaMemset(d_counts, 0, 2 * sizeof *d_counts));
        return cudaSuccess;
    }
    if (d_in < d_out + n && d_out < d_in + n) {
        return cudaErrorInvalidValue; /* the two arrays overlap */
    }
    unsigned long long *d_slot = NULL;
    CUDA_TRY(cudaMalloc((void **)&d_slot, 3 * sizeof *d_slot));
    cudaError_t err = partition_once(d_in, d_out, n, pivot, d_counts, d_slot);
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize(); /* the grid uses d_slot until it ends */
    }
    cudaError_t freed = cudaFree(d_slot);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t quicksort_choose_pivot(const unsigned int *d_keys, size_t n,
                                              unsigned int *d_pivot)
{
    if (n == 0) {
        return cudaErrorInvalidValue;
    }
    return pivot_once(d_keys, n, d_pivot);
}

extern "C" cudaError_t quicksort_sort_small(unsigned int *d_keys, size_t n, size_t segment)
{
    if (segment == 0 || segment > QUICKSORT_SMALL) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : sort_small_runs(d_keys, n, segment);
}

extern "C" cudaError_t quicksort_sort_fallback(unsigned int *d_keys, size_t n)
{
    return n < 2 ? cudaSuccess : sort_fallback_once(d_keys, n);
}

extern "C" cudaError_t quicksort_sort(unsigned int *d_keys, size_t n, size_t pending_launches)
{
    if (n < 2) {
        return cudaSuccess;
    }
    if (n <= QUICKSORT_SMALL) {
        return quicksort_sort_small(d_keys, n, n); /* one block: no tree at all */
    }
    /* The second buffer, the slots and the failure counter: one allocation. */
    sort_tree tree = {d_keys, NULL, NULL, NULL, NULL};
    kit_buffer buffers[] = {{(void **)&tree.tmp, n * sizeof *tree.tmp},
                            {(void **)&tree.slots, 3 * slot_count(n) * sizeof *tree.slots},
                            {(void **)&tree.failures, sizeof *tree.failures}};
    void *block = NULL;
    cudaError_t err = kit_alloc_buffers(&block, buffers, (int)(sizeof buffers / sizeof *buffers));
    if (err == cudaSuccess) {
        err = cdp_sort(&tree, n, pending_launches);
    }
    cudaError_t freed = kit_free_buffers(&block);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t quicksort_sort_host_loop(unsigned int *d_keys, size_t n)
{
    if (n < 2) {
        return cudaSuccess;
    }
    if (n <= QUICKSORT_SMALL) {
        return quicksort_sort_small(d_keys, n, n);
    }
    /* A level holds at most n / (SMALL + 1) big segments (they are disjoint), leaves at most
     * two small children per segment, and has at most n / TILE + segments tiles. */
    size_t widest = n / (QUICKSORT_SMALL + 1) + 1;
    size_t max_tiles = n / QUICKSORT_TILE + widest;
    loop_buffers b;
    memset(&b, 0, sizeof b);
    b.tree.out = d_keys;
    kit_buffer buffers[] = {{(void **)&b.tree.tmp, n * sizeof *b.tree.tmp},
                            {(void **)&b.tree.slots, 3 * widest * sizeof *b.tree.slots},
                            {(void **)&b.level[0], widest * sizeof *b.level[0]},
                            {(void **)&b.level[1], widest * sizeof *b.level[1]},
                            {(void **)&b.small, 2 * widest * sizeof *b.small},
                            {(void **)&b.owner, max_tiles * sizeof *b.owner},
                            {(void **)&b.counts, sizeof *b.counts}};
    void *block = NULL;
    cudaError_t err = kit_alloc_buffers(&block, buffers, (int)(sizeof buffers / sizeof *buffers));
    if (err == cudaSuccess) {
        err = host_loop_sort(&b, n);
    }
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize(); /* the last level's kernels still use the buffers */
    }
    cudaError_t freed = kit_free_buffers(&block);
    return err != cudaSuccess ? err : freed;
}
