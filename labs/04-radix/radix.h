/**
 * @file radix.h
 * @brief Lab 04: radix sort built on scan. The API; do not edit.
 *
 * An LSD radix sort looks at the keys ::RADIX_BITS bits at a time, least significant digit
 * first, and in each *pass* moves every key to its place in a stable counting sort by that
 * digit. Each pass is built from a scan (a prefix sum):
 * - TODO 4.1, scan: the exclusive scan of one block (radix_scan_block()) and of any n
 *   (radix_scan(): scan the blocks' sums, then every block with its offset);
 * - TODO 4.2, split by one bit: the 1-bit pass of the seed text, a scan of the bits gives each
 *   key its place (radix_split()), and the 32-pass sort made of it (radix_sort_split());
 * - TODO 4.3, digits: per-tile digit histograms (radix_histograms()), one scan of that table
 *   (laid out digit-major, so that the scan gives every tile its offset for every digit), a
 *   stable sort of each tile by the digit in shared memory (radix_sort_tiles()), so that the
 *   scatter (radix_scatter()) writes runs of neighbouring keys; one whole pass
 *   (radix_pass()); the sort that skips passes whose digit is the same for every key
 *   (radix_sort_counted());
 * - TODO 4.4, key types and pairs: signed and float keys through the order-preserving bit
 *   flips of keyflip.h, key/value pairs, descending order;
 * - TODO 4.5 (bonus), single-pass scan: the scan of any n in one launch, each tile finding its
 *   offset by *decoupled look-back* at the tiles before it (radix_scan_lookback());
 * - TODO 4.6 (bonus), onesweep: the radix sort of 8-bit digits that reads and writes the keys
 *   once per pass, its offsets found by look-back (radix_sort_onesweep_keys(),
 *   radix_sort_onesweep_pairs()).
 *
 * Keys are `unsigned int` unless a function says otherwise; each key may carry an
 * `unsigned int` value (`d_values` NULL: keys only). Every sort here is **stable**: keys that
 * compare equal keep the order they had in the input, with their values. All functions take
 * device pointers and return `cudaSuccess` or the first CUDA error; `cudaErrorInvalidValue`
 * when the arguments break the rule stated for the function. A TODO not written yet returns
 * `cudaErrorNotSupported`.
 */
#ifndef LAB04_RADIX_H
#define LAB04_RADIX_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "keyflip.h"   /* KIT_HOST_DEVICE, the key flips */
#include "kit_tiles.h" /* kit_num_tiles(): the tiles of n keys */

#ifdef __cplusplus
extern "C" {
#endif

#ifndef RADIX_BITS
/**
 * Bits per digit: 4 (16 digits, 8 passes). The handout's table asks you to try 8 (256 digits,
 * 4 passes): build a second tree with `make BUILD=build-r8 LAB=04 NVCCFLAGS_04-radix=-DRADIX_BITS=8
 * CC="gcc -DRADIX_BITS=8"` (the handout says more). It must divide 32.
 */
#define RADIX_BITS 4u
#endif

/** Digits: the number of buckets of one pass. */
#define RADIX_DIGITS (1u << RADIX_BITS)

/** Passes of a full sort of 32-bit keys. */
#define RADIX_PASSES (32u / RADIX_BITS)

/** Keys per tile: what one block histograms, sorts in shared memory and scatters. */
#define RADIX_TILE 1024u

/** Items per block of the scan: radix_scan_block() scans at most this many. */
#define RADIX_SCAN_TILE 1024u

/** Items per tile of the single-pass scan (TODO 4.5): 256 threads, 32 items each. */
#define RADIX_LOOKBACK_TILE 8192u

/** Bits per digit of the onesweep sort (TODO 4.6), whatever ::RADIX_BITS is: 4 passes. */
#define RADIX_ONESWEEP_BITS 8u

/** Digits of a onesweep pass: 256. */
#define RADIX_ONESWEEP_DIGITS (1u << RADIX_ONESWEEP_BITS)

/** Keys per tile of a onesweep pass (TODO 4.6): 256 threads, 24 keys each. */
#define RADIX_ONESWEEP_TILE 6144u

/**
 * The largest n the onesweep sort takes: 2^30 - 1 keys. Its look-back words hold a count in
 * 30 bits and a status in 2 (see the handout).
 */
#define RADIX_ONESWEEP_MAX_N ((1u << 30) - 1u)

/** The digit of @p key that the pass of bit offset @p shift sorts by (shift 0, RADIX_BITS, ...). */
KIT_HOST_DEVICE static inline unsigned int radix_digit(unsigned int key, unsigned int shift)
{
    return (key >> shift) & (RADIX_DIGITS - 1u);
}

/**
 * Where the count of digit @p digit in tile @p tile lives in the histogram table of an array of
 * @p tiles tiles: digit-major, `digit * tiles + tile`. All the counts of digit 0 come first
 * (tile 0, 1, ...), then those of digit 1, and so on: that is the order in which a stable sort
 * by the digit places the keys, so one exclusive scan of the table gives, at this index, the
 * output position of the first key of @p tile that has @p digit.
 */
KIT_HOST_DEVICE static inline size_t radix_table_index(unsigned int digit, size_t tile,
                                                       size_t tiles)
{
    return (size_t)digit * tiles + tile;
}

/* ---- TODO 4.1: scan ------------------------------------------------------------------------ */

/**
 * TODO 4.1: the exclusive scan of @p n <= ::RADIX_SCAN_TILE values by one block:
 * `d_out[i] = d_in[0] + ... + d_in[i - 1]` (`d_out[0] = 0`), sums modulo 2^32 (they wrap, as
 * unsigned sums do). @p d_out may be @p d_in (in place). n > ::RADIX_SCAN_TILE:
 * `cudaErrorInvalidValue`.
 */
cudaError_t radix_scan_block(const unsigned int *d_in, unsigned int *d_out, size_t n);

/**
 * TODO 4.1: the exclusive scan of any @p n values (sums modulo 2^32), in three steps: the sum
 * of every block of ::RADIX_SCAN_TILE values, the exclusive scan of those sums (recursively:
 * they may be more than one block), and the scan of every block started from its offset.
 * @p d_out may be @p d_in. Allocates its own scratch room (a few KiB per MiB of input).
 */
cudaError_t radix_scan(const unsigned int *d_in, unsigned int *d_out, size_t n);

/* ---- TODO 4.2: split by one bit ---------------------------------------------------------------
 */

/**
 * TODO 4.2's rule, written here once (the split kernel, the driver's figure and the handout
 * use it): where key @p i goes in the stable split of n keys by one bit. @p flag is its bit (0
 * or 1), @p ones_before the number of keys with bit 1 before it (the exclusive scan of the
 * flags, at i) and @p zeros the number of keys with bit 0 among all n. A 0 goes after the
 * zeros before it, a 1 after every zero and the ones before it.
 */
KIT_HOST_DEVICE static inline size_t radix_split_place(size_t i, unsigned int flag,
                                                       size_t ones_before, size_t zeros)
{
    return flag ? zeros + ones_before : i - ones_before;
}

/**
 * TODO 4.2: the stable split of @p n keys by bit @p bit (0..31): every key whose bit is 0,
 * in input order, then every key whose bit is 1, in input order, written to @p d_keys_out
 * (and the values, when @p d_values_in is not NULL, to @p d_values_out, which must then not
 * be NULL: cudaErrorInvalidValue; with no values in, @p d_values_out is not used): key i to
 * radix_split_place(). The output buffers must not overlap the input.
 */
cudaError_t radix_split(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                        unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                        unsigned int bit);

/**
 * TODO 4.2: sorts @p n keys (and values) in place, ascending, with 32 splits, bit 0 first:
 * the seed text's sort, the slow baseline of the handout. Stable. @p d_values may be NULL.
 */
cudaError_t radix_sort_split(unsigned int *d_keys, unsigned int *d_values, size_t n);

/* ---- TODO 4.3: digits ----------------------------------------------------------------------- */

/**
 * TODO 4.3: the histogram table of the pass of bit offset @p shift: for every tile `t` of
 * ::RADIX_TILE keys and every digit `d`, the number of keys of tile `t` whose
 * radix_digit(key, shift) is `d`, written to `d_table[radix_table_index(d, t, tiles)]`, with
 * `tiles` = kit_num_tiles(n, ::RADIX_TILE). @p d_table has ::RADIX_DIGITS * tiles entries.
 * @p shift is a multiple of ::RADIX_BITS below 32.
 */
cudaError_t radix_histograms(const unsigned int *d_keys, size_t n, unsigned int shift,
                             unsigned int *d_table);

/**
 * TODO 4.3: sorts every tile of ::RADIX_TILE keys (the last may be partial) in place, stably,
 * by radix_digit(key, shift), in shared memory: ::RADIX_BITS splits by one bit, each built on
 * the block scan of TODO 4.1. Keys of different tiles never mix. @p d_values may be NULL.
 */
cudaError_t radix_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                             unsigned int shift);

/**
 * TODO 4.3: the scatter of one pass. @p d_offsets is the exclusive scan of the histogram
 * table of @p d_keys_in for @p shift (see radix_histograms()). Each tile is sorted by the
 * digit in shared memory, and its key at tile position `p`, whose digit `d` starts at `s_d`
 * in the sorted tile, goes to `d_offsets[radix_table_index(d, t, tiles)] + p - s_d`: keys of
 * one digit of one tile go to neighbouring places. The result is the input sorted stably by
 * the digit. Output buffers must not overlap the input; @p d_values_in may be NULL (then
 * @p d_values_out is not used), and when it is not, @p d_values_out must not be NULL
 * (cudaErrorInvalidValue).
 */
cudaError_t radix_scatter(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                          unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                          unsigned int shift, const unsigned int *d_offsets);

/**
 * TODO 4.3: one whole pass: histograms, the scan of the table, the scatter. The output is the
 * input sorted stably by radix_digit(key, shift). Output buffers must not overlap the input;
 * @p d_values_in may be NULL (then @p d_values_out is not used), and when it is not,
 * @p d_values_out must not be NULL (cudaErrorInvalidValue).
 */
cudaError_t radix_pass(const unsigned int *d_keys_in, const unsigned int *d_values_in,
                       unsigned int *d_keys_out, unsigned int *d_values_out, size_t n,
                       unsigned int shift);

/**
 * TODO 4.3: sorts @p n keys (and values) in place, ascending and stable, with ::RADIX_PASSES
 * passes of ::RADIX_BITS bits, least significant digit first, skipping every pass whose digit
 * is the same for every key (such a pass would move nothing). When @p d_passes is not NULL,
 * the number of passes that ran is written there, in device memory (one `unsigned int`):
 * keys below 2^16 take ::RADIX_PASSES / 2 passes or fewer. @p d_values may be NULL.
 */
cudaError_t radix_sort_counted(unsigned int *d_keys, unsigned int *d_values, size_t n,
                               unsigned int *d_passes);

/* ---- TODO 4.4: key types, pairs, descending ------------------------------------------------- */

/**
 * TODO 4.4: sorts @p n unsigned key/value pairs in place, stable, ascending (descending when
 * @p descending: then equal keys still keep their input order). @p d_values may be NULL.
 */
cudaError_t radix_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                             int descending);

/** Sorts keys only: radix_sort_pairs() with no values. */
cudaError_t radix_sort_keys(unsigned int *d_keys, size_t n, int descending);

/**
 * TODO 4.4: sorts @p n signed keys (and values) in place, stable: each key goes through
 * kit_flip_i32() on the way in and kit_unflip_i32() on the way out, and is sorted as an
 * unsigned key in between. @p d_values may be NULL.
 */
cudaError_t radix_sort_i32(int *d_keys, unsigned int *d_values, size_t n, int descending);

/**
 * TODO 4.4: sorts @p n float keys (and values) in place, stable, in the kit's total order
 * (keyflip.h): `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, through kit_flip_f32()
 * and kit_unflip_f32(). Every key comes back with the bits it went in with. @p d_values may
 * be NULL.
 */
cudaError_t radix_sort_f32(float *d_keys, unsigned int *d_values, size_t n, int descending);

/* ---- TODO 4.5 (bonus): single-pass scan with decoupled look-back ----------------------------- */

/**
 * TODO 4.5 (bonus): the exclusive scan of any @p n values (sums modulo 2^32), the same contract
 * as radix_scan() (@p d_out may be @p d_in), in **one** pass over the data: each block takes
 * the next tile of ::RADIX_LOOKBACK_TILE values (its number from an atomic counter), publishes
 * its sum, finds the sum of every value before its tile by looking back at the tiles before
 * it, publishes its inclusive prefix, and writes its tile. Reads n words and writes n words.
 * Allocates a small workspace (8 bytes per tile).
 */
cudaError_t radix_scan_lookback(const unsigned int *d_in, unsigned int *d_out, size_t n);

/* ---- TODO 4.6 (bonus): onesweep radix sort --------------------------------------------------- */

/**
 * TODO 4.6 (bonus): sorts @p n keys in place, ascending and stable, by the onesweep method:
 * one read of the keys computes the histograms of all four 8-bit digits, then each of the four
 * passes reads and writes the keys once, every tile of ::RADIX_ONESWEEP_TILE keys finding its
 * offset for every digit by look-back at the tiles before it. @p n above
 * ::RADIX_ONESWEEP_MAX_N: cudaErrorInvalidValue.
 */
cudaError_t radix_sort_onesweep_keys(unsigned int *d_keys, size_t n);

/**
 * TODO 4.6 (bonus): radix_sort_onesweep_keys() with a value for each key (@p d_values NULL:
 * keys only), in place, ascending and stable: equal keys keep their input order, with their
 * values.
 */
cudaError_t radix_sort_onesweep_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
