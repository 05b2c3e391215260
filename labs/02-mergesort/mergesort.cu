/**
 * @file mergesort.cu
 * @brief Lab 02: stable bottom-up merge sort in three tiers. Your file: fill in the TODOs.
 *
 * Read labs/02-mergesort/README.md first. Each TODO is tested on its own:
 * `build/student/test_02_mergesort -s 2.1_thread_per_merge` runs the tests of TODO 2.1, and
 * so on; `-s 2.3_co_rank_host` runs the co-rank's tests on the CPU, no GPU needed.
 *
 * Layers, from the bottom: a merge found from its index (given), the searches (a rank, a
 * co-rank), then one pass per tier (a thread, a block, many blocks per merge), then the sort,
 * then the bonus sort of host memory over streams, then the bonus sort with its merges in
 * registers (2.6, suite 2.6_register_merge). Every function moves values with their keys
 * when its value pointers are not NULL. Stability rests on one rule, everywhere: of two equal
 * keys, the one from the left run goes first. The launchers the sort uses (tiles, partition,
 * merge-path pass) take the stream they launch on: the API passes 0 (the default stream), the
 * bonus one stream per chunk.
 */
#include "cuda_check.h"
#include "mergesort.h"

/* Given, in mergesort_given.cuh (read it once: your kernels use most of it): TILE_THREADS,
 * ITEMS_PER_THREAD, the merges of a pass (merge_runs, merge_at()), the sort's buffers
 * (sort_buffers, stream_sort), the bonus's sort_chunk_on_stream(), the bonus 2.6's
 * REG_THREADS, REG_VT, REG_TILE and its tile moves (reg_load_tile(), reg_load_two_parts(),
 * reg_to_shared(), reg_store_tile()), and the API of mergesort.h (argument checks, buffers,
 * streams), which calls your launchers. It includes common/kit_device.cuh:
 * THREADS_PER_BLOCK, blocks_for(), load_shared(), store_shared(). */
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
    /* TODO 2.1: mergesort_merge_count() threads, THREADS_PER_BLOCK per block */
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
__global__ void __launch_bounds__(TILE_THREADS)
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

/** TODO 2.2: launches ::merge_block_kernel, one block of TILE_THREADS per merge (n > 0). */
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
 * TODO 2.3. Block `b = first_piece + blockIdx.x` (::pass_merge_path launches every piece of
 * the pass, from @p first_piece = 0; the bonus 2.5 launches a few at a time) makes piece
 * `p = b % pieces` of merge `m = b / pieces`: output keys
 * `k0 = p * MERGESORT_TILE` up to `k1 = k0 + MERGESORT_TILE` of the merge (fewer at its end,
 * none past it). The splits give `i0`, `i1` (left keys before k0 and k1), so the piece merges
 * left keys `[i0, i1)` with right keys `[k0 - i0, k1 - i1)`. The block loads both parts into
 * shared memory one after the other; thread t then finds, with ::merge_path_co_rank inside
 * the piece, where its ITEMS_PER_THREAD outputs `t * ITEMS_PER_THREAD ...` start, merges them
 * one by one into a second buffer, and the block stores the piece.
 */
__global__ void __launch_bounds__(TILE_THREADS)
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
 * TILE_THREADS per piece of every merge, from piece 0 (n > 0, width <= n).
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
__global__ void __launch_bounds__(TILE_THREADS)
    sort_tile_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                     unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    __shared__ unsigned int tile_keys[2][MERGESORT_TILE], tile_values[2][MERGESORT_TILE];
    size_t base = (size_t)blockIdx.x * MERGESORT_TILE;
    unsigned count = n - base < MERGESORT_TILE ? (unsigned)(n - base) : MERGESORT_TILE;
    const unsigned int *values = dst_values ? src_values : NULL;
    load_shared(src_keys, values, base, count, tile_keys[0], tile_values[0]);
    int from = 0;
    /* TODO 2.4: ping-pong between the two shared buffers, a barrier per pass */
    store_shared(dst_keys, dst_values, base, count, tile_keys[from], tile_values[from]);
}

/**
 * TODO 2.4: launches ::sort_tile_kernel on @p stream, one block of TILE_THREADS per tile
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

/* ------------------------------------------------------------------------------------------
 * TODO 2.5 (bonus, not graded): an array of host memory, sorted in chunks over streams
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.5. Sorts @p h_keys (n > 1 keys of host memory) with the buffers and the `count`
 * streams of @p s, in three steps, and returns when the sorted keys are back in @p h_keys:
 * 1. chunk `c` (keys `c * chunk ...`) on stream `c % count`: copied in (cudaMemcpyAsync),
 *    then sorted in place by ::sort_chunk_on_stream with splits area `c % count`. Launches on
 *    one stream run in order, launches on different streams may overlap: the copy of chunk
 *    `c + 1` overlaps the sort of chunk `c`. With one chunk, its copy out follows, and that is
 *    all.
 * 2. the merges run on stream 0 once every stream's work so far is done (an event recorded
 *    on each stream 1 .. count - 1 after its last chunk, waited for by stream 0, which runs
 *    its own chunks in order anyway): merge-path passes (::pass_merge_path, splits area
 *    `count`) of widths `chunk`, `2 * chunk`, ... between `s->keys` and `s->scratch`, all but
 *    the last. (Widths double from `chunk`, so the last pass, of the smallest width that is
 *    at least n / 2, is a single merge.)
 * 3. the last pass (one merge): its partition (::merge_path_partition) on stream 0 and an
 *    event after it; then segment `g` (pieces `g * P ...` of ::MERGESORT_TILE output keys,
 *    with P the smallest number of pieces that makes at least `chunk` keys, the last segment
 *    shorter) on stream `g % count`: waits for the event,
 *    ::merge_path_piece_kernel on those pieces (`first_piece`), and copies them out, so the
 *    copy of segment `g` overlaps the merge of segment `g + 1`.
 * Finally it waits for every stream.
 */
cudaError_t sort_host_with_streams(unsigned int *h_keys, size_t n, size_t chunk, stream_sort *s)
{
    /* TODO 2.5: copy in and sort per chunk on its stream, merge, segments out */
    KIT_TODO_STUB(h_keys, n, chunk, s);
}

/* ------------------------------------------------------------------------------------------
 * TODO 2.6 (bonus): merges in registers, REG_VT keys per thread (the ModernGPU design)
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.6. Sorts the ::REG_VT keys of one thread in its registers, stable, with their
 * @p values: odd-even transposition (Lab 01's network), ::REG_VT phases; phase p
 * compare-exchanges the pairs `(i, i + 1)` with `i = p % 2, p % 2 + 2, ...`, swapping only
 * when `keys[i + 1] < keys[i]` (strictly: equal neighbours stay, so the sort is stable).
 * Every index must be known at compile time (loops with `#pragma unroll` over constants), or
 * the arrays go to local memory.
 */
__device__ __forceinline__ void reg_sort_network(unsigned int keys[REG_VT],
                                                 unsigned int values[REG_VT])
{
    /* TODO 2.6: REG_VT phases of compare-exchanges, unrolled, strict < (stable) */
    KIT_UNUSED(keys, values);
}

/**
 * TODO 2.6. The co-rank of 2.3 (::merge_path_co_rank) with 32-bit indices, for runs in shared
 * memory: of the first @p k keys of the stable merge of @p a (@p na keys) and @p b (@p nb
 * keys), how many come from @p a. The same search, cheaper per step than its `size_t` twin.
 */
__device__ __forceinline__ unsigned reg_co_rank(const unsigned int *a, unsigned na,
                                                const unsigned int *b, unsigned nb, unsigned k)
{
    /* TODO 2.6: the binary search of 2.3 on unsigned indices */
    KIT_UNUSED(a, na, b, nb, k);
    return 0;
}

/**
 * TODO 2.6. The serial merge of one thread, from shared memory into registers: the left run
 * is `shared_keys[i .. a_end)` and the right run `shared_keys[j .. b_end)` (both from where
 * this thread's outputs start); it takes ::REG_VT keys, each from the left unless the left
 * run is used up or the right's next key is strictly smaller (ties to the left run: stable),
 * into @p keys, and the shared index of each into @p from (for the values). Past the end of
 * both runs it still fills every register (with what it likes) but reads nothing outside
 * them. It keeps the next key of each run in a register, so each step reads one key.
 */
__device__ __forceinline__ void reg_serial_merge(const unsigned int *shared_keys, unsigned i,
                                                 unsigned a_end, unsigned j, unsigned b_end,
                                                 unsigned int keys[REG_VT], unsigned from[REG_VT])
{
    /* TODO 2.6: REG_VT steps, the next key of each run kept in a register */
    KIT_UNUSED(shared_keys, i, a_end, j, b_end, keys, from);
}

/**
 * TODO 2.6. Block b sorts tile b (keys `b * REG_TILE` ..., fewer in the last) of
 * @p src_keys into the same places of @p dst_keys (which may be @p src_keys: the block reads
 * its whole tile before it writes). ::reg_load_tile gives thread t keys `t * REG_VT ...` of
 * the tile (padded to a whole tile). Thread t sorts them in registers (::reg_sort_network):
 * runs of ::REG_VT keys. Then passes of `coop` = 2, 4, ..., ::REG_THREADS threads per merge:
 * every thread writes its registers to shared memory (::reg_to_shared), and the `coop`
 * threads of a merge (threads `t / coop * coop ...`, runs of `coop / 2 * REG_VT` keys) each
 * take their ::REG_VT outputs: thread t's start at `t % coop * REG_VT` of its merge, found by
 * ::reg_co_rank, merged by ::reg_serial_merge into its registers, values gathered from where
 * their keys came from. ::reg_store_tile writes the result.
 */
__global__ void __launch_bounds__(REG_THREADS)
    reg_sort_tile_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                         unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    __shared__ unsigned int shared_keys[REG_TILE], shared_values[REG_TILE];
    size_t base = (size_t)blockIdx.x * REG_TILE;
    unsigned count = n - base < REG_TILE ? (unsigned)(n - base) : REG_TILE;
    int with_values = dst_values != NULL;
    unsigned int keys[REG_VT], values[REG_VT];
    reg_load_tile(src_keys, with_values ? src_values : NULL, base, count, shared_keys,
                  shared_values, keys, values);
    /* TODO 2.6: sort in registers, then log2(REG_THREADS) merges through shared */
    reg_store_tile(dst_keys, dst_values, base, count, shared_keys, shared_values, keys, values);
}

/**
 * TODO 2.6: launches ::reg_sort_tile_kernel, one block of ::REG_THREADS per tile of
 * ::REG_TILE keys (n > 0); the destination may be the source.
 */
cudaError_t reg_sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                           unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    /* TODO 2.6: one block per tile, the last may be partial */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n);
}

/**
 * TODO 2.6. Thread b of the grid (b < @p tiles) writes split b of the pass of width
 * @p width (a multiple of ::REG_TILE, so no tile of output straddles two merges): output
 * tile b starts at `b * REG_TILE`, in merge `m = b * REG_TILE / (2 * width)`, at output index
 * `k = b * REG_TILE - start of m` of that merge; `splits[b]` gets its co-rank there, by
 * ::merge_path_co_rank (2.3) on the merge's runs in global memory.
 */
__global__ void reg_partition_kernel(const unsigned int *keys, size_t n, size_t width, size_t tiles,
                                     size_t *splits)
{
    size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= tiles) {
        return;
    }
    /* TODO 2.6: the merge of this tile's first output, then its co-rank */
}

/** TODO 2.6: launches ::reg_partition_kernel, one thread per tile of output (n > 0). */
cudaError_t reg_partition(const unsigned int *keys, size_t n, size_t width, size_t *splits)
{
    /* TODO 2.6: one thread per tile, THREADS_PER_BLOCK per block */
    KIT_TODO_STUB(keys, n, width, splits);
}

/**
 * TODO 2.6. Block b makes output tile b of the pass of width @p width (a multiple of
 * ::REG_TILE): outputs `k0 = b * REG_TILE - start` up to `k1 = min(k0 + REG_TILE, na + nb)`
 * of merge `m = b * REG_TILE / (2 * width)`. Its left part starts at `i0 = splits[b]` and ends
 * at `i1 = splits[b + 1]`, or at `na` when the tile ends its merge (then split b + 1, if any,
 * belongs to the next merge); its right part is `[k0 - i0, k1 - i1)` of the right run.
 * ::reg_load_two_parts brings both into shared memory, the left part at `0 .. pa)` and the
 * right at `pa .. pa + pb)`. Thread t then takes outputs `t * REG_VT ...` of the tile: its
 * start by ::reg_co_rank in shared memory (at most `pa + pb`), ::REG_VT keys by
 * ::reg_serial_merge into registers, the values of the real outputs (below `pa + pb`)
 * gathered from where their keys came from; ::reg_store_tile writes the tile.
 */
__global__ void __launch_bounds__(REG_THREADS)
    reg_merge_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                     unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width,
                     const size_t *splits)
{
    __shared__ unsigned int shared_keys[REG_TILE], shared_values[REG_TILE];
    size_t first = (size_t)blockIdx.x * REG_TILE;
    merge_runs r = merge_at(n, width, first / (2 * width));
    size_t length = r.na + r.nb;
    size_t k0 = first - r.start;
    size_t k1 = k0 + REG_TILE < length ? k0 + REG_TILE : length;
    size_t i0 = splits[blockIdx.x];
    size_t i1 = k1 == length ? r.na : splits[blockIdx.x + 1];
    unsigned pa = (unsigned)(i1 - i0), pb = (unsigned)((k1 - i1) - (k0 - i0));
    int with_values = dst_values != NULL;
    reg_load_two_parts(src_keys + r.start + i0, with_values ? src_values + r.start + i0 : NULL, pa,
                       src_keys + r.start + r.na + (k0 - i0),
                       with_values ? src_values + r.start + r.na + (k0 - i0) : NULL, pb,
                       shared_keys, shared_values);
    unsigned int keys[REG_VT], values[REG_VT];
    /* TODO 2.6: this thread's co-rank in the tile, a serial merge into registers */
    reg_store_tile(dst_keys, dst_values, r.start + k0, (unsigned)(k1 - k0), shared_keys,
                   shared_values, keys, values);
}

/**
 * TODO 2.6: one pass of width @p width (a multiple of ::REG_TILE): ::reg_partition into
 * @p splits, then ::reg_merge_kernel, one block of ::REG_THREADS per tile of output
 * (n > 0).
 */
cudaError_t reg_merge_pass(const unsigned int *src_keys, const unsigned int *src_values,
                           unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width,
                           size_t *splits)
{
    /* TODO 2.6: the partition, then one block per tile of output */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, width, splits);
}

/**
 * TODO 2.6: the register-blocked sort of n > ::REG_TILE keys with its buffers @p b (the
 * scratch half of the ping-pong, and one split per tile of output): the tiles
 * (::reg_sort_tiles), then one ::reg_merge_pass per width ::REG_TILE, `2 * REG_TILE`, ...
 * below n, each reading one buffer and writing the other. As in 2.4, the tiles go to the
 * scratch buffers when the number of passes is odd, so that the last pass ends in the
 * caller's @p keys and @p values (@p values may be NULL: keys only).
 */
cudaError_t reg_sort_with_buffers(unsigned int *keys, unsigned int *values, size_t n,
                                  const sort_buffers *b)
{
    /* TODO 2.6: tiles where the passes must start, then ping-pong passes */
    KIT_TODO_STUB(keys, values, n, b);
}
