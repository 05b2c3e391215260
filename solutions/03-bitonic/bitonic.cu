/**
 * @file bitonic.cu
 * @brief Lab 03: bitonic sort of key/value pairs. Your file: fill in the TODOs.
 *
 * Read labs/03-bitonic/README.md first. Each TODO is tested on its own:
 * `build/student/test_03_bitonic -s 3.1_tiles` runs the tests of TODO 3.1, and so on.
 *
 * Layers, from the bottom: one comparator (a thread), a tile in shared memory (a block), one
 * step over global memory (the grid), and the host code that puts the steps in order.
 * Every function works on keys and, when `values` is not NULL, on the values that travel
 * with them.
 */
#include <limits.h>

#include "bitonic.h"
#include "cuda_check.h"

/* Given, in bitonic_given.cuh (read it: your kernels use all of it): TILE_THREADS and
 * THREADS_PER_BLOCK, a tile in shared memory (tile_slot(), load_tile(), store_tile(),
 * tile_count()) and blocks_for(). */
#include "bitonic_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 3.1: the comparator, one step in a tile, the tile sort. `run` is the length of the
 * sorted runs the whole sort produces: n for one array, the padded length for a batch.
 * ------------------------------------------------------------------------------------------ */

/**
 * The comparator, on a tile in shared memory: puts the keys at tile indices @p lo < @p hi
 * in ascending order (the larger key at @p hi), or in descending order when @p descending;
 * when @p tile_values is not NULL the two values move with their keys. Equal keys stay
 * where they are.
 */
__device__ void compare_exchange(unsigned int *tile_keys, unsigned int *tile_values, unsigned lo,
                                 unsigned hi, int descending)
{
    /* BEGIN SOLUTION 3.1 read both keys once; swap keys and values only when out of order */
    unsigned slot_lo = tile_slot(lo), slot_hi = tile_slot(hi);
    unsigned a = tile_keys[slot_lo], b = tile_keys[slot_hi];
    if (descending ? a < b : a > b) {
        tile_keys[slot_lo] = b;
        tile_keys[slot_hi] = a;
        if (tile_values) {
            unsigned v = tile_values[slot_lo];
            tile_values[slot_lo] = tile_values[slot_hi];
            tile_values[slot_hi] = v;
        }
    }
    /* END SOLUTION */
}

/**
 * One step (size, stride) of the network inside a tile in shared memory, for the tile that
 * starts at key @p base of the array and holds @p count keys: thread t does comparators t and
 * t + TILE_THREADS (the tile's ::BITONIC_TILE / 2 comparators over its TILE_THREADS threads),
 * in the direction bitonic_descending_at() gives for the key's index in the whole array, then
 * waits at a barrier, so the next step sees every exchange of this one. Used by the tile sort
 * (3.1) and by the shared merge (3.3).
 */
__device__ void tile_step(unsigned int *tile_keys, unsigned int *tile_values, size_t base,
                          unsigned count, size_t size, size_t stride, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.1 two comparators per thread, then a barrier */
    for (unsigned c = threadIdx.x; c < BITONIC_TILE / 2; c += TILE_THREADS) {
        unsigned lo = (unsigned)bitonic_pair_low(c, stride);
        unsigned hi = lo + (unsigned)stride;
        if (hi < count) { /* a partial tile holds whole runs: lo and hi are both in */
            compare_exchange(tile_keys, tile_values, lo, hi,
                             bitonic_descending_at(base + lo, size, run, descending));
        }
    }
    /* The next step reads keys that other threads wrote in this one. */
    __syncthreads();
    /* END SOLUTION */
}

/**
 * TODO 3.1. Block b sorts tile b (keys `b * BITONIC_TILE` ..., fewer in a partial last
 * tile) in shared memory: stages size = 2, 4, ..., min(run, ::BITONIC_TILE), each with steps
 * stride = size / 2 ... 1, each step a ::tile_step.
 */
__global__ void __launch_bounds__(TILE_THREADS)
    bitonic_sort_tile_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t run,
                             int descending)
{
    __shared__ unsigned int tile_keys[BITONIC_TILE];
    __shared__ unsigned int tile_values[BITONIC_TILE];
    size_t base = (size_t)blockIdx.x * BITONIC_TILE;
    unsigned count = tile_count(n, blockIdx.x);
    load_tile(keys, values, base, count, tile_keys, tile_values);
    /* BEGIN SOLUTION 3.1 every stage up to the tile (or the run), each step a tile_step */
    unsigned int *shared_values = values ? tile_values : NULL; /* NULL: keys only */
    size_t last = run < BITONIC_TILE ? run : BITONIC_TILE;
    for (size_t size = 2; size <= last; size *= 2) {
        for (size_t stride = size / 2; stride > 0; stride /= 2) {
            tile_step(tile_keys, shared_values, base, count, size, stride, run, descending);
        }
    }
    /* END SOLUTION */
    store_tile(keys, values, base, count, tile_keys, tile_values);
}

/** TODO 3.1: launches ::bitonic_sort_tile_kernel over every tile of the n keys (n > 0). */
cudaError_t sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t run,
                       int descending)
{
    /* BEGIN SOLUTION 3.1 one block of TILE_THREADS threads per tile, the last may be partial */
    size_t tiles = (n + BITONIC_TILE - 1) / BITONIC_TILE;
    bitonic_sort_tile_kernel<<<(unsigned)tiles, TILE_THREADS>>>(d_keys, d_values, n, run,
                                                                descending);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
    /* END SOLUTION */
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.2: one step over global memory
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.2. One step (size, stride) over global memory: thread c of the grid does
 * comparator c, keys bitonic_pair_low(c, stride) and `stride` further. Both keys (and
 * values) are read once into registers and always written back, exchanged or not: the one
 * that belongs first in the comparator's direction to the lower index.
 */
__global__ void bitonic_merge_global_kernel(unsigned int *keys, unsigned int *values, size_t n,
                                            size_t size, size_t stride, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.2 find the pair, read it into registers, write it back in order */
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lo = bitonic_pair_low(c, stride);
    size_t hi = lo + stride;
    if (hi >= n) {
        return; /* the grid is rounded up to whole blocks */
    }
    unsigned a = keys[lo], b = keys[hi];
    unsigned va = 0, vb = 0;
    if (values) {
        va = values[lo];
        vb = values[hi];
    }
    int swap = bitonic_descending_at(lo, size, run, descending) ? a < b : a > b;
    /* Written back even when in order: a warp's 32 pairs share their memory sectors, so
     * skipping some lanes saves no traffic, and full sectors are the cheapest writes. */
    keys[lo] = swap ? b : a;
    keys[hi] = swap ? a : b;
    if (values) {
        values[lo] = swap ? vb : va;
        values[hi] = swap ? va : vb;
    }
    /* END SOLUTION */
}

/** TODO 3.2: launches ::bitonic_merge_global_kernel, one thread per comparator (n > 0). */
cudaError_t merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t stride, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.2 n / 2 comparators, THREADS_PER_BLOCK threads per block */
    bitonic_merge_global_kernel<<<blocks_for(n / 2), THREADS_PER_BLOCK>>>(d_keys, d_values, n, size,
                                                                          stride, run, descending);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, size, stride, run, descending);
    /* END SOLUTION */
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.3: the end of a stage in shared memory
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.3. The end of stage `size` in shared memory: block b loads tile b, does the steps
 * of stride min(size, ::BITONIC_TILE) / 2 down to 1, each a ::tile_step (written in
 * TODO 3.1), and stores the tile.
 */
__global__ void __launch_bounds__(TILE_THREADS)
    bitonic_merge_shared_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t size,
                                size_t run, int descending)
{
    __shared__ unsigned int tile_keys[BITONIC_TILE];
    __shared__ unsigned int tile_values[BITONIC_TILE];
    size_t base = (size_t)blockIdx.x * BITONIC_TILE;
    unsigned count = tile_count(n, blockIdx.x);
    load_tile(keys, values, base, count, tile_keys, tile_values);
    /* BEGIN SOLUTION 3.3 the steps of the stage whose stride is below the tile */
    unsigned int *shared_values = values ? tile_values : NULL; /* NULL: keys only */
    size_t first = (size < BITONIC_TILE ? size : BITONIC_TILE) / 2;
    for (size_t stride = first; stride > 0; stride /= 2) {
        tile_step(tile_keys, shared_values, base, count, size, stride, run, descending);
    }
    /* END SOLUTION */
    store_tile(keys, values, base, count, tile_keys, tile_values);
}

/** TODO 3.3: launches ::bitonic_merge_shared_kernel, one block per tile (n > 0). */
cudaError_t merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                         size_t run, int descending)
{
    /* BEGIN SOLUTION 3.3 one block of TILE_THREADS threads per tile */
    size_t tiles = (n + BITONIC_TILE - 1) / BITONIC_TILE;
    bitonic_merge_shared_kernel<<<(unsigned)tiles, TILE_THREADS>>>(d_keys, d_values, n, size, run,
                                                                   descending);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, size, run, descending);
    /* END SOLUTION */
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.4: the whole sort, any n (padding), batches
 * ------------------------------------------------------------------------------------------ */

/**
 * TODO 3.4: the whole network on n keys (n > 0, a multiple of @p run, a power of two): the
 * tiles, then every larger stage as its global steps and one shared merge. Every run of
 * @p run keys comes out sorted in the direction asked.
 */
cudaError_t sort_runs(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t run,
                      int descending)
{
    /* BEGIN SOLUTION 3.4 tiles; then per stage: global steps down to the tile, a shared merge */
    CUDA_TRY(sort_tiles(d_keys, d_values, n, run, descending));
    for (size_t size = 2 * (size_t)BITONIC_TILE; size <= run; size *= 2) {
        for (size_t stride = size / 2; stride >= BITONIC_TILE; stride /= 2) {
            CUDA_TRY(merge_global(d_keys, d_values, n, size, stride, run, descending));
        }
        CUDA_TRY(merge_shared(d_keys, d_values, n, size, run, descending));
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
    /* END SOLUTION */
}

/**
 * TODO 3.4. Copies @p count arrays of @p n keys (and values) into a padded buffer of
 * @p count arrays of @p m keys: thread j writes padded key j, which is key `j % m` of
 * array `j / m` when `j % m < n`, and @p sentinel otherwise (its value: 0).
 */
__global__ void pad_kernel(const unsigned int *keys, const unsigned int *values, size_t n, size_t m,
                           size_t padded_total, unsigned int sentinel, unsigned int *padded_keys,
                           unsigned int *padded_values)
{
    /* BEGIN SOLUTION 3.4 one thread per padded key: a real key or the sentinel */
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= padded_total) {
        return;
    }
    size_t array = j / m, r = j - array * m;
    int real = r < n;
    padded_keys[j] = real ? keys[array * n + r] : sentinel;
    if (values) {
        padded_values[j] = real ? values[array * n + r] : 0u;
    }
    /* END SOLUTION */
}

/**
 * TODO 3.4. After the padded sort, every key equal to the sentinel (real or padding) is at
 * the end of its padded array, and the real part of array b, its first n keys, ends with
 * as many sentinel keys as array b had, but their values may be padding's. Thread i looks
 * at input pair i (the caller's buffers still hold the input): if its key is the sentinel,
 * it takes the next free place from the end of array b's real part (counter b) and writes
 * its value there, in the padded buffer. `total` is n * count, the real pairs of all arrays
 * (the padded buffer holds m * count).
 */
__global__ void restore_sentinel_values_kernel(const unsigned int *keys, const unsigned int *values,
                                               size_t n, size_t total, size_t m,
                                               unsigned int sentinel, unsigned int *padded_values,
                                               unsigned long long *counters)
{
    /* BEGIN SOLUTION 3.4 a sentinel key's value goes to the next place from the end */
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total || keys[i] != sentinel) {
        return;
    }
    size_t array = i / n;
    unsigned long long taken = atomicAdd(&counters[array], 1ull);
    padded_values[array * m + (n - 1 - (size_t)taken)] = values[i];
    /* END SOLUTION */
}

/**
 * TODO 3.4. The inverse of ::pad_kernel: thread i copies pair i of the output (key
 * `i % n` of array `i / n`) from the padded buffer; the padding is left behind. `total` is
 * n * count, the output pairs of all arrays.
 */
__global__ void unpad_kernel(const unsigned int *padded_keys, const unsigned int *padded_values,
                             size_t n, size_t m, size_t total, unsigned int *keys,
                             unsigned int *values)
{
    /* BEGIN SOLUTION 3.4 one thread per output pair */
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) {
        return;
    }
    size_t array = i / n, r = i - array * n;
    keys[i] = padded_keys[array * m + r];
    if (values) {
        values[i] = padded_values[array * m + r];
    }
    /* END SOLUTION */
}

/**
 * A sort of every run of @p run keys of @p n (n a multiple of run, run a power of two):
 * ::sort_runs (TODO 3.4) or ::multistride_sort_runs (TODO 3.5). The padded sort takes one, so
 * both sorts share the padding.
 */
typedef cudaError_t (*runs_sort_fn)(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                    size_t run, int descending);

/** The buffers of a padded sort: @p count arrays of @p m keys (values, counters: optional). */
typedef struct {
    unsigned int *keys;           /**< count * m keys */
    unsigned int *values;         /**< count * m values, NULL for keys only */
    unsigned long long *counters; /**< one per array, NULL for keys only */
} padded_buffers;

/**
 * TODO 3.4: sorts @p count arrays of @p n keys (n not a power of two) through the padded
 * buffers @p p of arrays of m = bitonic_padded_length(n) keys: pad with a sentinel that sorts
 * after every real key (UINT_MAX ascending, 0 descending), sort the runs of m keys with
 * @p sort_runs_of (::sort_runs for this lab's sort), give the sentinel keys of the real part
 * their real values back (with values), unpad.
 */
cudaError_t sort_through_padding(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                 size_t count, int descending, const padded_buffers *p,
                                 runs_sort_fn sort_runs_of)
{
    /* BEGIN SOLUTION 3.4 pad, sort, restore the sentinel keys' values, unpad */
    size_t m = bitonic_padded_length(n);
    unsigned int sentinel = descending ? 0u : UINT_MAX; /* sorts after every real key */
    size_t padded_total = m * count, total = n * count;
    pad_kernel<<<blocks_for(padded_total), THREADS_PER_BLOCK>>>(
        d_keys, d_values, n, m, padded_total, sentinel, p->keys, p->values);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(sort_runs_of(p->keys, p->values, padded_total, m, descending));
    if (d_values) {
        /* Reads the input, still in d_keys and d_values: before the unpad overwrites it. */
        CUDA_TRY(cudaMemset(p->counters, 0, count * sizeof *p->counters));
        restore_sentinel_values_kernel<<<blocks_for(total), THREADS_PER_BLOCK>>>(
            d_keys, d_values, n, total, m, sentinel, p->values, p->counters);
        CUDA_TRY(cudaGetLastError());
    }
    unpad_kernel<<<blocks_for(total), THREADS_PER_BLOCK>>>(p->keys, p->values, n, m, total, d_keys,
                                                           d_values);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, count, descending, p, sort_runs_of);
    /* END SOLUTION */
}

/** Frees the padded buffers; returns the first error. */
cudaError_t free_padded(padded_buffers *p)
{
    CUDA_TRY(cudaFree(p->keys));
    CUDA_TRY(cudaFree(p->values));
    CUDA_TRY(cudaFree(p->counters));
    return cudaSuccess;
}

/** Allocates the padded buffers, sorts through them with @p sort_runs_of, and frees them. */
cudaError_t sort_padded(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t count,
                        int descending, runs_sort_fn sort_runs_of)
{
    size_t padded_total = bitonic_padded_length(n) * count;
    padded_buffers p = {NULL, NULL, NULL};
    cudaError_t err = cudaMalloc((void **)&p.keys, padded_total * sizeof *p.keys);
    if (err == cudaSuccess && d_values) {
        err = cudaMalloc((void **)&p.values, padded_total * sizeof *p.values);
    }
    if (err == cudaSuccess && d_values) {
        err = cudaMalloc((void **)&p.counters, count * sizeof *p.counters);
    }
    if (err != cudaSuccess) {
        kit_report_cuda_error(err, "cudaMalloc of the padded buffers", __FILE__, __LINE__);
    } else {
        err = sort_through_padding(d_keys, d_values, n, count, descending, &p, sort_runs_of);
    }
    cudaError_t freed = free_padded(&p);
    return err != cudaSuccess ? err : freed;
}

/* ------------------------------------------------------------------------------------------
 * TODO 3.5 (bonus): multistride passes. A thread holds BITONIC_MS_KEYS = 16 keys in registers
 * (arrangements: multistride_index() in bitonic_given.cuh). One pass over a tile of
 * BITONIC_MS_TILE = 4096 keys does every stride below the tile: four in registers, an
 * exchange through shared memory, four more, another exchange, the last four. One pass over
 * global memory does up to MULTISTRIDE_STEPS = 4 strides of a tile or more.
 * ------------------------------------------------------------------------------------------ */

/* BEGIN SOLUTION 3.5 helpers: comparator and steps in registers, exchanges, a tile pass */
/**
 * The comparator on two registers of one thread: puts `*key_a`, `*key_b` in ascending order
 * (descending when @p down), their values with them when @p with_values. Selects, no branch.
 */
__device__ __forceinline__ void register_compare_exchange(unsigned *key_a, unsigned *key_b,
                                                          unsigned *value_a, unsigned *value_b,
                                                          int down, int with_values)
{
    unsigned a = *key_a, b = *key_b;
    int swap = down ? a < b : a > b;
    *key_a = swap ? b : a;
    *key_b = swap ? a : b;
    if (with_values) {
        unsigned va = *value_a, vb = *value_b;
        *value_a = swap ? vb : va;
        *value_b = swap ? va : vb;
    }
}

/**
 * The steps of a stage that a thread's registers hold in arrangement @p bit: strides
 * `8 << bit`, `4 << bit`, `2 << bit`, `1 << bit`, those up to @p top, in that order; the
 * stride `d << bit` pairs registers r and r + d. Register r holds tile key
 * `first | (r << bit)`, and the comparator whose lower key is tile key i sorts descending
 * when `((i & mask) != 0) != flip` (see ::tile_stages). Every register index is
 * a constant once the loops are unrolled, so the keys stay in registers.
 */
__device__ __forceinline__ void register_steps(unsigned *keys, unsigned *values, int with_values,
                                               unsigned bit, unsigned first, size_t top,
                                               unsigned mask, int flip)
{
#pragma unroll
    for (unsigned d = BITONIC_MS_KEYS / 2; d > 0; d /= 2) {
        if (((size_t)d << bit) > top) {
            continue; /* a stride above this stage's first */
        }
#pragma unroll
        for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
            if ((r & d) == 0) {
                int down = (((first | (r << bit)) & mask) != 0) != flip;
                register_compare_exchange(&keys[r], &keys[r + d], &values[r], &values[r + d], down,
                                          with_values);
            }
        }
    }
}

/**
 * Rearranges the tile between the threads: every thread writes its registers, held in
 * arrangement @p from, to the tile in shared memory, and reads back arrangement @p to. The
 * first barrier waits until every thread has read what the previous exchange left there; the
 * second, until the whole tile is written. Slots from multistride_slot(): no bank conflict.
 */
__device__ __forceinline__ void exchange(unsigned *keys, unsigned *values, int with_values,
                                         unsigned *tile_keys, unsigned *tile_values, unsigned from,
                                         unsigned to)
{
    unsigned write_at = multistride_slot(multistride_index(threadIdx.x, 0, from));
    unsigned read_at = multistride_slot(multistride_index(threadIdx.x, 0, to));
    __syncthreads();
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        unsigned at = write_at ^ multistride_slot(r << from); /* the slot is linear */
        tile_keys[at] = keys[r];
        if (with_values) {
            tile_values[at] = values[r];
        }
    }
    __syncthreads();
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        unsigned at = read_at ^ multistride_slot(r << to);
        keys[r] = tile_keys[at];
        if (with_values) {
            values[r] = tile_values[at];
        }
    }
}

/**
 * Thread t loads keys t + 256 r (r = 0 .. 15) of the tile at @p base into its registers:
 * arrangement 8, a warp reading 32 neighbouring keys per register (coalesced). Keys from
 * @p count on (a partial last tile) are 0: the comparators pair them only with each other.
 */
__device__ __forceinline__ void load_registers(const unsigned *keys, const unsigned *values,
                                               int with_values, size_t base, unsigned count,
                                               unsigned *reg_keys, unsigned *reg_values)
{
    /* Key t + 256 r is at a constant offset from the thread's first: one address. */
    const unsigned *thread_keys = keys + base + threadIdx.x;
    const unsigned *thread_values = with_values ? values + base + threadIdx.x : NULL;
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        int in = threadIdx.x + r * MULTISTRIDE_THREADS < count;
        reg_keys[r] = in ? thread_keys[r * MULTISTRIDE_THREADS] : 0u;
        if (with_values) {
            reg_values[r] = in ? thread_values[r * MULTISTRIDE_THREADS] : 0u;
        }
    }
}

/** The inverse of ::load_registers: arrangement 8 back to global memory, the first @p count. */
__device__ __forceinline__ void store_registers(unsigned *keys, unsigned *values, int with_values,
                                                size_t base, unsigned count,
                                                const unsigned *reg_keys,
                                                const unsigned *reg_values)
{
    unsigned *thread_keys = keys + base + threadIdx.x;
    unsigned *thread_values = with_values ? values + base + threadIdx.x : NULL;
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        if (threadIdx.x + r * MULTISTRIDE_THREADS < count) {
            thread_keys[r * MULTISTRIDE_THREADS] = reg_keys[r];
            if (with_values) {
                thread_values[r * MULTISTRIDE_THREADS] = reg_values[r];
            }
        }
    }
}

/**
 * The steps of one stage inside the tile, strides @p top down to 1 (top < the tile), on the
 * tile held in registers in arrangement @p from (0, or 8 when it was just loaded). For each
 * group of four strides, from the group of @p top down: an exchange into the group's
 * arrangement, then its steps in registers. Ends in arrangement 0.
 */
__device__ __forceinline__ void tile_stage(unsigned *keys, unsigned *values, int with_values,
                                           unsigned *tile_keys, unsigned *tile_values, size_t top,
                                           unsigned mask, int flip, unsigned from)
{
    unsigned t = threadIdx.x;
    if (top >= 256) { /* strides 2048 .. 256 */
        if (from == 0) {
            exchange(keys, values, with_values, tile_keys, tile_values, 0, 8);
        }
        register_steps(keys, values, with_values, 8, multistride_index(t, 0, 8), top, mask, flip);
        exchange(keys, values, with_values, tile_keys, tile_values, 8, 4);
    } else if (top >= 16 && from == 0) {
        exchange(keys, values, with_values, tile_keys, tile_values, 0, 4);
    } else if (top >= 16) {
        exchange(keys, values, with_values, tile_keys, tile_values, 8, 4);
    } else if (from == 8) {
        exchange(keys, values, with_values, tile_keys, tile_values, 8, 0);
    }
    if (top >= 16) { /* strides 128 .. 16 */
        register_steps(keys, values, with_values, 4, multistride_index(t, 0, 4), top, mask, flip);
        exchange(keys, values, with_values, tile_keys, tile_values, 4, 0);
    }
    /* strides 8 .. 1 */
    register_steps(keys, values, with_values, 0, multistride_index(t, 0, 0), top, mask, flip);
}

/**
 * The body of the tile kernels: block b's pass over its tile (see
 * ::multistride_tile_keys_kernel). Inlined with a constant @p with_values, the keys-only
 * kernel never tests for values, nor holds room for them.
 */
__device__ __forceinline__ void tile_stages(unsigned *keys, unsigned *values, int with_values,
                                            size_t n, size_t first_size, size_t last_size,
                                            size_t run, int descending, unsigned *tile_keys,
                                            unsigned *tile_values)
{
    size_t base = (size_t)blockIdx.x * BITONIC_MS_TILE, left = n - base;
    unsigned count = left < BITONIC_MS_TILE ? (unsigned)left : BITONIC_MS_TILE;
    unsigned reg_keys[BITONIC_MS_KEYS], reg_values[BITONIC_MS_KEYS];
    load_registers(keys, values, with_values, base, count, reg_keys, reg_values);
    unsigned from = 8;
    for (size_t size = first_size; size <= last_size; size *= 2) {
        size_t top = (size < BITONIC_MS_TILE ? size : BITONIC_MS_TILE) / 2;
        /* bitonic_descending_at(base + i, ...) for tile key i: base is a multiple of the tile,
         * so a stage below the tile alternates with bit `size` of i, and a larger one runs
         * one way over the whole tile. */
        unsigned mask = size < run && size < BITONIC_MS_TILE ? (unsigned)size : 0u;
        int flip = bitonic_descending_at(base, size, run, descending);
        tile_stage(reg_keys, reg_values, with_values, tile_keys, tile_values, top, mask, flip,
                   from);
        from = 0;
    }
    exchange(reg_keys, reg_values, with_values, tile_keys, tile_values, 0, 8);
    store_registers(keys, values, with_values, base, count, reg_keys, reg_values);
}
/* END SOLUTION */

/**
 * TODO 3.5. Keys only: block b does stages @p first_size, 2 * first_size, ..., @p last_size
 * on tile b (keys `b * BITONIC_MS_TILE` ..., fewer in a partial last tile), each stage's steps
 * of stride `min(size, BITONIC_MS_TILE) / 2` down to 1, in one pass: thread t loads keys
 * t + 256 r (arrangement 8), does the strides of each group of four in registers, exchanging
 * the tile through shared memory between groups, and stores the tile as it loaded it. With
 * stages 2 .. min(run, tile) it sorts every tile (as TODO 3.1 does); with one stage
 * `size` > the tile it ends that stage (as TODO 3.3 does).
 */
__global__ void __launch_bounds__(MULTISTRIDE_THREADS)
    multistride_tile_keys_kernel(unsigned int *keys, size_t n, size_t first_size, size_t last_size,
                                 size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 a tile of keys in shared memory, the body without values */
    __shared__ unsigned int tile_keys[BITONIC_MS_TILE];
    tile_stages(keys, NULL, 0, n, first_size, last_size, run, descending, tile_keys, NULL);
    /* END SOLUTION */
}

/**
 * TODO 3.5. ::multistride_tile_keys_kernel for keys and values: each value moves with its
 * key, in registers and through shared memory. (Two kernels rather than one that tests for
 * values: that one needs the registers of both, and the keys-only one, alone, far fewer, so
 * more of its blocks fit on an SM.)
 */
__global__ void __launch_bounds__(MULTISTRIDE_THREADS)
    multistride_tile_pairs_kernel(unsigned int *keys, unsigned int *values, size_t n,
                                  size_t first_size, size_t last_size, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 tiles of keys and values in shared memory, the body with values */
    __shared__ unsigned int tile_keys[BITONIC_MS_TILE];
    __shared__ unsigned int tile_values[BITONIC_MS_TILE];
    tile_stages(keys, values, 1, n, first_size, last_size, run, descending, tile_keys, tile_values);
    /* END SOLUTION */
}

/**
 * TODO 3.5: launches ::multistride_tile_pairs_kernel, or ::multistride_tile_keys_kernel when
 * @p d_values is NULL, one block per tile of the n keys (n > 0).
 */
cudaError_t multistride_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                              size_t first_size, size_t last_size, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 one block of MULTISTRIDE_THREADS threads per tile, the last partial */
    unsigned tiles = (unsigned)((n + BITONIC_MS_TILE - 1) / BITONIC_MS_TILE);
    if (d_values) {
        multistride_tile_pairs_kernel<<<tiles, MULTISTRIDE_THREADS>>>(
            d_keys, d_values, n, first_size, last_size, run, descending);
    } else {
        multistride_tile_keys_kernel<<<tiles, MULTISTRIDE_THREADS>>>(d_keys, n, first_size,
                                                                     last_size, run, descending);
    }
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, first_size, last_size, run, descending);
    /* END SOLUTION */
}

/* BEGIN SOLUTION 3.5 the body that both global kernels share: load, steps in registers, store */
/**
 * The body of the fused global pass for thread @p q (one with values, one without): its keys
 * are `first + r * low` for r < `held` = 2^steps, where `low` = top >> (steps - 1) and
 * `first` is q with `steps` zero bits inserted at the position of low's bit. It loads them,
 * does the steps of register distance held / 2 down to 1 (strides @p top down to low), all
 * in one direction (its keys differ only in bits below `size`), and stores them back.
 */
__device__ __forceinline__ void fused_steps(unsigned *keys, unsigned *values, int with_values,
                                            size_t q, size_t size, size_t top, unsigned steps,
                                            size_t run, int descending)
{
    size_t low = top >> (steps - 1);
    size_t first = (q & (low - 1)) | ((q & ~(low - 1)) << steps);
    unsigned held = 1u << steps;
    int down = bitonic_descending_at(first, size, run, descending);
    unsigned reg_keys[BITONIC_MS_KEYS], reg_values[BITONIC_MS_KEYS];
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        if (r < held) {
            reg_keys[r] = keys[first + r * low];
            if (with_values) {
                reg_values[r] = values[first + r * low];
            }
        }
    }
#pragma unroll
    for (unsigned d = BITONIC_MS_KEYS / 2; d > 0; d /= 2) {
        if (d >= held) {
            continue; /* fewer steps than the registers could do */
        }
#pragma unroll
        for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
            if ((r & d) == 0 && r < held) {
                register_compare_exchange(&reg_keys[r], &reg_keys[r + d], &reg_values[r],
                                          &reg_values[r + d], down, with_values);
            }
        }
    }
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_KEYS; r++) {
        if (r < held) {
            keys[first + r * low] = reg_keys[r];
            if (with_values) {
                values[first + r * low] = reg_values[r];
            }
        }
    }
}
/* END SOLUTION */

/**
 * TODO 3.5. Keys only: steps of stride @p top, top / 2, ..., `low` = top >> (steps - 1) of
 * stage @p size in one pass over global memory (1 <= @p steps <= MULTISTRIDE_STEPS): thread q
 * holds the 2^steps keys these steps combine, `first + r * low` for r < 2^steps, where `first`
 * is q with `steps` zero bits inserted at the position of low's bit (bitonic_pair_low()
 * inserts one); it does the steps in registers and writes the keys back. A warp's 32 threads
 * read 32 neighbouring keys per register. The keys of a thread differ only in bits below
 * `size`, so one direction serves all its comparators.
 */
__global__ void __launch_bounds__(MULTISTRIDE_THREADS)
    multistride_global_keys_kernel(unsigned int *keys, size_t n, size_t size, size_t top,
                                   unsigned steps, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 one thread per 2^steps keys, the body without values */
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q < n >> steps) { /* the grid is rounded up to whole blocks */
        fused_steps(keys, NULL, 0, q, size, top, steps, run, descending);
    }
    /* END SOLUTION */
}

/** TODO 3.5. ::multistride_global_keys_kernel for keys and values. */
__global__ void __launch_bounds__(MULTISTRIDE_THREADS)
    multistride_global_pairs_kernel(unsigned int *keys, unsigned int *values, size_t n, size_t size,
                                    size_t top, unsigned steps, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 one thread per 2^steps pairs, the body with values */
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q < n >> steps) {
        fused_steps(keys, values, 1, q, size, top, steps, run, descending);
    }
    /* END SOLUTION */
}

/**
 * TODO 3.5: launches ::multistride_global_pairs_kernel, or ::multistride_global_keys_kernel
 * when @p d_values is NULL, one thread per 2^steps keys (n > 0).
 */
cudaError_t multistride_global(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t size,
                               size_t top, unsigned steps, size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 n >> steps threads in blocks of MULTISTRIDE_THREADS */
    size_t threads = n >> steps;
    unsigned blocks = (unsigned)((threads + MULTISTRIDE_THREADS - 1) / MULTISTRIDE_THREADS);
    if (d_values) {
        multistride_global_pairs_kernel<<<blocks, MULTISTRIDE_THREADS>>>(
            d_keys, d_values, n, size, top, steps, run, descending);
    } else {
        multistride_global_keys_kernel<<<blocks, MULTISTRIDE_THREADS>>>(d_keys, n, size, top, steps,
                                                                        run, descending);
    }
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, size, top, steps, run, descending);
    /* END SOLUTION */
}

/**
 * TODO 3.5: the whole network on n keys (n > 0, a multiple of @p run, a power of two), as
 * ::sort_runs does it but in fewer passes: one tile pass for stages 2 .. min(run, tile); then
 * for each larger stage, its strides of a tile or more in global passes of up to
 * MULTISTRIDE_STEPS strides each, and one tile pass for the strides below the tile.
 */
cudaError_t multistride_sort_runs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                  size_t run, int descending)
{
    /* BEGIN SOLUTION 3.5 tiles; per stage: fused global passes down to the tile, a tile pass */
    const size_t tile = BITONIC_MS_TILE;
    CUDA_TRY(multistride_tiles(d_keys, d_values, n, 2, run < tile ? run : tile, run, descending));
    for (size_t size = 2 * tile; size <= run; size *= 2) {
        size_t top = size / 2;
        while (top >= tile) {
            unsigned steps = 1; /* as many strides as are left above the tile, at most 4 */
            while (steps < MULTISTRIDE_STEPS && (top >> steps) >= tile) {
                steps++;
            }
            CUDA_TRY(multistride_global(d_keys, d_values, n, size, top, steps, run, descending));
            top >>= steps;
        }
        CUDA_TRY(multistride_tiles(d_keys, d_values, n, size, size, run, descending));
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, n, run, descending);
    /* END SOLUTION */
}

/* ------------------------------------------------------------------------------------------
 * The API of bitonic.h: argument checks, then the tiers above with run = n.
 * ------------------------------------------------------------------------------------------ */

/** Whether @p x is a power of two (and not 0). */
int is_power_of_two(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

extern "C" cudaError_t bitonic_sort_tiles(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          int descending)
{
    if (n % BITONIC_TILE != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : sort_tiles(d_keys, d_values, n, n, descending);
}

extern "C" cudaError_t bitonic_merge_global(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                            size_t size, size_t stride, int descending)
{
    if (!is_power_of_two(stride) || !is_power_of_two(size) || stride > size / 2 ||
        n % (2 * stride) != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : merge_global(d_keys, d_values, n, size, stride, n, descending);
}

extern "C" cudaError_t bitonic_merge_shared(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                            size_t size, int descending)
{
    if (!is_power_of_two(size) || size < 2 || n % BITONIC_TILE != 0) {
        return cudaErrorInvalidValue;
    }
    return n == 0 ? cudaSuccess : merge_shared(d_keys, d_values, n, size, n, descending);
}

extern "C" cudaError_t bitonic_sort_batch(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          size_t count, int descending)
{
    if (n < 2 || count == 0) {
        return cudaSuccess;
    }
    size_t m = bitonic_padded_length(n);
    if (m < n || count > (size_t)-1 / m) {
        return cudaErrorInvalidValue; /* the padded batch would not fit in a size_t */
    }
    /* BEGIN SOLUTION 3.4 a power of two sorts in place as runs of n; other n through padding */
    if (m == n) {
        return sort_runs(d_keys, d_values, n * count, n, descending);
    }
    return sort_padded(d_keys, d_values, n, count, descending, sort_runs);
    /* SKELETON */
    KIT_TODO_STUB(d_keys, d_values, descending);
    /* END SOLUTION */
}

extern "C" cudaError_t bitonic_sort_pairs(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                          int descending)
{
    return bitonic_sort_batch(d_keys, d_values, n, 1, descending);
}

extern "C" cudaError_t bitonic_sort_keys(unsigned int *d_keys, size_t n, int descending)
{
    return bitonic_sort_batch(d_keys, NULL, n, 1, descending);
}

extern "C" cudaError_t bitonic_sort_multistride_batch(unsigned int *d_keys, unsigned int *d_values,
                                                      size_t n, size_t count, int descending)
{
    if (n < 2 || count == 0) {
        return cudaSuccess;
    }
    size_t m = bitonic_padded_length(n);
    if (m < n || count > (size_t)-1 / m) {
        return cudaErrorInvalidValue; /* the padded batch would not fit in a size_t */
    }
    /* As bitonic_sort_batch, with the multistride sort of the runs (and 3.4's padding). */
    if (m == n) {
        return multistride_sort_runs(d_keys, d_values, n * count, n, descending);
    }
    return sort_padded(d_keys, d_values, n, count, descending, multistride_sort_runs);
}

extern "C" cudaError_t bitonic_sort_multistride_pairs(unsigned int *d_keys, unsigned int *d_values,
                                                      size_t n, int descending)
{
    return bitonic_sort_multistride_batch(d_keys, d_values, n, 1, descending);
}

extern "C" cudaError_t bitonic_sort_multistride_keys(unsigned int *d_keys, size_t n, int descending)
{
    return bitonic_sort_multistride_batch(d_keys, NULL, n, 1, descending);
}
