/*
 * The collectives of thread_block_tile<N> for every N (1, 2, 4, 8, 16, 32), as students and
 * NVIDIA's samples call them:
 *   - shfl by rank (a rank past the tile wraps round, as __shfl_sync's width makes it), shfl_up,
 *     shfl_down and shfl_xor, of int, unsigned char, bool, float, double, long long and a 16-byte
 *     struct (which CUDA shuffles in pieces);
 *   - ballot and match_any, whose bits are the tile's ranks (not the warp's lanes), any, all and
 *     match_all;
 *   - the same from a tile of a tile (tiled_partition<4>(tiled_partition<16>(block))).
 * Prints "ok" and returns 0, or prints the first difference and returns 1.
 */
#include <cooperative_groups.h>

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

#define BLOCK 128
#define BLOCKS 3
#define THREADS (BLOCK * BLOCKS)

struct wide {
    double a;
    int b;
    float c;
};

struct result {
    int idx, up, down, swapped;
    unsigned char byte_up;
    bool first_positive;
    float f_down;
    double d_first;
    long long ll_xor;
    wide w_xor;
    unsigned ballot, match;
    int any, all, match_all_pred;
    unsigned match_all;
};

template <typename Tile> __device__ result exercise(const Tile &tile, int v)
{
    const unsigned n = tile.num_threads(), rank = tile.thread_rank();
    result r;
    r.idx = tile.shfl(v, (int)(rank * 5 + 3));
    r.up = tile.shfl_up(v, n > 1 ? n / 2 : 1);
    r.down = tile.shfl_down(v, 1);
    r.swapped = tile.shfl_xor(v, n - 1);
    r.byte_up = tile.shfl_up((unsigned char)(v + 200), 1);
    r.first_positive = tile.shfl(v > 50, 0);
    r.f_down = tile.shfl_down(v * 0.25f, 2);
    r.d_first = tile.shfl(v / 3.0, 0);
    r.ll_xor = tile.shfl_xor(v * 10000000000ll, n > 1 ? 1 : 0);
    wide w = {v * 0.5, -v, v + 0.75f};
    r.w_xor = tile.shfl_xor(w, n > 2 ? 2 : 0);
    r.ballot = tile.ballot(v & 1);
    r.match = tile.match_any(v % 3);
    r.any = tile.any(v > 90);
    r.all = tile.all(v > 5);
    r.match_all = tile.match_all(v / 50, r.match_all_pred);
    return r;
}

template <unsigned N> __global__ void tiles(const int *in, result *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = exercise(tile, in[i]);
}

__global__ void tile_of_tile(const int *in, result *out)
{
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<4>(cg::tiled_partition<16>(block));
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = exercise(tile, in[i]);
}

static int check(const char *name, unsigned n, const std::vector<int> &in,
                 const std::vector<result> &got)
{
    for (unsigned i = 0; i < THREADS; i++) {
        unsigned rank = i % n, first = i - rank;
        int v = in[i];
        const result &r = got[i];
        auto at = [&](unsigned k) { return in[first + k]; };
        unsigned up = n > 1 ? n / 2 : 1;
        int idx = at((rank * 5 + 3) % n);
        int upv = rank >= up ? at(rank - up) : v;
        int down = rank + 1 < n ? at(rank + 1) : v;
        int swapped = at(rank ^ (n - 1));
        unsigned char byte_up = (unsigned char)((rank >= 1 ? at(rank - 1) : v) + 200);
        bool first_positive = at(0) > 50;
        float f_down = (rank + 2 < n ? at(rank + 2) : v) * 0.25f;
        double d_first = at(0) / 3.0;
        long long ll_xor = at(rank ^ (n > 1 ? 1 : 0)) * 10000000000ll;
        int wv = at(rank ^ (n > 2 ? 2 : 0));
        wide w = {wv * 0.5, -wv, wv + 0.75f};
        unsigned ballot = 0, match = 0, match_all = 0;
        int any = 0, all = 1, same = 1;
        for (unsigned k = 0; k < n; k++) {
            ballot |= (unsigned)(at(k) & 1) << k;
            match |= (unsigned)(at(k) % 3 == v % 3) << k;
            any |= at(k) > 90;
            all &= at(k) > 5;
            same &= at(k) / 50 == v / 50;
        }
        match_all = same ? (n == 32 ? 0xFFFFFFFFu : (1u << n) - 1u) : 0u;
        if (r.idx != idx || r.up != upv || r.down != down || r.swapped != swapped) {
            printf("%s: thread %u: shfl %d, up %d, down %d, xor %d; expected %d %d %d %d\n", name,
                   i, r.idx, r.up, r.down, r.swapped, idx, upv, down, swapped);
            return 1;
        }
        if (r.byte_up != byte_up || r.first_positive != first_positive || r.f_down != f_down ||
            r.d_first != d_first || r.ll_xor != ll_xor) {
            printf("%s: thread %u: byte %u, bool %d, float %g, double %.17g, long long %lld; "
                   "expected %u %d %g %.17g %lld\n",
                   name, i, r.byte_up, r.first_positive, r.f_down, r.d_first, r.ll_xor, byte_up,
                   first_positive, f_down, d_first, ll_xor);
            return 1;
        }
        if (r.w_xor.a != w.a || r.w_xor.b != w.b || r.w_xor.c != w.c) {
            printf("%s: thread %u: struct {%g, %d, %g}, expected {%g, %d, %g}\n", name, i,
                   r.w_xor.a, r.w_xor.b, r.w_xor.c, w.a, w.b, w.c);
            return 1;
        }
        if (r.ballot != ballot || r.match != match || r.any != any || r.all != all ||
            r.match_all != match_all || r.match_all_pred != same) {
            printf("%s: thread %u: ballot %08x, match_any %08x, any %d, all %d, match_all %08x "
                   "(%d); expected %08x %08x %d %d %08x (%d)\n",
                   name, i, r.ballot, r.match, r.any, r.all, r.match_all, r.match_all_pred, ballot,
                   match, any, all, match_all, same);
            return 1;
        }
    }
    return 0;
}

template <unsigned N>
static int run(const char *name, const int *d_in, result *d_out, const std::vector<int> &in)
{
    tiles<N><<<BLOCKS, BLOCK>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    std::vector<result> got(THREADS);
    CHECK(cudaMemcpy(got.data(), d_out, THREADS * sizeof(result), cudaMemcpyDeviceToHost));
    return check(name, N, in, got);
}

int main()
{
    std::vector<int> in(THREADS);
    srand(9);
    for (int i = 0; i < THREADS; i++) {
        in[i] = rand() % 100;
    }
    /* a few tiles whose values are all alike, for match_all and all */
    for (int i = 32; i < 64; i++) {
        in[i] = 60 + i % 3 * 3;
    }
    int *d_in;
    result *d_out;
    CHECK(cudaMalloc(&d_in, THREADS * sizeof(int)));
    CHECK(cudaMalloc(&d_out, THREADS * sizeof(result)));
    CHECK(cudaMemcpy(d_in, in.data(), THREADS * sizeof(int), cudaMemcpyHostToDevice));

    if (run<1>("tiles of 1", d_in, d_out, in) || run<2>("tiles of 2", d_in, d_out, in) ||
        run<4>("tiles of 4", d_in, d_out, in) || run<8>("tiles of 8", d_in, d_out, in) ||
        run<16>("tiles of 16", d_in, d_out, in) || run<32>("tiles of 32", d_in, d_out, in)) {
        return 1;
    }
    tile_of_tile<<<BLOCKS, BLOCK>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    std::vector<result> got(THREADS);
    CHECK(cudaMemcpy(got.data(), d_out, THREADS * sizeof(result), cudaMemcpyDeviceToHost));
    if (check("tiles of 4 of tiles of 16", 4, in, got)) {
        return 1;
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    printf("ok\n");
    return 0;
}
