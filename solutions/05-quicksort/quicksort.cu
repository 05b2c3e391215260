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
    /* BEGIN SOLUTION 5.1 insertion sort: shift larger keys right, drop the key in the gap */
    for (size_t i = lo + 1; i < hi; i++) {
        unsigned int key = keys[i];
        size_t j = i;
        while (j > lo && keys[j - 1] > key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
    }
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.1 small: insertion sort; deep: heap sort; else partition and launch */
    if (hi - lo <= QUICKSORT_SIMPLE_CUTOFF) {
        insertion_sort(keys, lo, hi);
        return;
    }
    if (depth >= QUICKSORT_MAX_DEPTH) {
        heap_sort(keys, lo, hi);
        return;
    }
    /* Dijkstra's three-way partition: [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot,
     * and [i, gt) not looked at yet. */
    unsigned int pivot = keys[lo + (hi - lo) / 2];
    size_t lt = lo, i = lo, gt = hi;
    while (i < gt) {
        unsigned int key = keys[i];
        if (key < pivot) {
            swap_keys(keys, lt++, i++);
        } else if (key > pivot) {
            swap_keys(keys, i, --gt);
        } else {
            i++;
        }
    }
    if (lt - lo > 1) {
        simple_quicksort_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(keys, lo, lt, depth + 1,
                                                                      failures);
        count_launch_failure(failures);
    }
    if (hi - gt > 1) {
        simple_quicksort_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(keys, gt, hi, depth + 1,
                                                                      failures);
        count_launch_failure(failures);
    }
    /* END SOLUTION */
}

/** TODO 5.1: the root of the simple tree, the wait for the tree, and its failures. */
cudaError_t simple_sort(unsigned int *d_keys, size_t n, size_t pending_launches,
                        unsigned int *d_failures)
{
    /* BEGIN SOLUTION 5.1 limit, one thread for the whole array, one wait, the failure count */
    if (pending_launches == 0) {
        pending_launches = pending_launches_for(n, QUICKSORT_SIMPLE_CUTOFF, 2);
    }
    CUDA_TRY(set_pending_launch_limit(pending_launches));
    CUDA_TRY(cudaMemset(d_failures, 0, sizeof *d_failures));
    simple_quicksort_kernel<<<1, 1>>>(d_keys, 0, n, 0, d_failures);
    CUDA_TRY(cudaGetLastError());
    return wait_for_tree(d_failures, "quicksort_simple");
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n, pending_launches, d_failures);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.2 count, scan (both sides packed in one word), claim, scatter */
    __shared__ unsigned long long block_less, block_greater;
    size_t base = tile * QUICKSORT_TILE;
    unsigned int key[QUICKSORT_ITEMS_PER_THREAD];
    unsigned less = 0, greater = 0;
    for (unsigned j = 0; j < QUICKSORT_ITEMS_PER_THREAD; j++) {
        size_t i = base + j * QUICKSORT_BLOCK_THREADS + threadIdx.x;
        key[j] = i < len ? src[lo + i] : pivot; /* past the end: counts as equal, not written */
        less += key[j] < pivot;
        greater += key[j] > pivot;
    }
    /* A block holds at most QUICKSORT_TILE = 2048 keys: both counts fit in 16 bits. */
    unsigned total;
    unsigned before = block_exclusive_scan(less | greater << 16, &total);
    if (threadIdx.x == 0) {
        block_less = atomicAdd(&slot[0], (unsigned long long)(total & 0xffffu));
        block_greater = atomicAdd(&slot[1], (unsigned long long)(total >> 16));
    }
    __syncthreads();
    size_t next_less = lo + block_less + (before & 0xffffu);
    size_t next_greater = lo + len - 1 - (block_greater + (before >> 16));
    for (unsigned j = 0; j < QUICKSORT_ITEMS_PER_THREAD; j++) {
        if (key[j] < pivot) {
            dst[next_less++] = key[j];
        } else if (key[j] > pivot) {
            dst[next_greater--] = key[j];
        }
    }
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.2 zero the counters, one block per tile, no recursion */
    CUDA_TRY(cudaMemset(d_slot, 0, 3 * sizeof *d_slot));
    /* d_in is only read: it is the segment's "tmp" buffer, and d_out its "out". */
    sort_tree tree = {d_out, (unsigned int *)d_in, d_slot, NULL, d_counts};
    segment all = {0, n, 1};
    partition_kernel<<<(unsigned)kit_num_tiles(n, QUICKSORT_TILE), QUICKSORT_BLOCK_THREADS>>>(
        tree, all, pivot, 0, 0);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_in, d_out, n, pivot, d_counts, d_slot);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.3 nine samples, three medians of three, their median */
    unsigned int median[3];
    for (unsigned g = 0; g < 3; g++) {
        unsigned int s[3];
        for (unsigned j = 0; j < 3; j++) {
            s[j] = load_fresh(keys + quicksort_sample_index(n, 3 * g + j));
        }
        median[g] = quicksort_median3(s[0], s[1], s[2]);
    }
    return quicksort_median3(median[0], median[1], median[2]);
    /* SKELETON */
    (void)keys;
    (void)n;
    return 0;
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.3 flip step, then half-cleaners; skip comparators past m; barriers */
    size_t p = 1;
    while (p < m) {
        p *= 2;
    }
    for (size_t size = 2; size <= p; size *= 2) {
        size_t half = size / 2;
        for (size_t c = threadIdx.x; c < p / 2; c += blockDim.x) {
            size_t block = c / half * size, t = c % half;
            size_t j = block + size - 1 - t;
            if (j < m) {
                compare_ascending(a, block + t, j);
            }
        }
        __syncthreads();
        for (size_t stride = size / 4; stride > 0; stride /= 2) {
            for (size_t c = threadIdx.x; c < p / 2; c += blockDim.x) {
                size_t i = 2 * c - (c & (stride - 1));
                if (i + stride < m) {
                    compare_ascending(a, i, i + stride);
                }
            }
            __syncthreads();
        }
    }
    /* END SOLUTION */
}

/**
 * TODO 5.3. The block sorts a segment of at most ::QUICKSORT_SMALL keys: loads src[0, m)
 * into shared memory (::load_fresh), sorts it there with ::block_bitonic_sort, and stores it
 * to out[0, m). src and out may be the same array.
 */
__device__ void block_sort_small(const unsigned int *src, unsigned int *out, size_t m)
{
    /* BEGIN SOLUTION 5.3 a tile of QUICKSORT_SMALL keys in shared memory: load, sort, store */
    __shared__ unsigned int tile[QUICKSORT_SMALL];
    for (size_t i = threadIdx.x; i < m; i += blockDim.x) {
        tile[i] = load_fresh(src + i);
    }
    __syncthreads();
    block_bitonic_sort(tile, m);
    for (size_t i = threadIdx.x; i < m; i += blockDim.x) {
        out[i] = tile[i];
    }
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.3 copy when needed, barrier, the network on global memory */
    if (src != out) {
        for (size_t i = threadIdx.x; i < m; i += blockDim.x) {
            out[i] = load_fresh(src + i);
        }
        __syncthreads();
    }
    block_bitonic_sort(out, m);
    /* END SOLUTION */
}

/** TODO 5.3: launches the pivot's one thread. */
cudaError_t pivot_once(const unsigned int *d_keys, size_t n, unsigned int *d_pivot)
{
    /* BEGIN SOLUTION 5.3 one block of one thread */
    choose_pivot_kernel<<<1, 1>>>(d_keys, n, d_pivot);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n, d_pivot);
    /* END SOLUTION */
}

/** TODO 5.3: one block of QUICKSORT_BLOCK_THREADS per run of `segment` keys. */
cudaError_t sort_small_runs(unsigned int *d_keys, size_t n, size_t segment)
{
    /* BEGIN SOLUTION 5.3 ceil(n / segment) blocks */
    size_t runs = (n + segment - 1) / segment;
    sort_small_kernel<<<(unsigned)runs, QUICKSORT_BLOCK_THREADS>>>(d_keys, n, segment);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n, segment);
    /* END SOLUTION */
}

/** TODO 5.3: one block for the whole array. */
cudaError_t sort_fallback_once(unsigned int *d_keys, size_t n)
{
    /* BEGIN SOLUTION 5.3 one block of QUICKSORT_BLOCK_THREADS threads */
    sort_fallback_kernel<<<1, QUICKSORT_BLOCK_THREADS>>>(d_keys, n);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 pivot from the child's keys, zero its slot, launch, count failures */
    unsigned int pivot = choose_pivot(segment_src(tree, child) + child.lo, child.len);
    unsigned long long *slot = slot_of(tree, child.lo);
    slot[0] = 0;
    slot[1] = 0;
    slot[2] = 0;
    partition_kernel<<<(unsigned)kit_num_tiles(child.len, QUICKSORT_TILE), QUICKSORT_BLOCK_THREADS,
                       0, cudaStreamFireAndForget>>>(*tree, child, pivot, depth, 1);
    count_launch_failure(tree->failures);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 empty, small, too deep, or a new partition */
    if (child.len == 0) {
        return;
    }
    const unsigned int *src = segment_src(tree, child) + child.lo;
    unsigned int *out = tree->out + child.lo;
    if (child.len <= QUICKSORT_SMALL) {
        block_sort_small(src, out, child.len);
    } else if (depth >= QUICKSORT_MAX_DEPTH) {
        block_sort_fallback(src, out, child.len);
    } else if (threadIdx.x == 0) {
        launch_partition(tree, child, depth + 1);
    }
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 the equal part (a long one by a grid of its own), the two children */
    if (equal > FILL_BY_BLOCK_MAX) {
        if (threadIdx.x == 0) {
            unsigned blocks = (unsigned)kit_num_tiles(equal, QUICKSORT_TILE);
            fill_kernel<<<blocks, QUICKSORT_BLOCK_THREADS, 0, cudaStreamFireAndForget>>>(
                equal_part, equal, pivot);
            count_launch_failure(tree.failures);
        }
    } else {
        block_fill(equal_part, equal, pivot);
    }
    segment left = {seg.lo, less, !seg.in_tmp};
    segment right = {seg.lo + seg.len - greater, greater, !seg.in_tmp};
    handle_child(&tree, left, depth);
    handle_child(&tree, right, depth);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 the sum over the depths, times the launches per segment, clamped */
    size_t widest = n / (leaf + 1), total = 0;
    for (int d = 0; d <= QUICKSORT_MAX_DEPTH; d++) {
        size_t at_depth = (size_t)1 << d;
        total += at_depth < widest ? at_depth : widest;
    }
    total *= per_segment;
    if (total < PENDING_LAUNCHES_DEFAULT) {
        return PENDING_LAUNCHES_DEFAULT;
    }
    return total < PENDING_LAUNCHES_MAX ? total : PENDING_LAUNCHES_MAX;
    /* SKELETON */
    (void)n;
    (void)leaf;
    (void)per_segment;
    return 0;
    /* END SOLUTION */
}

/**
 * TODO 5.4: the CDP sort of n > QUICKSORT_SMALL keys, its buffers given: the limit, the
 * root, the wait for the tree and its failures.
 */
cudaError_t cdp_sort(const sort_tree *tree, size_t n, size_t pending_launches)
{
    /* BEGIN SOLUTION 5.4 partitions launch 2 partitions and 1 fill at most, leaves: SMALL */
    if (pending_launches == 0) {
        pending_launches = pending_launches_for(n, QUICKSORT_SMALL, 3);
    }
    CUDA_TRY(set_pending_launch_limit(pending_launches));
    CUDA_TRY(cudaMemset(tree->failures, 0, sizeof *tree->failures));
    quicksort_root_kernel<<<1, 1>>>(*tree, n);
    CUDA_TRY(cudaGetLastError());
    return wait_for_tree(tree->failures, "quicksort_sort");
    /* SKELETON */
    KIT_TODO_STUB(tree, n, pending_launches);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 pivot and counters by thread 0; the owner entries by the block */
    level_segment *s = &level[blockIdx.x];
    if (threadIdx.x == 0) {
        s->pivot = choose_pivot(segment_src(&tree, s->seg) + s->seg.lo, s->seg.len);
        for (int k = 0; k < 3; k++) {
            slots[3 * (size_t)blockIdx.x + k] = 0;
        }
    }
    unsigned tiles = (unsigned)kit_num_tiles(s->seg.len, QUICKSORT_TILE);
    for (unsigned t = threadIdx.x; t < tiles; t += blockDim.x) {
        owner[s->first_tile + t] = blockIdx.x;
    }
    /* END SOLUTION */
}

/** TODO 5.4. Block b partitions its tile of segment owner[b] (::partition_tile). */
__global__ void __launch_bounds__(QUICKSORT_BLOCK_THREADS)
    level_partition_kernel(const level_segment *level, const unsigned *owner,
                           unsigned long long *slots, sort_tree tree)
{
    /* BEGIN SOLUTION 5.4 find the segment and the tile, then the same tile partition */
    unsigned s = owner[blockIdx.x];
    level_segment ls = level[s];
    partition_tile(segment_src(&tree, ls.seg), segment_dst(&tree, ls.seg), ls.seg.lo, ls.seg.len,
                   blockIdx.x - ls.first_tile, ls.pivot, slots + 3 * (size_t)s);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 5.4 the equal part, then each child to its list (or the fallback) */
    level_segment ls = level[blockIdx.x];
    size_t less = (size_t)slots[3 * (size_t)blockIdx.x];
    size_t greater = (size_t)slots[3 * (size_t)blockIdx.x + 1];
    size_t equal = ls.seg.len - less - greater;
    block_fill(tree.out + ls.seg.lo + less, equal, ls.pivot);
    segment child[2] = {{ls.seg.lo, less, !ls.seg.in_tmp},
                        {ls.seg.lo + ls.seg.len - greater, greater, !ls.seg.in_tmp}};
    for (int c = 0; c < 2; c++) {
        if (child[c].len == 0) {
            continue;
        }
        if (child[c].len <= QUICKSORT_SMALL) {
            if (threadIdx.x == 0) {
                small[atomicAdd(&counts->small, 1ull)] = child[c];
            }
        } else if (depth >= QUICKSORT_MAX_DEPTH) {
            block_sort_fallback(segment_src(&tree, child[c]) + child[c].lo, tree.out + child[c].lo,
                                child[c].len);
        } else if (threadIdx.x == 0) {
            level_segment n = {child[c], 0u, 0};
            unsigned tiles = (unsigned)kit_num_tiles(child[c].len, QUICKSORT_TILE);
            n.first_tile = (size_t)atomicAdd(&counts->tiles, (unsigned long long)tiles);
            next[atomicAdd(&counts->segments, 1ull)] = n;
        }
    }
    /* END SOLUTION */
}

/**
 * TODO 5.4: the host loop over n > QUICKSORT_SMALL keys, its buffers given: level 1 is the
 * whole array; each level is prepared, partitioned and finished by three launches, its small
 * children sorted by a fourth; the counters read back say how big the next level is.
 */
cudaError_t host_loop_sort(loop_buffers *b, size_t n)
{
    /* BEGIN SOLUTION 5.4 one level per iteration until no big segment is left */
    level_segment root = {{0, n, 0}, 0u, 0};
    CUDA_TRY(cudaMemcpy(b->level[0], &root, sizeof root, cudaMemcpyHostToDevice));
    size_t segments = 1, tiles = kit_num_tiles(n, QUICKSORT_TILE);
    for (int depth = 1; segments > 0; depth++) {
        level_counts counts;
        CUDA_TRY(cudaMemset(b->counts, 0, sizeof *b->counts));
        level_prepare_kernel<<<(unsigned)segments, QUICKSORT_BLOCK_THREADS>>>(
            b->level[0], b->tree.slots, b->owner, b->tree);
        CUDA_TRY(cudaGetLastError());
        level_partition_kernel<<<(unsigned)tiles, QUICKSORT_BLOCK_THREADS>>>(
            b->level[0], b->owner, b->tree.slots, b->tree);
        CUDA_TRY(cudaGetLastError());
        level_finish_kernel<<<(unsigned)segments, QUICKSORT_BLOCK_THREADS>>>(
            b->level[0], b->tree.slots, b->level[1], b->small, b->counts, depth, b->tree);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaMemcpy(&counts, b->counts, sizeof counts, cudaMemcpyDeviceToHost));
        if (counts.small > 0) {
            level_small_kernel<<<(unsigned)counts.small, QUICKSORT_BLOCK_THREADS>>>(b->small,
                                                                                    b->tree);
            CUDA_TRY(cudaGetLastError());
        }
        level_segment *done = b->level[0];
        b->level[0] = b->level[1];
        b->level[1] = done;
        segments = (size_t)counts.segments;
        tiles = (size_t)counts.tiles;
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(b, n);
    /* END SOLUTION */
}
