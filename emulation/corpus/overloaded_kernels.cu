/*
 * Kernels overloaded on their parameter types, as CUDA's samples write one kernel per element
 * type without a template: `scale` for ints and for floats, each launched, one of them from a
 * namespace, and a template kernel beside them. Exit 0 when every result is right.
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

/* Multiplies each of n values by factor: one thread per value. */
__global__ void scale(int *values, int n, int factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] *= factor;
    }
}

__global__ void scale(float *values, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] *= factor;
    }
}

namespace shift
{
/* Adds offset to each of n values. */
__global__ void add(int *values, int n, int offset = 1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] += offset;
    }
}
__global__ void add(unsigned *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] += 100u;
    }
}
} // namespace shift

template <typename T> __global__ void fill(T *values, int n, T value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] = value;
    }
}

int main(void)
{
    const int n = 300;
    int *ints = NULL;
    float *floats = NULL;
    unsigned *uints = NULL;
    CHECK(cudaMalloc(&ints, n * sizeof(int)));
    CHECK(cudaMalloc(&floats, n * sizeof(float)));
    CHECK(cudaMalloc(&uints, n * sizeof(unsigned)));
    fill<int><<<(n + 127) / 128, 128>>>(ints, n, 3);
    fill<<<(n + 127) / 128, 128>>>(floats, n, 1.5f);
    fill<unsigned><<<(n + 127) / 128, 128>>>(uints, n, 7u);
    scale<<<(n + 127) / 128, 128>>>(ints, n, 5);
    scale<<<(n + 127) / 128, 128>>>(floats, n, 2.0f);
    shift::add<<<(n + 127) / 128, 128>>>(ints, n);
    shift::add<<<(n + 127) / 128, 128>>>(uints, n);
    CHECK(cudaGetLastError());
    int hi[n];
    float hf[n];
    unsigned hu[n];
    CHECK(cudaMemcpy(hi, ints, sizeof hi, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hf, floats, sizeof hf, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hu, uints, sizeof hu, cudaMemcpyDeviceToHost));
    int right = 1;
    for (int i = 0; i < n; i++) {
        right &= hi[i] == 16 && hf[i] == 3.0f && hu[i] == 107u;
    }
    CHECK(cudaFree(ints));
    CHECK(cudaFree(floats));
    CHECK(cudaFree(uints));
    if (!right) {
        printf("wrong: overloaded kernels\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
