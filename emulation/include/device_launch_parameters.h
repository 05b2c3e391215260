/*
 * device_launch_parameters.h of the kit's CPU emulation (emulation/README.md): in CUDA, the
 * declarations of threadIdx, blockIdx, blockDim, gridDim and warpSize, which Visual Studio's CUDA
 * template includes in every file. The emulation's are in cuda_runtime.h (kit_emu_device.h), which
 * the build includes first in every .cu file: this header only includes it again.
 */
#include "cuda_runtime.h"
