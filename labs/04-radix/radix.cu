/**
 * @file radix.cu
 * @brief Lab 04: radix sort built on scan. Your file: fill in the TODOs.
 *
 * Read labs/04-radix/README.md first. Each TODO is tested on its own:
 * `build/student/test_04_radix -s 4.1_scan` runs the tests of TODO 4.1, and so on. The bonus
 * TODOs 4.5 and 4.6 are in radix_bonus.cu; their kernels call your block_exclusive_scan().
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

/* Given, in radix_given.cuh (read it once: your code calls much of it): KEY_BITS_BLOCKS;
 * load_items() and store_items(); the buffers (scan_scratch_count(), work_buffers) and sort_u32();
 * key_type; and the API functions of TODOs 4.1 to 4.4 that only check their arguments, allocate and
 * call yours (all but radix_scan_block). RADIX_ITEMS_PER_THREAD, WARPS and FULL_MASK are
 * radix_common.cuh's; KIT_BLOCK_THREADS, kit_blocks_for(), kit_num_tiles() and kit_tile_keys() are
 * common/kit_device.cuh's. */
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
 * TODO 4.1. The exclusive scan of the block's KIT_BLOCK_THREADS * RADIX_ITEMS_PER_THREAD items, in
 * the blocked arrangement (thread t holds the RADIX_ITEMS_PER_THREAD consecutive items from
 * `t * RADIX_ITEMS_PER_THREAD` on): each thread scans its own items serially (work-efficient: one
 * add per item), the threads' sums are scanned by a warp scan in each warp,
 * the warps' sums (in @p s_warp, WARPS + 1 words of shared memory) by warp 0, and each thread adds
 * what comes before it. Warp 0 leaves in `s_warp[w]` what the warps before warp w hold, and in the
 * extra word `s_warp[WARPS]` the block's sum, which every thread reads into @p total after a
 * barrier. Every thread of the block must call it (it has barriers); it leaves @p s_warp free for
 * reuse. The bonus kernels of radix_bonus.cu call it too: keep its name and parameters.
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
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
    scan_blocks_kernel(const unsigned int *in, unsigned int *out, size_t n,
                       const unsigned int *offsets)
{
    /* TODO 4.1: load, scan, add the block's offset, store */
}

/**
 * TODO 4.1. Block b writes the sum of block b of the input (items `b * RADIX_SCAN_TILE` ...)
 * to `sums[b]`: the first step of a multi-block scan.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
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
    /* TODO 4.1: one block of KIT_BLOCK_THREADS threads, no offsets */
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
 * TODO 4.2. Thread i moves key i (and its value) to radix_split_place() of its bit,
 * `ones_before[i]` and `zeros`: @p ones_before is the exclusive scan of the flags, and `zeros`
 * is n less the keys with bit 1, `ones_before[n - 1]` plus the bit of the last key.
 */
__global__ void split_scatter_kernel(const unsigned int *keys_in, const unsigned int *values_in,
                                     unsigned int *keys_out, unsigned int *values_out, size_t n,
                                     unsigned int bit, const unsigned int *ones_before)
{
    /* TODO 4.2: count the zeros, then radix_split_place() gives key i its place */
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
 * `b * RADIX_TILE + k * KIT_BLOCK_THREADS + t` (coalesced); then thread d (and d +
 * KIT_BLOCK_THREADS, ...) adds the warps' counts of digit d and writes them to the table,
 * digit-major.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
    histogram_kernel(const unsigned int *keys, size_t n, unsigned int shift, unsigned int *table,
                     size_t tiles)
{
    /* TODO 4.3: zero the counters, count with shared atomics, add the warps' counts */
}

/** TODO 4.3: launches ::histogram_kernel, one block per tile (n > 0). */
cudaError_t histograms(const unsigned int *d_keys, size_t n, unsigned int shift,
                       unsigned int *d_table)
{
    /* TODO 4.3: one block of KIT_BLOCK_THREADS threads per tile */
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
 * place, thread t writing tile positions t, t + KIT_BLOCK_THREADS, ... from shared memory
 * (coalesced).
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
    sort_tiles_kernel(unsigned int *keys, unsigned int *values, size_t n, unsigned int shift)
{
    /* TODO 4.3: load (padding 0xFFFFFFFF), sort the tile, store the real keys */
}

/** TODO 4.3: launches ::sort_tiles_kernel, one block per tile (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, unsigned int shift)
{
    /* TODO 4.3: one block of KIT_BLOCK_THREADS threads per tile */
    KIT_TODO_STUB(d_keys, d_values, n, shift);
}

/**
 * TODO 4.3. The scatter of one pass. Block b sorts tile b by the digit (as
 * ::sort_tiles_kernel), finds where each digit starts in the sorted tile (position p starts
 * digit d when p is 0 or the key before has another digit), reads its offsets from the scanned
 * table, and writes the key at tile position p, digit d, to
 * `offsets[radix_table_index(d, b, tiles)] + p - start[d]`, thread t writing positions
 * t, t + KIT_BLOCK_THREADS, ...: neighbouring threads write neighbouring places, runs of one digit.
 */
__global__ void __launch_bounds__(KIT_BLOCK_THREADS)
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
    /* TODO 4.3: one block of KIT_BLOCK_THREADS threads per tile */
    KIT_TODO_STUB(d_keys_in, d_values_in, d_keys_out, d_values_out, n, shift, d_offsets);
}

/**
 * TODO 4.3: one pass (n > 0) with the caller's buffers: @p table of RADIX_DIGITS *
 * kit_num_tiles(n, RADIX_TILE) entries and @p scratch for its scan. Histograms, scan, scatter.
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
 * ::key_bits_kernel on min(kit_blocks_for(n), ::KEY_BITS_BLOCKS) blocks, and copies the two words
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
