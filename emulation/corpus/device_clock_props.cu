/*
 * What CUDA's samples read of the device and its clock: cudaDeviceProp's fields (deviceQuery's
 * canMapHostMemory, unifiedAddressing, memoryBusWidth...), the older flag names
 * (cudaDeviceBlockingSync), a stream callback declared CUDART_CB, and kernels that stamp
 * clock() and clock64() (the clock sample: the time a block took, from its first thread's two
 * stamps). A clock's values differ from run to run on a GPU, so compare mode must not call them
 * a race. Exit 0 when every result is right.
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

/* Each block sums its threads' indices in shared memory; thread 0 stamps the block's start and
 * end with clock() and clock64(). */
__global__ void timed_sum(const int *in, int *sums, clock_t *ticks, long long *ticks64)
{
    extern __shared__ int partial[];
    if (threadIdx.x == 0) {
        ticks[2 * blockIdx.x] = clock();
        ticks64[2 * blockIdx.x] = clock64();
    }
    partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = partial[0];
        ticks[2 * blockIdx.x + 1] = clock();
        ticks64[2 * blockIdx.x + 1] = clock64();
    }
}

static int callbacks = 0;

static void CUDART_CB on_done(cudaStream_t stream, cudaError_t status, void *data)
{
    (void)stream;
    if (status == cudaSuccess) {
        *(int *)data += 1;
    }
}

int main(void)
{
    int failures = 0;
    CHECK(cudaSetDeviceFlags(cudaDeviceBlockingSync | cudaDeviceMapHost));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    if (!prop.canMapHostMemory || !prop.unifiedAddressing || prop.memoryBusWidth <= 0 ||
        prop.warpSize != 32 || prop.l2CacheSize <= 0 || prop.asyncEngineCount <= 0) {
        printf("device properties: canMapHostMemory %d unifiedAddressing %d memoryBusWidth %d "
               "warpSize %d l2CacheSize %d asyncEngineCount %d\n",
               prop.canMapHostMemory, prop.unifiedAddressing, prop.memoryBusWidth, prop.warpSize,
               prop.l2CacheSize, prop.asyncEngineCount);
        failures++;
    }

    const int blocks = 8, threads = 128, n = blocks * threads;
    int *in = NULL, *sums = NULL;
    clock_t *ticks = NULL;
    long long *ticks64 = NULL;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
    CHECK(cudaMalloc(&ticks, 2 * blocks * sizeof(clock_t)));
    CHECK(cudaMalloc(&ticks64, 2 * blocks * sizeof(long long)));
    int host_in[blocks * threads];
    for (int i = 0; i < n; i++) {
        host_in[i] = i % 7;
    }
    CHECK(cudaMemcpy(in, host_in, sizeof host_in, cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    timed_sum<<<blocks, threads, threads * sizeof(int), stream>>>(in, sums, ticks, ticks64);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamAddCallback(stream, on_done, &callbacks, 0));
    CHECK(cudaStreamSynchronize(stream));

    int host_sums[blocks];
    clock_t host_ticks[2 * blocks];
    long long host_ticks64[2 * blocks];
    CHECK(cudaMemcpy(host_sums, sums, sizeof host_sums, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host_ticks, ticks, sizeof host_ticks, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host_ticks64, ticks64, sizeof host_ticks64, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int t = 0; t < threads; t++) {
            want += host_in[b * threads + t];
        }
        if (host_sums[b] != want) {
            printf("block %d: sum %d, want %d\n", b, host_sums[b], want);
            failures++;
        }
        /* a block's end is not before its start, on either clock */
        if (host_ticks[2 * b + 1] < host_ticks[2 * b] ||
            host_ticks64[2 * b + 1] < host_ticks64[2 * b]) {
            printf("block %d: its clock went back (%lld -> %lld, %lld -> %lld)\n", b,
                   (long long)host_ticks[2 * b], (long long)host_ticks[2 * b + 1],
                   host_ticks64[2 * b], host_ticks64[2 * b + 1]);
            failures++;
        }
    }
    if (callbacks != 1) {
        printf("the CUDART_CB callback ran %d times, want 1\n", callbacks);
        failures++;
    }
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(in));
    CHECK(cudaFree(sums));
    CHECK(cudaFree(ticks));
    CHECK(cudaFree(ticks64));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
