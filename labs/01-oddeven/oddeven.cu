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
    /* TODO 1.1: swap the two keys when they are out of order */
}

/**
 * One phase over global memory. Thread `i` of the grid (over all blocks) owns pair `i` of
 * the phase: keys oddeven_pair_left(i, phase) and the one after it. Threads whose pair runs
 * past the end do nothing.
 */
__global__ void oddeven_phase_kernel(unsigned int *keys, size_t n, unsigned phase)
{
    /* TODO 1.1: find this thread's pair and compare-exchange it */
}

/** Launches one phase: one thread per pair of the phase (oddeven.h). */
extern "C" cudaError_t oddeven_phase(unsigned int *d_keys, size_t n, unsigned phase)
{
    /* TODO 1.1: launch one thread per pair of the phase */
    KIT_TODO_STUB(d_keys, n, phase);
}

/** The n-phase loop on the host: one launch per phase (oddeven.h). */
extern "C" cudaError_t oddeven_sort(unsigned int *d_keys, size_t n)
{
    /* TODO 1.2: run phases 0 .. n-1, stopping at the first error */
    KIT_TODO_STUB(d_keys, n);
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
    /* TODO 1.3: load the array into shared memory, run n phases, store it back */
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
    /* TODO 1.3: one block per array, one thread per pair (a whole warp at least) */
    KIT_TODO_STUB(d_keys);
}

/**
 * All n phases in one launch. The grid is no larger than what fits on the GPU at once, so
 * each thread walks over pairs with a stride of the grid's size; a grid-wide barrier ends
 * each phase.
 */
__global__ void oddeven_cooperative_kernel(unsigned int *keys, size_t n)
{
    /* TODO 1.4: grid-stride over the pairs of each phase, grid.sync() between */
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
    /* TODO 1.4: size the grid to what is co-resident, then launch cooperatively */
    KIT_TODO_STUB(d_keys);
}
