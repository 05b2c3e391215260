/* Lab 04's API as a graded test reaches it (see remote_api.h): stubs in the verdict process,
 * the student's functions in the executor.
 *
 * Device-to-host budgets: 0 for every function but the full sorts (the onesweep sorts skip no
 * pass, so they copy nothing back either). A full sort decides on the
 * host which passes to skip (a pass whose digit is the same for every key), from the AND and
 * the OR of the keys: 8 bytes copied to the host, once per sort. The budget of 64 bytes leaves
 * room for a sort that brings back one flag word per pass (8 passes of 4-bit digits: 32
 * bytes) instead, and is still far below what a host-side sort of even 16 keys would need. */
#include "radix.h"
#include "remote_api.h"

/** Bytes a full sort may copy to the host: the pass-skipping decision, see above. */
#define RADIX_SORT_D2H_BUDGET 64

KIT_REMOTE_FN3(cudaError_t, radix_scan_block, 0, const unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, radix_scan, 0, const unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN6(cudaError_t, radix_split, 0, const unsigned int *, const unsigned int *,
               unsigned int *, unsigned int *, size_t, unsigned int)
KIT_REMOTE_FN3(cudaError_t, radix_sort_split, 0, unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN4(cudaError_t, radix_histograms, 0, const unsigned int *, size_t, unsigned int,
               unsigned int *)
KIT_REMOTE_FN4(cudaError_t, radix_sort_tiles, 0, unsigned int *, unsigned int *, size_t,
               unsigned int)
KIT_REMOTE_FN7(cudaError_t, radix_scatter, 0, const unsigned int *, const unsigned int *,
               unsigned int *, unsigned int *, size_t, unsigned int, const unsigned int *)
KIT_REMOTE_FN6(cudaError_t, radix_pass, 0, const unsigned int *, const unsigned int *,
               unsigned int *, unsigned int *, size_t, unsigned int)
KIT_REMOTE_FN4(cudaError_t, radix_sort_counted, RADIX_SORT_D2H_BUDGET, unsigned int *,
               unsigned int *, size_t, unsigned int *)
KIT_REMOTE_FN4(cudaError_t, radix_sort_pairs, RADIX_SORT_D2H_BUDGET, unsigned int *, unsigned int *,
               size_t, int)
KIT_REMOTE_FN3(cudaError_t, radix_sort_keys, RADIX_SORT_D2H_BUDGET, unsigned int *, size_t, int)
KIT_REMOTE_FN4(cudaError_t, radix_sort_i32, RADIX_SORT_D2H_BUDGET, int *, unsigned int *, size_t,
               int)
KIT_REMOTE_FN4(cudaError_t, radix_sort_f32, RADIX_SORT_D2H_BUDGET, float *, unsigned int *, size_t,
               int)
KIT_REMOTE_FN3(cudaError_t, radix_scan_lookback, 0, const unsigned int *, unsigned int *, size_t)
KIT_REMOTE_FN2(cudaError_t, radix_sort_onesweep_keys, 0, unsigned int *, size_t)
KIT_REMOTE_FN3(cudaError_t, radix_sort_onesweep_pairs, 0, unsigned int *, unsigned int *, size_t)
