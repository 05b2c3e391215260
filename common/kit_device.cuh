/**
 * @file kit_device.cuh
 * @brief What several labs' `.cu` files share: the block size and grid size of their
 *        one-thread-per-item kernels, coalesced copies between global and shared memory, and
 *        a sort's temporary buffers carved out of one allocation.
 *
 * Header-only (everything is `static` or `__device__`), so a lab file that includes it
 * compiles these helpers into its own object and calls nothing new. Lab 03 keeps its own
 * tile copies (its lab is about the bank conflicts that a swizzled layout avoids), and Lab 04
 * its own blocked loads (its lab is about the arrangement of items a scan needs).
 */
#pragma once

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cuda_check.h"

/** Threads per block of the labs' one-thread-per-item kernels. */
#define THREADS_PER_BLOCK 256u

/** Blocks of ::THREADS_PER_BLOCK threads for one thread per item (at least one block). */
static inline unsigned blocks_for(size_t items)
{
    size_t blocks = (items + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    return blocks ? (unsigned)blocks : 1u;
}

/**
 * Copies @p count keys (and values, when @p values is not NULL) from global memory at
 * @p base into shared memory, thread t copying keys t, t + blockDim.x, ... (neighbouring
 * threads read neighbouring words: coalesced), then waits at a barrier, so every key is there
 * when it returns. Every thread of the block must call it.
 */
__device__ static void load_shared(const unsigned int *keys, const unsigned int *values,
                                   size_t base, unsigned count, unsigned int *shared_keys,
                                   unsigned int *shared_values)
{
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        shared_keys[i] = keys[base + i];
        if (values) {
            shared_values[i] = values[base + i];
        }
    }
    __syncthreads();
}

/**
 * Waits at a barrier (every thread's last write to shared memory is done), then copies
 * @p count keys (and values, when @p values is not NULL) from shared memory to global memory
 * at @p base, the way ::load_shared read them. Every thread of the block must call it.
 */
__device__ static void store_shared(unsigned int *keys, unsigned int *values, size_t base,
                                    unsigned count, const unsigned int *shared_keys,
                                    const unsigned int *shared_values)
{
    __syncthreads();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        keys[base + i] = shared_keys[i];
        if (values) {
            values[base + i] = shared_values[i];
        }
    }
}

/** One of a sort's temporary device buffers: where its address goes, and its size. */
typedef struct {
    void **address; /**< set to the buffer's first byte (NULL when @p bytes is 0) */
    size_t bytes;   /**< 0: no buffer (e.g. values when the sort has none) */
} kit_buffer;

/**
 * Allocates @p count temporary buffers as one cudaMalloc, each starting 256-byte aligned,
 * and sets each one's address; `*block` is the allocation, for ::kit_free_buffers. One
 * allocation instead of one per buffer: a sort is timed with its allocations, and each
 * cudaMalloc costs time (CUB's temp-storage idiom rests on the same reason). On failure it
 * says so on stderr, sets every address to NULL and returns the error.
 */
static inline cudaError_t kit_alloc_buffers(void **block, kit_buffer *buffers, int count)
{
    const size_t align = 256;
    size_t total = 0;
    for (int i = 0; i < count; i++) {
        total += (buffers[i].bytes + align - 1) / align * align;
    }
    *block = NULL;
    cudaError_t err = cudaMalloc(block, total ? total : align);
    size_t offset = 0;
    for (int i = 0; i < count; i++) {
        int present = err == cudaSuccess && buffers[i].bytes > 0;
        *buffers[i].address = present ? (void *)((char *)*block + offset) : NULL;
        offset += (buffers[i].bytes + align - 1) / align * align;
    }
    if (err != cudaSuccess) {
        kit_report_cuda_error(err, "cudaMalloc of the sort's temporary buffers", __FILE__,
                              __LINE__);
        *block = NULL;
    }
    return err;
}

/** Frees what ::kit_alloc_buffers allocated (nothing when `*block` is NULL). */
static inline cudaError_t kit_free_buffers(void **block)
{
    cudaError_t err = *block ? cudaFree(*block) : cudaSuccess;
    *block = NULL;
    return err;
}
