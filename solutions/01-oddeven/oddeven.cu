/**
 * @file oddeven.cu
 * @brief Lab 01: odd-even transposition sort. Your file: fill in the TODOs.
 *
 * Read labs/01-oddeven/README.md first. Each TODO is tested on its own:
 * `build/student/test_01_oddeven -s 1.1_phase` runs the tests of TODO 1.1, and so on.
 */
#include <cooperative_groups.h>

#include "cuda_check.h"
#include "oddeven.h"

/** Threads per block of the global-memory kernels (one phase, and cooperative). */
#define ODDEVEN_BLOCK_THREADS 256

/** Puts *a and *b in ascending order. */
__device__ void compare_exchange(unsigned int *a, unsigned int *b)
{
    /* BEGIN SOLUTION 1.1 swap the two keys when they are out of order */
    unsigned int x = *a, y = *b;
    if (x > y) {
        *a = y;
        *b = x;
    }
    /* END SOLUTION */
}

/**
 * One phase over global memory. Thread `i` of the grid (over all blocks) owns pair `i` of
 * the phase: keys oddeven_pair_left(i, phase) and the one after it. Threads whose pair runs
 * past the end do nothing.
 */
__global__ void oddeven_phase_kernel(unsigned int *keys, size_t n, unsigned phase)
{
    /* BEGIN SOLUTION 1.1 find this thread's pair and compare-exchange it */
    size_t pair = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t left = oddeven_pair_left(pair, phase);
    if (left + 1 < n) {
        compare_exchange(&keys[left], &keys[left + 1]);
    }
    /* END SOLUTION */
}

/** Launches one phase: one thread per pair of the phase (oddeven.h). */
extern "C" cudaError_t oddeven_phase(unsigned int *d_keys, size_t n, unsigned phase)
{
    /* BEGIN SOLUTION 1.1 launch one thread per pair of the phase */
    size_t pairs = oddeven_pair_count(n, phase);
    if (pairs == 0) {
        return cudaSuccess;
    }
    size_t blocks = (pairs + ODDEVEN_BLOCK_THREADS - 1) / ODDEVEN_BLOCK_THREADS;
    oddeven_phase_kernel<<<(unsigned)blocks, ODDEVEN_BLOCK_THREADS>>>(d_keys, n, phase);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n, phase);
    /* END SOLUTION */
}

/** The n-phase loop on the host: one launch per phase (oddeven.h). */
extern "C" cudaError_t oddeven_sort(unsigned int *d_keys, size_t n)
{
    /* BEGIN SOLUTION 1.2 run phases 0 .. n-1, stopping at the first error */
    for (size_t phase = 0; phase < n; phase++) {
        CUDA_TRY(oddeven_phase(d_keys, n, (unsigned)phase));
    }
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys, n);
    /* END SOLUTION */
}

/**
 * Sorts array `blockIdx.x` of a batch in shared memory. Array b starts at keys + b * n.
 * The block's threads first copy it into a `__shared__` tile of ::ODDEVEN_BLOCK_MAX_N keys
 * (thread t copies keys t, t + blockDim.x, ...), then run all n phases, thread t owning
 * pair t, with a barrier after each phase, then copy the tile back. (The two copies are
 * load_shared() and store_shared() of common/kit_device.cuh, if you include it: see the
 * handout.)
 */
__global__ void oddeven_block_kernel(unsigned int *keys, size_t n)
{
    /* BEGIN SOLUTION 1.3 load the array into shared memory, run n phases, store it back */
    __shared__ unsigned int tile[ODDEVEN_BLOCK_MAX_N];
    unsigned int *array = keys + (size_t)blockIdx.x * n; /* this block's array */
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        tile[i] = array[i];
    }
    __syncthreads();
    for (unsigned phase = 0; phase < n; phase++) {
        size_t left = oddeven_pair_left(threadIdx.x, phase);
        if (left + 1 < n) {
            compare_exchange(&tile[left], &tile[left + 1]);
        }
        /* The next phase reads keys this phase wrote in other threads' pairs. */
        __syncthreads();
    }
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        array[i] = tile[i];
    }
    /* END SOLUTION */
}

/** Launches one block per array of the batch (oddeven.h). */
extern "C" cudaError_t oddeven_sort_block_batch(unsigned int *d_keys, size_t n, size_t count)
{
    if (n > ODDEVEN_BLOCK_MAX_N) {
        return cudaErrorInvalidValue;
    }
    if (n < 2 || count == 0) {
        return cudaSuccess;
    }
    /* BEGIN SOLUTION 1.3 one block per array, one thread per pair (a whole warp at least) */
    unsigned threads = (unsigned)((n / 2 + 31) / 32 * 32);
    oddeven_block_kernel<<<(unsigned)count, threads>>>(d_keys, n);
    CUDA_TRY(cudaGetLastError());
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys);
    /* END SOLUTION */
}

/**
 * All n phases in one launch. The grid is no larger than what fits on the GPU at once, so
 * each thread walks over pairs with a stride of the grid's size; a grid-wide barrier ends
 * each phase.
 */
__global__ void oddeven_cooperative_kernel(unsigned int *keys, size_t n)
{
    /* BEGIN SOLUTION 1.4 grid-stride over the pairs of each phase, grid.sync() between */
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t phase = 0; phase < n; phase++) { /* size_t like n; the parity is what counts */
        for (size_t pair = first; pair < oddeven_pair_count(n, phase); pair += stride) {
            size_t left = oddeven_pair_left(pair, phase);
            compare_exchange(&keys[left], &keys[left + 1]);
        }
        grid.sync();
    }
    /* END SOLUTION */
}

/**
 * Launches the cooperative kernel on a grid that fits on the GPU at once (oddeven.h).
 * cudaLaunchCooperativeKernel() returns its launch's error itself; when it fails, clear the
 * runtime's copy (one cudaGetLastError()) before returning it, as the handout says.
 */
extern "C" cudaError_t oddeven_sort_cooperative(unsigned int *d_keys, size_t n)
{
    if (n < 2) {
        return cudaSuccess;
    }
    /* BEGIN SOLUTION 1.4 size the grid to what is co-resident, then launch cooperatively */
    int device = 0, cooperative = 0, sms = 0, blocks_per_sm = 0;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) {
        return cudaErrorNotSupported;
    }
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, oddeven_cooperative_kernel, ODDEVEN_BLOCK_THREADS, 0));
    size_t needed = (n / 2 + ODDEVEN_BLOCK_THREADS - 1) / ODDEVEN_BLOCK_THREADS;
    size_t resident = (size_t)blocks_per_sm * sms;
    if (resident == 0) {
        return cudaErrorCooperativeLaunchTooLarge; /* not even one block fits on an SM */
    }
    unsigned blocks = (unsigned)(needed < resident ? needed : resident);
    void *args[] = {&d_keys, &n};
    cudaError_t err = cudaLaunchCooperativeKernel((const void *)oddeven_cooperative_kernel, blocks,
                                                  ODDEVEN_BLOCK_THREADS, args, 0, 0);
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* the runtime's copy of the error: cleared */
    }
    CUDA_TRY(err);
    return cudaSuccess;
    /* SKELETON */
    KIT_TODO_STUB(d_keys);
    /* END SOLUTION */
}
