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
    /* TODO 4.5: the warp's part: striped reads to shared, __syncwarp, blocked reads */
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
    /* TODO 4.5: the warp's part: blocked writes to shared, __syncwarp, striped out */
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
    /* TODO 4.5: publish A, windows of 32 predecessors until a P, publish P */
    return 0;
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
    /* TODO 4.5: tile number, load, scan, look-back, add, store */
}

/**
 * TODO 4.5: the single-pass scan of @p n > 0 values with the workspace @p w: zero it (every
 * status ::STATUS_X, the counter 0) with cudaMemsetAsync on the stream of the launch, then
 * one block of KIT_BLOCK_THREADS threads per tile.
 */
cudaError_t scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n,
                          const lookback_buffers *w)
{
    /* TODO 4.5: reset the status words and the counter, one launch */
    KIT_TODO_STUB(d_in, d_out, n, w);
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
    /* TODO 4.6: shared counters of every pass, grid-stride count, add to the bins */
}

/**
 * TODO 4.6. Block p turns the counts of pass p (`bins[p * RADIX_ONESWEEP_DIGITS + d]`, thread
 * d's) into their exclusive scan over the digits, in place: where the first key of each
 * digit goes in that pass's output. The block scan of TODO 4.1 with one count per thread.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS) onesweep_scan_bins_kernel(unsigned int *bins)
{
    /* TODO 4.6: one count per thread, the block scan of TODO 4.1 */
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
    /* TODO 4.6: one shared atomic per valid key */
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
    /* TODO 4.6: peers of one digit; the leader moves the warp's counter */
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
    /* TODO 4.6: walk back to the first P, publish P */
    return 0;
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
    /* TODO 4.6: tile number, load, count, publish, place, look back, write */
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
    /* TODO 4.6: reset, histograms, their scans, four passes with a reset before each */
    KIT_TODO_STUB(d_keys, d_values, n, w);
}
