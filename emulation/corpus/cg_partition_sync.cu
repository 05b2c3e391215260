/*
 * Cooperative groups' partitions, ranks and barriers, as students and NVIDIA's samples write
 * them:
 *   - a 3-D block in a 2-D grid: thread_block's and grid_group's sizes, ranks and indices, and the
 *     block as a thread_group (get_type, size, thread_rank);
 *   - a block of 48 threads (its last warp has 16 lanes) cut in tiles of 16, as static tiles
 *     (tiled_partition<16>, then tiled_partition<8> of one) and at run time (tiled_partition(
 *     block, 16), then tiled_partition(tile, 8)): their ranks and meta groups, and a rotation
 *     through shared memory in each tile that is right only if the tile's barrier holds, done by
 *     one function that takes a cg::thread_group (the block, a static tile, a run-time tile) and
 *     with cg::sync.
 * (grid.sync() in a cooperative launch: cg_grid_sync.cu.)
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

/* ---- the block and the grid ---- */

struct where {
    unsigned block_rank, block_threads, block_size;
    dim3 dim_threads, group_dim, thread_index, group_index;
    unsigned long long grid_threads, grid_size, grid_blocks, grid_block_rank, grid_rank;
    dim3 grid_block_index, grid_dim_blocks, grid_dim_threads, grid_thread_index;
    unsigned tg_block_type;
    unsigned long long tg_block_size, tg_block_rank;
};

__global__ void describe(where *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    where w;
    w.block_rank = block.thread_rank();
    w.block_threads = block.num_threads();
    w.block_size = block.size();
    w.dim_threads = block.dim_threads();
    w.group_dim = block.group_dim();
    w.thread_index = block.thread_index();
    w.group_index = block.group_index();
    w.grid_threads = grid.num_threads();
    w.grid_size = grid.size();
    w.grid_blocks = grid.num_blocks();
    w.grid_block_rank = grid.block_rank();
    w.grid_rank = grid.thread_rank();
    w.grid_block_index = grid.block_index();
    w.grid_dim_blocks = grid.dim_blocks();
    w.grid_dim_threads = grid.dim_threads();
    w.grid_thread_index = grid.thread_index();
    /* (A grid_group made a thread_group is not tested: on an H200 with CUDA 13 its type, size
     * and rank read 0, as grid_group's workspace pointer overlays the type.) */
    cg::thread_group as_block = block;
    w.tg_block_type = as_block.get_type();
    w.tg_block_size = as_block.size();
    w.tg_block_rank = as_block.thread_rank();
    out[grid.thread_rank()] = w;
}

/* ---- tiles of a block of 48 ---- */

#define SMALL 48
#define SMALL_BLOCKS 4

struct tile_facts {
    unsigned s16_rank, s16_size, s16_meta_rank, s16_meta_size;
    unsigned s8_rank, s8_size, s8_meta_rank, s8_meta_size;
    unsigned d16_rank, d16_size, d16_type, d8_rank, d8_size;
    int rot_block, rot_s16, rot_d16, rot_d8, rot_s8;
};

/* Each thread of @p g gives its value to the next rank, round the group: right only if every
 * thread's write is done before any thread reads (the group's barrier). @p buf is the group's
 * part of shared memory; the barrier after the read keeps the next round's writes out. */
__device__ int rotate(cg::thread_group g, int *buf, int v)
{
    buf[g.thread_rank()] = v;
    g.sync();
    int r = buf[(g.thread_rank() + g.size() - 1) % g.size()];
    g.sync();
    return r;
}

__global__ void tiles(const int *in, tile_facts *out)
{
    __shared__ int buf[SMALL];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    int v = in[blockIdx.x * SMALL + t];
    tile_facts f;

    cg::thread_block_tile<16> s16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> s8 = cg::tiled_partition<8>(s16);
    f.s16_rank = s16.thread_rank();
    f.s16_size = s16.size();
    f.s16_meta_rank = s16.meta_group_rank();
    f.s16_meta_size = s16.meta_group_size();
    f.s8_rank = s8.thread_rank();
    f.s8_size = s8.num_threads();
    f.s8_meta_rank = s8.meta_group_rank();
    f.s8_meta_size = s8.meta_group_size();

    cg::thread_group d16 = cg::tiled_partition(block, 16);
    cg::thread_group d8 = cg::tiled_partition(d16, 8);
    f.d16_rank = d16.thread_rank();
    f.d16_size = d16.size();
    f.d16_type = d16.get_type();
    f.d8_rank = d8.thread_rank();
    f.d8_size = d8.size();

    f.rot_block = rotate(block, buf, v);
    f.rot_s16 = rotate(s16, buf + s16.meta_group_rank() * 16, v + 1000);
    f.rot_d16 = rotate(d16, buf + t / 16 * 16, v + 2000);
    f.rot_d8 = rotate(d8, buf + t / 8 * 8, v + 3000);

    /* The same with the group's own barrier, through cg::sync. */
    buf[t] = v + 4000;
    cg::sync(s8);
    f.rot_s8 = buf[t / 8 * 8 + (s8.thread_rank() + 7) % 8];
    out[blockIdx.x * SMALL + t] = f;
}

static int differ(const char *what, int i, unsigned long long got, unsigned long long want)
{
    printf("%s: thread %d: got %llu, expected %llu\n", what, i, got, want);
    return 1;
}

static bool same(dim3 a, dim3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

int main()
{
    /* The block and the grid. */
    const dim3 block(8, 4, 2), grid(2, 3);
    const unsigned per_block = 8 * 4 * 2, blocks = 2 * 3, total = per_block * blocks;
    where *d_where;
    CHECK(cudaMalloc(&d_where, total * sizeof(where)));
    describe<<<grid, block>>>(d_where);
    CHECK(cudaGetLastError());
    std::vector<where> w(total);
    CHECK(cudaMemcpy(w.data(), d_where, total * sizeof(where), cudaMemcpyDeviceToHost));
    std::vector<bool> seen(total, false);
    for (unsigned i = 0; i < total; i++) {
        const where &e = w[i];
        dim3 t = e.thread_index, b = e.group_index;
        unsigned rank = (t.z * 4 + t.y) * 8 + t.x, brank = b.y * 2 + b.x;
        if (e.grid_rank != i || seen[i]) {
            return differ("describe: grid rank", i, e.grid_rank, i);
        }
        seen[i] = true;
        if (e.block_rank != rank || e.block_threads != per_block || e.block_size != per_block ||
            !same(e.dim_threads, block) || !same(e.group_dim, block) || t.x >= 8 || t.y >= 4 ||
            t.z >= 2 || b.x >= 2 || b.y >= 3 || b.z != 0) {
            return differ("describe: thread_block (rank)", i, e.block_rank, rank);
        }
        if (e.grid_threads != total || e.grid_size != total || e.grid_blocks != blocks ||
            e.grid_block_rank != brank || !same(e.grid_block_index, b) ||
            !same(e.grid_dim_blocks, grid) || !same(e.grid_dim_threads, dim3(16, 12, 2))) {
            return differ("describe: grid_group (block rank)", i, e.grid_block_rank, brank);
        }
        if (e.grid_rank != (unsigned long long)brank * per_block + rank) {
            return differ("describe: grid rank", i, e.grid_rank, brank * per_block + rank);
        }
        dim3 gt = e.grid_thread_index;
        if (gt.x != b.x * 8 + t.x || gt.y != b.y * 4 + t.y || gt.z != t.z) {
            printf("describe: thread %u: grid thread index (%u, %u, %u)\n", i, gt.x, gt.y, gt.z);
            return 1;
        }
        if (e.tg_block_type != 4 || e.tg_block_size != per_block || e.tg_block_rank != rank) {
            printf("describe: thread %u: the block as a thread_group: type %u, rank %llu of %llu\n",
                   i, e.tg_block_type, e.tg_block_rank, e.tg_block_size);
            return 1;
        }
    }

    /* The tiles of a block of 48. */
    const int n = SMALL * SMALL_BLOCKS;
    std::vector<int> in(n);
    for (int i = 0; i < n; i++) {
        in[i] = i * 7 % 101;
    }
    int *d_in;
    tile_facts *d_facts;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_facts, n * sizeof(tile_facts)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    tiles<<<SMALL_BLOCKS, SMALL>>>(d_in, d_facts);
    CHECK(cudaGetLastError());
    std::vector<tile_facts> f(n);
    CHECK(cudaMemcpy(f.data(), d_facts, n * sizeof(tile_facts), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        const tile_facts &e = f[i];
        unsigned t = i % SMALL, base = i - t;
        if (e.s16_rank != t % 16 || e.s16_size != 16 || e.s16_meta_rank != t / 16 ||
            e.s16_meta_size != 3) {
            return differ("tiles: tiled_partition<16> (meta group rank)", i, e.s16_meta_rank,
                          t / 16);
        }
        if (e.s8_rank != t % 8 || e.s8_size != 8 || e.s8_meta_rank != t % 16 / 8 ||
            e.s8_meta_size != 2) {
            return differ("tiles: tiled_partition<8> of a tile of 16 (meta group rank)", i,
                          e.s8_meta_rank, t % 16 / 8);
        }
        if (e.d16_rank != t % 16 || e.d16_size != 16 || e.d16_type != 1 || e.d8_rank != t % 8 ||
            e.d8_size != 8) {
            return differ("tiles: tiled_partition(block, 16), then (tile, 8) (rank)", i, e.d8_rank,
                          t % 8);
        }
        int rb = in[base + (t + SMALL - 1) % SMALL];
        int r16 = in[base + t / 16 * 16 + (t + 15) % 16] + 1000;
        int rd16 = in[base + t / 16 * 16 + (t + 15) % 16] + 2000;
        int rd8 = in[base + t / 8 * 8 + (t + 7) % 8] + 3000;
        int rs8 = in[base + t / 8 * 8 + (t + 7) % 8] + 4000;
        if (e.rot_block != rb || e.rot_s16 != r16 || e.rot_d16 != rd16 || e.rot_d8 != rd8 ||
            e.rot_s8 != rs8) {
            printf("tiles: thread %d: rotations %d %d %d %d %d, expected %d %d %d %d %d\n", i,
                   e.rot_block, e.rot_s16, e.rot_d16, e.rot_d8, e.rot_s8, rb, r16, rd16, rd8, rs8);
            return 1;
        }
    }

    CHECK(cudaFree(d_where));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_facts));
    printf("ok\n");
    return 0;
}
