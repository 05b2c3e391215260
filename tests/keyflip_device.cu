/* Device side of the key-flip round-trip test: the same keyflip.h functions, run in a
 * kernel, so the host suite can compare them with the host's. */
#include "cuda_check.h"
#include "keyflip.h"
#include "keyflip_device.h"

/** Thread i flips key i of each type and unflips it again. */
__global__ void flip_keys_kernel(const int32_t *ints, const float *floats, size_t n,
                                 uint32_t *int_bits, uint32_t *float_bits, int32_t *ints_back,
                                 float *floats_back)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int_bits[i] = kit_flip_i32(ints[i]);
        float_bits[i] = kit_flip_f32(floats[i]);
        ints_back[i] = kit_unflip_i32(int_bits[i]);
        floats_back[i] = kit_unflip_f32(float_bits[i]);
    }
}

extern "C" cudaError_t flip_keys_on_device(const int32_t *ints, const float *floats, size_t n,
                                           uint32_t *int_bits, uint32_t *float_bits,
                                           int32_t *ints_back, float *floats_back)
{
    if (n == 0) {
        return cudaSuccess;
    }
    unsigned blocks = (unsigned)((n + 255) / 256);
    flip_keys_kernel<<<blocks, 256>>>(ints, floats, n, int_bits, float_bits, ints_back,
                                      floats_back);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaDeviceSynchronize());
    return cudaSuccess;
}
