/*
 * vector_functions.h of the kit's CPU emulation (emulation/README.md): CUDA's make_ functions,
 * one for each vector type of vector_types.h (make_int2(x, y), make_uchar4(r, g, b, a),
 * make_float4(x, y, z, w), make_double2(x, y), ...), for host and device code alike, with the
 * parameter types of CUDA's. kit_emu_device.h includes it, so a .cu file has them as with nvcc;
 * it may include this file by name too. C code gets them as static inline functions.
 */
#ifndef KIT_EMU_VECTOR_FUNCTIONS_H
#define KIT_EMU_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#ifdef __cplusplus
#define KIT_EMU_MAKE_FN KIT_EMU_HD inline
#else
#define KIT_EMU_MAKE_FN static inline
#endif

/* KIT_EMU_MAKEn(function, vector type, component type): make_xxxn(x, ...). */
#define KIT_EMU_MAKE1(fn, V, T)                                                                    \
    KIT_EMU_MAKE_FN V fn(T x)                                                                      \
    {                                                                                              \
        V v;                                                                                       \
        v.x = x;                                                                                   \
        return v;                                                                                  \
    }
#define KIT_EMU_MAKE2(fn, V, T)                                                                    \
    KIT_EMU_MAKE_FN V fn(T x, T y)                                                                 \
    {                                                                                              \
        V v;                                                                                       \
        v.x = x;                                                                                   \
        v.y = y;                                                                                   \
        return v;                                                                                  \
    }
#define KIT_EMU_MAKE3(fn, V, T)                                                                    \
    KIT_EMU_MAKE_FN V fn(T x, T y, T z)                                                            \
    {                                                                                              \
        V v;                                                                                       \
        v.x = x;                                                                                   \
        v.y = y;                                                                                   \
        v.z = z;                                                                                   \
        return v;                                                                                  \
    }
#define KIT_EMU_MAKE4(fn, V, T)                                                                    \
    KIT_EMU_MAKE_FN V fn(T x, T y, T z, T w)                                                       \
    {                                                                                              \
        V v;                                                                                       \
        v.x = x;                                                                                   \
        v.y = y;                                                                                   \
        v.z = z;                                                                                   \
        v.w = w;                                                                                   \
        return v;                                                                                  \
    }

/* clang-format off */
KIT_EMU_MAKE1(make_char1, char1, signed char)
KIT_EMU_MAKE2(make_char2, char2, signed char)
KIT_EMU_MAKE3(make_char3, char3, signed char)
KIT_EMU_MAKE4(make_char4, char4, signed char)
KIT_EMU_MAKE1(make_uchar1, uchar1, unsigned char)
KIT_EMU_MAKE2(make_uchar2, uchar2, unsigned char)
KIT_EMU_MAKE3(make_uchar3, uchar3, unsigned char)
KIT_EMU_MAKE4(make_uchar4, uchar4, unsigned char)

KIT_EMU_MAKE1(make_short1, short1, short)
KIT_EMU_MAKE2(make_short2, short2, short)
KIT_EMU_MAKE3(make_short3, short3, short)
KIT_EMU_MAKE4(make_short4, short4, short)
KIT_EMU_MAKE1(make_ushort1, ushort1, unsigned short)
KIT_EMU_MAKE2(make_ushort2, ushort2, unsigned short)
KIT_EMU_MAKE3(make_ushort3, ushort3, unsigned short)
KIT_EMU_MAKE4(make_ushort4, ushort4, unsigned short)

KIT_EMU_MAKE1(make_int1, int1, int)
KIT_EMU_MAKE2(make_int2, int2, int)
KIT_EMU_MAKE3(make_int3, int3, int)
KIT_EMU_MAKE4(make_int4, int4, int)
KIT_EMU_MAKE1(make_uint1, uint1, unsigned int)
KIT_EMU_MAKE2(make_uint2, uint2, unsigned int)
KIT_EMU_MAKE3(make_uint3, uint3, unsigned int)
KIT_EMU_MAKE4(make_uint4, uint4, unsigned int)

KIT_EMU_MAKE1(make_long1, long1, long int)
KIT_EMU_MAKE2(make_long2, long2, long int)
KIT_EMU_MAKE3(make_long3, long3, long int)
KIT_EMU_MAKE4(make_long4, long4, long int)
KIT_EMU_MAKE4(make_long4_16a, long4_16a, long int)
KIT_EMU_MAKE4(make_long4_32a, long4_32a, long int)
KIT_EMU_MAKE1(make_ulong1, ulong1, unsigned long int)
KIT_EMU_MAKE2(make_ulong2, ulong2, unsigned long int)
KIT_EMU_MAKE3(make_ulong3, ulong3, unsigned long int)
KIT_EMU_MAKE4(make_ulong4, ulong4, unsigned long int)
KIT_EMU_MAKE4(make_ulong4_16a, ulong4_16a, unsigned long int)
KIT_EMU_MAKE4(make_ulong4_32a, ulong4_32a, unsigned long int)

KIT_EMU_MAKE1(make_longlong1, longlong1, long long int)
KIT_EMU_MAKE2(make_longlong2, longlong2, long long int)
KIT_EMU_MAKE3(make_longlong3, longlong3, long long int)
KIT_EMU_MAKE4(make_longlong4, longlong4, long long int)
KIT_EMU_MAKE1(make_ulonglong1, ulonglong1, unsigned long long int)
KIT_EMU_MAKE2(make_ulonglong2, ulonglong2, unsigned long long int)
KIT_EMU_MAKE3(make_ulonglong3, ulonglong3, unsigned long long int)
KIT_EMU_MAKE4(make_ulonglong4, ulonglong4, unsigned long long int)

KIT_EMU_MAKE1(make_float1, float1, float)
KIT_EMU_MAKE2(make_float2, float2, float)
KIT_EMU_MAKE3(make_float3, float3, float)
KIT_EMU_MAKE4(make_float4, float4, float)

KIT_EMU_MAKE1(make_double1, double1, double)
KIT_EMU_MAKE2(make_double2, double2, double)
KIT_EMU_MAKE3(make_double3, double3, double)
KIT_EMU_MAKE4(make_double4, double4, double)
KIT_EMU_MAKE4(make_double4_16a, double4_16a, double)
KIT_EMU_MAKE4(make_double4_32a, double4_32a, double)
/* clang-format on */

#undef KIT_EMU_MAKE1
#undef KIT_EMU_MAKE2
#undef KIT_EMU_MAKE3
#undef KIT_EMU_MAKE4
#undef KIT_EMU_MAKE_FN

#endif
