/**
 * @file radix_bonus.cu
 * @brief Lab 04's bonus: the single-pass scan and the onesweep sort. Your bonus file: fill in
 *        its TODOs.
 *
 * The bonus TODOs 4.5 and 4.6 live here, beside radix.cu, and are tested on their own:
 * `build/student/test_04_radix -s 4.5_lookback_scan` runs the tests of TODO 4.5,
 * `-s 4.6_onesweep` those of TODO 4.6. They add to the score; left as they are, their suites
 * score 0 and TODOs 4.1 to 4.4 (radix.cu) are graded as usual. Read labs/04-radix/README.md.
 *
 * Both let the blocks of one launch hand results to each other: each block takes its tile
 * number from a counter, publishes what it has in status words, and looks back at the tiles
 * before it (decoupled look-back). The single-pass scan reads and writes every value once;
 * the onesweep sort counts all four 8-bit digits in one read, then sorts one digit per launch.
 * Both use your block_exclusive_scan() of radix.cu. Every kernel is launched by the host
 * function right after it.
 */
#include "cuda_check.h"
#include "radix.h"

/* Given, in radix_bonus_given.cuh (read it once): RADIX_LOOKBACK_ITEMS_PER_THREAD,
 * LOOKBACK_WAIT_NS, RADIX_ONESWEEP_ITEMS_PER_THREAD, ONESWEEP_ALL_VALID, ONESWEEP_PASSES and
 * ONESWEEP_HISTOGRAM_BLOCKS; the status words (STATUS_X, STATUS_A, STATUS_P, lookback_word() and
 * onesweep_word() with their readers), onesweep_digit() and onesweep_peers() (the lanes of a warp
 * with the same digit); the workspaces (lookback_buffers, onesweep_buffers); the declaration of
 * your block_exclusive_scan(); and the API functions of TODOs 4.5 and 4.6, which check their
 * arguments, allocate and call yours. RADIX_ITEMS_PER_THREAD, WARPS and FULL_MASK are
 * radix_common.cuh's; KIT_BLOCK_THREADS and kit_blocks_for() are common/kit_device.cuh's. */
#include "radix_bonus_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 4.5 (bonus): single-pass scan with decoupled look-back
 * ------------------------------------------------------------------------------------------ */

/** Where tile position @p p lives in the padded shared tile: one word of padding per 32. */
#define LOOKBACK_PAD(p) ((p) + ((p) >> 5))

/**
 * TODO 4.5. Loads the tile of RADIX_LOOKBACK_TILE values at @p base into @p items in the blocked
 * arrangement (thread t gets tile positions `t * RADIX_LOOKBACK_ITEMS_PER_THREAD + k`), through
 * shared memory so that the global reads are coalesced. Each warp does its own part of the tile,
 * the `32 * RADIX_LOOKBACK_ITEMS_PER_THREAD` positions from
 * `first = warp * 32 * RADIX_LOOKBACK_ITEMS_PER_THREAD`, which are its lanes' items: lane l first
 * reads positions `first + 32 k + l` (the warp reads 32 neighbouring words) into
 * `s_tile[LOOKBACK_PAD(p)]`, then, after a __syncwarp() (no block barrier: no other warp touches
 * this part), its own RADIX_LOOKBACK_ITEMS_PER_THREAD neighbours (the padding keeps the 32 lanes,
 * which read 32 words apart, on 32 different banks). Values at or past @p n read as 0. Every lane
 * of the warp must call it.
 */
__device__ void lookback_load_tile(const unsigned int *in, size_t base, size_t n,
                                   unsigned int *items, unsigned int *s_tile)
{
    /* BEGIN SOLUTION 4.5 the warp's part: striped reads to shared, __syncwarp, blocked reads */
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
    unsigned first = warp * 32u * RADIX_LOOKBACK_ITEMS_PER_THREAD;
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        unsigned p = first + k * 32u + lane;
        size_t i = base + p;
        s_tile[LOOKBACK_PAD(p)] = i < n ? in[i] : 0u;
    }
    __syncwarp();
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        unsigned p = threadIdx.x * RADIX_LOOKBACK_ITEMS_PER_THREAD + k;
        items[k] = s_tile[LOOKBACK_PAD(p)];
    }
    /* END SOLUTION */
}

/**
 * TODO 4.5. The way back of ::lookback_load_tile, in the warp's own part of the tile: thread t
 * writes its blocked @p items to `s_tile`, and after a __syncwarp() lane l writes positions
 * `first + 32 k + l` of the tile to @p out (coalesced), those below @p n only. Every lane of
 * the warp must call it.
 */
__device__ void lookback_store_tile(unsigned int *out, size_t base, size_t n,
                                    const unsigned int *items, unsigned int *s_tile)
{
    /* BEGIN SOLUTION 4.5 the warp's part: blocked writes to shared, __syncwarp, striped out */
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
    unsigned first = warp * 32u * RADIX_LOOKBACK_ITEMS_PER_THREAD;
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        unsigned p = threadIdx.x * RADIX_LOOKBACK_ITEMS_PER_THREAD + k;
        s_tile[LOOKBACK_PAD(p)] = items[k];
    }
    __syncwarp();
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        unsigned p = first + k * 32u + lane;
        size_t i = base + p;
        if (i < n) {
            out[i] = s_tile[LOOKBACK_PAD(p)];
        }
    }
    /* END SOLUTION */
}

/**
 * TODO 4.5. Called by the 32 lanes of warp 0 of the block that holds tile @p tile, whose sum
 * is @p aggregate; returns, in every lane, the sum of every value before the tile. Tile 0
 * publishes ::STATUS_P with its aggregate at once. Any other tile first publishes ::STATUS_A
 * with its aggregate (so that later tiles can go on without waiting for its look-back), then
 * looks back over windows of 32 predecessors, lane l reading `status[tile - 1 - 32 j - l]`:
 * while a lane of the window still reads ::STATUS_X the warp sleeps LOOKBACK_WAIT_NS
 * (__nanosleep) and reads the window again; then the warp adds up the values from lane 0 up
 * to the first lane that holds a ::STATUS_P (an inclusive prefix: nothing before it is
 * needed), or all 32 aggregates and goes on to the next window. At the end lane 0 publishes
 * ::STATUS_P with prefix + aggregate. Reads and writes of @p status are volatile (never kept in
 * a register or in L1, which is not coherent between SMs), and each is one 64-bit access:
 * status and value come together.
 */
__device__ unsigned int lookback_tile_prefix(unsigned long long *status, unsigned int tile,
                                             unsigned int aggregate)
{
    /* BEGIN SOLUTION 4.5 publish A, windows of 32 predecessors until a P, publish P */
    volatile unsigned long long *flags = status;
    unsigned lane = threadIdx.x & 31u;
    if (tile == 0) {
        if (lane == 0) {
            flags[0] = lookback_word(STATUS_P, aggregate);
        }
        return 0;
    }
    if (lane == 0) {
        flags[tile] = lookback_word(STATUS_A, aggregate);
    }
    unsigned int prefix = 0;
    long long window = (long long)tile - 1; /* lane 0's predecessor: the nearest */
    for (;;) {
        long long mine = window - (long long)lane;
        unsigned long long word;
        for (;;) { /* tiles before ours all started (the counter): each publishes soon */
            word = mine >= 0 ? flags[mine] : lookback_word(STATUS_P, 0u);
            if (!__any_sync(FULL_MASK, lookback_status(word) == STATUS_X)) {
                break;
            }
            __nanosleep(LOOKBACK_WAIT_NS);
        }
        unsigned int inclusive = __ballot_sync(FULL_MASK, lookback_status(word) == STATUS_P);
        unsigned int value = lookback_value(word);
        if (inclusive != 0 && lane > (unsigned)(__ffs((int)inclusive) - 1)) {
            value = 0; /* behind the nearest inclusive prefix: already in it */
        }
        for (unsigned offset = 16; offset > 0; offset /= 2) {
            value += __shfl_xor_sync(FULL_MASK, value, offset);
        }
        prefix += value;
        if (inclusive != 0) {
            break;
        }
        window -= 32;
    }
    if (lane == 0) {
        flags[tile] = lookback_word(STATUS_P, prefix + aggregate);
    }
    return prefix;
    /* SKELETON */
    return 0;
    /* END SOLUTION */
}

/**
 * TODO 4.5. One block per tile, in the order the blocks start: thread 0 takes the next tile
 * number from @p counter (atomicAdd) and shares it; the block loads the tile
 * (::lookback_load_tile), each thread scans its items serially, the block scans the threads'
 * sums (::block_exclusive_scan of TODO 4.1, one sum per thread and zeros), warp 0 finds the
 * tile's prefix (::lookback_tile_prefix) and shares it, and every thread adds the prefix and
 * its threads' sums to its items and stores the tile (::lookback_store_tile). A tile takes its
 * number only once its block runs, so it waits only for tiles whose blocks run already.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS, 4)
    scan_lookback_kernel(const unsigned int *in, unsigned int *out, size_t n,
                         unsigned long long *status, unsigned int *counter)
{
    /* BEGIN SOLUTION 4.5 tile number, load, scan, look-back, add, store */
    __shared__ unsigned int s_tile[LOOKBACK_PAD(RADIX_LOOKBACK_TILE)];
    __shared__ unsigned int s_warp[WARPS + 1];
    __shared__ unsigned int s_tile_number, s_prefix;
    if (threadIdx.x == 0) {
        s_tile_number = atomicAdd(counter, 1u);
    }
    __syncthreads();
    unsigned int tile = s_tile_number;
    size_t base = (size_t)tile * RADIX_LOOKBACK_TILE;
    unsigned int items[RADIX_LOOKBACK_ITEMS_PER_THREAD];
    lookback_load_tile(in, base, n, items, s_tile);
    unsigned int sum = 0;
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        unsigned int v = items[k];
        items[k] = sum;
        sum += v;
    }
    unsigned int sums[RADIX_ITEMS_PER_THREAD] = {0}, total;
    sums[0] = sum;
    block_exclusive_scan(sums, s_warp, &total); /* sums[0]: the threads before this one */
    if (threadIdx.x < 32u) {
        unsigned int prefix = lookback_tile_prefix(status, tile, total);
        if (threadIdx.x == 0) {
            s_prefix = prefix;
        }
    }
    __syncthreads();
    unsigned int before = s_prefix + sums[0];
    for (unsigned k = 0; k < RADIX_LOOKBACK_ITEMS_PER_THREAD; k++) {
        items[k] += before;
    }
    lookback_store_tile(out, base, n, items, s_tile);
    /* END SOLUTION */
}

/**
 * TODO 4.5: the single-pass scan of @p n > 0 values with the workspace @p w: zero it (every
 * status ::STATUS_X, the counter 0) with cudaMemsetAsync on the stream of the launch, then
 * one block of KIT_BLOCK_THREADS threads per tile.
 */
cudaError_t scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n,
                          const lookback_buffers *w)
{
    /* BEGIN SOLUTION 4.5 reset the status words and the counter, one launch */
    CUDA_TRY(cudaMemsetAsync(w->base, 0, w->bytes, 0));
    unsigned tiles = (unsigned)kit_num_tiles(n, RADIX_LOOKBACK_TILE);
    scan_lookback_kernel<<<tiles, KIT_BLOCK_THREADS>>>(d_in, d_out, n, w->status, w->counter);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_in, d_out, n, w);
    /* END SOLUTION */
}

/* ------------------------------------------------------------------------------------------
 * TODO 4.6 (bonus): onesweep radix sort
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 4.6. The histograms of all ONESWEEP_PASSES digit positions in one read of the keys:
 * each block counts in shared memory (`s_bins[pass][digit]`, zeroed first, shared atomics),
 * thread i reading keys i, i + stride, ... (a grid-stride loop, stride = all the threads of the
 * grid; each round loads keys i, i + stride, i + 2 stride, i + 3 stride before it counts them,
 * so that four loads are in flight); then thread d adds the block's counts of digit d of every
 * pass to `bins[pass * RADIX_ONESWEEP_DIGITS + d]` (global atomics; ::onesweep_sort zeroed
 * @p bins).
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
    onesweep_histograms_kernel(const unsigned int *keys, size_t n, unsigned int *bins)
{
    /* BEGIN SOLUTION 4.6 shared counters of every pass, grid-stride count, add to the bins */
    __shared__ unsigned int s_bins[ONESWEEP_PASSES][RADIX_ONESWEEP_DIGITS];
    for (unsigned p = 0; p < ONESWEEP_PASSES; p++) {
        s_bins[p][threadIdx.x] = 0;
    }
    __syncthreads();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 4 * stride) {
        unsigned int k4[4];
        for (unsigned j = 0; j < 4; j++) {
            size_t at = i + j * stride;
            k4[j] = at < n ? keys[at] : 0u;
        }
        for (unsigned j = 0; j < 4; j++) {
            if (i + j * stride < n) {
                for (unsigned p = 0; p < ONESWEEP_PASSES; p++) {
                    atomicAdd(&s_bins[p][onesweep_digit(k4[j], p * RADIX_ONESWEEP_BITS)], 1u);
                }
            }
        }
    }
    __syncthreads();
    for (unsigned p = 0; p < ONESWEEP_PASSES; p++) {
        unsigned int count = s_bins[p][threadIdx.x];
        if (count != 0) {
            atomicAdd(&bins[p * RADIX_ONESWEEP_DIGITS + threadIdx.x], count);
        }
    }
    /* END SOLUTION */
}

/**
 * TODO 4.6. Block p turns the counts of pass p (`bins[p * RADIX_ONESWEEP_DIGITS + d]`, thread
 * d's) into their exclusive scan over the digits, in place: where the first key of each
 * digit goes in that pass's output. The block scan of TODO 4.1 with one count per thread.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS) onesweep_scan_bins_kernel(unsigned int *bins)
{
    /* BEGIN SOLUTION 4.6 one count per thread, the block scan of TODO 4.1 */
    __shared__ unsigned int s_warp[WARPS + 1];
    unsigned int *row = bins + blockIdx.x * RADIX_ONESWEEP_DIGITS;
    unsigned int items[RADIX_ITEMS_PER_THREAD] = {0}, total;
    items[0] = row[threadIdx.x];
    block_exclusive_scan(items, s_warp, &total);
    row[threadIdx.x] = items[0];
    /* END SOLUTION */
}

/**
 * TODO 4.6. Counts this thread's RADIX_ONESWEEP_ITEMS_PER_THREAD keys in its warp's
 * RADIX_ONESWEEP_DIGITS counters @p s_counts (shared atomics; they start at 0): the warp's
 * histogram of the digit at @p shift. A key whose bit k of @p valid is 0 (past the end of the
 * array) counts nowhere.
 */
__device__ void onesweep_count_warp(const unsigned int *keys, unsigned int valid,
                                    unsigned int shift, unsigned int *s_counts)
{
    /* BEGIN SOLUTION 4.6 one shared atomic per valid key */
    for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
        if ((valid >> k) & 1u) {
            atomicAdd(&s_counts[onesweep_digit(keys[k], shift)], 1u);
        }
    }
    /* END SOLUTION */
}

/**
 * TODO 4.6. Places this thread's RADIX_ONESWEEP_ITEMS_PER_THREAD keys in the sorted tile, stably:
 * item k of lane l is tile position `warp * 32 * RADIX_ONESWEEP_ITEMS_PER_THREAD + k * 32 + l` (the
 * warp-striped arrangement), and on entry `s_counts[d]` (this warp's counters) is where the warp's
 * first key of digit d goes in the sorted tile. For each item in order, ::onesweep_peers gives the
 * lanes with the same digit (its *peers*); the highest peer (the *leader*) adds the number of peers
 * to the digit's counter with atomicAdd, which returns the counter's old value, and hands that
 * value to its peers (__shfl_sync); each lane's place is that value plus its peers in lower lanes.
 * `places[k]` gets it. A key whose bit k of @p valid is 0 (past the end of the array: only in the
 * last tile) takes no place and is nobody's peer (a ballot of the valid bits, when not every key of
 * the warp is valid: decide that once for the whole warp, with __all_sync, so that every lane
 * takes the ballot or none does); it still takes part in every ballot and shuffle, and its own
 * peers may be none (leader -1: __shfl_sync takes the source lane modulo 32; its place is not
 * used). Every lane of the warp must call it.
 */
__device__ void onesweep_place_warp(const unsigned int *keys, unsigned int valid,
                                    unsigned int shift, unsigned int *places,
                                    unsigned int *s_counts)
{
    /* BEGIN SOLUTION 4.6 peers of one digit; the leader moves the warp's counter */
    unsigned lane = threadIdx.x & 31u;
    unsigned int lower = (1u << lane) - 1u; /* the lanes below this one */
    int all_valid = __all_sync(FULL_MASK, valid == ONESWEEP_ALL_VALID); /* same in the warp */
    for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
        int is_valid = (valid >> k) & 1u;
        unsigned int digit = onesweep_digit(keys[k], shift);
        unsigned int peers = onesweep_peers(digit);
        if (!all_valid) {
            peers &= __ballot_sync(FULL_MASK, is_valid); /* keys past the end match nobody */
        }
        unsigned int leader = 31u - (unsigned)__clz((int)peers);
        unsigned int first = 0;
        if (is_valid && lane == leader) {
            first = atomicAdd(&s_counts[digit], (unsigned)__popc((int)peers));
        }
        /* the shuffle waits for the leader: the next item's leader sees this item's add */
        first = __shfl_sync(FULL_MASK, first, (int)leader);
        places[k] = first + (unsigned)__popc((int)(peers & lower));
    }
    /* END SOLUTION */
}

/**
 * TODO 4.6. Called by thread d of the block of tile @p tile (not tile 0), which has published
 * its count of digit d as ::STATUS_A already; returns the number of keys of digit d in every
 * tile before this one. Walks back tile by tile, reading
 * `status[(t - 1) * RADIX_ONESWEEP_DIGITS + d]` until it is no longer ::STATUS_X, adding its
 * count, and stopping at the first ::STATUS_P; then publishes ::STATUS_P with the sum plus
 * @p count, the tile's own. Each status word is one 32-bit ::onesweep_word read and written
 * volatile.
 */
__device__ unsigned int onesweep_lookback(unsigned int *status, unsigned int tile,
                                          unsigned int count)
{
    /* BEGIN SOLUTION 4.6 walk back to the first P, publish P */
    volatile unsigned int *flags = status;
    unsigned int d = threadIdx.x;
    unsigned int before = 0;
    for (size_t t = tile; t-- > 0;) {
        unsigned int word;
        do { /* tile t started before ours (the counter): it publishes soon */
            word = flags[t * RADIX_ONESWEEP_DIGITS + d];
        } while (onesweep_status(word) == STATUS_X);
        before += onesweep_count(word);
        if (onesweep_status(word) == STATUS_P) {
            break;
        }
    }
    flags[(size_t)tile * RADIX_ONESWEEP_DIGITS + d] = onesweep_word(STATUS_P, before + count);
    return before;
    /* SKELETON */
    return 0;
    /* END SOLUTION */
}

/**
 * TODO 4.6. One pass of the onesweep sort, one block per tile of RADIX_ONESWEEP_TILE keys in
 * the order the blocks start (tile number from @p counter, this pass's). Thread d is digit d;
 * @p bins is this pass's row of the scanned bins (`bins[d]`: where the pass's first key of
 * digit d goes), @p status the pass's status words (zeroed). The block
 * 1. zeroes `s_counts`, takes its tile number, loads its keys (and values) warp-striped and
 *    counts them per warp (::onesweep_count_warp into `s_counts[warp]`);
 * 2. thread d adds up the warps' counts of digit d, the tile's count, and publishes it at
 *    once (::STATUS_A; tile 0: ::STATUS_P), *before* the slow part, so that the tiles after it
 *    can go on; ::block_exclusive_scan of the counts (thread d's count as its first item, zeros
 *    after, as in TODO 4.5) gives `start[d]`, where digit d begins in the sorted tile, and
 *    `s_counts[w][d]` becomes where warp w's first key of digit d goes: start[d] plus the
 *    counts of the warps before w;
 * 3. places the keys (::onesweep_place_warp) and writes them to their places in `s_tile`;
 * 4. thread d finds the keys of digit d in the tiles before (::onesweep_lookback; tile 0: none)
 *    and sets `offset[d] = bins[d] + before - start[d]`;
 * 5. thread t writes sorted positions p = t, t + KIT_BLOCK_THREADS, ... to `offset[d] + p`:
 *    neighbouring threads, neighbouring places. Values follow through the same shared memory,
 *    to the same places.
 */
__device__ __forceinline__ void onesweep_pass(const unsigned int *keys_in,
                                              const unsigned int *values_in, unsigned int *keys_out,
                                              unsigned int *values_out, size_t n,
                                              unsigned int shift, const unsigned int *bins,
                                              unsigned int *status, unsigned int *counter)
{
    /* BEGIN SOLUTION 4.6 tile number, load, count, publish, place, look back, write */
    __shared__ unsigned int s_counts[WARPS][RADIX_ONESWEEP_DIGITS];
    __shared__ unsigned int s_tile[RADIX_ONESWEEP_TILE];
    __shared__ unsigned int s_offset[RADIX_ONESWEEP_DIGITS];
    __shared__ unsigned int s_warp[WARPS + 1];
    __shared__ unsigned int s_tile_number;
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u, d = threadIdx.x;
    for (unsigned w = 0; w < WARPS; w++) {
        s_counts[w][d] = 0;
    }
    if (threadIdx.x == 0) {
        s_tile_number = atomicAdd(counter, 1u);
    }
    __syncthreads();
    unsigned int tile = s_tile_number;
    size_t base = (size_t)tile * RADIX_ONESWEEP_TILE;
    size_t first = base + warp * 32u * RADIX_ONESWEEP_ITEMS_PER_THREAD + lane; /* warp-striped */
    unsigned int keys[RADIX_ONESWEEP_ITEMS_PER_THREAD], values[RADIX_ONESWEEP_ITEMS_PER_THREAD];
    unsigned int places[RADIX_ONESWEEP_ITEMS_PER_THREAD];
    unsigned int valid = 0;
    for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
        size_t i = first + k * 32u;
        keys[k] = i < n ? keys_in[i] : 0u;
        values[k] = values_in && i < n ? values_in[i] : 0u;
        valid |= (i < n ? 1u : 0u) << k;
    }
    onesweep_count_warp(keys, valid, shift, s_counts[warp]);
    __syncthreads();
    unsigned int count = 0; /* thread d: the tile's keys of digit d */
    for (unsigned w = 0; w < WARPS; w++) {
        unsigned int c = s_counts[w][d];
        s_counts[w][d] = count; /* those of the warps before w */
        count += c;
    }
    ((volatile unsigned int *)status)[(size_t)tile * RADIX_ONESWEEP_DIGITS + d] =
        onesweep_word(tile == 0 ? STATUS_P : STATUS_A, count);
    unsigned int starts[RADIX_ITEMS_PER_THREAD] = {0}, total;
    starts[0] = count;
    block_exclusive_scan(starts, s_warp, &total); /* starts[0]: the tile's smaller digits */
    for (unsigned w = 0; w < WARPS; w++) {
        s_counts[w][d] += starts[0];
    }
    __syncthreads();
    onesweep_place_warp(keys, valid, shift, places, s_counts[warp]);
    for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
        if ((valid >> k) & 1u) {
            s_tile[places[k]] = keys[k];
        }
    }
    unsigned int before = tile == 0 ? 0u : onesweep_lookback(status, tile, count);
    s_offset[d] = bins[d] + before - starts[0]; /* modulo 2^32: p >= start[d] brings it back */
    __syncthreads();
    unsigned int in_tile = kit_tile_keys(n, base, RADIX_ONESWEEP_TILE);
    unsigned int to[RADIX_ONESWEEP_ITEMS_PER_THREAD];
    for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
        unsigned int p = k * KIT_BLOCK_THREADS + threadIdx.x;
        if (p < in_tile) {
            unsigned int key = s_tile[p];
            to[k] = s_offset[onesweep_digit(key, shift)] + p;
            keys_out[to[k]] = key;
        }
    }
    if (values_in) {     /* the same for every block (NULL: the keys' kernel drops this code) */
        __syncthreads(); /* every key has been read from s_tile */
        for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
            if ((valid >> k) & 1u) {
                s_tile[places[k]] = values[k];
            }
        }
        __syncthreads();
        for (unsigned k = 0; k < RADIX_ONESWEEP_ITEMS_PER_THREAD; k++) {
            unsigned int p = k * KIT_BLOCK_THREADS + threadIdx.x;
            if (p < in_tile) {
                values_out[to[k]] = s_tile[p];
            }
        }
    }
    /* END SOLUTION */
}

/*
 * The two kernels of a pass (given): keys alone, and pairs. Each is ::onesweep_pass; the keys'
 * passes NULL for the values, so that the compiler drops the values' code and registers, and
 * three blocks fit on an SM instead of two.
 */

/** One onesweep pass of keys alone (given). */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS, 3)
    onesweep_keys_kernel(const unsigned int *keys_in, unsigned int *keys_out, size_t n,
                         unsigned int shift, const unsigned int *bins, unsigned int *status,
                         unsigned int *counter)
{
    onesweep_pass(keys_in, NULL, keys_out, NULL, n, shift, bins, status, counter);
}

/** One onesweep pass of pairs (given). */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS, 2)
    onesweep_pairs_kernel(const unsigned int *keys_in, const unsigned int *values_in,
                          unsigned int *keys_out, unsigned int *values_out, size_t n,
                          unsigned int shift, const unsigned int *bins, unsigned int *status,
                          unsigned int *counter)
{
    onesweep_pass(keys_in, values_in, keys_out, values_out, n, shift, bins, status, counter);
}

/**
 * TODO 4.6: the onesweep sort of @p n >= 2 keys (and values) with the buffers @p w: zero the
 * bins and the counters (one cudaMemsetAsync: they are neighbours), the histograms
 * (::onesweep_histograms_kernel on min(kit_blocks_for(n), ONESWEEP_HISTOGRAM_BLOCKS) blocks), their
 * scans (::onesweep_scan_bins_kernel, one block per pass), then ONESWEEP_PASSES passes
 * (::onesweep_keys_kernel, or ::onesweep_pairs_kernel when @p d_values is not NULL), each after
 * a reset of the status words (cudaMemsetAsync), ping-pong between the caller's buffers and
 * @p w: 4 passes, so the last one writes the caller's.
 */
cudaError_t onesweep_sort(unsigned int *d_keys, unsigned int *d_values, size_t n,
                          const onesweep_buffers *w)
{
    /* BEGIN SOLUTION 4.6 reset, histograms, their scans, four passes with a reset before each */
    CUDA_TRY(cudaMemsetAsync(
        w->bins, 0, (ONESWEEP_PASSES * RADIX_ONESWEEP_DIGITS + ONESWEEP_PASSES) * sizeof *w->bins,
        0));
    unsigned blocks = kit_blocks_for(n);
    blocks = blocks < ONESWEEP_HISTOGRAM_BLOCKS ? blocks : ONESWEEP_HISTOGRAM_BLOCKS;
    onesweep_histograms_kernel<<<blocks, KIT_BLOCK_THREADS>>>(d_keys, n, w->bins);
    CUDA_TRY(cudaGetLastError());
    onesweep_scan_bins_kernel<<<ONESWEEP_PASSES, KIT_BLOCK_THREADS>>>(w->bins);
    CUDA_TRY(cudaGetLastError());
    unsigned int *keys[2] = {d_keys, w->keys}, *values[2] = {d_values, w->values};
    int from = 0;
    for (unsigned pass = 0; pass < ONESWEEP_PASSES; pass++) {
        CUDA_TRY(
            cudaMemsetAsync(w->status, 0, w->tiles * RADIX_ONESWEEP_DIGITS * sizeof *w->status, 0));
        unsigned int tiles = (unsigned)w->tiles, shift = pass * RADIX_ONESWEEP_BITS;
        const unsigned int *bins = w->bins + pass * RADIX_ONESWEEP_DIGITS;
        if (d_values) {
            onesweep_pairs_kernel<<<tiles, KIT_BLOCK_THREADS>>>(
                keys[from], values[from], keys[1 - from], values[1 - from], n, shift, bins,
                w->status, w->counters + pass);
        } else {
            onesweep_keys_kernel<<<tiles, KIT_BLOCK_THREADS>>>(keys[from], keys[1 - from], n, shift,
                                                               bins, w->status, w->counters + pass);
        }
        CUDA_TRY(cudaGetLastError());
        from = 1 - from;
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, w);
    /* END SOLUTION */
}
