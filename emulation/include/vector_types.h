/*
 * vector_types.h of the kit's CPU emulation (emulation/README.md): dim3 and CUDA's vector types,
 * with CUDA's sizes and alignments, for C and C++. cuda_runtime_api.h includes it; a .cu file may
 * include it by name, as with nvcc.
 *
 * Every type is a plain struct of x (, y, z, w), as in CUDA (no constructors: `float4 v = {1, 2,
 * 3, 4}` or make_float4(), vector_functions.h). The alignments are CUDA's on a 64-bit Linux host,
 * which the GPU shares: a two- or four-component vector is aligned to its whole size up to 16
 * bytes (char2 2, char4 4, short2 4, short4 8, int2/uint2/float2 8, int4/uint4/float4 16,
 * long2/longlong2/double2 16, and 16 for the 32-byte long4, longlong4, double4); one- and
 * three-component vectors have their component's alignment (float3: 12 bytes, aligned 4). So
 * reinterpret_cast<float4 *>(p)[i] needs p 16-byte aligned, as on a GPU, where cudaMalloc's
 * pointers are. CUDA 13's long4_16a ... double4_32a, which name their alignment, are here too.
 */
#if !defined(KIT_EMU_CUDA_RUNTIME_API_H)
/* Included first, by name: the API header defines __align__ and KIT_EMU_HD, then includes this
 * file, whose guard below then keeps it from being read twice. */
#include "cuda_runtime_api.h"
#endif

#ifndef KIT_EMU_VECTOR_TYPES_H
#define KIT_EMU_VECTOR_TYPES_H
/* CUDA's own guard of this header, which code may test. */
#define __VECTOR_TYPES_H__

#ifdef __cplusplus
extern "C" {
#endif

/** A grid's or a block's size; unnamed dimensions are 1. */
typedef struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    KIT_EMU_HD constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz)
    {
    }
#endif
} dim3;

typedef struct uint3 {
    unsigned int x, y, z;
} uint3;

/* KIT_EMU_VECTORn(name, component type[, alignment]): one typedef'd struct, as CUDA's. */
/* clang-format off */
#define KIT_EMU_VECTOR1(name, T) typedef struct name { T x; } name;
#define KIT_EMU_VECTOR2(name, T, align) typedef struct __align__(align) name { T x, y; } name;
#define KIT_EMU_VECTOR3(name, T) typedef struct name { T x, y, z; } name;
#define KIT_EMU_VECTOR4(name, T, align) typedef struct __align__(align) name { T x, y, z, w; } name;

KIT_EMU_VECTOR1(char1, signed char)
KIT_EMU_VECTOR2(char2, signed char, 2)
KIT_EMU_VECTOR3(char3, signed char)
KIT_EMU_VECTOR4(char4, signed char, 4)
KIT_EMU_VECTOR1(uchar1, unsigned char)
KIT_EMU_VECTOR2(uchar2, unsigned char, 2)
KIT_EMU_VECTOR3(uchar3, unsigned char)
KIT_EMU_VECTOR4(uchar4, unsigned char, 4)

KIT_EMU_VECTOR1(short1, short)
KIT_EMU_VECTOR2(short2, short, 4)
KIT_EMU_VECTOR3(short3, short)
KIT_EMU_VECTOR4(short4, short, 8)
KIT_EMU_VECTOR1(ushort1, unsigned short)
KIT_EMU_VECTOR2(ushort2, unsigned short, 4)
KIT_EMU_VECTOR3(ushort3, unsigned short)
KIT_EMU_VECTOR4(ushort4, unsigned short, 8)

KIT_EMU_VECTOR1(int1, int)
KIT_EMU_VECTOR2(int2, int, 8)
KIT_EMU_VECTOR3(int3, int)
KIT_EMU_VECTOR4(int4, int, 16)
KIT_EMU_VECTOR1(uint1, unsigned int)
KIT_EMU_VECTOR2(uint2, unsigned int, 8)
/* uint3: above, with dim3 */
KIT_EMU_VECTOR4(uint4, unsigned int, 16)

KIT_EMU_VECTOR1(long1, long int)
KIT_EMU_VECTOR2(long2, long int, 2 * sizeof(long int))
KIT_EMU_VECTOR3(long3, long int)
KIT_EMU_VECTOR4(long4, long int, 16)
KIT_EMU_VECTOR4(long4_16a, long int, 16)
KIT_EMU_VECTOR4(long4_32a, long int, 32)
KIT_EMU_VECTOR1(ulong1, unsigned long int)
KIT_EMU_VECTOR2(ulong2, unsigned long int, 2 * sizeof(unsigned long int))
KIT_EMU_VECTOR3(ulong3, unsigned long int)
KIT_EMU_VECTOR4(ulong4, unsigned long int, 16)
KIT_EMU_VECTOR4(ulong4_16a, unsigned long int, 16)
KIT_EMU_VECTOR4(ulong4_32a, unsigned long int, 32)

KIT_EMU_VECTOR1(longlong1, long long int)
KIT_EMU_VECTOR2(longlong2, long long int, 16)
KIT_EMU_VECTOR3(longlong3, long long int)
KIT_EMU_VECTOR4(longlong4, long long int, 16)
KIT_EMU_VECTOR4(longlong4_16a, long long int, 16)
KIT_EMU_VECTOR4(longlong4_32a, long long int, 32)
KIT_EMU_VECTOR1(ulonglong1, unsigned long long int)
KIT_EMU_VECTOR2(ulonglong2, unsigned long long int, 16)
KIT_EMU_VECTOR3(ulonglong3, unsigned long long int)
KIT_EMU_VECTOR4(ulonglong4, unsigned long long int, 16)
KIT_EMU_VECTOR4(ulonglong4_16a, unsigned long long int, 16)
KIT_EMU_VECTOR4(ulonglong4_32a, unsigned long long int, 32)

KIT_EMU_VECTOR1(float1, float)
KIT_EMU_VECTOR2(float2, float, 8)
KIT_EMU_VECTOR3(float3, float)
KIT_EMU_VECTOR4(float4, float, 16)

KIT_EMU_VECTOR1(double1, double)
KIT_EMU_VECTOR2(double2, double, 16)
KIT_EMU_VECTOR3(double3, double)
KIT_EMU_VECTOR4(double4, double, 16)
KIT_EMU_VECTOR4(double4_16a, double, 16)
KIT_EMU_VECTOR4(double4_32a, double, 32)
/* clang-format on */

#undef KIT_EMU_VECTOR1
#undef KIT_EMU_VECTOR2
#undef KIT_EMU_VECTOR3
#undef KIT_EMU_VECTOR4

#ifdef __cplusplus
}
#endif

#endif
