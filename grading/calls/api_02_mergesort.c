/* Lab 02's API as a graded test reaches it (see remote_api.h): stubs in the verdict process,
 * the student's functions in the executor. A sort copies nothing to the host (budget 0). The
 * co-rank runs on the host: its two runs travel to the executor as one array (keys[0 .. mid)
 * and keys[mid .. n)), so its host tests are graded like any other. */
#include "mergesort.h"
#include "remote_api.h"

KIT_REMOTE_FN6(cudaError_t, mergesort_pass_thread, 0, const unsigned int *, const unsigned int *,
               unsigned int *, unsigned int *, size_t, size_t)
KIT_REMOTE_FN6(cudaError_t, mergesort_pass_block, 0, const unsigned int *, const unsigned int *,
               unsigned int *, unsigned int *, size_t, size_t)
KIT_REMOTE_ARRAY_FN4(size_t, mergesort_co_rank, unsigned int, size_t, size_t)
KIT_REMOTE_FN4(cudaError_t, mergesort_merge_path_splits, 0, const unsigned int *, size_t, size_t,
               size_t *)
KIT_REMOTE_FN6(cudaError_t, mergesort_pass_merge_path, 0, const unsigned int *,
               const unsigned int *, unsigned int *, unsigned int *, size_t, size_t)
KIT_REMOTE_FN3(cudaError_t, mergesort_sort_tiles, 0, unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, mergesort_sort_pairs, 0, unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN2(cudaError_t, mergesort_sort_keys, 0, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, mergesort_sort_tiles_reg, 0, unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, mergesort_sort_pairs_reg, 0, unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN2(cudaError_t, mergesort_sort_keys_reg, 0, unsigned int *, size_t)
