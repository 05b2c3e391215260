/*
 * Written the way a student writes a first kernel with the course's tools: a scale table in
 * __constant__ memory filled with cudaMemcpyToSymbol, a warp sum with a tile of cooperative
 * groups, a block total in shared memory added to the grid's total with an atomic, and printf
 * from one thread to see what happens. Exit 0 when the total is the CPU's.
 */
#include <cooperative_groups.h>
#include <stdio.h>
#include <stdlib.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define BLOCK 128
__constant__ unsigned scale[4];

/* Thread i scales key i by the table entry of its low two bits; each warp sums its 32 values
 * with a tile reduction, warp 0 adds the block's warp sums, thread 0 adds them to the total. */
__global__ void scaled_sum(const unsigned *keys, int n, unsigned long long *total)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mine = i < n ? keys[i] * scale[keys[i] & 3u] : 0u;
    for (int offset = 16; offset > 0; offset /= 2) {
        mine += warp.shfl_down(mine, offset);
    }
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = mine;
    }
    block.sync();
    if (threadIdx.x == 0) {
        unsigned sum = 0;
        for (int w = 0; w < BLOCK / 32; w++) {
            sum += warp_sums[w];
        }
        atomicAdd(total, (unsigned long long)sum);
        if (blockIdx.x == 0) {
            printf("block 0: sum %u\n", sum);
        }
    }
}

int main(void)
{
    const int n = 1000;
    unsigned keys[n], table[4] = {1, 3, 5, 7};
    unsigned long long want = 0, got = 0;
    for (int i = 0; i < n; i++) {
        keys[i] = (unsigned)(i * 7919 % 1013);
        want += (unsigned long long)(keys[i] * table[keys[i] & 3u]);
    }
    unsigned *d_keys;
    unsigned long long *d_total;
    CHECK(cudaMalloc(&d_keys, sizeof keys));
    CHECK(cudaMalloc(&d_total, sizeof got));
    CHECK(cudaMemcpy(d_keys, keys, sizeof keys, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_total, 0, sizeof got));
    CHECK(cudaMemcpyToSymbol(scale, table, sizeof table));
    scaled_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_keys, n, d_total);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
    if (got != want) {
        printf("total %llu, want %llu\n", got, want);
        return 1;
    }
    printf("ok\n");
    return 0;
}
