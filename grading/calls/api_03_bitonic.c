/* Lab 03's API as a graded test reaches it (see remote_api.h): stubs in the verdict process,
 * the student's functions in the executor. A sort copies nothing to the host (budget 0). */
#include "bitonic.h"
#include "remote_api.h"

KIT_REMOTE_FN4(cudaError_t, bitonic_sort_tiles, 0, unsigned int *, unsigned int *, size_t, int)
KIT_REMOTE_FN6(cudaError_t, bitonic_merge_global, 0, unsigned int *, unsigned int *, size_t, size_t,
               size_t, int)
KIT_REMOTE_FN5(cudaError_t, bitonic_merge_shared, 0, unsigned int *, unsigned int *, size_t, size_t,
               int)
KIT_REMOTE_FN4(cudaError_t, bitonic_sort_pairs, 0, unsigned int *, unsigned int *, size_t, int)
KIT_REMOTE_FN3(cudaError_t, bitonic_sort_keys, 0, unsigned int *, size_t, int)
KIT_REMOTE_FN5(cudaError_t, bitonic_sort_batch, 0, unsigned int *, unsigned int *, size_t, size_t,
               int)
KIT_REMOTE_FN5(cudaError_t, bitonic_sort_multistride_batch, 0, unsigned int *, unsigned int *,
               size_t, size_t, int)
KIT_REMOTE_FN4(cudaError_t, bitonic_sort_multistride_pairs, 0, unsigned int *, unsigned int *,
               size_t, int)
KIT_REMOTE_FN3(cudaError_t, bitonic_sort_multistride_keys, 0, unsigned int *, size_t, int)
