/**
 * @file radix.cu
 * @brief Lab 04: radix sort built on scan. Your file: fill in the TODOs.
 *
 * Read labs/04-radix/README.md first. Each TODO is tested on its own:
 * `build/student/test_04_radix -s 4.1_scan` runs the tests of TODO 4.1, and so on.
 *
 * Layers, from the bottom: a warp's scan (shuffles), a block's scan (a warp scan of the
 * threads' sums and one of the warps' sums), the scan of any n (blocks and their sums); then
 * the sorts built on it: the split by one bit over global memory, and the digit pass (tile
 * histograms, one scan of the table, a tile sorted by the digit in shared memory, the
 * scatter). Every kernel is launched by the host function right after it.
 */
#include <stdint.h>

#include "cuda_check.h"
#include "radix.h"

/* Given, in radix_given.cuh (read it once: your code calls much of it): ITEMS, WARPS,
 * FULL_MASK and KEY_BITS_BLOCKS; load_items(), store_items() and tile_count(); the buffers
 * (scan_scratch_count(), work_buffers) and sort_u32(); key_type; and the API functions that only
 * check their arguments, allocate and call yours (all but radix_scan_block). THREADS_PER_BLOCK
 * and blocks_for() are common/kit_device.cuh's. */
#include "radix_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 4.1: scan
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 4.1. The inclusive scan of one value per lane over a warp (Hillis-Steele, 5 steps):
 * in step `offset` = 1, 2, 4, 8, 16, lane `l` adds the value lane `l - offset` holds (lanes
 * below `offset` have nobody there and keep theirs). Every lane of the warp must call it.
 */
__device__ unsigned int warp_inclusive_scan(unsigned int x)
{
    /* TODO 4.1: five shuffles up, each adding the value `offset` lanes below */
    return x;
}

/**
 * TODO 4.1. The exclusive scan of the block's THREADS_PER_BLOCK * ITEMS items, in the blocked
 * arrangement (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1): each thread scans its
 * own items serially (work-efficient: one add per item), the threads' sums are scanned by a
 * warp scan in each warp, the warps' sums (in @p s_warp, WARPS + 1 words of shared memory) by
 * warp 0, and each thread adds what comes before it. Warp 0 leaves in `s_warp[w]` what the
 * warps before warp w hold, and in the extra word `s_warp[WARPS]` the block's sum, which
 * every thread reads into @p total after a barrier.
 * Every thread of the block must call it (it has barriers); it leaves @p s_warp free for reuse.
 */
__device__ void block_exclusive_scan(unsigned int *items, unsigned int *s_warp, unsigned int *total)
{
    *total = 0; /* set below: this only keeps callers defined until the TODO is written */
    /* TODO 4.1: thread: serial scan; warps: scan of thread sums; warp 0: of warp sums */
}

/**
 * TODO 4.1. Block b scans block b of the input (items `b * RADIX_SCAN_TILE` ..., fewer in the
 * last block), exclusive, starting from `offsets[b]` (0 when @p offsets is NULL), and writes
 * the block to @p out. In place (out == in) works: each thread reads its items before the
 * scan's barriers and writes the same places after them.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    scan_blocks_kernel(const unsigned int *in, unsigned int *out, size_t n,
                       const unsigned int *offsets)
{
    /* TODO 4.1: load, scan, add the block's offset, store */
}

/**
 * TODO 4.1. Block b writes the sum of block b of the input (items `b * RADIX_SCAN_TILE` ...)
 * to `sums[b]`: the first step of a multi-block scan.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    block_sums_kernel(const unsigned int *in, size_t n, unsigned int *sums)
{
    /* TODO 4.1: the block scan's total is the block's sum */
}

/**
 * TODO 4.1: the exclusive scan of @p n items (n > 0) with scratch room @p scratch of
 * scan_scratch_count(n) entries: one block scans everything when n fits; otherwise the blocks'
 * sums go to @p scratch, are scanned there (the same function: they may not fit one block),
 * and every block is scanned from its offset.
 */
cudaError_t scan_with_scratch(const unsigned int *d_in, unsigned int *d_out, size_t n,
                              unsigned int *scratch)
{
    /* TODO 4.1: one block; or sums, scan of the sums (recursion), blocks with offsets */
    KIT_TODO_STUB(d_in, d_out, n, scratch);
}

extern "C" cudaError_t radix_scan_block(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
    if (n > RADIX_SCAN_TILE) {
        return cudaErrorInvalidValue;
    }
    if (n == 0) {
        return cudaSuccess;
    }
    /* TODO 4.1: one block of THREADS_PER_BLOCK threads, no offsets */
    KIT_TODO_STUB(d_in, d_out);
}

/* ------------------------------------------------------------------------------------------
 * TODO 4.2: split by one bit, over global memory
 * ------------------------------------------------------------------------------------------ */

/** TODO 4.2. Thread i writes bit @p bit of key i to `flags[i]` (0 or 1). */
__global__ void split_flags_kernel(const unsigned int *keys, size_t n, unsigned int bit,
                                   unsigned int *flags)
{
    /* TODO 4.2: one thread per key */
}

/**
 * TODO 4.2. Thread i moves key i (and its value): `ones_before` is the exclusive scan of the
 * flags, so `ones_before[i]` keys with bit 1 come before key i, and the number of keys with
 * bit 1 is `ones_before[n - 1]` plus the bit of the last key. A 0 goes to `i - ones_before[i]`,
 * a 1 to `zeros + ones_before[i]`.
 */
__global__ void split_scatter_kernel(const unsigned int *keys_in, const unsigned int *values_in,
                                     unsigned int *keys_out, unsigned int *values_out, size_t n,
                                     unsigned int bit, const unsigned int *ones_before)
{
    /* TODO 4.2: the seed's rule: i - s_i for a 0, Nz + s_i for a 1 */
}

/**
 * TODO 4.2: one split (n > 0) with the caller's buffers: @p flags of n entries, @p scratch of
 * scan_scratch_count(n). Flags, their scan (in place), the scatter.
 */
cudaError_t split_with(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                       unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                       unsigned int bit, unsigned int *flags, unsigned int *scratch)
{
    /* TODO 4.2: flags, scan them in place, scatter */
    KIT_TODO_STUB(d_keys_in, d_values_in, d_keys_out, d_values_out, n, bit, flags, scratch);
}

/**
 * TODO 4.2: the 32 splits, bit 0 to bit 31, between the caller's buffers and the other half
 * @p w of the ping-pong. 32 is even, so the last split writes the caller's buffers.
 */
cudaError_t sort_by_splits(unsigned int *d_keys, unsigned int *d_values, size_t n,
                           const work_buffers *w)
{
    /* TODO 4.2: ping-pong: even bits write the other half, odd bits write back */
    KIT_TODO_STUB(d_keys, d_values, n, w);
}

/* ------------------------------------------------------------------------------------------
 * TODO 4.3: digits of RADIX_BITS bits
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 4.3. Block b counts the digits of tile b: each warp in its own RADIX_DIGITS counters in
 * shared memory (fewer threads collide on one counter), thread t reading keys
 * `b * RADIX_TILE + k * THREADS_PER_BLOCK + t` (coalesced); then thread d (and d +
 * THREADS_PER_BLOCK, ...) adds the warps' counts of digit d and writes them to the table,
 * digit-major.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    histogram_kernel(const unsigned int *keys, size_t n, unsigned int shift, unsigned int *table,
                     size_t tiles)
{
    /* TODO 4.3: zero the counters, count with shared atomics, add the warps' counts */
}

/** TODO 4.3: launches ::histogram_kernel, one block per tile (n > 0). */
cudaError_t histograms(const unsigned int *d_keys, size_t n, unsigned int shift,
                       unsigned int *d_table)
{
    /* TODO 4.3: one block of THREADS_PER_BLOCK threads per tile */
    KIT_TODO_STUB(d_keys, n, shift, d_table);
}

/**
 * TODO 4.3. Sorts the block's tile, held in the blocked arrangement in @p keys (and
 * @p values when @p with_values), stably by radix_digit(key, shift): RADIX_BITS splits by one
 * bit, lowest first, each the split of TODO 4.2 inside the block: the block scan of the bits,
 * every key written to its new place in @p s_keys, read back in the blocked arrangement. On
 * return the registers and @p s_keys hold the sorted tile. Keys past the end of the array
 * must be loaded as 0xFFFFFFFF: they are at the end of the tile and stay there (their bits are
 * all 1, and a stable split keeps them behind every real key with the same bit).
 */
__device__ void sort_tile_by_digit(unsigned int *keys, unsigned int *values, int with_values,
                                   unsigned int shift, unsigned int *s_keys, unsigned int *s_values,
                                   unsigned int *s_warp)
{
    /* TODO 4.3: RADIX_BITS block-wide splits, each on the block scan of the bit */
}

/**
 * TODO 4.3. Block b sorts tile b by the digit (::sort_tile_by_digit) and writes it back in
 * place, thread t writing tile positions t, t + THREADS_PER_BLOCK, ... from shared memory
 * (coalesced).
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    sort_tiles_kernel(unsigned int *keys, unsigned int *values, size_t n, unsigned int shift)
{
    /* TODO 4.3: load (padding 0xFFFFFFFF), sort the tile, store the real keys */
}

/** TODO 4.3: launches ::sort_tiles_kernel, one block per tile (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, unsigned int shift)
{
    /* TODO 4.3: one block of THREADS_PER_BLOCK threads per tile */
    KIT_TODO_STUB(d_keys, d_values, n, shift);
}

/**
 * TODO 4.3. The scatter of one pass. Block b sorts tile b by the digit (as
 * ::sort_tiles_kernel), finds where each digit starts in the sorted tile (position p starts
 * digit d when p is 0 or the key before has another digit), reads its offsets from the scanned
 * table, and writes the key at tile position p, digit d, to
 * `offsets[radix_table_index(d, b, tiles)] + p - start[d]`, thread t writing positions
 * t, t + THREADS_PER_BLOCK, ...: neighbouring threads write neighbouring places, runs of one digit.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    scatter_kernel(const unsigned int *keys_in, const unsigned int *values_in,
                   unsigned int *keys_out, unsigned int *values_out, size_t n, unsigned int shift,
                   const unsigned int *offsets, size_t tiles)
{
    /* TODO 4.3: sort the tile, find each digit's start, write each key to its offset */
}

/** TODO 4.3: launches ::scatter_kernel, one block per tile (n > 0). */
cudaError_t scatter(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                    unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                    unsigned int shift, const unsigned int *d_offsets)
{
    /* TODO 4.3: one block of THREADS_PER_BLOCK threads per tile */
    KIT_TODO_STUB(d_keys_in, d_values_in, d_keys_out, d_values_out, n, shift, d_offsets);
}

/**
 * TODO 4.3: one pass (n > 0) with the caller's buffers: @p table of RADIX_DIGITS *
 * radix_tile_count(n) entries and @p scratch for its scan. Histograms, scan, scatter.
 */
cudaError_t pass_with(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                      unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                      unsigned int shift, unsigned int *table, unsigned int *scratch)
{
    /* TODO 4.3: the table, its scan in place, the scatter */
    KIT_TODO_STUB(d_keys_in, d_values_in, d_keys_out, d_values_out, n, shift, table, scratch);
}

/**
 * TODO 4.3. The AND and the OR of every key, into `bits[0]` (which must start at 0xFFFFFFFF)
 * and `bits[1]` (which must start at 0): a grid-stride loop, a warp reduction with
 * shuffles, one atomic per warp. A bit that is the same in every key is the same in both; so a
 * digit whose bits agree in `bits[0]` and `bits[1]` is the same in every key: its histogram
 * has one bucket of n keys, and its pass would move nothing.
 */
__global__ void key_bits_kernel(const unsigned int *keys, size_t n, unsigned int *bits)
{
    /* TODO 4.3: every thread reduces its keys, then its warp, then one atomic per warp */
}

/**
 * TODO 4.3: the sort of @p n >= 2 keys (and values) with the buffers @p w: find the bits that
 * vary (your code sets `w->bits` to {0xFFFFFFFF, 0} with two cudaMemset calls, runs
 * ::key_bits_kernel on min(blocks_for(n), ::KEY_BITS_BLOCKS) blocks, and copies the two words
 * to the host: the only device-to-host copy of a sort), then every pass whose digit varies,
 * ping-pong between the caller's buffers and @p w; the result ends in the caller's buffers.
 * @p passes points to a host variable (never NULL): store there the number of passes that
 * ran.
 */
cudaError_t sort_by_digits(unsigned int *d_keys, unsigned int *d_values, size_t n,
                           const work_buffers *w, unsigned int *passes)
{
    /* TODO 4.3: varying bits; passes whose digit varies; the result back in place */
    KIT_TODO_STUB(d_keys, d_values, n, w, passes);
}

/* ------------------------------------------------------------------------------------------
 * TODO 4.4: key types, pairs, descending
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 4.4. Thread i maps key i (its bits, in place) to an unsigned key with the same order:
 * kit_flip_i32() or kit_flip_f32() for the type, then all bits flipped when @p descending (so
 * that the largest key becomes the smallest, and an ascending stable sort gives a descending
 * stable one).
 */
__global__ void flip_in_kernel(unsigned int *bits, size_t n, int type, int descending)
{
    /* TODO 4.4: the type's map, then ~ for descending */
}

/** TODO 4.4. Thread i undoes ::flip_in_kernel on key i: ~ when descending, then the inverse map. */
__global__ void flip_out_kernel(unsigned int *bits, size_t n, int type, int descending)
{
    /* TODO 4.4: ~ for descending, then the type's inverse map */
}

/**
 * TODO 4.4: sorts @p n >= 2 keys of @p type (their bits in @p d_bits) with their values:
 * flip in (when the keys are not plain ascending unsigned ones), sort by digits, flip out.
 */
cudaError_t sort_typed(unsigned int *d_bits, unsigned int *d_values, size_t n, int type,
                       int descending)
{
    /* TODO 4.4: flip in, sort as unsigned, flip out */
    KIT_TODO_STUB(d_bits, d_values, n, type, descending);
}

/* ------------------------------------------------------------------------------------------
 * TODO 4.5 (bonus): single-pass scan with decoupled look-back
 * ------------------------------------------------------------------------------------------ */

/** Where tile position @p p lives in the padded shared tile: one word of padding per 32. */
#define LOOKBACK_PAD(p) ((p) + ((p) >> 5))

/**
 * TODO 4.5. Loads the tile of RADIX_LOOKBACK_TILE values at @p base into @p items in the
 * blocked arrangement (thread t gets tile positions `t * LOOKBACK_ITEMS + k`), through shared
 * memory so that the global reads are coalesced: thread t first reads positions
 * `k * THREADS_PER_BLOCK + t` (a warp reads 32 neighbouring words) into
 * `s_tile[LOOKBACK_PAD(p)]`, then, after a barrier, its own LOOKBACK_ITEMS neighbours (the
 * padding keeps the 32 lanes, which read 16 words apart, on 32 different banks). Values at or
 * past @p n read as 0. Every thread of the block must call it.
 */
__device__ void lookback_load_tile(const unsigned int *in, size_t base, size_t n,
                                   unsigned int *items, unsigned int *s_tile)
{
    /* TODO 4.5: striped reads into shared memory, a barrier, blocked reads from it */
}

/**
 * TODO 4.5. The way back of ::lookback_load_tile: thread t writes its blocked @p items to
 * `s_tile`, and after a barrier writes positions `k * THREADS_PER_BLOCK + t` of the tile to
 * @p out (coalesced), those below @p n only. Every thread of the block must call it, after a
 * barrier that follows the last read of @p s_tile.
 */
__device__ void lookback_store_tile(unsigned int *out, size_t base, size_t n,
                                    const unsigned int *items, unsigned int *s_tile)
{
    /* TODO 4.5: blocked writes to shared memory, a barrier, striped writes out */
}

/**
 * TODO 4.5. Called by the 32 lanes of warp 0 of the block that holds tile @p tile, whose sum
 * is @p aggregate; returns, in every lane, the sum of every value before the tile. Tile 0
 * publishes ::STATUS_P with its aggregate at once. Any other tile first publishes ::STATUS_A
 * with its aggregate (so that later tiles can go on without waiting for its look-back), then
 * looks back over windows of 32 predecessors, lane l reading `status[tile - 1 - 32 j - l]`:
 * while a lane of the window still reads ::STATUS_X the warp reads the window again; then the
 * warp adds up the values from lane 0 up to the first lane that holds a ::STATUS_P (an
 * inclusive prefix: nothing before it is needed), or all 32 aggregates and goes on to the next
 * window. At the end lane 0 publishes ::STATUS_P with prefix + aggregate. Reads and writes of
 * @p status are volatile (never kept in a register or in L1, which is not coherent between
 * SMs), and each is one 64-bit access: status and value come together.
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
__global__ void __launch_bounds__(THREADS_PER_BLOCK, 4)
    scan_lookback_kernel(const unsigned int *in, unsigned int *out, size_t n,
                         unsigned long long *status, unsigned int *counter)
{
    /* TODO 4.5: tile number, load, scan, look-back, add, store */
}

/**
 * TODO 4.5: the single-pass scan of @p n > 0 values with the workspace @p w: zero it (every
 * status ::STATUS_X, the counter 0) with cudaMemsetAsync on the stream of the launch, then
 * one block of THREADS_PER_BLOCK threads per tile.
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
 * each block counts in shared memory (`s_bins[pass][digit]`, shared atomics), thread i
 * reading keys i, i + stride, ... (a grid-stride loop, four keys loaded before they are
 * counted); then thread d adds the block's counts of digit d of every pass to
 * `bins[pass * RADIX_ONESWEEP_DIGITS + d]` (global atomics; @p bins starts at 0).
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK)
    onesweep_histograms_kernel(const unsigned int *keys, size_t n, unsigned int *bins)
{
    /* TODO 4.6: shared counters of every pass, grid-stride count, add to the bins */
}

/**
 * TODO 4.6. Block p turns the counts of pass p (`bins[p * RADIX_ONESWEEP_DIGITS + d]`, thread
 * d's) into their exclusive scan over the digits, in place: where the first key of each
 * digit goes in that pass's output. The block scan of TODO 4.1 with one count per thread.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK) onesweep_scan_bins_kernel(unsigned int *bins)
{
    /* TODO 4.6: one count per thread, the block scan of TODO 4.1 */
}

/**
 * TODO 4.6. Ranks this thread's ONESWEEP_ITEMS keys in the warp, stably: item k of lane l is
 * tile position `warp * 32 * ONESWEEP_ITEMS + k * 32 + l` (the warp-striped arrangement), and
 * `ranks[k]` gets the number of keys with the same digit before it in the warp's part of the
 * tile. For each item, __match_any_sync() gives the lanes with the same digit (its *peers*);
 * the highest peer (the *leader*) reads the warp's counter of the digit in @p s_counts (this
 * warp's RADIX_ONESWEEP_DIGITS counters) and adds the number of peers; each lane's rank is the
 * counter before that plus its peers in lower lanes. A key whose bit k of @p valid is 0 (past
 * the end of the array) has the digit 256, which no real key has, and counts nowhere. On return
 * @p s_counts holds the warp's count of every digit. Every lane of the warp must call it.
 */
__device__ void onesweep_rank_warp(const unsigned int *keys, unsigned int valid, unsigned int shift,
                                   unsigned int *ranks, unsigned int *s_counts)
{
    /* TODO 4.6: match the lanes of one digit; the leader updates the warp's counter */
}

/**
 * TODO 4.6. Called by thread d of the block of tile @p tile, which holds @p count keys of
 * digit d; returns the number of keys of digit d in every tile before this one. Publishes
 * ::STATUS_A with the count (::STATUS_P for tile 0, at once), then walks back tile by tile,
 * reading `status[(t - 1) * RADIX_ONESWEEP_DIGITS + d]` until it is no longer ::STATUS_X,
 * adding its count, and stopping at the first ::STATUS_P; publishes ::STATUS_P with the sum
 * plus its own count. Each status word is one 32-bit ::onesweep_word read and written
 * volatile.
 */
__device__ unsigned int onesweep_lookback(unsigned int *status, unsigned int tile,
                                          unsigned int count)
{
    /* TODO 4.6: publish A, walk back to the first P, publish P */
    return 0;
}

/**
 * TODO 4.6. One pass of the onesweep sort, one block per tile of RADIX_ONESWEEP_TILE keys in
 * the order the blocks start (tile number from @p counter). The block loads its keys (and
 * values) warp-striped, ranks them per warp (::onesweep_rank_warp, counters
 * `s_counts[warp]`), and thread d (one thread per digit) turns the warps' counts of digit d
 * into their exclusive scan over the warps and the tile's count, finds the count of digit d
 * in the tiles before (::onesweep_lookback), and with the exclusive scan of the tile's counts
 * over the digits (::block_exclusive_scan, `start[d]`) sets
 * `offset[d] = bins[d] + before - start[d]`. Each key goes to its sorted tile position
 * `start[d] + s_counts[warp][d] + rank` in shared memory; then thread t writes sorted
 * positions p = t, t + THREADS_PER_BLOCK, ... to `offset[d] + p`: neighbouring threads,
 * neighbouring places. Values follow through the same shared memory, to the same places.
 */
__global__ void __launch_bounds__(THREADS_PER_BLOCK, 3)
    onesweep_pass_kernel(const unsigned int *keys_in, const unsigned int *values_in,
                         unsigned int *keys_out, unsigned int *values_out, size_t n,
                         unsigned int shift, const unsigned int *bins, unsigned int *status,
                         unsigned int *counter)
{
    /* TODO 4.6: tile number, load, rank, look-back per digit, sort in shared, write */
}

/**
 * TODO 4.6: the onesweep sort of @p n >= 2 keys (and values) with the buffers @p w: zero the
 * bins and the counters (one cudaMemsetAsync: they are neighbours), the histograms
 * (::onesweep_histograms_kernel on min(blocks_for(n), ONESWEEP_HISTOGRAM_BLOCKS) blocks), their
 * scans (::onesweep_scan_bins_kernel, one block per pass), then ONESWEEP_PASSES passes, each
 * after a reset of the status words (cudaMemsetAsync), ping-pong between the caller's buffers
 * and @p w: 4 passes, so the last one writes the caller's.
 */
cudaError_t onesweep_sort(unsigned int *d_keys, unsigned int *d_values, size_t n,
                          const onesweep_buffers *w)
{
    /* TODO 4.6: reset, histograms, their scans, four passes with a reset before each */
    KIT_TODO_STUB(d_keys, d_values, n, w);
}
