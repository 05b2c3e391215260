/*
 * Code guarded by the architecture, as samples write it: a warp sum that uses the sm_80
 * reduction where __CUDA_ARCH__ allows it and shuffles elsewhere, and a host path that must not
 * see __CUDA_ARCH__ at all. Both branches give the same sums; code built for sm_80 and later (and
 * the emulation, whose device is sm_90) takes the first, which the kernel reports. Exit 0 when
 * every result is right.
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

__device__ unsigned warp_sum(unsigned v, unsigned *path)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    *path = 800;
    return __reduce_add_sync(0xffffffffu, v);
#else
    *path = 1;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
#endif
}

__global__ void warp_sums(const unsigned *in, unsigned *sums, unsigned *path)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mine = 0;
    unsigned s = warp_sum(in[i], &mine);
    if (threadIdx.x % 32 == 0) {
        sums[i / 32] = s;
    }
    if (i == 0) {
        *path = mine;
    }
}

static int host_side(void)
{
#ifdef __CUDA_ARCH__
    return 0; /* host code never sees __CUDA_ARCH__ */
#else
    return 1;
#endif
}

int main(void)
{
    const int n = 4096;
    unsigned *in = (unsigned *)malloc(n * sizeof *in), sums[n / 32], path = 0;
    for (int i = 0; i < n; i++) {
        in[i] = (unsigned)(i * 37 % 1001);
    }
    unsigned *d_in, *d_sums, *d_path;
    CHECK(cudaMalloc(&d_in, n * sizeof *d_in));
    CHECK(cudaMalloc(&d_sums, sizeof sums));
    CHECK(cudaMalloc(&d_path, sizeof path));
    CHECK(cudaMemcpy(d_in, in, n * sizeof *in, cudaMemcpyHostToDevice));
    warp_sums<<<n / 256, 256>>>(d_in, d_sums, d_path);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&path, d_path, sizeof path, cudaMemcpyDeviceToHost));
    /* The branch the GPU took is the one of the code it runs: the binary's architecture for this
     * device (a build for sm_75 alone runs sm_75 code, or PTX compiled for it, on an sm_90). */
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, warp_sums));
    int arch = attr.binaryVersion;
    unsigned want_path = arch >= 80 ? 800 : 1;
    for (int w = 0; w < n / 32; w++) {
        unsigned want = 0;
        for (int i = 0; i < 32; i++) {
            want += in[w * 32 + i];
        }
        if (sums[w] != want) {
            printf("warp %d: sum %u, want %u\n", w, sums[w], want);
            return 1;
        }
    }
    if (path != want_path || !host_side()) {
        printf("branch taken %u by code built for sm_%d (want %u); host sees __CUDA_ARCH__: "
               "%s\n",
               path, arch, want_path, host_side() ? "no" : "yes");
        return 1;
    }
    printf("ok\n");
    return 0;
}
