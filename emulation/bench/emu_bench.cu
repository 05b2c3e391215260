/*
 * emu_bench.cu: what the kit's CPU emulation costs (make bench-emulate). A CUDA file like a
 * lab's, built the same way (emulation/cu2cpp.py, then the host compiler, with the same flags:
 * AddressSanitizer when make emulate uses it), so its numbers are those a student's tests see.
 *
 *   fiber switch        one switch between two fibers (a GPU thread and the scheduler), alone
 *   threads / s         a launch of 2^18 threads that each write one word: a fiber per thread,
 *                       made, run and ended
 *   barrier waits / s   one block of 1024 threads passing 1000 __syncthreads(): each thread,
 *                       at each barrier, switches to the scheduler and back
 *   shuffles / s        one block of 1024 threads, each doing 1000 __shfl_xor_sync(): each
 *                       lane waits for its warp, the last computes all 32 results
 */
#include <stdio.h>
#include <time.h>

#include "fiber.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- a bare fiber switch --------------------------------------------------------------------- */

static kit_emu::fiber_ctx ping;
static long switches_left;

static void pong(void *arg)
{
    (void)arg;
    while (switches_left > 0) {
        kit_emu::fiber_yield(&ping);
    }
    kit_emu::fiber_exit(&ping);
}

static double fiber_switch_ns(long rounds)
{
    ping.stack = kit_emu::stack_get();
    kit_emu::fiber_make(&ping, pong, NULL);
    switches_left = rounds;
    double start = now_s();
    long resumes = rounds;
    while (resumes-- > 0) {
        switches_left--;
        kit_emu::fiber_resume(&ping); /* there and back: two switches (the last: it ends) */
    }
    double seconds = now_s() - start;
    kit_emu::stack_put(ping.stack, true);
    return seconds / (2.0 * rounds) * 1e9;
}

/* ---- launches -------------------------------------------------------------------------------- */

__global__ void write_index(unsigned int *out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}

__global__ void many_barriers(unsigned int *out, int barriers)
{
    __shared__ unsigned int counts[1024];
    counts[threadIdx.x] = 0;
    for (int b = 0; b < barriers; b++) {
        __syncthreads();
        counts[(threadIdx.x + 1) % blockDim.x] += 1;
    }
    __syncthreads();
    out[threadIdx.x] = counts[threadIdx.x];
}

__global__ void many_shuffles(unsigned int *out, int shuffles)
{
    unsigned int x = threadIdx.x;
    for (int s = 0; s < shuffles; s++) {
        x += __shfl_xor_sync(0xFFFFFFFFu, x, (s & 15) + 1);
    }
    out[threadIdx.x] = x;
}

int main(void)
{
    printf("emulation benchmark (fibers: %s%s)\n", kit_emu::fiber_backend(),
#if defined(__SANITIZE_ADDRESS__)
           ", with AddressSanitizer"
#else
           ""
#endif
    );
    fiber_switch_ns(100000); /* warm up */
    printf("  fiber switch:        %8.1f ns\n", fiber_switch_ns(2000000));

    const unsigned blocks = 1024, threads = 256;
    unsigned int *d_out = NULL;
    if (cudaMalloc(&d_out, blocks * threads * sizeof(unsigned int)) != cudaSuccess) {
        return 1;
    }
    write_index<<<blocks, threads>>>(d_out);
    double start = now_s();
    for (int r = 0; r < 4; r++) {
        write_index<<<blocks, threads>>>(d_out);
    }
    double seconds = now_s() - start;
    if (cudaDeviceSynchronize() != cudaSuccess) {
        return 1;
    }
    printf("  emulated GPU threads: %8.2f million / s (each a fiber, run to its end)\n",
           4.0 * blocks * threads / seconds / 1e6);

    const int barriers = 1000;
    start = now_s();
    many_barriers<<<1, 1024>>>(d_out, barriers);
    cudaError_t err = cudaDeviceSynchronize();
    seconds = now_s() - start;
    if (err != cudaSuccess) {
        return 1;
    }
    printf("  barrier waits:        %8.2f million / s (a thread at a __syncthreads: a switch "
           "there and back)\n",
           1024.0 * barriers / seconds / 1e6);

    const int shuffles = 1000;
    start = now_s();
    many_shuffles<<<1, 1024>>>(d_out, shuffles);
    err = cudaDeviceSynchronize();
    seconds = now_s() - start;
    if (err != cudaSuccess) {
        return 1;
    }
    printf("  warp shuffles:        %8.2f million lanes / s (a lane at a __shfl_xor_sync: a "
           "switch there and back)\n",
           1024.0 * shuffles / seconds / 1e6);
    cudaFree(d_out);
    return 0;
}
