/**
 * @file mergesort_bonus.cu
 * @brief Lab 02's bonus: a host array sorted in chunks over streams (TODO 2.5), and the
 *        sort with its merges in registers (TODO 2.6). Your file too: fill in the TODOs.
 *
 * Read labs/02-mergesort/README.md first, and do the tiers of mergesort.cu before this file:
 * both TODOs build on them. The bonus is not needed for the lab's grade: without this file,
 * or with its TODOs left as they are, the bonus scores 0 and the tiers are graded as usual.
 * `build/student/test_02_mergesort -s 2.6_register_merge` runs the tests of TODO 2.6. This
 * file is compiled with mergesort.cu, which comes first (one translation unit), so 2.6's
 * partition kernel calls your 2.3 co-rank on the GPU.
 * TODO 2.5 is not graded: `build/student/bin/mergesort --algo streams -n 2^24 --check`
 * checks it, and `mergesort --bench --algo streams` measures it.
 *
 * Layers, from the bottom: 2.5's sort of host memory, chunk by chunk on its streams, then
 * 2.6's sort in registers: a thread's keys (a network), the searches and merges of a thread,
 * a tile, a pass (a partition, a merge per tile of output), the sort. As in mergesort.cu,
 * values move with their keys when the value pointers are not NULL, and of two equal keys
 * the one from the left run goes first.
 */
#include "cuda_check.h"
#include "mergesort.h"

/* Given, in mergesort_bonus_given.cuh and the mergesort_common.cuh it includes (read them
 * once): MERGESORT_BLOCK_THREADS, merge_at(), the sort's buffers (sort_buffers, stream_sort), the
 * prototypes of your launchers of mergesort.cu that this file calls, 2.5's sort_chunk_on_stream(),
 * 2.6's tile moves (reg_load_tile(), reg_load_two_parts(), reg_to_shared(), reg_store_tile()), and
 * the bonus API of mergesort.h (argument checks, buffers, streams), which calls your launchers.
 * 2.6's sizes are mergesort.h's: MERGESORT_REG_BLOCK_THREADS, MERGESORT_REG_ITEMS_PER_THREAD and
 * MERGESORT_REG_TILE. */
#include "mergesort_bonus_given.cuh"

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
 *    the last. (Widths double from `chunk`; the last pass, of the first width with
 *    `2 * width >= n`, has two runs that cover the whole array: a single merge.)
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
 * TODO 2.6 (bonus): merges in registers (the ModernGPU design)
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 2.6. Sorts the ::MERGESORT_REG_ITEMS_PER_THREAD keys of one thread in its registers, stable,
 * with their @p values: odd-even transposition (Lab 01's network), ::MERGESORT_REG_ITEMS_PER_THREAD
 * phases; phase p compare-exchanges the pairs `(i, i + 1)` with `i = p % 2, p % 2 + 2, ...`,
 * swapping only when `keys[i + 1] < keys[i]` (strictly: equal neighbours stay, so the sort is
 * stable). Every index must be known at compile time (loops with `#pragma unroll` over constants),
 * or the arrays go to local memory.
 */
__device__ __forceinline__ void
reg_sort_network(unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD],
                 unsigned int values[MERGESORT_REG_ITEMS_PER_THREAD])
{
    /* TODO 2.6: MERGESORT_REG_ITEMS_PER_THREAD phases, unrolled, strict < (stable) */
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
 * TODO 2.6. The serial merge of one thread, from shared memory into registers: the left run is
 * `shared_keys[i .. a_end)` and the right run `shared_keys[j .. b_end)` (both from where this
 * thread's outputs start); it takes ::MERGESORT_REG_ITEMS_PER_THREAD keys, each from the left
 * unless the left run is used up or the right's next key is strictly smaller (ties to the left run:
 * stable), into @p keys, and the shared index of each into @p from (for the values). Past the end
 * of both runs it still fills every register (with what it likes) but reads nothing outside them.
 * It keeps the next key of each run in a register, so each step reads one key.
 */
__device__ __forceinline__ void reg_serial_merge(const unsigned int *shared_keys, unsigned i,
                                                 unsigned a_end, unsigned j, unsigned b_end,
                                                 unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD],
                                                 unsigned from[MERGESORT_REG_ITEMS_PER_THREAD])
{
    /* TODO 2.6: MERGESORT_REG_ITEMS_PER_THREAD steps, each run's next key in a register */
    KIT_UNUSED(shared_keys, i, a_end, j, b_end, keys, from);
}

/**
 * TODO 2.6. Block b sorts tile b (keys `b * MERGESORT_REG_TILE` ..., fewer in the last) of
 * @p src_keys into the same places of @p dst_keys (which may be @p src_keys: the block reads its
 * whole tile before it writes). ::reg_load_tile gives thread t keys
 * `t * MERGESORT_REG_ITEMS_PER_THREAD ...` of the tile (padded to a whole tile). Thread t sorts
 * them in registers (::reg_sort_network): runs of ::MERGESORT_REG_ITEMS_PER_THREAD keys. Then
 * passes of `coop` = 2, 4, ..., ::MERGESORT_REG_BLOCK_THREADS threads per merge: every thread
 * writes its registers to shared memory (::reg_to_shared), and the `coop` threads of a merge
 * (threads `t / coop * coop ...`, runs of `coop / 2 * MERGESORT_REG_ITEMS_PER_THREAD` keys) each
 * take their ::MERGESORT_REG_ITEMS_PER_THREAD outputs: thread t's start at
 * `t % coop * MERGESORT_REG_ITEMS_PER_THREAD` of its merge, found by ::reg_co_rank, merged by
 * ::reg_serial_merge into its registers, values gathered from where their keys came from.
 * ::reg_store_tile writes the result. Keys only (@p dst_values NULL), `values` is never loaded
 * and the network swaps whatever it holds: harmless, since those registers never reach memory
 * (::reg_to_shared and ::reg_store_tile skip them) and initcheck watches device memory, not
 * registers; if g++ warns of it, or you prefer, `= {0}` on the array settles it at no
 * measurable cost.
 */
__global__ void __launch_bounds__(MERGESORT_REG_BLOCK_THREADS)
    reg_sort_tile_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                         unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    __shared__ unsigned int shared_keys[MERGESORT_REG_TILE], shared_values[MERGESORT_REG_TILE];
    size_t base = (size_t)blockIdx.x * MERGESORT_REG_TILE;
    unsigned count = kit_tile_keys(n, base, MERGESORT_REG_TILE);
    int with_values = dst_values != NULL;
    unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD], values[MERGESORT_REG_ITEMS_PER_THREAD];
    reg_load_tile(src_keys, with_values ? src_values : NULL, base, count, shared_keys,
                  shared_values, keys, values);
    /* TODO 2.6: registers, then log2(MERGESORT_REG_BLOCK_THREADS) merges via shared */
    reg_store_tile(dst_keys, dst_values, base, count, shared_keys, shared_values, keys, values);
}

/**
 * TODO 2.6: launches ::reg_sort_tile_kernel, one block of ::MERGESORT_REG_BLOCK_THREADS per tile of
 * ::MERGESORT_REG_TILE keys (n > 0); the destination may be the source.
 */
cudaError_t reg_sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                           unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    /* TODO 2.6: one block per tile, the last may be partial */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n);
}

/**
 * TODO 2.6. Thread b of the grid (b < @p tiles) writes split b of the pass of width @p width (a
 * multiple of ::MERGESORT_REG_TILE, so no tile of output straddles two merges): output tile b
 * starts at `b * MERGESORT_REG_TILE`, in merge `m = b * MERGESORT_REG_TILE / (2 * width)`, at
 * output index `k = b * MERGESORT_REG_TILE - start of m` of that merge; `splits[b]` gets its
 * co-rank there, by ::merge_path_co_rank (2.3) on the merge's runs in global memory.
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
    /* TODO 2.6: one thread per tile, KIT_BLOCK_THREADS per block */
    KIT_TODO_STUB(keys, n, width, splits);
}

/**
 * TODO 2.6. Block b makes output tile b of the pass of width @p width (a multiple of
 * ::MERGESORT_REG_TILE): outputs `k0 = b * MERGESORT_REG_TILE - start` up to
 * `k1 = min(k0 + MERGESORT_REG_TILE, na + nb)` of merge `m = b * MERGESORT_REG_TILE / (2 * width)`.
 * Its left part starts at `i0 = splits[b]` and ends at `i1 = splits[b + 1]`, or at `na` when the
 * tile ends its merge (then split b + 1, if any, belongs to the next merge); its right part is
 * `[k0 - i0, k1 - i1)` of the right run. ::reg_load_two_parts brings both into shared memory, the
 * left part at `0 .. pa)` and the right at `pa .. pa + pb)`. Thread t then takes outputs
 * `t * MERGESORT_REG_ITEMS_PER_THREAD ...` of the tile: its start by ::reg_co_rank in shared memory
 * (at most `pa + pb`), ::MERGESORT_REG_ITEMS_PER_THREAD keys by ::reg_serial_merge into registers,
 * the values of the real outputs (below `pa + pb`) gathered from where their keys came from;
 * ::reg_store_tile writes the tile.
 */
__global__ void __launch_bounds__(MERGESORT_REG_BLOCK_THREADS)
    reg_merge_kernel(const unsigned int *src_keys, const unsigned int *src_values,
                     unsigned int *dst_keys, unsigned int *dst_values, size_t n, size_t width,
                     const size_t *splits)
{
    __shared__ unsigned int shared_keys[MERGESORT_REG_TILE], shared_values[MERGESORT_REG_TILE];
    size_t first = (size_t)blockIdx.x * MERGESORT_REG_TILE;
    merge_runs r = merge_at(n, width, first / (2 * width));
    size_t length = r.na + r.nb;
    size_t k0 = first - r.start;
    size_t k1 = k0 + MERGESORT_REG_TILE < length ? k0 + MERGESORT_REG_TILE : length;
    size_t i0 = splits[blockIdx.x];
    size_t i1 = k1 == length ? r.na : splits[blockIdx.x + 1];
    unsigned pa = (unsigned)(i1 - i0), pb = (unsigned)((k1 - i1) - (k0 - i0));
    int with_values = dst_values != NULL;
    reg_load_two_parts(src_keys + r.start + i0, with_values ? src_values + r.start + i0 : NULL, pa,
                       src_keys + r.start + r.na + (k0 - i0),
                       with_values ? src_values + r.start + r.na + (k0 - i0) : NULL, pb,
                       shared_keys, shared_values);
    unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD], values[MERGESORT_REG_ITEMS_PER_THREAD];
    /* TODO 2.6: this thread's co-rank in the tile, a serial merge into registers */
    reg_store_tile(dst_keys, dst_values, r.start + k0, (unsigned)(k1 - k0), shared_keys,
                   shared_values, keys, values);
}

/**
 * TODO 2.6: one pass of width @p width (a multiple of ::MERGESORT_REG_TILE): ::reg_partition into
 * @p splits, then ::reg_merge_kernel, one block of ::MERGESORT_REG_BLOCK_THREADS per tile of output
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
 * TODO 2.6: the register-blocked sort of n > ::MERGESORT_REG_TILE keys with its buffers @p b (the
 * scratch half of the ping-pong, and one split per tile of output): the tiles (::reg_sort_tiles),
 * then one ::reg_merge_pass per width ::MERGESORT_REG_TILE, `2 * MERGESORT_REG_TILE`, ... below n,
 * each reading one buffer and writing the other. As in 2.4, the tiles go to the scratch buffers
 * when the number of passes is odd, so that the last pass ends in the caller's @p keys and
 * @p values (@p values may be NULL: keys only).
 */
cudaError_t reg_sort_with_buffers(unsigned int *keys, unsigned int *values, size_t n,
                                  const sort_buffers *b)
{
    /* TODO 2.6: tiles where the passes must start, then ping-pong passes */
    KIT_TODO_STUB(keys, values, n, b);
}
