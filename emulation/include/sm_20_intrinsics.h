/*
 * sm_20_intrinsics.h of the kit's CPU emulation (emulation/README.md): in CUDA, the intrinsics of
 * one generation of GPUs (the shuffles, __ldg, __funnelshift_l, __dp4a, ...), which nvcc includes
 * by itself. The emulation's are all in cuda_runtime.h (kit_emu_device.h and kit_emu_intrinsics.h),
 * which the build includes first in every .cu file: this header only includes it again.
 */
#include "cuda_runtime.h"
