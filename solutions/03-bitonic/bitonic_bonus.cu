/**
 * @file bitonic_bonus.cu
 * @brief Lab 03, bonus: the multistride bitonic sort. Your second file: fill in TODO 3.5.
 *
 * The bonus of Lab 03 (TODO 3.5), in a file of its own beside bitonic.cu: read the handout's
 * TODO 3.5 (labs/03-bitonic/README.md) first, once TODO 3.4 of bitonic.cu passes.
 * `build/student/test_03_bitonic -s 3.5_multistride` runs its tests. It is worth bonus points
 * only: left as it is (or left out of a submission), it scores 0 and changes nothing else.
 *
 * The same network as bitonic.cu's sort, in fewer passes over global memory: a thread holds
 * 16 keys in registers and does several steps of the network alone. Layers, from the bottom:
 * registers (a thread), a tile in shared memory (a block), a pass over global memory (the
 * grid), and the host loop. Arrays whose n is not a power of two go through the padding of
 * TODO 3.4 (sort_padded() in bitonic_given.cuh, which calls your sort_through_padding()).
 */
#include "bitonic.h"
#include "cuda_check.h"

/* Given, in bitonic_bonus_given.cuh (read it): what your kernels use, BITONIC_MS_BLOCK_THREADS and
 * MULTISTRIDE_STEPS and a tile's arrangements in registers (multistride_index()) and in shared
 * memory (multistride_slot()); and the bonus sort's API, which calls your
 * multistride_sort_runs(). */
#include "bitonic_bonus_given.cuh"

/* ------------------------------------------------------------------------------------------
 * TODO 3.5 (bonus): multistride passes. A thread holds BITONIC_MS_ITEMS_PER_THREAD = 16 keys in
 * registers (arrangements: multistride_index() in bitonic_bonus_given.cuh). One pass over a tile of
 * BITONIC_MS_TILE = 4096 keys does every stride below the tile: four in registers, an exchange
 * through shared memory, four more, another exchange, the last four. One pass over global memory
 * does up to MULTISTRIDE_STEPS = 4 strides of a tile or more.
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
    for (unsigned d = BITONIC_MS_ITEMS_PER_THREAD / 2; d > 0; d /= 2) {
        if (((size_t)d << bit) > top) {
            continue; /* a stride above this stage's first */
        }
#pragma unroll
        for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
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
 * second barrier waits until the whole tile is written. The first is only a guard: @p from is
 * the arrangement the previous exchange read, so each thread writes exactly the slots it read
 * itself, which no other thread reads. Slots from multistride_slot(): no bank conflict.
 */
__device__ __forceinline__ void exchange(unsigned *keys, unsigned *values, int with_values,
                                         unsigned *tile_keys, unsigned *tile_values, unsigned from,
                                         unsigned to)
{
    unsigned write_at = multistride_slot(multistride_index(threadIdx.x, 0, from));
    unsigned read_at = multistride_slot(multistride_index(threadIdx.x, 0, to));
    __syncthreads();
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
        unsigned at = write_at ^ multistride_slot(r << from); /* the slot is linear */
        tile_keys[at] = keys[r];
        if (with_values) {
            tile_values[at] = values[r];
        }
    }
    __syncthreads();
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
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
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
        int in = threadIdx.x + r * BITONIC_MS_BLOCK_THREADS < count;
        reg_keys[r] = in ? thread_keys[r * BITONIC_MS_BLOCK_THREADS] : 0u;
        if (with_values) {
            reg_values[r] = in ? thread_values[r * BITONIC_MS_BLOCK_THREADS] : 0u;
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
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
        if (threadIdx.x + r * BITONIC_MS_BLOCK_THREADS < count) {
            thread_keys[r * BITONIC_MS_BLOCK_THREADS] = reg_keys[r];
            if (with_values) {
                thread_values[r * BITONIC_MS_BLOCK_THREADS] = reg_values[r];
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
    size_t base = (size_t)blockIdx.x * BITONIC_MS_TILE;
    unsigned count = kit_tile_keys(n, base, BITONIC_MS_TILE);
    unsigned reg_keys[BITONIC_MS_ITEMS_PER_THREAD], reg_values[BITONIC_MS_ITEMS_PER_THREAD];
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
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
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
 * values: that one holds room for the values even when it sorts keys only, 56 registers per
 * thread in ours against 36 for the keys-only kernel (sm_90, CUDA 13.0), so fewer of its
 * blocks fit on an SM.)
 */
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
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
    /* BEGIN SOLUTION 3.5 one block of BITONIC_MS_BLOCK_THREADS per tile, the last partial */
    unsigned tiles = (unsigned)kit_num_tiles(n, BITONIC_MS_TILE);
    if (d_values) {
        multistride_tile_pairs_kernel<<<tiles, BITONIC_MS_BLOCK_THREADS>>>(
            d_keys, d_values, n, first_size, last_size, run, descending);
    } else {
        multistride_tile_keys_kernel<<<tiles, BITONIC_MS_BLOCK_THREADS>>>(
            d_keys, n, first_size, last_size, run, descending);
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
    unsigned reg_keys[BITONIC_MS_ITEMS_PER_THREAD], reg_values[BITONIC_MS_ITEMS_PER_THREAD];
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
        if (r < held) {
            reg_keys[r] = keys[first + r * low];
            if (with_values) {
                reg_values[r] = values[first + r * low];
            }
        }
    }
#pragma unroll
    for (unsigned d = BITONIC_MS_ITEMS_PER_THREAD / 2; d > 0; d /= 2) {
        if (d >= held) {
            continue; /* fewer steps than the registers could do */
        }
#pragma unroll
        for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
            if ((r & d) == 0 && r < held) {
                register_compare_exchange(&reg_keys[r], &reg_keys[r + d], &reg_values[r],
                                          &reg_values[r + d], down, with_values);
            }
        }
    }
#pragma unroll
    for (unsigned r = 0; r < BITONIC_MS_ITEMS_PER_THREAD; r++) {
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
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
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
__global__ void __launch_bounds__(BITONIC_MS_BLOCK_THREADS)
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
    /* BEGIN SOLUTION 3.5 n >> steps threads in blocks of BITONIC_MS_BLOCK_THREADS */
    size_t threads = n >> steps;
    unsigned blocks =
        (unsigned)((threads + BITONIC_MS_BLOCK_THREADS - 1) / BITONIC_MS_BLOCK_THREADS);
    if (d_values) {
        multistride_global_pairs_kernel<<<blocks, BITONIC_MS_BLOCK_THREADS>>>(
            d_keys, d_values, n, size, top, steps, run, descending);
    } else {
        multistride_global_keys_kernel<<<blocks, BITONIC_MS_BLOCK_THREADS>>>(
            d_keys, n, size, top, steps, run, descending);
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
