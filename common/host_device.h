/**
 * @file host_device.h
 * @brief KIT_HOST_DEVICE: one function for the CPU and the GPU.
 *
 * Small helpers that a kernel, a test on the CPU and the diagram tool must compute the same
 * way (a pair's index, a padded length, a bit flip) are written once, `static inline` and
 * marked with this macro: `__host__ __device__` when nvcc compiles the file, nothing when a
 * C compiler does.
 */
#ifndef KIT_HOST_DEVICE_H
#define KIT_HOST_DEVICE_H

/** What KIT_HOST_DEVICE stands for: `__host__ __device__` under nvcc, nothing under cc. */
#ifdef __CUDACC__
#define KIT_HOST_DEVICE_ATTRIBUTES __host__ __device__
#else
#define KIT_HOST_DEVICE_ATTRIBUTES
#endif

/** Compiles the function for the host and the device (nvcc), or for the host alone (cc). */
#define KIT_HOST_DEVICE KIT_HOST_DEVICE_ATTRIBUTES

#endif
