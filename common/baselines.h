/**
 * @file baselines.h
 * @brief What the labs' benchmarks compare against, measured in the same run: CUB's radix
 * sort (of keys, and of key-value pairs) and merge sort on the GPU, std::sort on one CPU
 * core, and the device-to-device copy.
 *
 * These are the only places where the kit uses CUB or the C++ library: labs and solutions
 * never do. Each function times @p reps runs after one warm-up and returns the median in
 * milliseconds through @p ms (GPU events for GPU work, the host clock for std::sort).
 */
#ifndef KIT_BASELINES_H
#define KIT_BASELINES_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "bench_csv.h"

#ifdef __cplusplus
extern "C" {
#endif

/** cub::DeviceRadixSort::SortKeys on a device copy of @p d_keys (which is not changed). */
cudaError_t kit_baseline_cub_radix_ms(const unsigned int *d_keys, size_t n, int reps, double *ms);

/** cub::DeviceRadixSort::SortPairs on a device copy of @p d_keys, each key carrying a 32-bit
 * value (0, 1, ..., n - 1, written once before the timed runs): the baseline of a lab's
 * tier that sorts key-value pairs (::kit_driver_algo::pairs), which moves twice the bytes of
 * a sort of keys alone. */
cudaError_t kit_baseline_cub_radix_pairs_ms(const unsigned int *d_keys, size_t n, int reps,
                                            double *ms);

/** cub::DeviceMergeSort::SortKeys on a device copy of @p d_keys. */
cudaError_t kit_baseline_cub_merge_ms(const unsigned int *d_keys, size_t n, int reps, double *ms);

/** std::sort of a host copy of @p keys, one CPU core. */
int kit_baseline_std_sort_ms(const unsigned int *keys, size_t n, int reps, double *ms);

/** Device-to-device copy of @p bytes; @p gbps gets GB/s counting bytes read and written. */
cudaError_t kit_baseline_copy_gbps(size_t bytes, int reps, double *gbps);

/** Where a bench row was measured: @p row's device (this GPU's name), driver (its CUDA driver
 * version) and commit (`KIT_COMMIT` from the environment, else "unknown"). Here, beside the
 * baselines, because only a lab's own driver links it (the grader's timed driver does not). */
cudaError_t kit_baseline_describe_row(kit_bench_row *row);

#ifdef __cplusplus
}
#endif

#endif
