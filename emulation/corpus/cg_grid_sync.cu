/*
 * A cooperative launch with cooperative groups, in the style of NVIDIA's reductionMultiBlockCG:
 *   - a single-pass sum of an array: a grid-stride loop, each block's sum from warp tiles
 *     (cg::reduce) through shared memory, grid.sync(), then block 0 adds the blocks' sums;
 *   - an exchange between blocks: each thread writes, grid.sync() (and cg::sync(grid)), and
 *     reads what a thread of another block wrote;
 *   - grid_group's ranks and sizes, and is_valid() in a cooperative launch.
 * The kernels are launched with cudaLaunchCooperativeKernel((void *)kernel, ...), as the samples
 * write it, after checking the device can hold the grid. Prints "ok" and returns 0, or prints
 * the first difference and returns 1.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define BLOCKS 4
#define THREADS 128
#define N 10000

__global__ void sum_single_pass(const int *in, int n, long long *partial, long long *total)
{
    __shared__ long long warp_sums[THREADS / 32];
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

    long long s = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
        s += in[i];
    }
    s = cg::reduce(warp, s, cg::plus<long long>());
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = s;
    }
    block.sync();
    if (block.thread_rank() == 0) {
        long long b = 0;
        for (unsigned w = 0; w < warp.meta_group_size(); w++) {
            b += warp_sums[w];
        }
        partial[grid.block_rank()] = b;
    }
    grid.sync();
    if (grid.block_rank() == 0 && warp.meta_group_rank() == 0) {
        long long v = warp.thread_rank() < grid.num_blocks() ? partial[warp.thread_rank()] : 0;
        v = cg::reduce(warp, v, cg::plus<long long>());
        if (warp.thread_rank() == 0) {
            *total = v;
        }
    }
}

__global__ void exchange(int *a, int *out, int *valid)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long r = grid.thread_rank(), n = grid.size();
    a[r] = (int)(r * 3);
    grid.sync();
    int got = a[(r + THREADS) % n]; /* what a thread of the next block wrote */
    cg::sync(grid);
    a[r] = got + 1;
    grid.sync();
    out[r] = a[(r + n - 1) % n];
    if (r == 0) {
        *valid = grid.is_valid() && grid.num_blocks() == BLOCKS && grid.num_threads() == n;
    }
}

/* Whether the device can hold BLOCKS blocks of THREADS threads of @p kernel at once. */
static bool fits(const void *kernel)
{
    int coop = 0, sms = 0, per_sm = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0));
    return coop && per_sm * sms >= BLOCKS;
}

int main()
{
    if (!fits((void *)sum_single_pass) || !fits((void *)exchange)) {
        printf("this device cannot run %d blocks of %d threads in a cooperative launch\n", BLOCKS,
               THREADS);
        return 1;
    }

    std::vector<int> in(N);
    long long want = 0;
    srand(3);
    for (int i = 0; i < N; i++) {
        in[i] = rand() % 1000000 - 300000;
        want += in[i];
    }
    int *d_in;
    int n = N;
    long long *d_partial, *d_total;
    CHECK(cudaMalloc(&d_in, N * sizeof(int)));
    CHECK(cudaMalloc(&d_partial, BLOCKS * sizeof(long long)));
    CHECK(cudaMalloc(&d_total, sizeof(long long)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    void *sum_args[] = {&d_in, &n, &d_partial, &d_total};
    CHECK(cudaLaunchCooperativeKernel((void *)sum_single_pass, BLOCKS, THREADS, sum_args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    long long total = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    if (total != want) {
        printf("sum_single_pass: got %lld, expected %lld\n", total, want);
        return 1;
    }

    const int m = BLOCKS * THREADS;
    int *d_a, *d_out, *d_valid;
    CHECK(cudaMalloc(&d_a, m * sizeof(int)));
    CHECK(cudaMalloc(&d_out, m * sizeof(int)));
    CHECK(cudaMalloc(&d_valid, sizeof(int)));
    void *args[] = {&d_a, &d_out, &d_valid};
    CHECK(cudaLaunchCooperativeKernel((void *)exchange, BLOCKS, THREADS, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    std::vector<int> out(m);
    int valid = 0;
    CHECK(cudaMemcpy(out.data(), d_out, m * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&valid, d_valid, sizeof(int), cudaMemcpyDeviceToHost));
    if (valid != 1) {
        printf("exchange: is_valid(), num_blocks() or num_threads() is wrong\n");
        return 1;
    }
    for (int r = 0; r < m; r++) {
        int prev = (r + m - 1) % m;
        int expect = (prev + THREADS) % m * 3 + 1;
        if (out[r] != expect) {
            printf("exchange: thread %d: got %d, expected %d\n", r, out[r], expect);
            return 1;
        }
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_total));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_valid));
    printf("ok\n");
    return 0;
}
