/**
 * @file cpu_sort.h
 * @brief CPU reference sorts: a stable merge sort and an LSD radix sort with byte counters.
 *
 * Two independent algorithms, so each checks the other (the host suites run both on every
 * distribution). All sorts are ascending in the order of keyflip.h: for floats
 * `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`.
 *
 * The radix sort follows the Russian lab notes of docs/sources.md (004): four passes of 8 bits,
 * least significant byte first, each a counting sort (count, exclusive prefix sum, scatter). A pass
 * whose byte is the same for every key changes nothing and is skipped. Signed keys need a different
 * last pass (bucket 0x80..0xFF, the negatives, first); float keys too (negatives first, in
 * reverse bucket order and reversed inside each bucket, since a larger magnitude is smaller).
 */
#ifndef KIT_CPU_SORT_H
#define KIT_CPU_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Stable merge sort of unsigned keys. Returns 0, or -1 when memory runs out. */
int kit_cpu_merge_sort_u32(uint32_t *keys, size_t n);
/** Stable merge sort of signed keys. */
int kit_cpu_merge_sort_i32(int32_t *keys, size_t n);
/** Stable merge sort of floats in the kit's total order. */
int kit_cpu_merge_sort_f32(float *keys, size_t n);
/** Stable merge sort of key/value pairs by key: equal keys keep their values' order. */
int kit_cpu_merge_sort_pairs_u32(uint32_t *keys, uint32_t *values, size_t n);

/** LSD radix sort of unsigned keys (stable). Returns 0, or -1 when memory runs out. */
int kit_cpu_radix_sort_u32(uint32_t *keys, size_t n);
/** LSD radix sort of signed keys: the last pass puts the negative buckets first. */
int kit_cpu_radix_sort_i32(int32_t *keys, size_t n);
/** LSD radix sort of floats: the last pass puts negatives first, reversed. */
int kit_cpu_radix_sort_f32(float *keys, size_t n);

#ifdef __cplusplus
}
#endif

#endif
