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
    /* BEGIN SOLUTION 2.5 copy in and sort per chunk on its stream, merge, segments out */
    size_t chunks = (n - 1) / chunk + 1;
    for (size_t c = 0; c < chunks; c++) {
        int k = (int)(c % (size_t)s->count);
        size_t first = c * chunk, len = n - first < chunk ? n - first : chunk;
        CUDA_TRY(cudaMemcpyAsync(s->keys + first, h_keys + first, len * sizeof *h_keys,
                                 cudaMemcpyHostToDevice, s->streams[k]));
        CUDA_TRY(sort_chunk_on_stream(s->keys + first, s->scratch + first,
                                      s->splits + (size_t)k * s->split_room, len, s->streams[k]));
    }
    if (chunks == 1) {
        CUDA_TRY(cudaMemcpyAsync(h_keys, s->keys, n * sizeof *h_keys, cudaMemcpyDeviceToHost,
                                 s->streams[0]));
    } else {
        /* The first merge pass reads every chunk: stream 0 waits for the other streams. */
        cudaStream_t merger = s->streams[0];
        size_t *merge_splits = s->splits + (size_t)s->count * s->split_room;
        for (int k = 1; k < s->count; k++) {
            CUDA_TRY(cudaEventRecord(s->ready[k], s->streams[k]));
            CUDA_TRY(cudaStreamWaitEvent(merger, s->ready[k], 0));
        }
        unsigned int *src = s->keys, *dst = s->scratch;
        size_t width = chunk;
        for (; 2 * width < n; width *= 2) { /* every pass but the last */
            CUDA_TRY(pass_merge_path(src, NULL, dst, NULL, n, width, merge_splits, merger));
            unsigned int *t = src;
            src = dst;
            dst = t;
        }
        /* The last pass is one merge of all n keys: piece p makes outputs p * MERGESORT_TILE
         * and on. Every segment's stream waits for the partition, then merges and copies out
         * its own pieces. */
        CUDA_TRY(merge_path_partition(src, n, width, merge_splits, merger));
        CUDA_TRY(cudaEventRecord(s->ready[0], merger));
        size_t pieces = mergesort_path_pieces(n, width);
        size_t per_segment = (chunk - 1) / MERGESORT_TILE + 1;
        for (size_t first_piece = 0, g = 0; first_piece < pieces; first_piece += per_segment, g++) {
            cudaStream_t stream = s->streams[g % (size_t)s->count];
            size_t count = pieces - first_piece < per_segment ? pieces - first_piece : per_segment;
            size_t first = first_piece * MERGESORT_TILE;
            size_t len = n - first < count * MERGESORT_TILE ? n - first : count * MERGESORT_TILE;
            CUDA_TRY(cudaStreamWaitEvent(stream, s->ready[0], 0));
            merge_path_piece_kernel<<<(unsigned)count, MERGESORT_BLOCK_THREADS, 0, stream>>>(
                src, NULL, dst, NULL, n, width, pieces, merge_splits, first_piece);
            CUDA_TRY(cudaGetLastError());
            CUDA_TRY(cudaMemcpyAsync(h_keys + first, dst + first, len * sizeof *h_keys,
                                     cudaMemcpyDeviceToHost, stream));
        }
    }
    for (int k = 0; k < s->count; k++) {
        CUDA_TRY(cudaStreamSynchronize(s->streams[k]));
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(h_keys, n, chunk, s);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 MERGESORT_REG_ITEMS_PER_THREAD phases, unrolled, strict < (stable) */
#pragma unroll
    for (unsigned phase = 0; phase < MERGESORT_REG_ITEMS_PER_THREAD; phase++) {
#pragma unroll
        for (unsigned i = phase % 2; i + 1 < MERGESORT_REG_ITEMS_PER_THREAD; i += 2) {
            if (keys[i + 1] < keys[i]) {
                unsigned int key = keys[i], value = values[i];
                keys[i] = keys[i + 1];
                values[i] = values[i + 1];
                keys[i + 1] = key;
                values[i + 1] = value;
            }
        }
    }
    /* SKELETON */
    KIT_UNUSED(keys, values);
    /* END SOLUTION */
}

/**
 * TODO 2.6. The co-rank of 2.3 (::merge_path_co_rank) with 32-bit indices, for runs in shared
 * memory: of the first @p k keys of the stable merge of @p a (@p na keys) and @p b (@p nb
 * keys), how many come from @p a. The same search, cheaper per step than its `size_t` twin.
 */
__device__ __forceinline__ unsigned reg_co_rank(const unsigned int *a, unsigned na,
                                                const unsigned int *b, unsigned nb, unsigned k)
{
    /* BEGIN SOLUTION 2.6 the binary search of 2.3 on unsigned indices */
    unsigned lo = k > nb ? k - nb : 0;
    unsigned hi = k < na ? k : na;
    while (lo < hi) {
        unsigned i = (lo + hi) / 2; /* lo + hi < 2 * MERGESORT_REG_TILE: no overflow */
        if (a[i] <= b[k - i - 1]) {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    return lo;
    /* SKELETON */
    KIT_UNUSED(a, na, b, nb, k);
    return 0;
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 MERGESORT_REG_ITEMS_PER_THREAD steps, each run's next key in a register */
    unsigned int a = i < a_end ? shared_keys[i] : 0u;
    unsigned int b = j < b_end ? shared_keys[j] : 0u;
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        int take_a = j >= b_end || (i < a_end && a <= b); /* <=: the left run's first */
        keys[k] = take_a ? a : b;
        from[k] = take_a ? i : j;
        if (take_a) {
            i++;
            a = i < a_end ? shared_keys[i] : 0u;
        } else {
            j++;
            b = j < b_end ? shared_keys[j] : 0u;
        }
    }
    /* SKELETON */
    KIT_UNUSED(shared_keys, i, a_end, j, b_end, keys, from);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 registers, then log2(MERGESORT_REG_BLOCK_THREADS) merges via shared */
    reg_sort_network(keys, values);
    for (unsigned coop = 2; coop <= MERGESORT_REG_BLOCK_THREADS; coop *= 2) {
        reg_to_shared(keys, values, with_values, shared_keys, shared_values);
        /* Keys per run, where this merge's left run starts, this thread's first output. */
        unsigned width = coop / 2 * MERGESORT_REG_ITEMS_PER_THREAD;
        unsigned start = threadIdx.x / coop * coop * MERGESORT_REG_ITEMS_PER_THREAD;
        unsigned diag = threadIdx.x % coop * MERGESORT_REG_ITEMS_PER_THREAD;
        unsigned i =
            reg_co_rank(shared_keys + start, width, shared_keys + start + width, width, diag);
        unsigned from[MERGESORT_REG_ITEMS_PER_THREAD];
        reg_serial_merge(shared_keys, start + i, start + width, start + width + (diag - i),
                         start + 2 * width, keys, from);
        if (with_values) {
#pragma unroll
            for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
                values[k] = shared_values[from[k]];
            }
        }
    }
    /* END SOLUTION */
    reg_store_tile(dst_keys, dst_values, base, count, shared_keys, shared_values, keys, values);
}

/**
 * TODO 2.6: launches ::reg_sort_tile_kernel, one block of ::MERGESORT_REG_BLOCK_THREADS per tile of
 * ::MERGESORT_REG_TILE keys (n > 0); the destination may be the source.
 */
cudaError_t reg_sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                           unsigned int *dst_keys, unsigned int *dst_values, size_t n)
{
    /* BEGIN SOLUTION 2.6 one block per tile, the last may be partial */
    size_t tiles = kit_num_tiles(n, MERGESORT_REG_TILE);
    reg_sort_tile_kernel<<<(unsigned)tiles, MERGESORT_REG_BLOCK_THREADS>>>(src_keys, src_values,
                                                                           dst_keys, dst_values, n);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 the merge of this tile's first output, then its co-rank */
    size_t first = b * MERGESORT_REG_TILE;
    merge_runs r = merge_at(n, width, first / (2 * width));
    splits[b] =
        merge_path_co_rank(keys + r.start, r.na, keys + r.start + r.na, r.nb, first - r.start);
    /* END SOLUTION */
}

/** TODO 2.6: launches ::reg_partition_kernel, one thread per tile of output (n > 0). */
cudaError_t reg_partition(const unsigned int *keys, size_t n, size_t width, size_t *splits)
{
    /* BEGIN SOLUTION 2.6 one thread per tile, KIT_BLOCK_THREADS per block */
    size_t tiles = kit_num_tiles(n, MERGESORT_REG_TILE);
    reg_partition_kernel<<<kit_blocks_for(tiles), KIT_BLOCK_THREADS>>>(keys, n, width, tiles,
                                                                       splits);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(keys, n, width, splits);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 this thread's co-rank in the tile, a serial merge into registers */
    unsigned count = pa + pb;
    unsigned diag = threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD < count
                        ? threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD
                        : count;
    unsigned i = reg_co_rank(shared_keys, pa, shared_keys + pa, pb, diag);
    unsigned from[MERGESORT_REG_ITEMS_PER_THREAD];
    reg_serial_merge(shared_keys, i, pa, pa + (diag - i), count, keys, from);
    if (with_values) {
#pragma unroll
        for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
            /* outputs past the tile's end came from nowhere: from[k] may be out of range */
            values[k] = diag + k < count ? shared_values[from[k]] : 0u;
        }
    }
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 the partition, then one block per tile of output */
    CUDA_TRY(reg_partition(src_keys, n, width, splits));
    size_t tiles = kit_num_tiles(n, MERGESORT_REG_TILE);
    reg_merge_kernel<<<(unsigned)tiles, MERGESORT_REG_BLOCK_THREADS>>>(
        src_keys, src_values, dst_keys, dst_values, n, width, splits);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(src_keys, src_values, dst_keys, dst_values, n, width, splits);
    /* END SOLUTION */
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
    /* BEGIN SOLUTION 2.6 tiles where the passes must start, then ping-pong passes */
    unsigned passes = 0;
    for (size_t width = MERGESORT_REG_TILE; width < n; width *= 2) {
        passes++;
    }
    unsigned int *src_keys = keys, *src_values = values;
    unsigned int *dst_keys = b->keys, *dst_values = b->values;
    if (passes % 2 == 1) {
        src_keys = b->keys;
        src_values = b->values;
        dst_keys = keys;
        dst_values = values;
    }
    CUDA_TRY(reg_sort_tiles(keys, values, src_keys, src_values, n));
    for (size_t width = MERGESORT_REG_TILE; width < n; width *= 2) {
        CUDA_TRY(reg_merge_pass(src_keys, src_values, dst_keys, dst_values, n, width, b->splits));
        unsigned int *t = src_keys;
        src_keys = dst_keys;
        dst_keys = t;
        t = src_values;
        src_values = dst_values;
        dst_values = t;
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(keys, values, n, b);
    /* END SOLUTION */
}
