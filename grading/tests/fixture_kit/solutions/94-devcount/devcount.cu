/* Fixture lab 94's reference solution. */
#include "devcount.h"

/* One thread per value; each zero adds one to the count. */
__global__ void count_zeros_kernel(const int *values, size_t n, unsigned long long *count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && values[i] == 0) {
        atomicAdd(count, 1ull);
    }
}

extern "C" cudaError_t devcount_zeros(const int *d_values, size_t n, unsigned long long *d_count)
{
    cudaError_t err = cudaMemset(d_count, 0, sizeof *d_count);
    if (err != cudaSuccess || n == 0) {
        return err;
    }
    count_zeros_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d_values, n, d_count);
    return cudaGetLastError();
}

extern "C" size_t devcount_zeros_host(const int *values, size_t n)
{
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        zeros += values[i] == 0;
    }
    return zeros;
}
