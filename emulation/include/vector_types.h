/*
 * vector_types.h of the kit's CPU emulation (emulation/README.md): dim3 and CUDA's vector types,
 * with CUDA's sizes and alignments, for C and C++. cuda_runtime_api.h includes it; a .cu file may
 * include it by name, as with nvcc.
 */
#ifndef KIT_EMU_VECTOR_TYPES_H
#define KIT_EMU_VECTOR_TYPES_H

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
typedef struct uint2 {
    unsigned int x, y;
} uint2;
typedef struct uint4 {
    unsigned int x, y, z, w;
} uint4;
typedef struct int2 {
    int x, y;
} int2;
typedef struct int4 {
    int x, y, z, w;
} int4;
typedef struct float2 {
    float x, y;
} float2;
typedef struct float4 {
    float x, y, z, w;
} float4;

#ifdef __cplusplus
}
#endif

#endif
