/*
 * Scans with cooperative groups' tiles, as students and NVIDIA's samples write them:
 *   - a block scan built from tile scans: each warp scans its values with cg::inclusive_scan, the
 *     last lane of each warp puts the warp's total in shared memory, the first tile of 8 of
 *     warp 0 scans the 8 totals with cg::exclusive_scan, and every thread adds its warp's offset;
 *   - tiles of 16: a running maximum (cg::inclusive_scan with cg::greater), a running minimum
 *     before each thread (cg::exclusive_scan with cg::less: rank 0 gets 0, a value-initialized
 *     int, as CUDA gives), and a scan of affine maps with a lambda, an operator that is
 *     associative but not commutative, so the order in which the scan combines (own value
 *     first, then what comes from below) shows;
 *   - a block of 48 threads cut in tiles of 16 (48 is a multiple of 16; its last warp has 16
 *     lanes), a float scan per tile, which must round as the GPU does (the check repeats the
 *     scan's steps on the CPU).
 * Prints "ok" and returns 0, or prints the first difference and returns 1.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

#define BLOCK 256 /* 8 warps */
#define BLOCKS 10
#define N (BLOCK * BLOCKS)
#define SMALL_BLOCK 48
#define SMALL_BLOCKS 5

__device__ int block_inclusive_scan(cg::thread_block block, int v)
{
    __shared__ int totals[BLOCK / 32];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

    int s = cg::inclusive_scan(warp, v);
    if (warp.thread_rank() == warp.num_threads() - 1) {
        totals[warp.meta_group_rank()] = s;
    }
    block.sync();
    if (warp.meta_group_rank() == 0) {
        cg::thread_block_tile<8> first = cg::tiled_partition<8>(warp);
        if (first.meta_group_rank() == 0) {
            int total = totals[first.thread_rank()];
            totals[first.thread_rank()] = cg::exclusive_scan(first, total);
        }
    }
    block.sync();
    return s + totals[warp.meta_group_rank()];
}

__global__ void scan_blocks(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    unsigned i = block.group_index().x * block.num_threads() + block.thread_rank();
    out[i] = block_inclusive_scan(block, in[i]);
}

/* x -> a * x + b, in 32-bit arithmetic. */
struct affine {
    unsigned a, b;
};

__host__ __device__ affine compose(affine f, affine g) /* f after g */
{
    return affine{f.a * g.a, f.a * g.b + f.b};
}

__global__ void scan_tiles16(const int *in, int *running_max, int *min_before, affine *maps)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    running_max[i] = cg::inclusive_scan(tile, v, cg::greater<int>());
    min_before[i] = cg::exclusive_scan(tile, v, cg::less<int>());
    affine f = {(unsigned)v * 2u + 1u, (unsigned)i};
    maps[i] = cg::inclusive_scan(tile, f, [](affine p, affine q) { return compose(p, q); });
}

__global__ void scan_small_block(const float *x, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned i = blockIdx.x * block.size() + block.thread_rank();
    out[i] = cg::inclusive_scan(tile, x[i]);
}

int main()
{
    std::vector<int> in(N);
    std::vector<float> x(SMALL_BLOCK * SMALL_BLOCKS);
    srand(11);
    for (int i = 0; i < N; i++) {
        in[i] = rand() % 201 - 100;
    }
    for (size_t i = 0; i < x.size(); i++) {
        x[i] = (float)(rand() % 100000) / 9.0f;
    }

    int *d_in, *d_out, *d_max, *d_min;
    affine *d_maps;
    float *d_x, *d_xs;
    CHECK(cudaMalloc(&d_in, N * sizeof(int)));
    CHECK(cudaMalloc(&d_out, N * sizeof(int)));
    CHECK(cudaMalloc(&d_max, N * sizeof(int)));
    CHECK(cudaMalloc(&d_min, N * sizeof(int)));
    CHECK(cudaMalloc(&d_maps, N * sizeof(affine)));
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_xs, x.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

    scan_blocks<<<BLOCKS, BLOCK>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    scan_tiles16<<<BLOCKS, BLOCK>>>(d_in, d_max, d_min, d_maps);
    CHECK(cudaGetLastError());
    scan_small_block<<<SMALL_BLOCKS, SMALL_BLOCK>>>(d_x, d_xs);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<int> out(N), rmax(N), mbefore(N);
    std::vector<affine> maps(N);
    std::vector<float> xs(x.size());
    CHECK(cudaMemcpy(out.data(), d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rmax.data(), d_max, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(mbefore.data(), d_min, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(maps.data(), d_maps, N * sizeof(affine), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(xs.data(), d_xs, x.size() * sizeof(float), cudaMemcpyDeviceToHost));

    for (int b = 0; b < BLOCKS; b++) {
        int sum = 0;
        for (int t = 0; t < BLOCK; t++) {
            int i = b * BLOCK + t;
            sum += in[i];
            if (out[i] != sum) {
                printf("scan_blocks: block %d thread %d: got %d, expected %d\n", b, t, out[i], sum);
                return 1;
            }
        }
    }

    for (int t = 0; t < N; t += 16) {
        int mx = in[t], mn = 0;
        affine acc = {0, 0};
        for (int r = 0; r < 16; r++) {
            int i = t + r;
            mx = in[i] > mx ? in[i] : mx;
            affine f = {(unsigned)in[i] * 2u + 1u, (unsigned)i};
            /* CUDA's scan combines op(own, from below): rank r gets f_r o f_r-1 o ... o f_0. */
            acc = r == 0 ? f : compose(f, acc);
            if (rmax[i] != mx || mbefore[i] != mn || maps[i].a != acc.a || maps[i].b != acc.b) {
                printf("scan_tiles16: thread %d (rank %d): max %d, min before %d, map {%u, %u}; "
                       "expected %d, %d, {%u, %u}\n",
                       i, r, rmax[i], mbefore[i], maps[i].a, maps[i].b, mx, mn, acc.a, acc.b);
                return 1;
            }
            mn = r == 0 || in[i] < mn ? in[i] : mn;
        }
    }

    /* The scan's own steps: at distance d = 1, 2, 4, 8 each rank r >= d adds rank r - d's. */
    for (size_t t = 0; t < x.size(); t += 16) {
        float cur[16], next[16];
        memcpy(cur, &x[t], sizeof cur);
        for (int d = 1; d < 16; d *= 2) {
            for (int r = 0; r < 16; r++) {
                next[r] = r >= d ? cur[r] + cur[r - d] : cur[r];
            }
            memcpy(cur, next, sizeof cur);
        }
        for (int r = 0; r < 16; r++) {
            if (memcmp(&xs[t + r], &cur[r], sizeof(float)) != 0) {
                printf("scan_small_block: thread %zu: got %.9g, expected %.9g\n", t + r, xs[t + r],
                       cur[r]);
                return 1;
            }
        }
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_max));
    CHECK(cudaFree(d_min));
    CHECK(cudaFree(d_maps));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_xs));
    printf("ok\n");
    return 0;
}
