/*
 * Constant memory and device variables as students write them: a lookup table in __constant__
 * memory filled with cudaMemcpyToSymbol, a __device__ counter reset through its address
 * (cudaGetSymbolAddress) and read back with cudaMemcpyFromSymbol, a kernel with a default
 * argument, a kernel template, printf in a kernel, the occupancy calls and an event recorded
 * on the default stream without naming it. Exit 0 when every result is right.
 */
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define DIGITS 16
__constant__ unsigned c_weights[DIGITS];
__device__ unsigned d_counted;

/* Each key's weight is the table's entry for its low 4 bits, scaled; threads count the keys of
 * weight above the threshold. */
__global__ void weigh(const unsigned *keys, unsigned *out, int n, unsigned scale = 3)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned w = c_weights[keys[i] % DIGITS] * scale;
        out[i] = w;
        if (w > 30) {
            atomicAdd(&d_counted, 1u);
        }
        if (i == 0) {
            printf("weigh: thread 0 of %d keys, weight %u\n", n, w);
        }
    }
}

template <typename T> __global__ void fill(T *out, int n, T value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = value + (T)i;
    }
}

int main(void)
{
    const int n = 1000;
    unsigned weights[DIGITS], *keys = (unsigned *)malloc(n * sizeof *keys);
    for (int d = 0; d < DIGITS; d++) {
        weights[d] = (unsigned)(d * 7 % 13);
    }
    for (int i = 0; i < n; i++) {
        keys[i] = (unsigned)(i * 2654435761u);
    }
    CHECK(cudaMemcpyToSymbol(c_weights, weights, sizeof weights));
    unsigned back[DIGITS];
    CHECK(cudaMemcpyFromSymbol(back, c_weights, sizeof back));
    unsigned *counter;
    CHECK(cudaGetSymbolAddress((void **)&counter, d_counted));
    CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, c_weights));

    unsigned *d_keys, *d_out;
    float *d_fill;
    CHECK(cudaMalloc(&d_keys, n * sizeof *d_keys));
    CHECK(cudaMalloc(&d_out, n * sizeof *d_out));
    CHECK(cudaMalloc(&d_fill, n * sizeof *d_fill));
    CHECK(cudaMemcpy(d_keys, keys, n * sizeof *keys, cudaMemcpyHostToDevice));

    int min_grid = 0, block = 0, per_sm = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, weigh, 0, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fill<float>, 256, 0));
    CHECK(cudaFuncSetCacheConfig(weigh, cudaFuncCachePreferNone));
    if (block <= 0 || block > 1024 || block % 32 || min_grid <= 0 || per_sm <= 0) {
        printf("occupancy: block %d, grid %d, blocks per SM %d\n", block, min_grid, per_sm);
        return 1;
    }

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    weigh<<<(n + block - 1) / block, block>>>(d_keys, d_out, n);
    CHECK(cudaGetLastError());
    fill<float><<<(n + 255) / 256, 256>>>(d_fill, n, 0.5f);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    unsigned *out = (unsigned *)malloc(n * sizeof *out), counted = 0, expect_counted = 0;
    float *filled = (float *)malloc(n * sizeof *filled);
    CHECK(cudaMemcpy(out, d_out, n * sizeof *out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(filled, d_fill, n * sizeof *filled, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&counted, d_counted, sizeof counted));
    int bad = size != sizeof weights;
    for (int d = 0; d < DIGITS; d++) {
        bad |= back[d] != weights[d];
    }
    for (int i = 0; i < n; i++) {
        unsigned w = weights[keys[i] % DIGITS] * 3;
        expect_counted += w > 30;
        if (out[i] != w || filled[i] != 0.5f + (float)i) {
            printf("index %d: weight %u (want %u), fill %g (want %g)\n", i, out[i], w, filled[i],
                   0.5f + (float)i);
            return 1;
        }
    }
    if (bad || counted != expect_counted) {
        printf("symbol size %zu, table copied back %s, counted %u (want %u)\n", size,
               bad ? "wrong" : "right", counted, expect_counted);
        return 1;
    }
    printf("ok\n");
    return 0;
}
