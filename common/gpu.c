/* GPU detection and CUDA error reporting; see gpu.h and cuda_check.h. */
#include "gpu.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#include "cuda_check.h"

void kit_report_cuda_error(cudaError_t err, const char *what, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, cudaGetErrorName(err),
            cudaGetErrorString(err));
}

kit_gpu_status kit_gpu_probe(char *reason, size_t reason_size)
{
    char scratch[8];
    if (reason == NULL) {
        reason = scratch;
        reason_size = sizeof scratch;
    }
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        snprintf(reason, reason_size, "no NVIDIA driver (or one older than CUDA %d.%d): %s",
                 CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, cudaGetErrorString(err));
        return KIT_GPU_NO_DRIVER;
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        snprintf(reason, reason_size, "no CUDA-capable GPU is visible%s",
                 err == cudaSuccess ? "" : " (the driver reports none)");
        return KIT_GPU_NO_DEVICE;
    }
    if (err != cudaSuccess) {
        snprintf(reason, reason_size, "the GPU cannot be used: %s (%s)", cudaGetErrorName(err),
                 cudaGetErrorString(err));
        return KIT_GPU_UNAVAILABLE;
    }
    struct cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, 0);
    if (err == cudaSuccess) {
        /* Touch the device: a GPU held in exclusive mode by someone else fails here. */
        err = cudaFree(0);
    }
    if (err != cudaSuccess) {
        snprintf(reason, reason_size, "the GPU cannot be used: %s (%s)", cudaGetErrorName(err),
                 cudaGetErrorString(err));
        return KIT_GPU_UNAVAILABLE;
    }
    /* HMM (or a coherent CPU-GPU link) lets a kernel read and write ordinary host memory:
     * the grader says so, since then a copy count no longer sees every byte moved. */
    snprintf(reason, reason_size, "%s (sm_%d%d, %d SMs, %.1f GiB%s)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0,
             prop.pageableMemoryAccess ? ", reads host memory directly (HMM)" : "");
    return KIT_GPU_READY;
}

size_t kit_gpu_free_bytes(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        return 0;
    }
    return free_bytes;
}
