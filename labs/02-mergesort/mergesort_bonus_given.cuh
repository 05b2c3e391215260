/**
 * @file mergesort_bonus_given.cuh
 * @brief Lab 02's given code for mergesort_bonus.cu: the bonus 2.6's tile moves, the bonus
 *        2.5's chunk sort and streams, and the bonus API of mergesort.h around the launchers
 *        you write.
 *
 * Included by mergesort_bonus.cu (your file) and nowhere else; read it, use it, do not edit it (the
 * grader compiles your mergesort_bonus.cu with its own copy of this file). It includes
 * mergesort_common.cuh, the given parts that mergesort.cu sees too (::MERGESORT_BLOCK_THREADS,
 * merge_at(), ::sort_buffers, most_splits(), and the prototypes of your launchers of mergesort.cu
 * that the bonus calls), and through it common/kit_device.cuh. The sizes of 2.6
 * (::MERGESORT_REG_BLOCK_THREADS, ::MERGESORT_REG_ITEMS_PER_THREAD, ::MERGESORT_REG_TILE) are
 * mergesort.h's.
 */
#pragma once

#include <stddef.h>

#include "cuda_check.h"
#include "mergesort_common.cuh"

/* ------------------------------------------------------------------------------------------
 * The buffers of a sort of host memory over streams (TODO 2.5)
 * ------------------------------------------------------------------------------------------ */

/**
 * What a sort of host memory over streams works with; mergesort_sort_host_streams() (given)
 * allocates and creates it, and frees it with ::free_stream_sort.
 */
typedef struct {
    unsigned int *keys;    /**< n keys on the device: the chunks are copied and sorted here */
    unsigned int *scratch; /**< n more: each chunk's scratch, then the merges' other buffer */
    /** `count + 1` areas of `split_room` splits: area k for the sorts of stream k's chunks,
     * area `count` for the merges of the chunks. */
    size_t *splits;
    size_t split_room;                           /**< splits per area */
    cudaStream_t streams[MERGESORT_MAX_STREAMS]; /**< `count` streams */
    cudaEvent_t ready[MERGESORT_MAX_STREAMS];    /**< one event per stream (no timing) */
    int count;                                   /**< streams and events created */
    void *buffers; /**< the one allocation that holds keys, scratch and splits */
} stream_sort;

/* ------------------------------------------------------------------------------------------
 * What your mergesort_bonus.cu defines, for the given code below (each one's comment there
 * says what it must do)
 * ------------------------------------------------------------------------------------------ */

/** TODO 2.5 (mergesort_bonus.cu): sorts @p h_keys of host memory over the streams of @p s. */
cudaError_t sort_host_with_streams(unsigned int *h_keys, size_t n, size_t chunk, stream_sort *s);

/** TODO 2.6 (mergesort_bonus.cu): sorts each tile of ::MERGESORT_REG_TILE keys with the keys in
 * registers. */
cudaError_t reg_sort_tiles(const unsigned int *src_keys, const unsigned int *src_values,
                           unsigned int *dst_keys, unsigned int *dst_values, size_t n);

/** TODO 2.6 (mergesort_bonus.cu): the register-blocked sort of n > ::MERGESORT_REG_TILE keys with
 * the buffers @p b (its splits: one per tile of ::MERGESORT_REG_TILE keys). */
cudaError_t reg_sort_with_buffers(unsigned int *keys, unsigned int *values, size_t n,
                                  const sort_buffers *b);

/* ------------------------------------------------------------------------------------------
 * The bonus 2.6's given parts: moving a tile between global memory, shared memory and the
 * threads' registers
 * ------------------------------------------------------------------------------------------ */

/**
 * The block's tile in, for the tile sort of TODO 2.6: thread t reads keys `t`,
 * `t + MERGESORT_REG_BLOCK_THREADS`, ... (::MERGESORT_REG_ITEMS_PER_THREAD of them, coalesced) of
 * the @p count keys at @p base of @p src_keys into registers, then writes them to the same places
 * of @p shared_keys; places `count .. MERGESORT_REG_TILE` get the largest key, `UINT_MAX` (value
 * 0), so the block always sorts a whole tile: a stable sort leaves that padding after every real
 * key, `UINT_MAX` included, since it comes after them all in the input. After a barrier, thread t
 * takes the ::MERGESORT_REG_ITEMS_PER_THREAD keys from `t * MERGESORT_REG_ITEMS_PER_THREAD` on into
 * @p keys (its *blocked* share: neighbours, read without bank conflicts since
 * ::MERGESORT_REG_ITEMS_PER_THREAD is odd). Values likewise when @p src_values is not NULL (else
 * @p values is left as it is). Every thread must call it.
 */
__device__ static __forceinline__ void
reg_load_tile(const unsigned int *src_keys, const unsigned int *src_values, size_t base,
              unsigned count, unsigned int *shared_keys, unsigned int *shared_values,
              unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD],
              unsigned int values[MERGESORT_REG_ITEMS_PER_THREAD])
{
    /* All of them loaded first: MERGESORT_REG_ITEMS_PER_THREAD loads in flight. */
    unsigned int striped[MERGESORT_REG_ITEMS_PER_THREAD];
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
        striped[k] = i < count ? src_keys[base + i] : ~0u;
    }
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        shared_keys[threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS] = striped[k];
    }
    if (src_values) {
#pragma unroll
        for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
            unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
            striped[k] = i < count ? src_values[base + i] : 0u;
        }
#pragma unroll
        for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
            shared_values[threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS] = striped[k];
        }
    }
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        keys[k] = shared_keys[threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD + k];
        if (src_values) {
            values[k] = shared_values[threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD + k];
        }
    }
}

/**
 * The two parts of one tile of output, for the merge kernel of TODO 2.6: the @p pa keys at
 * @p a_keys followed by the @p pb keys at @p b_keys (`pa + pb <= MERGESORT_REG_TILE`) go to
 * `shared_keys[0 .. pa)` and `shared_keys[pa .. pa + pb)`, thread t reading places `t`,
 * `t + MERGESORT_REG_BLOCK_THREADS`, ... of the two together (coalesced), all its loads in flight
 * before it writes shared memory; values likewise when @p a_values is not NULL (then @p b_values is
 * not NULL either). Ends with a barrier: every key is there when it returns. Every thread must call
 * it.
 */
__device__ static __forceinline__ void
reg_load_two_parts(const unsigned int *a_keys, const unsigned int *a_values, unsigned pa,
                   const unsigned int *b_keys, const unsigned int *b_values, unsigned pb,
                   unsigned int *shared_keys, unsigned int *shared_values)
{
    unsigned int striped[MERGESORT_REG_ITEMS_PER_THREAD];
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
        striped[k] = i < pa ? a_keys[i] : (i < pa + pb ? b_keys[i - pa] : 0u);
    }
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
        if (i < pa + pb) {
            shared_keys[i] = striped[k];
        }
    }
    if (a_values) {
#pragma unroll
        for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
            unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
            striped[k] = i < pa ? a_values[i] : (i < pa + pb ? b_values[i - pa] : 0u);
        }
#pragma unroll
        for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
            unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
            if (i < pa + pb) {
                shared_values[i] = striped[k];
            }
        }
    }
    __syncthreads();
}

/**
 * Thread t's registers to shared memory: a barrier first (every thread is done reading shared
 * memory), then thread t writes its @p keys to
 * `shared_keys[t * MERGESORT_REG_ITEMS_PER_THREAD ...]` (its blocked places, without bank
 * conflicts), values likewise when @p with_values, and a barrier again (every place is written).
 * Every thread must call it.
 */
__device__ static __forceinline__ void
reg_to_shared(const unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD],
              const unsigned int values[MERGESORT_REG_ITEMS_PER_THREAD], int with_values,
              unsigned int *shared_keys, unsigned int *shared_values)
{
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        shared_keys[threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD + k] = keys[k];
        if (with_values) {
            shared_values[threadIdx.x * MERGESORT_REG_ITEMS_PER_THREAD + k] = values[k];
        }
    }
    __syncthreads();
}

/**
 * The block's tile out: ::reg_to_shared (thread t's registers hold outputs
 * `t * MERGESORT_REG_ITEMS_PER_THREAD ...` of the tile), then thread t writes places `t`,
 * `t + MERGESORT_REG_BLOCK_THREADS`, ... below @p count to @p dst_keys at @p base (coalesced);
 * values likewise when @p dst_values is not NULL. Every thread must call it.
 */
__device__ static __forceinline__ void
reg_store_tile(unsigned int *dst_keys, unsigned int *dst_values, size_t base, unsigned count,
               unsigned int *shared_keys, unsigned int *shared_values,
               const unsigned int keys[MERGESORT_REG_ITEMS_PER_THREAD],
               const unsigned int values[MERGESORT_REG_ITEMS_PER_THREAD])
{
    reg_to_shared(keys, values, dst_values != NULL, shared_keys, shared_values);
#pragma unroll
    for (unsigned k = 0; k < MERGESORT_REG_ITEMS_PER_THREAD; k++) {
        unsigned i = threadIdx.x + k * MERGESORT_REG_BLOCK_THREADS;
        if (i < count) {
            dst_keys[base + i] = shared_keys[i];
            if (dst_values) {
                dst_values[base + i] = shared_values[i];
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * The bonus 2.5's given parts: a chunk's sort, and freeing what the sort made
 * ------------------------------------------------------------------------------------------ */

/**
 * Sorts the @p len > 0 keys at @p keys in place on @p stream, the way 2.4 does (the tiles,
 * then merge-path passes), with @p scratch (len keys) and @p splits (most_splits(len)
 * entries) as its buffers.
 */
cudaError_t sort_chunk_on_stream(unsigned int *keys, unsigned int *scratch, size_t *splits,
                                 size_t len, cudaStream_t stream)
{
    if (len <= MERGESORT_TILE) {
        return sort_tiles(keys, NULL, keys, NULL, len, stream);
    }
    sort_buffers b = {scratch, NULL, splits};
    return sort_with_buffers(keys, NULL, len, &b, stream);
}

/** @p first if it is an error, else @p err: the first error of a sequence of calls. */
cudaError_t first_error(cudaError_t first, cudaError_t err)
{
    return first != cudaSuccess ? first : err;
}

/**
 * Waits for and destroys the streams and events of @p s, and frees its buffers (also after a
 * failure: each part only when it was made). Returns the first error.
 */
cudaError_t free_stream_sort(stream_sort *s)
{
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < s->count; k++) {
        err = first_error(err, cudaStreamSynchronize(s->streams[k]));
        err = first_error(err, cudaStreamDestroy(s->streams[k]));
        err = first_error(err, cudaEventDestroy(s->ready[k]));
    }
    s->count = 0;
    err = first_error(err, kit_free_buffers(&s->buffers));
    s->keys = s->scratch = NULL;
    s->splits = NULL;
    return err;
}

/* ------------------------------------------------------------------------------------------
 * The bonus API of mergesort.h: argument checks, then the launchers of mergesort_bonus.cu.
 * ------------------------------------------------------------------------------------------ */

extern "C" cudaError_t mergesort_sort_host_streams(unsigned int *h_keys, size_t n, size_t chunk,
                                                   int streams)
{
    if (chunk == 0 || streams < 1 || streams > MERGESORT_MAX_STREAMS || (n > 0 && !h_keys)) {
        return cudaErrorInvalidValue;
    }
    if (n <= 1) {
        return cudaSuccess; /* sorted already */
    }
    size_t chunks = (n - 1) / chunk + 1, largest = chunk < n ? chunk : n;
    stream_sort s;
    s.keys = s.scratch = NULL;
    s.splits = NULL;
    s.buffers = NULL;
    s.count = 0;
    /* Room for the splits of the largest chunk's sort, and of every merge of the chunks. */
    s.split_room = largest > MERGESORT_TILE ? most_splits(largest) : 1;
    for (size_t width = chunk; width < n; width *= 2) {
        size_t count = mergesort_split_count(n, width);
        s.split_room = count > s.split_room ? count : s.split_room;
    }
    int wanted = chunks < (size_t)streams ? (int)chunks : streams; /* no stream left idle */
    size_t areas = (size_t)wanted + 1; /* one per stream, one for the merges */
    kit_buffer buffers[] = {{(void **)&s.keys, n * sizeof *s.keys},
                            {(void **)&s.scratch, n * sizeof *s.scratch},
                            {(void **)&s.splits, areas * s.split_room * sizeof *s.splits}};
    cudaError_t err = kit_alloc_buffers(&s.buffers, buffers, 3); /* says so when it fails */
    if (err == cudaSuccess) {
        while (err == cudaSuccess && s.count < wanted) {
            err = cudaStreamCreateWithFlags(&s.streams[s.count], cudaStreamNonBlocking);
            if (err == cudaSuccess) {
                err = cudaEventCreateWithFlags(&s.ready[s.count], cudaEventDisableTiming);
                if (err != cudaSuccess) {
                    err = first_error(err, cudaStreamDestroy(s.streams[s.count]));
                } else {
                    s.count++;
                }
            }
        }
        if (err != cudaSuccess) {
            kit_report_cuda_error(err, "creating the streams and events of the sort", __FILE__,
                                  __LINE__);
        }
    }
    if (err == cudaSuccess) {
        err = sort_host_with_streams(h_keys, n, chunk, &s);
    }
    cudaError_t freed = free_stream_sort(&s);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t mergesort_sort_tiles_reg(unsigned int *d_keys, unsigned int *d_values,
                                                size_t n)
{
    return n == 0 ? cudaSuccess : reg_sort_tiles(d_keys, d_values, d_keys, d_values, n);
}

extern "C" cudaError_t mergesort_sort_pairs_reg(unsigned int *d_keys, unsigned int *d_values,
                                                size_t n)
{
    if (n <= MERGESORT_REG_TILE) {
        return n <= 1 ? cudaSuccess : reg_sort_tiles(d_keys, d_values, d_keys, d_values, n);
    }
    sort_buffers b = {NULL, NULL, NULL};
    void *block = NULL;
    /* One split per tile of output, in every pass. */
    size_t tiles = kit_num_tiles(n, MERGESORT_REG_TILE);
    kit_buffer buffers[] = {{(void **)&b.keys, n * sizeof *b.keys},
                            {(void **)&b.values, d_values ? n * sizeof *b.values : 0},
                            {(void **)&b.splits, tiles * sizeof *b.splits}};
    cudaError_t err = kit_alloc_buffers(&block, buffers, 3); /* says so itself when it fails */
    if (err == cudaSuccess) {
        err = reg_sort_with_buffers(d_keys, d_values, n, &b);
    }
    cudaError_t freed = kit_free_buffers(&block);
    return err != cudaSuccess ? err : freed;
}

extern "C" cudaError_t mergesort_sort_keys_reg(unsigned int *d_keys, size_t n)
{
    return mergesort_sort_pairs_reg(d_keys, NULL, n);
}
