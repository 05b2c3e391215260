/* Lab 05's API as a graded test reaches it (see remote_api.h): stubs in the verdict process,
 * the student's functions in the executor. A sort copies nothing to the host, with two
 * exceptions: the dynamic-parallelism sorts read back their tree's launch-failure counter
 * (4 bytes; 16 allowed), and the host loop reads 24 bytes of counters per level to size the
 * next level's launches (QUICKSORT_LOOP_READBACK_BYTES in all). */
#include "quicksort.h"
#include "remote_api.h"

KIT_REMOTE_FN3(cudaError_t, quicksort_simple, 16, unsigned int *, size_t, size_t)
KIT_REMOTE_FN5(cudaError_t, quicksort_partition, 0, const unsigned int *, unsigned int *, size_t,
               unsigned int, unsigned long long *)
KIT_REMOTE_FN3(cudaError_t, quicksort_choose_pivot, 0, const unsigned int *, size_t, unsigned int *)
KIT_REMOTE_FN3(cudaError_t, quicksort_sort_small, 0, unsigned int *, size_t, size_t)
KIT_REMOTE_FN2(cudaError_t, quicksort_sort_fallback, 0, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, quicksort_sort, 16, unsigned int *, size_t, size_t)
KIT_REMOTE_FN2(cudaError_t, quicksort_sort_host_loop, QUICKSORT_LOOP_READBACK_BYTES, unsigned int *,
               size_t)
