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
 * code (5.4). Each TODO's host launchers follow its kernels.
 */
#include "cuda_check.h"
#include "quicksort.h"

/* Given, in quicksort_given.cuh (read it once: your code calls much of it): the types sort_tree and
 * segment, the tree's bookkeeping (slot_of(), segment_src(), segment_dst(), count_launch_failure(),
 * load_fresh()), swap_keys() and heap_sort() (5.1), block_exclusive_scan(), last_block_done(),
 * block_fill() and fill_kernel (5.2, 5.4), compare_ascending() (5.3), FILL_BY_BLOCK_MAX and the
 * PENDING_LAUNCHES_ limits, the host loop's types (level_segment, level_counts, loop_buffers), the
 * kernels that call your device functions (choose_pivot_kernel, sort_small_kernel,
 * sort_fallback_kernel, quicksort_root_kernel, level_small_kernel), set_pending_launch_limit(),
 * wait_for_tree(), and the API of quicksort.h: its argument checks and buffers, then a call of your
 * launcher. The partition's block threads, items per thread and tile are quicksort.h's. */
#include "quicksort_given.cuh"

/* ------------------------------------------------------------------------------------------
 * 5.1 one thread per segment
 * ------------------------------------------------------------------------------------------ */

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

/** TODO 5.1: the root of the simple tree, the wait for the tree, and its failures. */
cudaError_t simple_sort(unsigned int *d_keys, size_t n, size_t pending_launches,
                        unsigned int *d_failures)
{
    /* TODO 5.1: limit, one thread for the whole array, one wait, the failure count */
    KIT_TODO_STUB(d_keys, n, pending_launches, d_failures);
}

/* ------------------------------------------------------------------------------------------
 * 5.2 a block-parallel partition
 * ------------------------------------------------------------------------------------------ */

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
 * TODO 5.2: the partition grid of quicksort_partition() over its own zeroed counters: zero
 * the three words of @p d_slot, then launch ::partition_kernel with
 * kit_num_tiles(n, ::QUICKSORT_TILE) blocks of ::QUICKSORT_BLOCK_THREADS threads, at depth 0,
 * `recurse` 0, on one segment {0, n, in_tmp = 1} of a ::sort_tree whose `out` is @p d_out and
 * whose `tmp` is @p d_in (the segment starts in `tmp`; the kernel only reads it, so casting
 * the const away is safe), `slots` @p d_slot, `failures` NULL (nothing is launched) and
 * `counts` @p d_counts.
 */
cudaError_t partition_once(const unsigned int *d_in, unsigned int *d_out, size_t n,
                           unsigned int pivot, unsigned long long *d_counts,
                           unsigned long long *d_slot)
{
    /* TODO 5.2: zero the counters, one block per tile, no recursion */
    KIT_TODO_STUB(d_in, d_out, n, pivot, d_counts, d_slot);
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
 * TODO 5.3. The block sorts a[0, m) ascending with a bitonic network in the "flipped" form,
 * every comparator ascending: for size = 2, 4, ..., p (p the power of two >= m), first the
 * flip step (key block + t against block + size - 1 - t, for t < size / 2, in every block
 * of `size` keys), then the half-cleaners of stride size / 4 ... 1 (keys i and i + stride,
 * i = 2c - (c mod stride) for comparator c, as Lab 03's bitonic_pair_low()). A comparator
 * whose upper key is at m or beyond is skipped: the missing keys behave as +infinity, which
 * an ascending comparator never moves.
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
 * there is no copy, and your network (::block_bitonic_sort) does its own loads and stores on
 * out: plain loads are safe there, since this block never read those addresses before.
 */
__device__ void block_sort_fallback(const unsigned int *src, unsigned int *out, size_t m)
{
    /* TODO 5.3: copy when needed, barrier, the network on global memory */
}

/** TODO 5.3: launches the pivot's one thread. */
cudaError_t pivot_once(const unsigned int *d_keys, size_t n, unsigned int *d_pivot)
{
    /* TODO 5.3: one block of one thread */
    KIT_TODO_STUB(d_keys, n, d_pivot);
}

/** TODO 5.3: one block of QUICKSORT_BLOCK_THREADS per run of `segment` keys. */
cudaError_t sort_small_runs(unsigned int *d_keys, size_t n, size_t segment)
{
    /* TODO 5.3: ceil(n / segment) blocks */
    KIT_TODO_STUB(d_keys, n, segment);
}

/** TODO 5.3: one block for the whole array. */
cudaError_t sort_fallback_once(unsigned int *d_keys, size_t n)
{
    /* TODO 5.3: one block of QUICKSORT_BLOCK_THREADS threads */
    KIT_TODO_STUB(d_keys, n);
}

/* ------------------------------------------------------------------------------------------
 * 5.4 the tree of grids
 * ------------------------------------------------------------------------------------------ */

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
 * ceil(E / QUICKSORT_TILE) blocks of ::QUICKSORT_BLOCK_THREADS threads into
 * `cudaStreamFireAndForget` when E > FILL_BY_BLOCK_MAX, its failure counted like a child's)
 * and hands each child (the L keys and the G keys, now in the other buffer) to
 * ::handle_child. A fill grid launches nothing, so a partition one level above the depth bound
 * may still launch one.
 */
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
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
 * TODO 5.4: the CDP sort of n > QUICKSORT_SMALL keys, its buffers given: the limit, the
 * root, the wait for the tree and its failures.
 */
cudaError_t cdp_sort(const sort_tree *tree, size_t n, size_t pending_launches)
{
    /* TODO 5.4: partitions launch 2 partitions and 1 fill at most, leaves: SMALL */
    KIT_TODO_STUB(tree, n, pending_launches);
}

/* ------------------------------------------------------------------------------------------
 * 5.4 the same partitions, launched level by level from the host
 * ------------------------------------------------------------------------------------------ */

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
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
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
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
    level_finish_kernel(const level_segment *level, const unsigned long long *slots,
                        level_segment *next, segment *small, level_counts *counts, int depth,
                        sort_tree tree)
{
    /* TODO 5.4: the equal part, then each child to its list (or the fallback) */
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
