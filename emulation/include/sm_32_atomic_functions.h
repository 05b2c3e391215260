/*
 * sm_32_atomic_functions.h of the kit's CPU emulation (emulation/README.md): in CUDA, the atomic
 * functions of one generation of GPUs, which nvcc includes by itself. The emulation's are all in
 * cuda_runtime.h (kit_emu_device.h), which the build includes first in every .cu file: this header
 * only includes it again.
 */
#include "cuda_runtime.h"
