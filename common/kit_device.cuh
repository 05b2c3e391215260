/**
 * @file kit_device.cuh
 * @brief What several labs' `.cu` files share: the kit's words for a block and its tiles, the
 *        block size and grid of the one-thread-per-item kernels, coalesced copies between
 *        global and shared memory, and a sort's temporary buffers carved out of one allocation.
 *
 * **The kit's vocabulary.** Every lab names the shape of its blocks with these words (CUB's),
 * and counts tiles with these helpers rather than a formula of its own:
 *
 * - *block threads*: the threads of one block of a kernel, `PREFIX_BLOCK_THREADS`
 *   (::KIT_BLOCK_THREADS for the one-thread-per-item kernels);
 * - *items per thread*: the keys (or scan values) one thread holds at once,
 *   `PREFIX_ITEMS_PER_THREAD`;
 * - *tile*: the keys one block holds at once, block threads times items per thread,
 *   `PREFIX_TILE` (a number of keys);
 * - *number of tiles*: the tiles of n keys, the last one partial: kit_num_tiles(n, tile);
 * - *keys of this tile*: the keys of the tile that starts at key base of n, a whole tile or
 *   fewer in the last: kit_tile_keys(n, base, tile);
 * - *blocks for n items*: the grid of a one-thread-per-item kernel: kit_blocks_for(n).
 *
 * `PREFIX` names the lab and, in a lab of several tiers with blocks of their own shape, the
 * tier: `ODDEVEN_` (Lab 01, in its student file), `MERGESORT_` (tiers 2.2 to 2.4) and
 * `MERGESORT_REG_` (2.6), `BITONIC_` (3.1 to 3.3) and `BITONIC_MS_` (3.5), `RADIX_` (4.1 to
 * 4.4), `RADIX_LOOKBACK_` (4.5) and `RADIX_ONESWEEP_` (4.6), `QUICKSORT_` (5.2). A tile is
 * declared in the lab's header (name.h), since the API and the tests use it; its block threads
 * and items per thread beside it, or in the lab's given headers when only the kernels use them.
 * A tier whose blocks are the kit's (Lab 04's) has no block threads of its own: it uses
 * ::KIT_BLOCK_THREADS. One name per thing: a lab writes no second name for a constant.
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
#include "kit_tiles.h"

/** Threads per block of the labs' one-thread-per-item kernels. */
#define KIT_BLOCK_THREADS 256u

/** Blocks of ::KIT_BLOCK_THREADS threads for one thread per item (at least one block). */
static inline unsigned kit_blocks_for(size_t items)
{
    size_t blocks = kit_num_tiles(items, KIT_BLOCK_THREADS);
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

/** Each buffer of ::kit_alloc_buffers starts this many bytes into its block (a multiple). */
#define KIT_BUFFER_ALIGN 256

/** The bytes of one block for @p buffers, each part rounded up to ::KIT_BUFFER_ALIGN. */
static inline size_t kit_buffers_total(const kit_buffer *buffers, int count)
{
    size_t total = 0;
    for (int i = 0; i < count; i++) {
        total += (buffers[i].bytes + KIT_BUFFER_ALIGN - 1) / KIT_BUFFER_ALIGN * KIT_BUFFER_ALIGN;
    }
    return total;
}

/** Sets each buffer's address in @p block, in order (NULL for a part of no bytes, or when
 * @p block is NULL). */
static inline void kit_buffers_place(void *block, kit_buffer *buffers, int count)
{
    size_t offset = 0;
    for (int i = 0; i < count; i++) {
        *buffers[i].address =
            block && buffers[i].bytes > 0 ? (void *)((char *)block + offset) : NULL;
        offset += (buffers[i].bytes + KIT_BUFFER_ALIGN - 1) / KIT_BUFFER_ALIGN * KIT_BUFFER_ALIGN;
    }
}

/**
 * Allocates @p count temporary buffers as one cudaMalloc, each starting 256-byte aligned,
 * and sets each one's address; `*block` is the allocation, for ::kit_free_buffers. One
 * allocation instead of one per buffer: a sort is timed with its allocations, and each
 * cudaMalloc costs time (CUB's temp-storage idiom rests on the same reason). On failure it
 * says so on stderr, sets every address to NULL and returns the error.
 */
static inline cudaError_t kit_alloc_buffers(void **block, kit_buffer *buffers, int count)
{
    size_t total = kit_buffers_total(buffers, count);
    *block = NULL;
    cudaError_t err = cudaMalloc(block, total ? total : KIT_BUFFER_ALIGN);
    if (err != cudaSuccess) {
        kit_report_cuda_error(err, "cudaMalloc of the sort's temporary buffers", __FILE__,
                              __LINE__);
        *block = NULL;
    }
    kit_buffers_place(*block, buffers, count);
    return err;
}

/**
 * Temporary buffers kept from one call to the next, as a caller of CUB hands the same temp
 * storage to every call: only the first call, or one that needs more room, pays a cudaMalloc
 * (and the cudaFree of the smaller block, which waits for the GPU). The calls of a lab's API go
 * to the default stream one after another, so they may share one cache. It is never freed:
 * the process's end frees it.
 */
typedef struct {
    void *block;  /**< the allocation (NULL before the first call) */
    size_t bytes; /**< its size */
} kit_buffer_cache;

/** ::kit_alloc_buffers from @p cache: sets each buffer's address in its block, grown first
 * when the buffers need more room. On failure it says so on stderr, sets every address to
 * NULL and returns the error (the cache is then empty). */
static inline cudaError_t kit_cached_buffers(kit_buffer_cache *cache, kit_buffer *buffers,
                                             int count)
{
    size_t total = kit_buffers_total(buffers, count);
    cudaError_t err = cudaSuccess;
    if (total > cache->bytes) {
        if (cache->block) {
            err = cudaFree(cache->block);
        }
        cache->block = NULL;
        cache->bytes = 0;
        if (err == cudaSuccess) {
            err = cudaMalloc(&cache->block, total);
        }
        if (err != cudaSuccess) {
            kit_report_cuda_error(err, "cudaMalloc of the sort's temporary buffers", __FILE__,
                                  __LINE__);
            cache->block = NULL;
        } else {
            cache->bytes = total;
        }
    }
    kit_buffers_place(err == cudaSuccess ? cache->block : NULL, buffers, count);
    return err;
}

/** Frees what ::kit_alloc_buffers allocated (nothing when `*block` is NULL). */
static inline cudaError_t kit_free_buffers(void **block)
{
    cudaError_t err = *block ? cudaFree(*block) : cudaSuccess;
    *block = NULL;
    return err;
}
