/**
 * @file gpu.h
 * @brief Finding out whether a usable NVIDIA GPU is here, and saying why not.
 *
 * The answer comes from the return code of `cudaGetDeviceCount`, not only from the count:
 * a machine without the driver answers `cudaErrorInsufficientDriver` (or
 * `cudaErrorNoDevice` on some setups), a machine with a driver and no device answers
 * `cudaErrorNoDevice`, and both must end in a plain sentence, not a crash.
 */
#ifndef KIT_GPU_H
#define KIT_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What ::kit_gpu_probe found. */
typedef enum {
    KIT_GPU_READY = 0,   /**< at least one device answers */
    KIT_GPU_NO_DRIVER,   /**< the NVIDIA driver is missing or older than the runtime */
    KIT_GPU_NO_DEVICE,   /**< a driver, but no CUDA device visible */
    KIT_GPU_UNAVAILABLE, /**< a device, but it cannot be used (busy, exclusive, broken) */
} kit_gpu_status;

/**
 * Probes the CUDA runtime once.
 * @param reason   receives a one-line explanation (device name when ready); may be NULL
 * @param reason_size size of @p reason in bytes
 * @return what was found
 */
kit_gpu_status kit_gpu_probe(char *reason, size_t reason_size);

/** Returns the number of bytes free on the current device, or 0 when it cannot tell. */
size_t kit_gpu_free_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
