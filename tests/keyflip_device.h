/* Runs keyflip.h's functions in a kernel (device pointers, n keys of each type). */
#ifndef KIT_TESTS_KEYFLIP_DEVICE_H
#define KIT_TESTS_KEYFLIP_DEVICE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t flip_keys_on_device(const int32_t *ints, const float *floats, size_t n,
                                uint32_t *int_bits, uint32_t *float_bits, int32_t *ints_back,
                                float *floats_back);

#ifdef __cplusplus
}
#endif

#endif
