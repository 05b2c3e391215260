/**
 * @file mergesort.h
 * @brief Lab 02: stable bottom-up merge sort in three tiers. The API; do not edit.
 *
 * A bottom-up merge sort makes *passes*. Before the pass of *width* `w`, the keys are sorted
 * runs of `w` keys (the last run may be shorter); the pass merges runs `2m` and `2m + 1`
 * into one sorted run of `2w` keys, for every *merge* `m`, reading one buffer and writing the
 * other. A run with no partner (the last one, when the number of runs is odd) is copied as it
 * is. Widths go 1, 2, 4, ... until one run holds all n keys.
 *
 * The merges of one pass are independent, but their number and size change with the width:
 * many tiny merges at first, a few huge ones at the end. So there are three tiers, each a
 * whole pass on its own, and each tested alone:
 * - TODO 2.1, mergesort_pass_thread(): one thread per merge, a serial merge;
 * - TODO 2.2, mergesort_pass_block(): one block per merge, in shared memory, every key
 *   placed by its rank (its index in its own run plus a binary search in the other);
 * - TODO 2.3, mergesort_pass_merge_path(): many blocks per merge, the output cut into pieces
 *   of ::MERGESORT_TILE keys whose ends are found by the co-rank (merge path) search.
 * TODO 2.4, mergesort_sort_pairs(), sorts tiles in shared memory and then picks a tier per
 * pass. TODO 2.5 (a bonus, not graded), mergesort_sort_host_streams(), sorts an array of host
 * memory in chunks over several CUDA streams, its copies overlapping the sort. TODO 2.6 (a
 * bonus, graded as one), mergesort_sort_pairs_reg(), is the same sort with the merges done in
 * registers: ::MERGESORT_REG_ITEMS_PER_THREAD keys per thread, the ModernGPU design.
 *
 * The sort is **stable**: equal keys leave in the order they came in. In every merge, of two
 * equal keys the one from the left run goes first.
 *
 * Keys are `unsigned int`; each may carry an `unsigned int` value that moves with it (value
 * pointers may be NULL everywhere: then only keys move). All GPU functions take device
 * pointers and return `cudaSuccess` or the first CUDA error; `cudaErrorInvalidValue` when the
 * arguments break the rule stated for the function. A TODO not written yet returns
 * `cudaErrorNotSupported`.
 */
#ifndef LAB02_MERGESORT_H
#define LAB02_MERGESORT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "keyflip.h" /* KIT_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Keys one block holds in shared memory: the largest merge of the block tier (widths up to
 * `MERGESORT_TILE / 2`), the output piece of one block of the merge-path tier, and the tiles
 * the whole sort starts from. A power of two.
 */
#define MERGESORT_TILE 2048u

/** The number of merges of the pass of width @p width over @p n keys (a lone run counts). */
KIT_HOST_DEVICE static inline size_t mergesort_merge_count(size_t n, size_t width)
{
    size_t pair = 2 * width;
    return n == 0 ? 0 : (n - 1) / pair + 1;
}

/**
 * The merge-path tier's pieces per merge in the pass of width @p width over @p n keys:
 * enough pieces of ::MERGESORT_TILE output keys for the longest merge, `2 * width` keys or
 * all n when fewer. Every merge gets this many blocks; the last merge may leave some empty.
 */
KIT_HOST_DEVICE static inline size_t mergesort_path_pieces(size_t n, size_t width)
{
    size_t longest = 2 * width < n ? 2 * width : n;
    return longest == 0 ? 1 : (longest - 1) / MERGESORT_TILE + 1;
}

/**
 * The number of splits mergesort_merge_path_splits() writes: `pieces + 1` per merge, with
 * `pieces` = mergesort_path_pieces().
 */
KIT_HOST_DEVICE static inline size_t mergesort_split_count(size_t n, size_t width)
{
    return mergesort_merge_count(n, width) * (mergesort_path_pieces(n, width) + 1);
}

/**
 * TODO 2.1: one pass of width @p width (at least 1) over @p n keys, one thread per merge:
 * thread `m` merges runs `2m` and `2m + 1` of @p d_src_keys into @p d_dst_keys with a serial
 * merge, stable. Values (when both value pointers are not NULL) move with their keys. Every
 * key is written to the destination, including a lone last run. Source and destination must
 * not overlap.
 */
cudaError_t mergesort_pass_thread(const unsigned int *d_src_keys, const unsigned int *d_src_values,
                                  unsigned int *d_dst_keys, unsigned int *d_dst_values, size_t n,
                                  size_t width);

/**
 * TODO 2.2: the same pass, one block per merge: the block copies both runs into shared
 * memory, and each key goes to its index in its own run plus its rank in the other run (for a
 * key of the left run, the number of right keys smaller than it; for a key of the right run,
 * the number of left keys smaller than or equal to it). @p width is at least 1 and at most
 * `MERGESORT_TILE / 2`.
 */
cudaError_t mergesort_pass_block(const unsigned int *d_src_keys, const unsigned int *d_src_values,
                                 unsigned int *d_dst_keys, unsigned int *d_dst_values, size_t n,
                                 size_t width);

/**
 * TODO 2.3, on the host: the co-rank of the stable merge of the left run `keys[0 .. mid)`
 * and the right run `keys[mid .. n)`: how many of the first @p k keys of the merged output
 * come from the left run (so `k - result` come from the right). `0 <= k <= n`, `mid <= n`,
 * both runs sorted. It runs on the CPU the same `__host__ __device__` function the kernels
 * use, so the host tests check it without a GPU. Returns `(size_t)-1` for arguments out of
 * range, and while the TODO is not written.
 */
size_t mergesort_co_rank(const unsigned int *keys, size_t n, size_t mid, size_t k);

/**
 * TODO 2.3: the partition of the pass of width @p width (at least 1) over @p n keys in
 * @p d_keys: for merge `m` and piece boundary `p = 0 .. P` (`P` = mergesort_path_pieces()),
 * `d_splits[m * (P + 1) + p]` gets the co-rank of output index `min(p * MERGESORT_TILE,
 * length of merge m)` in merge `m`, counted from the start of its left run. @p d_splits has
 * room for mergesort_split_count() entries.
 */
cudaError_t mergesort_merge_path_splits(const unsigned int *d_keys, size_t n, size_t width,
                                        size_t *d_splits);

/**
 * TODO 2.3: the same pass as ::mergesort_pass_thread, by merge path: the splits of
 * ::mergesort_merge_path_splits, then one block per piece of ::MERGESORT_TILE output keys,
 * which merges its share of the two runs in shared memory. Any width of at least 1.
 */
cudaError_t mergesort_pass_merge_path(const unsigned int *d_src_keys,
                                      const unsigned int *d_src_values, unsigned int *d_dst_keys,
                                      unsigned int *d_dst_values, size_t n, size_t width);

/**
 * TODO 2.4: sorts every tile of ::MERGESORT_TILE keys (the last may be shorter) in shared
 * memory, stable, in place: the passes of widths 1 .. `MERGESORT_TILE / 2` inside each tile.
 * @p d_values may be NULL.
 */
cudaError_t mergesort_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n);

/**
 * TODO 2.4: sorts @p n key/value pairs, ascending and stable, any n: the tiles, then a pass
 * per width from ::MERGESORT_TILE up, each by the tier that suits its merges, between the
 * caller's buffers and a scratch pair of buffers (ping-pong); the result ends in @p d_keys
 * and @p d_values. @p d_values may be NULL.
 */
cudaError_t mergesort_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n);

/** Sorts keys only: ::mergesort_sort_pairs with no values. */
cudaError_t mergesort_sort_keys(unsigned int *d_keys, size_t n);

/** Most streams mergesort_sort_host_streams() takes. */
#define MERGESORT_MAX_STREAMS 16

/**
 * TODO 2.5 (bonus, not graded: measured by `mergesort --bench --algo streams`): sorts the
 * @p n keys of **host** memory @p h_keys in place, ascending, over @p streams CUDA streams:
 * - chunk `c` (keys `c * chunk ...`, the last may be shorter) is copied to the device and
 *   sorted there (the tiles and merge-path passes of 2.4) on stream `c % streams`, so the copy
 *   of one chunk overlaps the sort of another;
 * - the sorted chunks are merged on the device (merge-path passes of widths `chunk`,
 *   `2 * chunk`, ...);
 * - the last pass is cut into segments of about @p chunk output keys, each merged and copied
 *   back on a stream of its own, so the copy of one segment overlaps the merge of the next.
 *
 * It returns when the sorted keys are in @p h_keys. The copies overlap only when @p h_keys is
 * pinned (page-locked) memory, which the **caller** allocates (`cudaMallocHost`): a lab file
 * may not (see the handout's "What your code may call"). With pageable memory the result is
 * the same, only slower. `cudaErrorInvalidValue` when @p chunk is 0, @p streams is not in
 * `1 .. MERGESORT_MAX_STREAMS`, or @p h_keys is NULL with n > 0.
 */
cudaError_t mergesort_sort_host_streams(unsigned int *h_keys, size_t n, size_t chunk, int streams);

/**
 * Threads per block of the register-blocked sort (TODO 2.6). A power of two: the block's
 * merges then pair runs of equal length.
 */
#define MERGESORT_REG_BLOCK_THREADS 128u

/**
 * Keys each thread of the register-blocked sort (TODO 2.6) holds in registers. Odd: with k of
 * them a thread, thread t's keys `t * k ...` in shared memory start in banks `t * k mod 32`, all
 * different across a warp, so its blocked reads and writes are free of bank conflicts. 19
 * measured fastest on an H100 among 11 to 23 keys with 64, 128 and 256 threads.
 */
#define MERGESORT_REG_ITEMS_PER_THREAD 19u

/** Keys per tile of the register-blocked sort (TODO 2.6): threads times keys per thread. */
#define MERGESORT_REG_TILE (MERGESORT_REG_BLOCK_THREADS * MERGESORT_REG_ITEMS_PER_THREAD)

/**
 * TODO 2.6 (bonus): sorts every tile of ::MERGESORT_REG_TILE keys (the last may be shorter),
 * stable, in place, with the keys in registers: each thread sorts ::MERGESORT_REG_ITEMS_PER_THREAD
 * of them, then the block merges its threads' runs. @p d_values may be NULL.
 */
cudaError_t mergesort_sort_tiles_reg(unsigned int *d_keys, unsigned int *d_values, size_t n);

/**
 * TODO 2.6 (bonus): sorts @p n key/value pairs, ascending and stable, any n, like
 * ::mergesort_sort_pairs, with merges in registers: the tiles of ::mergesort_sort_tiles_reg, then
 * passes of widths ::MERGESORT_REG_TILE, twice that, ..., each a partition (one merge-path split
 * per tile of output) and a merge kernel, one block per tile of output, each thread merging
 * ::MERGESORT_REG_ITEMS_PER_THREAD keys in registers; ping-pong between the caller's buffers and
 * scratch ones, ending in the caller's. @p d_values may be NULL.
 */
cudaError_t mergesort_sort_pairs_reg(unsigned int *d_keys, unsigned int *d_values, size_t n);

/** Sorts keys only: ::mergesort_sort_pairs_reg with no values. */
cudaError_t mergesort_sort_keys_reg(unsigned int *d_keys, size_t n);

#ifdef __cplusplus
}
#endif

#endif
