/*
 * builtin_types.h of the kit's CPU emulation (emulation/README.md): in CUDA, the built-in types
 * (dim3, the vector types, cudaError_t, the enums of the runtime). The emulation has them in
 * cuda_runtime_api.h (and the device side in cuda_runtime.h), which the build includes first in
 * every .cu file: this header only includes it again, so that code that includes it by name builds,
 * and never reaches a CUDA installation's.
 */
#include "cuda_runtime.h"
