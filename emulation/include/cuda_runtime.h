/*
 * cuda_runtime.h of the kit's CPU emulation (emulation/README.md): the runtime API, and in C++
 * the device side (built-in variables, barriers, atomics, intrinsics, launches), which nvcc
 * would bring in by itself. The emulation's build includes it first in every .cu file, as nvcc
 * does.
 */
#ifndef KIT_EMU_CUDA_RUNTIME_H
#define KIT_EMU_CUDA_RUNTIME_H
/* CUDA's own guard of this header, which code may test. */
#define __CUDA_RUNTIME_H__

#include "cuda_runtime_api.h"

#ifdef __cplusplus
#include "kit_emu_device.h"
#endif

#endif
