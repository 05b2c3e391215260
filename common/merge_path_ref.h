/**
 * @file merge_path_ref.h
 * @brief The co-rank of a stable merge, the slow and obvious way: the CPU reference of Lab 02.
 *
 * Lab 02 merges a left run `keys[0 .. mid)` and a right run `keys[mid .. n)`, both sorted,
 * into one sorted run, stably: of two equal keys the left one goes first. Its merge path is
 * the walk through the grid of the two runs that the merge makes, one step per output key
 * (down for a left key, across for a right one); after k outputs the walk is at the point
 * (i, k - i), and that i, the number of left keys among the first k outputs, is the
 * **co-rank** of k.
 *
 * The lab computes the co-rank with a binary search along the diagonal i + j = k (the
 * student's TODO 2.3). This header computes it by doing the merge and counting, which is too
 * slow for a kernel (k steps instead of log k) and too simple to be wrong. Two users:
 * - tests/test_02_mergesort.c compares the student's `mergesort_co_rank()` with it, for every
 *   k of many pairs of runs, and the splits of `mergesort_merge_path_splits()` with the
 *   points of one walk along each merge;
 * - tools/merge_path_diagram.c draws the handout's merge-path grid from it, so the picture
 *   is the path the tests hold the student's search to (and needs no solution file).
 */
#ifndef KIT_MERGE_PATH_REF_H
#define KIT_MERGE_PATH_REF_H

#include <stddef.h>

/** A point of a merge path: @p i keys taken from the left run and @p j from the right. */
typedef struct {
    size_t i; /**< left keys taken: the next left key is `a[i]` */
    size_t j; /**< right keys taken: the next right key is `b[j]` */
} kit_merge_path_point;

/**
 * Walks the merge path of the stable merge of @p a (@p na keys) and @p b (@p nb keys), both
 * sorted ascending, from @p at until `at->i + at->j == k`: one output key per step, taken the
 * way TODO 2.1 takes it: the left key when the right run is used up, or when the left run is
 * not and `a[i] <= b[j]` (the `<=` keeps equal keys in input order); else the right key.
 * @p at must be a point of this path (start at {0, 0}), and `at->i + at->j <= k <= na + nb`
 * (the caller checks). O(k - at->i - at->j) steps: walking on from the last point gives every
 * split of a long merge in one pass over it.
 */
static inline void kit_merge_path_walk(const unsigned int *a, size_t na, const unsigned int *b,
                                       size_t nb, size_t k, kit_merge_path_point *at)
{
    while (at->i + at->j < k) {
        if (at->j == nb || (at->i < na && a[at->i] <= b[at->j])) {
            at->i++;
        } else {
            at->j++;
        }
    }
}

/**
 * The co-rank of output index @p k in the stable merge of `keys[0 .. mid)` (left) and
 * `keys[mid .. n)` (right), the signature of Lab 02's `mergesort_co_rank()`: how many of the
 * first @p k merged keys come from the left run. Both runs sorted ascending, `mid <= n`,
 * `k <= n` (the caller checks; out of range the answer means nothing). The merge path walked
 * from its start, O(k) steps.
 */
static inline size_t kit_merge_co_rank_ref(const unsigned int *keys, size_t n, size_t mid, size_t k)
{
    kit_merge_path_point at = {0, 0};
    kit_merge_path_walk(keys, mid, keys + mid, n - mid, k, &at);
    return at.i;
}

#endif
