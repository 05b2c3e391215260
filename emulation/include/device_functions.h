/*
 * device_functions.h of the kit's CPU emulation (emulation/README.md): in CUDA, the device
 * functions and intrinsics (__syncthreads, __popc, __umul24, __fdividef, ...). The emulation's are
 * in cuda_runtime.h (kit_emu_device.h and kit_emu_intrinsics.h), which the build includes first in
 * every .cu file: this header only includes it again.
 */
#include "cuda_runtime.h"
