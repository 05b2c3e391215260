/*
 * Coalesced groups, as students and NVIDIA's samples write them:
 *   - a stream compaction with warp-aggregated atomics: the lanes that keep an element form a
 *     coalesced_threads() group, its rank 0 reserves room for all of them with one atomicAdd,
 *     and shfl gives every lane the base (the order of the output depends on the atomics, so the
 *     check compares it sorted);
 *   - coalesced_threads() inside a branch: whatever lanes a GPU groups there, the group must
 *     agree with itself (its size, a cg::reduce of 1, its ranks, an exclusive scan of 1, shfl
 *     by rank, ballot by rank, any and all);
 *   - coalesced_threads() where a block of 48 threads starts (a full warp and a warp of 16
 *     lanes): a float sum with cg::reduce, which rounds as the GPU does (the check repeats its
 *     steps: a butterfly for a whole warp, a scan otherwise);
 *   - binary_partition and labeled_partition of a warp, and tiled_partition(group, 4) of the
 *     result: groups of lanes that are not consecutive, whose sizes, ranks, meta groups,
 *     shuffles by rank, packed ballots and matches, reductions and scans the check computes.
 * Prints "ok" and returns 0, or prints the first difference and returns 1.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
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

#define N 5000 /* not a multiple of the block: the last warps are partly idle */
#define BLOCK 128
#define BLOCKS 8 /* fewer threads than elements: a grid-stride loop */

/* One atomicAdd per group of lanes that call it together. */
__device__ int atomic_agg_inc(int *counter)
{
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) {
        base = atomicAdd(counter, (int)active.size());
    }
    return active.shfl(base, 0) + active.thread_rank();
}

__global__ void keep_positive(const int *in, int *out, int *count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (in[i] > 0) {
            out[atomic_agg_inc(count)] = in[i];
        }
    }
}

/* What a thread learned about its coalesced group in a branch. */
struct branch_info {
    int taken;
    unsigned size, rank, count, before, first_lane, min_lane, last_lane, max_lane, ballot;
    int any_first, all_taken;
};

__global__ void in_branch(const int *in, branch_info *info)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    branch_info r = {};
    if (in[i] % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        r.taken = 1;
        r.size = g.size();
        r.rank = g.thread_rank();
        r.count = cg::reduce(g, 1u, cg::plus<unsigned>());
        r.before = cg::exclusive_scan(g, 1u);
        r.first_lane = g.shfl(lane, 0);
        r.min_lane = cg::reduce(g, lane, cg::less<unsigned>());
        r.last_lane = g.shfl(lane, g.size() - 1);
        r.max_lane = cg::reduce(g, lane, cg::greater<unsigned>());
        r.ballot = g.ballot(1);
        r.any_first = g.any(lane == r.first_lane);
        r.all_taken = g.all(in[i] % 3 == 0);
    }
    info[i] = r;
}

__global__ void at_entry(const float *x, float *sums, unsigned *sizes)
{
    cg::coalesced_group g = cg::coalesced_threads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sizes[i] = g.num_threads();
    sums[i] = cg::reduce(g, x[i], cg::plus<float>());
}

/* What a thread learned about its part of a warp. */
struct part_info {
    unsigned size, rank, meta_rank, meta_size;
    int first, up, down;
    unsigned ballot, match;
    int sum, incl, excl;
    unsigned t4_size, t4_rank, t4_meta_rank, t4_meta_size;
    int t4_sum;
};

__device__ part_info describe(cg::coalesced_group g, int v)
{
    part_info p;
    p.size = g.size();
    p.rank = g.thread_rank();
    p.meta_rank = g.meta_group_rank();
    p.meta_size = g.meta_group_size();
    p.first = g.shfl(v, 0);
    p.up = g.shfl_up(v, 1);
    p.down = g.shfl_down(v, 2);
    p.ballot = g.ballot(v & 1);
    p.match = g.match_any((v >> 2) & 1);
    p.sum = cg::reduce(g, v, cg::plus<int>());
    p.incl = cg::inclusive_scan(g, v);
    p.excl = cg::exclusive_scan(g, v);
    cg::coalesced_group t4 = cg::tiled_partition(g, 4);
    p.t4_size = t4.size();
    p.t4_rank = t4.thread_rank();
    p.t4_meta_rank = t4.meta_group_rank();
    p.t4_meta_size = t4.meta_group_size();
    p.t4_sum = cg::reduce(t4, v, cg::plus<int>());
    return p;
}

__global__ void partitions(const int *in, part_info *by_sign, part_info *by_label)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    by_sign[i] = describe(cg::binary_partition(warp, v > 0), v);
    by_label[i] = describe(cg::labeled_partition(warp, v & 3), v);
}

static int fail(const char *what, int i, unsigned got, unsigned want)
{
    printf("%s: thread %d: got %u (%d), expected %u (%d)\n", what, i, got, (int)got, want,
           (int)want);
    return 1;
}

/* The groups of a warp (32 lanes from @p w): lanes of the same @p key are a group, lane l's group
 * is meta group @p meta_rank[l] of @p meta_size. */
static int check_parts(const char *name, const std::vector<int> &in,
                       const std::vector<part_info> &got, int w, const int *key,
                       const unsigned *meta_rank, unsigned meta_size)
{
    for (int l = 0; l < 32; l++) {
        std::vector<int> lanes; /* the lanes of l's group, in order */
        for (int m = 0; m < 32; m++) {
            if (key[m] == key[l]) {
                lanes.push_back(m);
            }
        }
        unsigned size = lanes.size();
        unsigned rank = std::find(lanes.begin(), lanes.end(), l) - lanes.begin();
        int v = in[w + l];
        const part_info &p = got[w + l];
        char what[64];
        snprintf(what, sizeof what, "%s of warp at %d", name, w);
        if (p.size != size || p.rank != rank) {
            return fail(what, w + l, p.size * 100 + p.rank, size * 100 + rank);
        }
        if (p.meta_rank != meta_rank[l] || p.meta_size != meta_size) {
            return fail(what, w + l, p.meta_rank * 100 + p.meta_size,
                        meta_rank[l] * 100 + meta_size);
        }
        int first = in[w + lanes[0]];
        int up = rank >= 1 ? in[w + lanes[rank - 1]] : v;
        int down = rank + 2 < size ? in[w + lanes[rank + 2]] : v;
        if (p.first != first || p.up != up || p.down != down) {
            printf("%s: thread %d: shfl %d, shfl_up %d, shfl_down %d; expected %d %d %d\n", what,
                   w + l, p.first, p.up, p.down, first, up, down);
            return 1;
        }
        unsigned ballot = 0, match = 0;
        int sum = 0, incl = 0, excl = 0;
        for (unsigned r = 0; r < size; r++) {
            int u = in[w + lanes[r]];
            ballot |= (unsigned)(u & 1) << r;
            match |= (unsigned)(((u >> 2) & 1) == ((v >> 2) & 1)) << r;
            sum += u;
            incl += r <= rank ? u : 0;
            excl += r < rank ? u : 0;
        }
        if (p.ballot != ballot || p.match != match) {
            printf("%s: thread %d: ballot %08x match %08x, expected %08x %08x\n", what, w + l,
                   p.ballot, p.match, ballot, match);
            return 1;
        }
        if (p.sum != sum || p.incl != incl || p.excl != excl) {
            printf("%s: thread %d: sum %d, scans %d %d, expected %d %d %d\n", what, w + l, p.sum,
                   p.incl, p.excl, sum, incl, excl);
            return 1;
        }
        /* tiled_partition(group, 4): ranks 4k to 4k + 3 of the group. */
        unsigned first4 = rank / 4 * 4, size4 = size - first4 < 4 ? size - first4 : 4;
        int sum4 = 0;
        for (unsigned r = first4; r < first4 + size4; r++) {
            sum4 += in[w + lanes[r]];
        }
        /* (a group of 4 or fewer is its own tile, and keeps its meta group) */
        unsigned meta4 = size <= 4 ? meta_rank[l] : rank / 4;
        unsigned metas4 = size <= 4 ? meta_size : (size + 3) / 4;
        if (p.t4_size != size4 || p.t4_rank != rank % 4 || p.t4_meta_rank != meta4 ||
            p.t4_meta_size != metas4 || p.t4_sum != sum4) {
            printf("%s: thread %d: tile of 4: size %u rank %u meta %u/%u sum %d; expected %u %u "
                   "%u/%u %d\n",
                   what, w + l, p.t4_size, p.t4_rank, p.t4_meta_rank, p.t4_meta_size, p.t4_sum,
                   size4, rank % 4, meta4, metas4, sum4);
            return 1;
        }
    }
    return 0;
}

int main()
{
    std::vector<int> in(N);
    srand(5);
    for (int i = 0; i < N; i++) {
        in[i] = rand() % 101 - 50;
    }
    int *d_in, *d_out, *d_count;
    CHECK(cudaMalloc(&d_in, N * sizeof(int)));
    CHECK(cudaMalloc(&d_out, N * sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_count, 0, sizeof(int)));

    /* The stream compaction. */
    keep_positive<<<BLOCKS, BLOCK>>>(d_in, d_out, d_count, N);
    CHECK(cudaGetLastError());
    int count = 0;
    CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> want;
    for (int v : in) {
        if (v > 0) {
            want.push_back(v);
        }
    }
    if (count != (int)want.size()) {
        printf("keep_positive: kept %d, expected %zu\n", count, want.size());
        return 1;
    }
    std::vector<int> kept(count);
    CHECK(cudaMemcpy(kept.data(), d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
    std::sort(kept.begin(), kept.end());
    std::sort(want.begin(), want.end());
    for (int k = 0; k < count; k++) {
        if (kept[k] != want[k]) {
            printf("keep_positive: sorted element %d is %d, expected %d\n", k, kept[k], want[k]);
            return 1;
        }
    }

    /* coalesced_threads() in a branch: the group agrees with itself. */
    const int threads = 4 * BLOCK;
    branch_info *d_info;
    CHECK(cudaMalloc(&d_info, threads * sizeof(branch_info)));
    in_branch<<<threads / BLOCK, BLOCK>>>(d_in, d_info);
    CHECK(cudaGetLastError());
    std::vector<branch_info> info(threads);
    CHECK(cudaMemcpy(info.data(), d_info, threads * sizeof(branch_info), cudaMemcpyDeviceToHost));
    for (int i = 0; i < threads; i++) {
        const branch_info &r = info[i];
        int w = i - i % 32;
        unsigned taken = 0;
        for (int l = 0; l < 32; l++) {
            taken += in[w + l] % 3 == 0;
        }
        if (r.taken != (in[i] % 3 == 0)) {
            return fail("in_branch: taken", i, r.taken, in[i] % 3 == 0);
        }
        if (!r.taken) {
            continue;
        }
        unsigned lane = i % 32;
        if (r.size < 1 || r.size > taken) {
            return fail("in_branch: size (at most the lanes that took the branch)", i, r.size,
                        taken);
        }
        if (r.count != r.size) {
            return fail("in_branch: reduce of 1 over the group", i, r.count, r.size);
        }
        if (r.rank >= r.size || r.before != r.rank) {
            return fail("in_branch: exclusive scan of 1 (the rank)", i, r.before, r.rank);
        }
        if (r.first_lane != r.min_lane || r.last_lane != r.max_lane || r.first_lane > lane ||
            r.last_lane < lane) {
            printf("in_branch: thread %d: lanes: first %u (least %u), last %u (greatest %u)\n", i,
                   r.first_lane, r.min_lane, r.last_lane, r.max_lane);
            return 1;
        }
        unsigned all_ranks = r.size == 32 ? 0xFFFFFFFFu : (1u << r.size) - 1u;
        if (r.ballot != all_ranks || r.any_first != 1 || r.all_taken != 1) {
            printf("in_branch: thread %d: ballot %08x (expected %08x), any %d, all %d\n", i,
                   r.ballot, all_ranks, r.any_first, r.all_taken);
            return 1;
        }
    }

    /* coalesced_threads() where a block of 48 starts: a warp of 32 lanes and one of 16. */
    const int small = 48, small_blocks = 3, m = small * small_blocks;
    std::vector<float> x(m);
    for (int i = 0; i < m; i++) {
        x[i] = (float)(rand() % 100000) / 13.0f;
    }
    float *d_x, *d_sums;
    unsigned *d_sizes;
    CHECK(cudaMalloc(&d_x, m * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, m * sizeof(float)));
    CHECK(cudaMalloc(&d_sizes, m * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_x, x.data(), m * sizeof(float), cudaMemcpyHostToDevice));
    at_entry<<<small_blocks, small>>>(d_x, d_sums, d_sizes);
    CHECK(cudaGetLastError());
    std::vector<float> sums(m);
    std::vector<unsigned> sizes(m);
    CHECK(cudaMemcpy(sums.data(), d_sums, m * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sizes.data(), d_sizes, m * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; i++) {
        int t = i % small, w = i - t % 32;
        unsigned size = t < 32 ? 32 : 16;
        std::vector<float> cur(&x[w], &x[w] + size), next(size);
        if (size == 32) { /* a whole warp: cg::reduce's butterfly */
            for (unsigned d = 16; d > 0; d /= 2) {
                for (unsigned r = 0; r < 32; r++) {
                    next[r] = cur[r] + cur[r ^ d];
                }
                cur = next;
            }
        } else { /* any other group: a scan, whose last rank has the total */
            for (unsigned d = 1; d < size; d *= 2) {
                for (unsigned r = 0; r < size; r++) {
                    next[r] = r >= d ? cur[r] + cur[r - d] : cur[r];
                }
                cur = next;
            }
            cur[0] = cur[size - 1];
        }
        if (sizes[i] != size) {
            return fail("at_entry: size", i, sizes[i], size);
        }
        if (memcmp(&sums[i], &cur[0], sizeof(float)) != 0) {
            printf("at_entry: thread %d: sum %.9g, expected %.9g\n", i, sums[i], cur[0]);
            return 1;
        }
    }

    /* binary_partition and labeled_partition of each warp. */
    part_info *d_sign, *d_label;
    CHECK(cudaMalloc(&d_sign, threads * sizeof(part_info)));
    CHECK(cudaMalloc(&d_label, threads * sizeof(part_info)));
    partitions<<<threads / BLOCK, BLOCK>>>(d_in, d_sign, d_label);
    CHECK(cudaGetLastError());
    std::vector<part_info> by_sign(threads), by_label(threads);
    CHECK(cudaMemcpy(by_sign.data(), d_sign, threads * sizeof(part_info), cudaMemcpyDeviceToHost));
    CHECK(
        cudaMemcpy(by_label.data(), d_label, threads * sizeof(part_info), cudaMemcpyDeviceToHost));
    for (int w = 0; w < threads; w += 32) {
        int sign[32], label[32];
        unsigned sign_meta[32], label_meta[32];
        bool mixed = false;
        std::vector<int> labels; /* the labels in the order of their first lanes */
        for (int l = 0; l < 32; l++) {
            sign[l] = in[w + l] > 0;
            label[l] = in[w + l] & 3;
            mixed |= sign[l] != sign[0];
            if (std::find(labels.begin(), labels.end(), label[l]) == labels.end()) {
                labels.push_back(label[l]);
            }
        }
        /* binary_partition: the lanes whose predicate is false are meta group 0, the others 1;
         * one group (0 of 1) when all lanes agree. labeled_partition: the groups in the order
         * of their first lanes. */
        for (int l = 0; l < 32; l++) {
            sign_meta[l] = mixed ? sign[l] : 0;
            label_meta[l] = std::find(labels.begin(), labels.end(), label[l]) - labels.begin();
        }
        if (check_parts("binary_partition", in, by_sign, w, sign, sign_meta, mixed ? 2 : 1) ||
            check_parts("labeled_partition", in, by_label, w, label, label_meta, labels.size())) {
            return 1;
        }
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_count));
    CHECK(cudaFree(d_info));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_sizes));
    CHECK(cudaFree(d_sign));
    CHECK(cudaFree(d_label));
    printf("ok\n");
    return 0;
}
