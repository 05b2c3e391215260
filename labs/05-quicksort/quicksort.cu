/**
 * @file quicksort.cu
 * @brief Lab 05: quicksort with dynamic parallelism. Your file: fill in the TODOs.
 *
 * Read labs/05-quicksort/README.md first. Each TODO is tested on its own:
 * `build/student/test_05_quicksort -s 5.1_simple` runs the tests of TODO 5.1, and so on.
 *
 * This file is compiled with `-rdc=true` (labs/05-quicksort/lab.mk): a kernel that launches
 * kernels needs relocatable device code, and the link adds the device runtime (cudadevrt).
 * CUDA 12 removed the device-side `cudaDeviceSynchronize()`: a kernel can no longer wait for
 * its children. So nothing here waits on the device: a parent launches its children into
 * `cudaStreamFireAndForget` and ends; the host waits for the whole tree at once, since a
 * grid is not complete before all the grids it launched are.
 *
 * Layers, from the bottom: one thread's sorts (5.1), a block's scan and partition of one tile
 * (5.2), a block's sorting network and the pivot (5.3), the grids of the tree and the host
 * code (5.4).
 */
#include <stdint.h>
#include <string.h>

#include "cuda_check.h"
#include "quicksort.h"

/** Warps of a block of ::QUICKSORT_THREADS threads. */
#define WARPS (QUICKSORT_THREADS / 32u)

/** Keys of a tile each thread holds in registers during a partition. */
#define ITEMS_PER_THREAD (QUICKSORT_TILE / QUICKSORT_THREADS)

/** An equal part longer than this is filled by a grid of its own, not by one block. */
#define FILL_BY_BLOCK_MAX (16u * QUICKSORT_THREADS)

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
    size_t lo;
    size_t len;
    int in_tmp;
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

/** Where a segment's keys are now, and where its partition writes them. */
__device__ unsigned int *segment_src(const sort_tree *tree, segment s)
{
    return s.in_tmp ? tree->tmp : tree->out;
}

__device__ unsigned int *segment_dst(const sort_tree *tree, segment s)
{
    return s.in_tmp ? tree->out : tree->tmp;
}

/** Blocks of a partition of @p len keys: one per tile. */
__host__ __device__ unsigned tiles_for(size_t len)
{
    return (unsigned)((len + QUICKSORT_TILE - 1) / QUICKSORT_TILE);
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
 * Given. One thread's heap sort of keys[lo, hi): O(m log m) whatever the keys, no recursion,
 * no extra memory. 5.1 falls back to it at the depth bound (the seed's selection sort there
 * was O(m^2): minutes on a sorted array of 2^22 keys).
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

/** TODO 5.1: one thread's insertion sort of keys[lo, hi) (a few dozen keys at most). */
__device__ void insertion_sort(unsigned int *keys, size_t lo, size_t hi)
{
    /* TODO 5.1: insertion sort: shift larger keys right, drop the key in the gap */
}

/**
 * TODO 5.1. One thread sorts keys[lo, hi): insertion sort when the segment is small, heap
 * sort at the depth bound, otherwise a three-way partition around the middle key and one
 * child grid <<<1, 1>>> into cudaStreamFireAndForget per outer part of 2 keys or more, each
 * launch checked (a failure is counted in @p failures, see ::count_launch_failure).
 */
__global__ void simple_quicksort_kernel(unsigned int *keys, size_t lo, size_t hi, int depth,
                                        unsigned int *failures)
{
    /* TODO 5.1: small: insertion sort; deep: heap sort; else partition and launch */
}

/* ------------------------------------------------------------------------------------------
 * 5.2 a block-parallel partition
 * ------------------------------------------------------------------------------------------ */

/**
 * Given. Exclusive prefix sum of @p x over the block (::QUICKSORT_THREADS threads): thread t
 * gets the sum of x over threads 0 .. t-1, and `*total` the sum over all. A scan inside each
 * warp with shuffles, then one over the warps' totals. Every thread of the block must call it.
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
 * TODO 5.2. The block partitions tile @p tile of a segment (keys `src[lo + tile * TILE ...]`,
 * fewer in the last tile) around @p pivot into `dst`: thread t holds keys t, t + THREADS, ...
 * of the tile in registers and counts its less and greater keys; a block scan gives each
 * thread its place among the block's; thread 0 claims the block's places with one atomicAdd
 * per side on `slot[0]` (less, filled from `dst[lo]` up) and `slot[1]` (greater, filled from
 * `dst[lo + len - 1]` down). Equal keys are not written: the caller fills their place.
 * A side the block has no key of may skip its atomicAdd (adding 0 changes nothing), and the
 * keys may pass through shared memory on their way to `dst`: the tests check what `dst` and
 * the counters hold, not how they got there.
 */
__device__ void partition_tile(const unsigned int *src, unsigned int *dst, size_t lo, size_t len,
                               size_t tile, unsigned int pivot, unsigned long long *slot)
{
    /* TODO 5.2: count, scan (both sides packed in one word), claim, scatter */
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
 * TODO 5.3. The ninther of the segment @p keys[0, n) (n >= 1): median3 of the medians of
 * samples (0, 1, 2), (3, 4, 5), (6, 7, 8), sample k at quicksort_sample_index(n, k). One
 * thread calls it; keys are read with ::load_fresh (another block may just have written them).
 */
__device__ unsigned int choose_pivot(const unsigned int *keys, size_t n)
{
    /* TODO 5.3: nine samples, three medians of three, their median */
    (void)keys;
    (void)n;
    return 0;
}

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

/**
 * TODO 5.3. The block sorts a[0, m) ascending with a bitonic network in the "flipped" form,
 * every comparator ascending: for size = 2, 4, ..., p (p the power of two >= m), first the
 * flip step (key block + t against block + size - 1 - t, for t < size / 2, in every block
 * of `size` keys), then the half-cleaners of stride size / 4 ... 1 (keys i and i + stride,
 * i = bitonic pair low of comparator c). A comparator whose upper key is at m or beyond is
 * skipped: the missing keys behave as +infinity, which an ascending comparator never moves.
 * So any m works with no padding. A barrier after every step: `a` may be shared or global
 * memory (a barrier makes a block's global writes visible to the block, too).
 */
__device__ void block_bitonic_sort(unsigned int *a, size_t m)
{
    /* TODO 5.3: flip step, then half-cleaners; skip comparators past m; barriers */
}

/**
 * TODO 5.3. The block sorts a segment of at most ::QUICKSORT_SMALL keys: loads src[0, m)
 * into shared memory (::load_fresh), sorts it there with ::block_bitonic_sort, and stores it
 * to out[0, m). src and out may be the same array.
 */
__device__ void block_sort_small(const unsigned int *src, unsigned int *out, size_t m)
{
    /* TODO 5.3: a tile of QUICKSORT_SMALL keys in shared memory: load, sort, store */
    __syncthreads(); /* the tile is free again for the block's next call */
}

/**
 * TODO 5.3. The depth bound's fallback, by one block: copies src[0, m) to out[0, m) unless
 * they are the same array, then sorts out[0, m) in global memory with ::block_bitonic_sort.
 * The copy reads with ::load_fresh (other blocks of this grid wrote src); when src == out
 * there is no copy, and the network (given) does its own loads and stores on out.
 */
__device__ void block_sort_fallback(const unsigned int *src, unsigned int *out, size_t m)
{
    /* TODO 5.3: copy when needed, barrier, the network on global memory */
}

/** One thread writes the pivot of keys[0, n) to *pivot (5.3's ::choose_pivot). */
__global__ void choose_pivot_kernel(const unsigned int *keys, size_t n, unsigned int *pivot)
{
    *pivot = choose_pivot(keys, n);
}

/** Block b sorts keys[b * segment, ...), at most `segment` keys, in shared memory (5.3). */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    sort_small_kernel(unsigned int *keys, size_t n, size_t segment)
{
    size_t lo = (size_t)blockIdx.x * segment;
    size_t m = n - lo < segment ? n - lo : segment;
    block_sort_small(keys + lo, keys + lo, m);
}

/** One block sorts keys[0, n) with the fallback network in global memory (5.3). */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    sort_fallback_kernel(unsigned int *keys, size_t n)
{
    block_sort_fallback(keys, keys, n);
}

/* ------------------------------------------------------------------------------------------
 * 5.4 the tree of grids
 * ------------------------------------------------------------------------------------------ */

__global__ void partition_kernel(sort_tree tree, segment seg, unsigned int pivot, int depth,
                                 int recurse);

/**
 * TODO 5.4. Thread 0 starts the partition of a child segment @p child of more than
 * ::QUICKSORT_SMALL keys: its pivot, its counters set to 0, and its grid (one block per
 * tile) launched into cudaStreamFireAndForget at depth @p depth, the launch checked.
 */
__device__ void launch_partition(const sort_tree *tree, segment child, int depth)
{
    /* TODO 5.4: pivot from the child's keys, zero its slot, launch, count failures */
}

/**
 * TODO 5.4. What the block does with one child of a partition at depth @p depth: nothing
 * when it is empty; sort it itself in shared memory when it has at most ::QUICKSORT_SMALL
 * keys; the fallback when the depth bound is reached; otherwise thread 0 launches its
 * partition (::launch_partition, at depth + 1). The child's keys are in its src buffer;
 * sorted keys go to `tree->out`.
 */
__device__ void handle_child(const sort_tree *tree, segment child, int depth)
{
    /* TODO 5.4: empty, small, too deep, or a new partition */
}

/**
 * TODO 5.4. The partition of segment @p seg around @p pivot, one block per tile, at depth
 * @p depth. Every block partitions its tile (::partition_tile) from the segment's buffer
 * into the other one. The block that finishes last (::last_block_done) reads the counters
 * L and G. For quicksort_partition() (@p recurse 0) it fills the E = len - L - G copies of
 * the pivot and writes L and G to `tree->counts` (given). In the sort, it puts the copies of
 * the pivot in their final place in `tree->out` (itself, or with a ::fill_kernel grid of
 * ceil(E / QUICKSORT_TILE) blocks of ::QUICKSORT_THREADS threads into
 * `cudaStreamFireAndForget` when E > FILL_BY_BLOCK_MAX, its failure counted like a child's)
 * and hands each child (the L keys and the G keys, now in the other buffer) to
 * ::handle_child. A fill grid launches nothing, so a partition one level above the depth bound
 * may still launch one.
 */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    partition_kernel(sort_tree tree, segment seg, unsigned int pivot, int depth, int recurse)
{
    unsigned long long *slot = slot_of(&tree, seg.lo);
    partition_tile(segment_src(&tree, seg), segment_dst(&tree, seg), seg.lo, seg.len, blockIdx.x,
                   pivot, slot);
    if (!last_block_done(slot)) {
        return;
    }
    __shared__ unsigned long long counts[2];
    if (threadIdx.x == 0) {
        counts[0] = atomicAdd(&slot[0], 0ull); /* an atomic read: the value at L2, now */
        counts[1] = atomicAdd(&slot[1], 0ull);
    }
    __syncthreads();
    size_t less = (size_t)counts[0], greater = (size_t)counts[1];
    size_t equal = seg.len - less - greater;
    unsigned int *equal_part = tree.out + seg.lo + less;
    if (!recurse) { /* quicksort_partition(): the equal part, and L and G for the caller */
        block_fill(equal_part, equal, pivot);
        if (threadIdx.x == 0) {
            tree.counts[0] = less;
            tree.counts[1] = greater;
        }
        return;
    }
    /* TODO 5.4: the equal part (a long one by a grid of its own), the two children */
}

/** The root of the tree: one thread starts the partition of all n keys, at depth 1 (5.4). */
__global__ void quicksort_root_kernel(sort_tree tree, size_t n)
{
    segment all = {0, n, 0};
    launch_partition(&tree, all, 1);
}

/* ------------------------------------------------------------------------------------------
 * 5.4 the same partitions, launched level by level from the host
 * ------------------------------------------------------------------------------------------ */

/** A segment of one level of the host loop: where its keys are, its pivot, its tiles. */
typedef struct {
    segment seg;
    unsigned int pivot;
    size_t first_tile; /**< its tiles are blocks first_tile ... of the level's partition */
} level_segment;

/** What a level tells the host: the next level's size, and the small segments it left. */
typedef struct {
    unsigned long long segments; /**< big children for the next level */
    unsigned long long tiles;    /**< their tiles: the next partition's blocks */
    unsigned long long small;    /**< small children, for level_small_kernel */
} level_counts;

/** The device buffers of the host loop. */
typedef struct {
    sort_tree tree;
    level_segment *level[2]; /**< this level's segments and the next one's */
    segment *small;          /**< small children of this level */
    unsigned *owner;         /**< owner[b]: the segment that block b of the partition works on */
    level_counts *counts;
} loop_buffers;

/**
 * TODO 5.4. Block s prepares segment s of the level: thread 0 chooses its pivot and zeroes
 * its counters (slot s), and the block writes s into `owner` for each of its tiles.
 */
__global__ void level_prepare_kernel(level_segment *level, unsigned long long *slots,
                                     unsigned *owner, sort_tree tree)
{
    /* TODO 5.4: pivot and counters by thread 0; the owner entries by the block */
}

/** TODO 5.4. Block b partitions its tile of segment owner[b] (::partition_tile). */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    level_partition_kernel(const level_segment *level, const unsigned *owner,
                           unsigned long long *slots, sort_tree tree)
{
    /* TODO 5.4: find the segment and the tile, then the same tile partition */
}

/**
 * TODO 5.4. Block s finishes segment s of a level at depth @p depth: fills its equal part
 * in `tree.out`, then, per child: a small one goes to the small list, a big one to the next
 * level (its tiles claimed with an atomicAdd), or, at the depth bound, to the block's
 * fallback.
 */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    level_finish_kernel(const level_segment *level, const unsigned long long *slots,
                        level_segment *next, segment *small, level_counts *counts, int depth,
                        sort_tree tree)
{
    /* TODO 5.4: the equal part, then each child to its list (or the fallback) */
}

/** Block b sorts small segment b of a level in shared memory, into `tree.out`. */
__global__ void __launch_bounds__(QUICKSORT_THREADS)
    level_small_kernel(const segment *small, sort_tree tree)
{
    segment s = small[blockIdx.x];
    block_sort_small(segment_src(&tree, s) + s.lo, tree.out + s.lo, s.len);
}

/* ------------------------------------------------------------------------------------------
 * Host
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 5.4. The pending launches a tree over @p n keys may need: an upper bound on every
 * launch it makes. Segments that launch children have more than @p leaf keys and, at one
 * depth, are disjoint: at most min(2^d, n / (leaf + 1)) of them at depth d. Each launches at
 * most @p per_segment grids. Sum over d = 0 .. QUICKSORT_MAX_DEPTH: the grids at the bound
 * itself launch nothing, so its term is slack, and the sum is still an upper bound. At
 * least the runtime's default (2048), at most PENDING_LAUNCHES_MAX (each reserved launch
 * costs memory).
 */
size_t pending_launches_for(size_t n, size_t leaf, size_t per_segment)
{
    /* TODO 5.4: the sum over the depths, times the launches per segment, clamped */
    (void)n;
    (void)leaf;
    (void)per_segment;
    return 0;
}

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

/** TODO 5.1: the root of the simple tree, the wait for the tree, and its failures. */
cudaError_t simple_sort(unsigned int *d_keys, size_t n, size_t pending_launches,
                        unsigned int *d_failures)
{
    /* TODO 5.1: limit, one thread for the whole array, one wait, the failure count */
    KIT_TODO_STUB(d_keys, n, pending_launches, d_failures);
}

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

/**
 * TODO 5.2: the partition grid of quicksort_partition() over its own zeroed counters: zero
 * the three words of @p d_slot, then launch ::partition_kernel with ::tiles_for(n) blocks of
 * ::QUICKSORT_THREADS threads, at depth 0, `recurse` 0, on one segment {0, n, in_tmp = 1}
 * of a ::sort_tree whose `out` is @p d_out and whose `tmp` is @p d_in (the segment starts in
 * `tmp`; the kernel only reads it, so casting the const away is safe), `slots` @p d_slot,
 * `failures` NULL (nothing is launched) and `counts` @p d_counts.
 */
cudaError_t partition_once(const unsigned int *d_in, unsigned int *d_out, size_t n,
                           unsigned int pivot, unsigned long long *d_counts,
                           unsigned long long *d_slot)
{
    /* TODO 5.2: zero the counters, one block per tile, no recursion */
    KIT_TODO_STUB(d_in, d_out, n, pivot, d_counts, d_slot);
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

/** TODO 5.3: launches the pivot's one thread. */
cudaError_t pivot_once(const unsigned int *d_keys, size_t n, unsigned int *d_pivot)
{
    /* TODO 5.3: one block of one thread */
    KIT_TODO_STUB(d_keys, n, d_pivot);
}

extern "C" cudaError_t quicksort_choose_pivot(const unsigned int *d_keys, size_t n,
                                              unsigned int *d_pivot)
{
    if (n == 0) {
        return cudaErrorInvalidValue;
    }
    return pivot_once(d_keys, n, d_pivot);
}

/** TODO 5.3: one block of QUICKSORT_THREADS per run of `segment` keys. */
cudaError_t sort_small_runs(unsigned int *d_keys, size_t n, size_t segment)
{
    /* TODO 5.3: ceil(n / segment) blocks */
    KIT_TODO_STUB(d_keys, n, segment);
}

extern "C" cudaError_t quicksort_sort_small(unsigned int *d_keys, size_t n, size_t segment)
{
    if (segment == 0 || segment > QUICKSORT_SMALL) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : sort_small_runs(d_keys, n, segment);
}

/** TODO 5.3: one block for the whole array. */
cudaError_t sort_fallback_once(unsigned int *d_keys, size_t n)
{
    /* TODO 5.3: one block of QUICKSORT_THREADS threads */
    KIT_TODO_STUB(d_keys, n);
}

extern "C" cudaError_t quicksort_sort_fallback(unsigned int *d_keys, size_t n)
{
    return n < 2 ? cudaSuccess : sort_fallback_once(d_keys, n);
}

/** The slots of a tree over n keys: one per QUICKSORT_SMALL keys (see ::slot_of). */
size_t slot_count(size_t n)
{
    return n / QUICKSORT_SMALL + 1;
}

/**
 * TODO 5.4: the CDP sort of n > QUICKSORT_SMALL keys, its buffers given: the limit, the
 * root, the wait for the tree and its failures.
 */
cudaError_t cdp_sort(const sort_tree *tree, size_t n, size_t pending_launches)
{
    /* TODO 5.4: partitions launch 2 partitions and 1 fill at most, leaves: SMALL */
    KIT_TODO_STUB(tree, n, pending_launches);
}

extern "C" cudaError_t quicksort_sort(unsigned int *d_keys, size_t n, size_t pending_launches)
{
    if (n < 2) {
        return cudaSuccess;
    }
    if (n <= QUICKSORT_SMALL) {
        return quicksort_sort_small(d_keys, n, n); /* one block: no tree at all */
    }
    sort_tree tree = {d_keys, NULL, NULL, NULL, NULL};
    cudaError_t err = cudaMalloc((void **)&tree.tmp, n * sizeof *tree.tmp);
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&tree.slots, 3 * slot_count(n) * sizeof *tree.slots);
    }
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&tree.failures, sizeof *tree.failures);
    }
    if (err != cudaSuccess) {
        kit_report_cuda_error(err, "cudaMalloc of the sort's buffers", __FILE__, __LINE__);
    } else {
        err = cdp_sort(&tree, n, pending_launches);
    }
    cudaError_t freed = cudaFree(tree.tmp);
    if (freed == cudaSuccess) {
        freed = cudaFree(tree.slots);
    }
    if (freed == cudaSuccess) {
        freed = cudaFree(tree.failures);
    }
    return err != cudaSuccess ? err : freed;
}

/**
 * TODO 5.4: the host loop over n > QUICKSORT_SMALL keys, its buffers given: level 1 is the
 * whole array; each level is prepared, partitioned and finished by three launches, its small
 * children sorted by a fourth; the counters read back say how big the next level is.
 */
cudaError_t host_loop_sort(loop_buffers *b, size_t n)
{
    /* TODO 5.4: one level per iteration until no big segment is left */
    KIT_TODO_STUB(b, n);
}

/** Frees the host loop's buffers; returns the first error. */
cudaError_t free_loop_buffers(loop_buffers *b)
{
    void *all[] = {b->tree.tmp, b->tree.slots, b->level[0], b->level[1],
                   b->small,    b->owner,      b->counts};
    cudaError_t first = cudaSuccess;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        cudaError_t err = cudaFree(all[i]);
        if (first == cudaSuccess) {
            first = err;
        }
    }
    return first;
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
    cudaError_t err = cudaMalloc((void **)&b.tree.tmp, n * sizeof *b.tree.tmp);
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&b.tree.slots, 3 * widest * sizeof *b.tree.slots);
    }
    for (int i = 0; i < 2 && err == cudaSuccess; i++) {
        err = cudaMalloc((void **)&b.level[i], widest * sizeof *b.level[i]);
    }
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&b.small, 2 * widest * sizeof *b.small);
    }
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&b.owner, max_tiles * sizeof *b.owner);
    }
    if (err == cudaSuccess) {
        err = cudaMalloc((void **)&b.counts, sizeof *b.counts);
    }
    if (err != cudaSuccess) {
        kit_report_cuda_error(err, "cudaMalloc of the host loop's buffers", __FILE__, __LINE__);
    } else {
        err = host_loop_sort(&b, n);
    }
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize(); /* the last level's kernels still use the buffers */
    }
    cudaError_t freed = free_loop_buffers(&b);
    return err != cudaSuccess ? err : freed;
}
