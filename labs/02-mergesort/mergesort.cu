/**
 * @file mergesort.cu
 * @brief Lab 02: stable bottom-up merge sort in three tiers. Your file: fill in the TODOs.
 *
 * Read labs/02-mergesort/README.md first. Each TODO is tested on its own:
 * `build/student/test_02_mergesort -s 2.1_thread_per_merge` runs the tests of TODO 2.1, and
 * so on; `-s 2.3_co_rank_host` runs the co-rank's tests on the CPU, no GPU needed.
 *
 * Layers, from the bottom: a merge found from its index (given), the searches (a rank, a
 * co-rank), then one pass per tier (a thread, a block, many blocks per merge), then the sort.
 * Every function moves values with their keys when its value pointers are not NULL.
 * Stability rests on one rule, everywhere: of two equal keys, the one from the left run goes
 * first. The launchers the sort uses (tiles, partition, merge-path pass) take the stream they
 * launch on: the API passes 0 (the default stream), the bonus 2.5 one stream per chunk. The
 * bonus TODOs 2.5 and 2.6 are in mergesort_bonus.cu.
 */
#include "cuda_check.h"
#include "mergesort.h"

/* Given, in mergesort_given.cuh and the mergesort_common.cuh it includes (read them once:
 * your kernels use most of it): MERGESORT_BLOCK_THREADS, MERGESORT_ITEMS_PER_THREAD, the merges of
 * a pass (merge_runs, merge_at()), the sort's buffers (sort_buffers), and the API of mergesort.h
 * (argument checks, buffers), which calls your launchers. It includes common/kit_device.cuh:
 * KIT_BLOCK_THREADS, kit_blocks_for(), kit_num_tiles(), kit_tile_keys(), load_shared(),
 * store_shared(). */
#include "mergesort_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 2.1: one thread per merge
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.1. Thread `m` of the grid merges runs `2m` and `2m + 1` (::merge_at) of @p src_keys
 * into the same places of @p dst_keys, one key at a time: the next key comes from the left
 * run unless the left run is used up or the right run's next key is strictly smaller. A lone
 * run is copied. Values (when @p dst_values is not NULL) travel with their keys.
 */
__global__ void merge_thread_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                                    unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                                    size_t width, size_t merges)
{
    size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= merges) {
        return; /* the grid is rounded up to whole blocks */
    }
    merge_runs r = merge_at(n, width, m);
    /* TODO 2.1: a serial merge; on equal keys the left run's goes first (stable) */
}

/** TODO 2.1: launches ::merge_thread_kernel, one thread per merge (n > 0, width <= n). */
cudaError_t pass_thread(const unsigned int *src_keys, const unsigned int *src_values,
                        unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width)
{
    /* TODO 2.1: mergesort_merge_count() threads, KIT_BLOCK_THREADS per block */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, width);
}

/* ------------------------------------------------------------------------------------------
 * TODO 2.2: one block per merge, every key placed by its rank
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.2. The rank of @p key in the sorted @p run of @p len keys, by binary search: the
 * number of keys of the run smaller than @p key (the lower bound), or, when @p inclusive,
 * smaller than or equal to it (the upper bound). O(log len) steps.
 */
__device__ unsigned rank_in_run(const unsigned int *run, unsigned len, unsigned int key,
                                int inclusive)
{
    /* TODO 2.2: the first index whose key is >= key (> key when inclusive) */
    KIT_UNUSED(run, len, key, inclusive);
    return 0;
}

/**
 * TODO 2.2. Key @p t of a merge in shared memory goes to its place in @p out_keys: the merge
 * is the left run `in_keys[0 .. na)` followed by the right run `in_keys[na .. na + nb)`, and
 * the place is the key's index in its own run plus its rank in the other run (::rank_in_run):
 * a left key counts the right keys smaller than it, a right key the left keys smaller than or
 * equal to it, so equal keys keep their order and no two keys get the same place. Its value
 * (when @p out_values is not NULL) goes to the same place.
 */
__device__ void place_by_rank(const unsigned int *in_keys, const unsigned int *in_values,
                              unsigned na, unsigned nb, unsigned t, unsigned int *out_keys,
                              unsigned int *out_values)
{
    /* TODO 2.2: own index + rank in the other run: lower bound left, upper right */
}

/**
 * TODO 2.2. Block `m` does merge `m` of the pass (at most ::MERGESORT_TILE keys): it loads
 * both runs into shared memory, thread t places keys t, t + blockDim.x, ... of the merge with
 * ::place_by_rank into a second shared buffer, and the block stores that buffer. Keys only
 * (`dst_values` NULL): the shared `in_values` are never loaded, so pass ::place_by_rank a
 * NULL `out_values` then (`dst_values ? out_values : NULL`), or it reads values that were
 * never written (compute-sanitizer's initcheck reports it).
 */
__global__ void __launch_bounds__(MERGESORT_BLOCK_THREADS)
    merge_block_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                       unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width)
{
    __shared__ unsigned int in_keys[MERGESORT_TILE], in_values[MERGESORT_TILE];
    __shared__ unsigned int out_keys[MERGESORT_TILE], out_values[MERGESORT_TILE];
    merge_runs r = merge_at(n, width, blockIdx.x);
    unsigned na = (unsigned)r.na, nb = (unsigned)r.nb;
    load_shared(src_keys, dst_values ? src_values : NULL, r.start, na + nb, in_keys, in_values);
    /* TODO 2.2: every thread places its keys; no barrier needed between them */
    store_shared(dst_keys, dst_values, r.start, na + nb, out_keys, out_values);
}

/** TODO 2.2: launches ::merge_block_kernel, one block of MERGESORT_BLOCK_THREADS per merge
 * (n > 0). */
cudaError_t pass_block(const unsigned int *src_keys, const unsigned int *src_values,
                       unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width)
{
    /* TODO 2.2: mergesort_merge_count() blocks */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, width);
}

/* ------------------------------------------------------------------------------------------
 * TODO 2.3: many blocks per merge, split by merge path
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.3. The co-rank: of the first @p k keys of the stable merge of the sorted runs
 * @p a (@p na keys) and @p b (@p nb keys), how many come from @p a; `k - result` come from
 * @p b. It is the `i` in `[max(0, k - nb), min(k, na)]` where the merge path crosses the
 * diagonal k: `a[i]` (if any) must not go before `b[k - i - 1]` (if any), that is
 * `b[k - i - 1] < a[i]`. Binary search on i: while `a[i] <= b[k - i - 1]`, i is too small.
 * O(log min(na, nb)) steps. `__host__ __device__`: kernels and the host tests run the same
 * code.
 */
KIT_HOST_DEVICE size_t merge_path_co_rank(const unsigned int *a, size_t na, const unsigned int *b,
                                          size_t nb, size_t k)
{
    /* TODO 2.3: binary search on i in [max(0, k - nb), min(k, na)] */
    KIT_UNUSED(a, na, b, nb, k);
    return (size_t)-1;
}

/**
 * TODO 2.3. Thread `s` of the grid writes split `s`: for merge `m = s / (pieces + 1)` and
 * boundary `p = s % (pieces + 1)`, the co-rank (::merge_path_co_rank, on the merge's two runs
 * in global memory) of output index `min(p * MERGESORT_TILE, na + nb)` of that merge.
 */
__global__ void merge_path_partition_kernel(const unsigned int *keys, size_t n, size_t width,
                                            size_t pieces, size_t split_count, size_t *splits)
{
    size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= split_count) {
        return;
    }
    /* TODO 2.3: find the merge and the diagonal, then its co-rank */
}

/**
 * TODO 2.3: launches ::merge_path_partition_kernel on @p stream, one thread per split
 * (n > 0).
 */
cudaError_t merge_path_partition(const unsigned int *keys, size_t n, size_t width, size_t *splits,
                                 cudaStream_t stream)
{
    /* TODO 2.3: mergesort_split_count() threads */
    KIT_TODO_STUB(keys, n, width, splits, stream);
}

/**
 * TODO 2.3. Block `b = first_piece + blockIdx.x` (::pass_merge_path launches every piece of the
 * pass, from @p first_piece = 0; the bonus 2.5 launches a few at a time) makes piece
 * `p = b % pieces` of merge `m = b / pieces`: output keys `k0 = p * MERGESORT_TILE` up to
 * `k1 = k0 + MERGESORT_TILE` of the merge (fewer at its end, none past it). The splits give `i0`,
 * `i1` (left keys before k0 and k1), so the piece merges left keys `[i0, i1)` with right keys
 * `[k0 - i0, k1 - i1)`. The block loads both parts into shared memory one after the other; thread t
 * then finds, with ::merge_path_co_rank inside the piece, where its MERGESORT_ITEMS_PER_THREAD
 * outputs `t * MERGESORT_ITEMS_PER_THREAD ...` start, merges them one by one into a second buffer,
 * and the block stores the piece.
 */
__global__ void __launch_bounds__(MERGESORT_BLOCK_THREADS)
    merge_path_piece_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                            unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                            size_t width, size_t pieces, const size_t *splits, size_t first_piece)
{
    __shared__ unsigned int in_keys[MERGESORT_TILE], in_values[MERGESORT_TILE];
    __shared__ unsigned int out_keys[MERGESORT_TILE], out_values[MERGESORT_TILE];
    size_t b = first_piece + blockIdx.x;
    size_t m = b / pieces, p = b % pieces;
    merge_runs r = merge_at(n, width, m);
    size_t k0 = p * MERGESORT_TILE;
    if (k0 >= r.na + r.nb) {
        return; /* past the end of a short last merge: the whole block leaves */
    }
    size_t k1 = k0 + MERGESORT_TILE < r.na + r.nb ? k0 + MERGESORT_TILE : r.na + r.nb;
    size_t i0 = splits[m * (pieces + 1) + p], i1 = splits[m * (pieces + 1) + p + 1];
    unsigned pa = (unsigned)(i1 - i0), pb = (unsigned)((k1 - i1) - (k0 - i0));
    const unsigned int *values = dst_values ? src_values : NULL;
    load_shared(src_keys, values, r.start + i0, pa, in_keys, in_values);
    load_shared(src_keys, values, r.start + r.na + (k0 - i0), pb, in_keys + pa, in_values + pa);
    /* TODO 2.3: this thread's co-rank in the piece, then a serial merge of its share */
    store_shared(dst_keys, dst_values, r.start + k0, (unsigned)(k1 - k0), out_keys, out_values);
}

/**
 * TODO 2.3: one merge-path pass on @p stream: the partition into @p splits (room for
 * mergesort_split_count() entries), then ::merge_path_piece_kernel, one block of
 * MERGESORT_BLOCK_THREADS per piece of every merge, from piece 0 (n > 0, width <= n).
 */
cudaError_t pass_merge_path(const unsigned int *src_keys, const unsigned int *src_values,
                            unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                            size_t width, size_t *splits, cudaStream_t stream)
{
    /* TODO 2.3: the partition, then merges * pieces blocks */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, width, splits, stream);
}

/* ------------------------------------------------------------------------------------------
 * TODO 2.4: the whole sort
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.4. Block b sorts tile b (keys `b * MERGESORT_TILE` ..., fewer in the last) of
 * @p src_keys into the same places of @p dst_keys (which may be @p src_keys: the block reads
 * its whole tile before it writes) in shared memory: passes of width 1, 2, 4, ... while
 * `width < count` (count: the keys of this tile; a run shorter than the tile still has a
 * partner), each one every thread placing keys t, t + blockDim.x, ... of the
 * tile with ::place_by_rank from one buffer into the other, a barrier after each pass; `from`
 * says which buffer holds the result.
 */
__global__ void __launch_bounds__(MERGESORT_BLOCK_THREADS)
    sort_tile_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                     unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    __shared__ unsigned int tile_keys[2][MERGESORT_TILE], tile_values[2][MERGESORT_TILE];
    size_t base = (size_t)blockIdx.x * MERGESORT_TILE;
    unsigned count = kit_tile_keys(n, base, MERGESORT_TILE);
    const unsigned int *values = dst_values ? src_values : NULL;
    load_shared(src_keys, values, base, count, tile_keys[0], tile_values[0]);
    int from = 0;
    /* TODO 2.4: ping-pong between the two shared buffers, a barrier per pass */
    store_shared(dst_keys, dst_values, base, count, tile_keys[from], tile_values[from]);
}

/**
 * TODO 2.4: launches ::sort_tile_kernel on @p stream, one block of MERGESORT_BLOCK_THREADS per tile
 * (n > 0); the destination may be the source.
 */
cudaError_t sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                       unsigned int *dst_keys, unsigned int *dst_values, size_t n,
                       cudaStream_t stream)
{
    /* TODO 2.4: one block per tile, the last may be partial */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, stream);
}

/**
 * TODO 2.4: the sort of n > ::MERGESORT_TILE keys with its buffers @p b: the tiles, then one
 * merge-path pass per width from MERGESORT_TILE up, each reading one buffer and writing the
 * other (never a copy between passes). The tiles go to whichever buffer makes the last pass
 * end in the caller's: to the scratch buffers when the number of passes is odd. The tier:
 * above the tile, a merge no longer fits a block's shared memory (2.2), and one thread per
 * merge (2.1) would leave all but n / (2 * width) threads idle, so every such pass is a
 * merge-path pass. Everything on @p stream.
 */
cudaError_t sort_with_buffers(unsigned int *keys, unsigned int *values, size_t n,
                              const sort_buffers *b, cudaStream_t stream)
{
    /* TODO 2.4: tiles where the passes must start, then ping-pong passes */
    KIT_TODO_STUB(keys, values, n, b, stream);
}
