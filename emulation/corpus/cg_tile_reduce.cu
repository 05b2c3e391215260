/*
 * Reductions with cooperative groups' tiles, as students and NVIDIA's samples write them:
 *   - a block sum: each warp (a thread_block_tile<32>) sums by hand with shfl_down, lane 0 puts
 *     the warp's sum in shared memory, and the first warp adds those with cg::reduce;
 *   - tiles of 16 reduced with cg::less, cg::greater, cg::bit_and, cg::bit_or, cg::bit_xor;
 *   - tiles of 8 cut from a warp (tiled_partition<8>(warp)) reduced with a lambda;
 *   - a float sum over each warp with cg::plus<float>, which must round as the GPU does (the
 *     check repeats cg::reduce's butterfly on the CPU), a double sum over tiles of 4, and a sum of
 *     a 12-byte struct over tiles of 32 (a shuffle in pieces).
 * Every thread of a tile must get its tile's result. Prints "ok" and returns 0, or prints the
 * first difference and returns 1.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

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

#define BLOCK 256
#define BLOCKS 12
#define N (BLOCK * BLOCKS)

/* The classic warp sum: halve the distance each step; lane 0 ends with the warp's sum. */
__device__ int warp_sum(cg::thread_block_tile<32> warp, int v)
{
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) {
        v += warp.shfl_down(v, offset);
    }
    return v;
}

__global__ void block_sum(const int *in, int *sums)
{
    __shared__ int warp_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = warp_sum(warp, in[i]);
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = v;
    }
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int s = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0;
        s = cg::reduce(warp, s, cg::plus<int>());
        if (warp.thread_rank() == 0) {
            sums[block.group_index().x] = s;
        }
    }
}

struct ops16 {
    int min, max;
    unsigned and_, or_, xor_;
};

__global__ void tile_ops(const int *in, ops16 *out16, int *absmax8)
{
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];

    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    ops16 r;
    r.min = cg::reduce(tile16, v, cg::less<int>());
    r.max = cg::reduce(tile16, v, cg::greater<int>());
    unsigned u = (unsigned)v;
    r.and_ = cg::reduce(tile16, u, cg::bit_and<unsigned>());
    r.or_ = cg::reduce(tile16, u, cg::bit_or<unsigned>());
    r.xor_ = cg::reduce(tile16, u, cg::bit_xor<unsigned>());
    out16[i] = r;

    auto warp = cg::tiled_partition<32>(block);
    auto tile8 = cg::tiled_partition<8>(warp);
    absmax8[i] = cg::reduce(tile8, v, [](int a, int b) { return max(abs(a), abs(b)); });
}

struct stats {
    int count;
    float sum;
    float largest;
};

__device__ stats combine(stats a, stats b)
{
    stats r;
    r.count = a.count + b.count;
    r.sum = a.sum + b.sum;
    r.largest = fmaxf(a.largest, b.largest);
    return r;
}

__global__ void float_sums(const float *x, float *fsum32, double *dsum4, stats *st32)
{
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    auto warp = cg::tiled_partition<32>(block);
    fsum32[i] = cg::reduce(warp, x[i], cg::plus<float>());

    auto tile4 = cg::tiled_partition<4>(block);
    double d = (double)x[i] * 1.0000001;
    dsum4[i] = cg::reduce(tile4, d, cg::plus<double>());

    stats s = {1, x[i], x[i]};
    st32[i] = cg::reduce(warp, s, [](stats a, stats b) { return combine(a, b); });
}

/* cg::reduce over a tile: every lane takes op(own, lane ^ d) for d = size/2 ... 1. */
template <typename T, typename Op> static T butterfly(const T *v, int size, Op op)
{
    std::vector<T> cur(v, v + size), next(size);
    for (int d = size / 2; d > 0; d /= 2) {
        for (int l = 0; l < size; l++) {
            next[l] = op(cur[l], cur[l ^ d]);
        }
        cur = next;
    }
    return cur[0];
}

int main()
{
    std::vector<int> in(N);
    std::vector<float> x(N);
    srand(7);
    for (int i = 0; i < N; i++) {
        in[i] = rand() % 2001 - 1000;
        x[i] = (float)(rand() % 100000) / 7.0f - 5000.0f;
    }

    int *d_in, *d_sums, *d_absmax8;
    ops16 *d_ops;
    float *d_x, *d_fsum;
    double *d_dsum;
    stats *d_st;
    CHECK(cudaMalloc(&d_in, N * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, BLOCKS * sizeof(int)));
    CHECK(cudaMalloc(&d_absmax8, N * sizeof(int)));
    CHECK(cudaMalloc(&d_ops, N * sizeof(ops16)));
    CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    CHECK(cudaMalloc(&d_fsum, N * sizeof(float)));
    CHECK(cudaMalloc(&d_dsum, N * sizeof(double)));
    CHECK(cudaMalloc(&d_st, N * sizeof(stats)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice));

    block_sum<<<BLOCKS, BLOCK>>>(d_in, d_sums);
    CHECK(cudaGetLastError());
    tile_ops<<<BLOCKS, BLOCK>>>(d_in, d_ops, d_absmax8);
    CHECK(cudaGetLastError());
    float_sums<<<BLOCKS, BLOCK>>>(d_x, d_fsum, d_dsum, d_st);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<int> sums(BLOCKS), absmax8(N);
    std::vector<ops16> ops(N);
    std::vector<float> fsum(N);
    std::vector<double> dsum(N);
    std::vector<stats> st(N);
    CHECK(cudaMemcpy(sums.data(), d_sums, BLOCKS * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(absmax8.data(), d_absmax8, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ops.data(), d_ops, N * sizeof(ops16), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(fsum.data(), d_fsum, N * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dsum.data(), d_dsum, N * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(st.data(), d_st, N * sizeof(stats), cudaMemcpyDeviceToHost));

    for (int b = 0; b < BLOCKS; b++) {
        int want = 0;
        for (int t = 0; t < BLOCK; t++) {
            want += in[b * BLOCK + t];
        }
        if (sums[b] != want) {
            printf("block_sum: block %d: got %d, expected %d\n", b, sums[b], want);
            return 1;
        }
    }

    for (int i = 0; i < N; i++) {
        int t16 = i - i % 16, t8 = i - i % 8, t4 = i - i % 4, t32 = i - i % 32;
        ops16 w = {in[t16], in[t16], (unsigned)in[t16], (unsigned)in[t16], 0};
        for (int j = t16; j < t16 + 16; j++) {
            w.min = in[j] < w.min ? in[j] : w.min;
            w.max = in[j] > w.max ? in[j] : w.max;
            w.and_ &= (unsigned)in[j];
            w.or_ |= (unsigned)in[j];
            w.xor_ ^= (unsigned)in[j];
        }
        if (ops[i].min != w.min || ops[i].max != w.max || ops[i].and_ != w.and_ ||
            ops[i].or_ != w.or_ || ops[i].xor_ != w.xor_) {
            printf("tile_ops: thread %d (tile of 16 from %d): got min %d max %d and %x or %x xor "
                   "%x, expected %d %d %x %x %x\n",
                   i, t16, ops[i].min, ops[i].max, ops[i].and_, ops[i].or_, ops[i].xor_, w.min,
                   w.max, w.and_, w.or_, w.xor_);
            return 1;
        }
        int am = 0;
        for (int j = t8; j < t8 + 8; j++) {
            am = abs(in[j]) > am ? abs(in[j]) : am;
        }
        if (absmax8[i] != am) {
            printf("tile_ops: thread %d (tile of 8 from %d): largest |v| %d, expected %d\n", i, t8,
                   absmax8[i], am);
            return 1;
        }
        float fw = butterfly(&x[t32], 32, [](float a, float b) { return a + b; });
        if (memcmp(&fsum[i], &fw, sizeof fw) != 0) {
            printf("float_sums: thread %d: float sum of its warp %.9g, expected %.9g\n", i, fsum[i],
                   fw);
            return 1;
        }
        double dv[4];
        for (int j = 0; j < 4; j++) {
            dv[j] = (double)x[t4 + j] * 1.0000001;
        }
        double dw = butterfly(dv, 4, [](double a, double b) { return a + b; });
        if (memcmp(&dsum[i], &dw, sizeof dw) != 0) {
            printf("float_sums: thread %d: double sum of its tile of 4 %.17g, expected %.17g\n", i,
                   dsum[i], dw);
            return 1;
        }
        stats sv[32];
        for (int j = 0; j < 32; j++) {
            sv[j] = stats{1, x[t32 + j], x[t32 + j]};
        }
        stats sw = butterfly(sv, 32, [](stats a, stats b) {
            return stats{a.count + b.count, a.sum + b.sum,
                         a.largest < b.largest ? b.largest : a.largest};
        });
        if (st[i].count != sw.count || memcmp(&st[i].sum, &sw.sum, sizeof sw.sum) != 0 ||
            st[i].largest != sw.largest) {
            printf("float_sums: thread %d: stats of its warp {%d, %.9g, %.9g}, expected {%d, "
                   "%.9g, %.9g}\n",
                   i, st[i].count, st[i].sum, st[i].largest, sw.count, sw.sum, sw.largest);
            return 1;
        }
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_absmax8));
    CHECK(cudaFree(d_ops));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_fsum));
    CHECK(cudaFree(d_dsum));
    CHECK(cudaFree(d_st));
    printf("ok\n");
    return 0;
}
