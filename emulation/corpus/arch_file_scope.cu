/*
 * Device functions chosen by the architecture at file scope, as NVIDIA's warpAggregatedAtomicsCG
 * writes them: a __device__ function defined only `#if __CUDA_ARCH__ >= 700`, and two versions of
 * another, one for each side of the guard. nvcc's device pass sees the first of each; so must the
 * emulation (its device is sm_90), while main, host code, sees no __CUDA_ARCH__. Exit 0 when every
 * result is right.
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

#if __CUDA_ARCH__ >= 700
/* Only code built for Volta and later has it: the kernel below needs it. */
__device__ unsigned lanes_below(unsigned lane)
{
    return __popc(__activemask() & ((1u << lane) - 1u));
}
__device__ int built_for_volta_or_later()
{
    return 1;
}
#else
__device__ unsigned lanes_below(unsigned lane)
{
    return lane;
}
__device__ int built_for_volta_or_later()
{
    return 0;
}
#endif

__global__ void ranks(unsigned *out, int *volta)
{
    unsigned lane = threadIdx.x % 32u;
    out[threadIdx.x] = lanes_below(lane);
    if (threadIdx.x == 0) {
        *volta = built_for_volta_or_later();
    }
}

int main(void)
{
#ifdef __CUDA_ARCH__
    printf("host code sees __CUDA_ARCH__\n");
    return 1;
#endif
    unsigned *d_out, out[64];
    int *d_volta, volta = -1;
    CHECK(cudaMalloc(&d_out, sizeof out));
    CHECK(cudaMalloc(&d_volta, sizeof volta));
    ranks<<<1, 64>>>(d_out, d_volta);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&volta, d_volta, sizeof volta, cudaMemcpyDeviceToHost));
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, ranks));
    int want_volta = attr.binaryVersion >= 70;
    for (int i = 0; i < 64; i++) {
        if (out[i] != (unsigned)(i % 32)) {
            printf("thread %d: %u lanes below, want %d\n", i, out[i], i % 32);
            return 1;
        }
    }
    if (volta != want_volta) {
        printf("the Volta branch: %d for code built for sm_%d\n", volta, attr.binaryVersion);
        return 1;
    }
    printf("ok\n");
    return 0;
}
