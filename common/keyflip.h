/**
 * @file keyflip.h
 * @brief Order-preserving bit flips: signed and float keys sorted as unsigned ones.
 *
 * A radix sort compares bit patterns as unsigned numbers. These maps turn a signed or a
 * float key into an `unsigned int` whose unsigned order is the key's order, and back:
 * - signed: flip the sign bit, so INT_MIN maps to 0 and INT_MAX to UINT_MAX;
 * - float: a positive float (sign 0) gets its sign bit set, so it lands above every
 *   negative; a negative float gets all bits flipped, so a larger magnitude becomes a
 *   smaller number.
 *
 * The float order this gives is total and is the order the whole kit uses:
 * `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`
 * (NaNs by their sign bit; -0.0 strictly before +0.0).
 *
 * The functions are `static inline` and marked for host and device, so the same code runs
 * in a test on the CPU and in a kernel.
 */
#ifndef KIT_KEYFLIP_H
#define KIT_KEYFLIP_H

#include <stdint.h>

#include "host_device.h"

/** Maps a signed key to an unsigned one with the same order. */
KIT_HOST_DEVICE static inline uint32_t kit_flip_i32(int32_t key)
{
    return (uint32_t)key ^ 0x80000000u;
}

/** Inverse of ::kit_flip_i32. */
KIT_HOST_DEVICE static inline int32_t kit_unflip_i32(uint32_t bits)
{
    return (int32_t)(bits ^ 0x80000000u);
}

/** The bits of a float, without undefined behaviour in C or CUDA. */
KIT_HOST_DEVICE static inline uint32_t kit_float_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } pun;
    pun.f = f;
    return pun.u;
}

/** The float with these bits. */
KIT_HOST_DEVICE static inline float kit_bits_float(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } pun;
    pun.u = u;
    return pun.f;
}

/** Maps a float key to an unsigned one with the kit's total float order. */
KIT_HOST_DEVICE static inline uint32_t kit_flip_f32(float key)
{
    uint32_t bits = kit_float_bits(key);
    uint32_t mask = (bits & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
    return bits ^ mask;
}

/** Inverse of ::kit_flip_f32. */
KIT_HOST_DEVICE static inline float kit_unflip_f32(uint32_t bits)
{
    uint32_t mask = (bits & 0x80000000u) ? 0x80000000u : 0xFFFFFFFFu;
    return kit_bits_float(bits ^ mask);
}

#endif
