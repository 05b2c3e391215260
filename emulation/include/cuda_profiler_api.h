/*
 * cuda_profiler_api.h of the kit's CPU emulation (emulation/README.md): cudaProfilerStart and
 * cudaProfilerStop mark what a profiler on a GPU records; the emulation has no profiler, and
 * does nothing.
 */
#ifndef KIT_EMU_CUDA_PROFILER_API_H
#define KIT_EMU_CUDA_PROFILER_API_H

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif
static inline cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}
static inline cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
#ifdef __cplusplus
}
#endif

#endif
