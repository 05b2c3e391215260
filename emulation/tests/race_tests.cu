/*
 * race_tests.cu: the race detector's own tests (make check-emulate; emulation/src/race.cpp):
 * for each kind of race, a kernel that makes it, which the emulation must report with its line,
 * in every thread order (check_emulation.py runs each case with KIT_EMU_RACECHECK=1 in each
 * order: the shadow sees the race whichever thread goes first), and kernels that look like races
 * but are not, which must pass. Same protocol as device_tests.cu:
 *
 *   race_tests -l        the cases: name, what the report must say ("-": must pass), and
 *                        "racecheck" (a report: the launch fails) or "racecheck-note" (a note:
 *                        the case passes and prints it)
 *   race_tests CASE      runs one case: exit 0 when it ran and its results are right, 1 when
 *                        they are wrong, 3 when a launch failed (the report is on stderr)
 *
 * The kernels are written as students write these faults: a counter in shared memory incremented
 * without an atomic, a missing __syncthreads between a write and a neighbour's read, a read of a
 * shared slot nobody filled, a block total added to global memory without an atomic, a status
 * word published in two halves. A GPU's results differ from run to run for each (compute-sanitizer
 * racecheck names the shared ones); none is run on a GPU here.
 */
#include <stdio.h>
#include <string.h>

static unsigned *d_out;

static int launched(void)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize();
    }
    return err != cudaSuccess ? 3 : 0;
}

/* ---- races the detector must report ---------------------------------------------------------- */

/* Every thread counts itself in a shared counter with a plain ++: a lost update. */
__global__ void shared_lost_update_kernel(unsigned *out)
{
    __shared__ unsigned count;
    if (threadIdx.x == 0) {
        count = 0;
    }
    __syncthreads();
    count++; /* LINE:shared_lost_update */
    __syncthreads();
    out[threadIdx.x] = count;
}

static int test_shared_lost_update(void)
{
    shared_lost_update_kernel<<<1, 64>>>(d_out);
    return launched();
}

/* Each thread writes its slot and reads its neighbour's with no __syncthreads between. */
__global__ void missing_barrier_kernel(unsigned *out)
{
    __shared__ unsigned s[128];
    s[threadIdx.x] = 0;
    __syncthreads();
    s[threadIdx.x] = threadIdx.x * 3u;
    if (threadIdx.x > 0) {
        out[threadIdx.x] = s[threadIdx.x - 1]; /* LINE:missing_barrier */
    }
}

static int test_missing_barrier(void)
{
    missing_barrier_kernel<<<1, 128>>>(d_out);
    return launched();
}

/* Half of each block fills its tile, the whole block reads it (in four blocks: one note). */
__global__ void unwritten_shared_kernel(unsigned *out)
{
    __shared__ unsigned tile[64];
    if (threadIdx.x < 32) {
        tile[threadIdx.x] = threadIdx.x;
    }
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = tile[threadIdx.x]; /* LINE:unwritten_shared */
}

static int test_unwritten_shared(void)
{
    unwritten_shared_kernel<<<4, 64>>>(d_out);
    return launched();
}

/* Thread 0 of each block adds the block's number to a total in global memory, no atomic. */
__global__ void blocks_lost_update_kernel(unsigned *total)
{
    if (threadIdx.x == 0) {
        *total += blockIdx.x + 1u; /* LINE:blocks_lost_update */
    }
}

static int test_blocks_lost_update(void)
{
    cudaMemset(d_out, 0, sizeof(unsigned));
    blocks_lost_update_kernel<<<8, 32>>>(d_out);
    return launched();
}

/* A block's threads count into a global counter with a plain +=. */
__global__ void global_lost_update_kernel(unsigned *count)
{
    *count += 1u; /* LINE:global_lost_update */
}

static int test_global_lost_update(void)
{
    cudaMemset(d_out, 0, sizeof(unsigned));
    global_lost_update_kernel<<<1, 32>>>(d_out);
    return launched();
}

/* Block b publishes (flag, value) for the next block as two 32-bit stores; block b + 1 reads the
 * 64-bit word: on a GPU it may see the flag without the value. */
__global__ void torn_status_kernel(unsigned long long *status, unsigned *out)
{
    if (threadIdx.x != 0) {
        return;
    }
    volatile unsigned *halves = (volatile unsigned *)&status[blockIdx.x];
    halves[0] = blockIdx.x * 10u; /* the value */
    halves[1] = 1u;               /* the flag */
    if (blockIdx.x > 0) {
        volatile unsigned long long *words = status;
        unsigned long long word = words[blockIdx.x - 1]; /* LINE:torn_status */
        out[blockIdx.x] = (unsigned)(word >> 32) == 1u ? (unsigned)word : 0u;
    }
}

static int test_torn_status(void)
{
    unsigned long long *status;
    cudaMalloc((void **)&status, 4 * sizeof *status);
    cudaMemset(status, 0, 4 * sizeof *status);
    torn_status_kernel<<<4, 32>>>(status, d_out);
    return launched();
}

/* The last steps of a block sum as old samples write them: warp-synchronous, through volatile
 * shared memory with no __syncwarp, a race on sm_70 and later (lanes need not run together). */
__global__ void warp_synchronous_kernel(unsigned *out)
{
    __shared__ unsigned s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x < 32) {
        volatile unsigned *v = s;
        v[threadIdx.x] += v[threadIdx.x + 32];
        v[threadIdx.x] += v[threadIdx.x + 16];
        v[threadIdx.x] += v[threadIdx.x + 8];
    }
    __syncthreads();
    out[threadIdx.x] = s[0];
}

static int test_warp_synchronous(void)
{
    warp_synchronous_kernel<<<1, 64>>>(d_out);
    return launched();
}

/* ---- what looks like a race and is not --------------------------------------------------------
 */

/* Atomics on a shared counter, a flag several threads set to the same value, a slot read by many
 * after a barrier, neighbours exchanged within a warp through __syncwarp, and a "last block"
 * that writes where other blocks wrote, after their fence and atomic count. */
__global__ void not_races_kernel(unsigned *out, unsigned *done_blocks, unsigned *shared_out)
{
    __shared__ unsigned count, found, s[64];
    if (threadIdx.x == 0) {
        count = 0;
        found = 0;
    }
    __syncthreads();
    atomicAdd(&count, 1u);
    if (threadIdx.x % 7 == 0) {
        found = 1; /* the same value from several threads */
    }
    s[threadIdx.x] = threadIdx.x;
    __syncwarp();
    unsigned neighbour = s[(threadIdx.x & ~31u) | ((threadIdx.x + 1) & 31u)];
    __syncthreads();
    unsigned total = count + found + s[0];
    shared_out[blockIdx.x * 64 + threadIdx.x] = neighbour;
    /* every block writes element 0 of out; the last block to finish overwrites it */
    if (threadIdx.x == 0) {
        out[0] = total + blockIdx.x;
        __threadfence();
        unsigned ticket = atomicAdd(done_blocks, 1u);
        if (ticket == gridDim.x - 1) {
            __threadfence();
            out[0] = 12345u;
        }
    }
}

static int test_not_races(void)
{
    unsigned *shared_out, h;
    cudaMalloc((void **)&shared_out, 4 * 64 * sizeof(unsigned));
    cudaMemset(d_out + 8, 0, sizeof(unsigned));
    not_races_kernel<<<4, 64>>>(d_out, d_out + 8, shared_out);
    if (launched()) {
        return 3;
    }
    cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    if (h != 12345u) {
        printf("the last block's value: %u, want 12345\n", h);
        return 1;
    }
    return 0;
}

/* Threads that add a neighbour's value to their own slot with no barrier: `s[t] += s[t + 16]`
 * is one instruction, whose store the compiler checks with the load: found all the same. */
__global__ void folded_store_kernel(unsigned *out)
{
    __shared__ unsigned s[64];
    unsigned t = threadIdx.x;
    s[t] = 1u;
    __syncthreads();
    if (t < 32) {
        s[t] += s[t + 16]; /* LINE:folded_store */
    }
    __syncthreads();
    out[t] = s[0];
}

static int test_folded_store(void)
{
    folded_store_kernel<<<1, 64>>>(d_out);
    return launched();
}

/* Each thread counts in its own byte of a shared array (words shared by four threads), and the
 * programming guide's atomicCAS loop (a plain first read of a word others update atomically):
 * neither is a race. */
__device__ float atomic_max_float(float *address, float value)
{
    unsigned *word = (unsigned *)address, old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __float_as_uint(fmaxf(value, __uint_as_float(assumed))));
    } while (assumed != old);
    return __uint_as_float(old);
}

__global__ void bytes_and_cas_kernel(unsigned *out, float *best)
{
    __shared__ unsigned char counts[64];
    counts[threadIdx.x] = 0;
    __syncthreads();
    counts[threadIdx.x]++;
    counts[threadIdx.x] += 2;
    __syncthreads();
    atomic_max_float(best, (float)threadIdx.x);
    out[threadIdx.x] = counts[threadIdx.x];
}

static int test_bytes_and_cas(void)
{
    float *best, h;
    cudaMalloc((void **)&best, sizeof *best);
    cudaMemset(best, 0, sizeof *best);
    bytes_and_cas_kernel<<<1, 64>>>(d_out, best);
    if (launched()) {
        return 3;
    }
    cudaMemcpy(&h, best, sizeof h, cudaMemcpyDeviceToHost);
    if (h != 63.0f) {
        printf("atomicCAS maximum: %g, want 63\n", h);
        return 1;
    }
    return 0;
}

/* ---- the cases ----------------------------------------------------------------------------------
 */

struct test_case {
    const char *name;
    int (*run)(void);
    const char *reports; /* what the report must say ("a|b": both), or NULL: must pass */
    int note;            /* the report is a note: the case must pass and print it */
};

static const struct test_case cases[] = {
    {"shared_lost_update", test_shared_lost_update, "data race on __shared__ count", 0},
    {"missing_barrier", test_missing_barrier, "data race on __shared__ s", 0},
    {"unwritten_shared", test_unwritten_shared,
     "emulation: note|__shared__ tile|which no thread of the block has written", 1},
    {"blocks_lost_update", test_blocks_lost_update,
     "two writes of different values by threads of two blocks", 0},
    {"global_lost_update", test_global_lost_update, "data race on a cudaMalloc'd buffer", 0},
    {"torn_status", test_torn_status, "whose two halves another block wrote in two stores", 0},
    {"warp_synchronous", test_warp_synchronous, "data race on __shared__ s", 0},
    {"folded_store", test_folded_store, "data race on __shared__ s", 0},
    {"not_races", test_not_races, NULL, 0},
    {"bytes_and_cas", test_bytes_and_cas, NULL, 0},
};

int main(int argc, char **argv)
{
    size_t count = sizeof cases / sizeof cases[0];
    if (argc == 2 && strcmp(argv[1], "-l") == 0) {
        for (size_t i = 0; i < count; i++) {
            printf("%s\t%s\t%s\n", cases[i].name, cases[i].reports ? cases[i].reports : "-",
                   cases[i].note ? "racecheck-note" : "racecheck");
        }
        return 0;
    }
    for (size_t i = 0; argc == 2 && i < count; i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            cudaMalloc((void **)&d_out, 1024 * sizeof *d_out);
            return cases[i].run();
        }
    }
    fprintf(stderr, "usage: %s -l | CASE\n", argv[0]);
    return 2;
}
