/* Baselines for the benchmarks; see baselines.h. C++ and CUB are fine here: this file is
 * measured against, never taught. */
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "baselines.h"
#include "cuda_check.h"
#include "timer.h"

namespace
{

struct Less {
    __device__ bool operator()(unsigned int a, unsigned int b) const
    {
        return a < b;
    }
};

/* Times `run` (which sorts the scratch copy) reps times after a warm-up; the input is copied
 * into the scratch buffer before each run, outside the timed region. */
template <typename Run>
cudaError_t time_gpu(const unsigned int *d_keys, unsigned int *d_work, size_t n, int reps,
                     double *ms, Run run)
{
    kit_gpu_timer timer;
    CUDA_TRY(kit_gpu_timer_create(&timer));
    std::vector<double> times;
    for (int r = -1; r < reps; r++) {
        CUDA_TRY(cudaMemcpy(d_work, d_keys, n * sizeof *d_keys, cudaMemcpyDeviceToDevice));
        float t = 0;
        CUDA_TRY(kit_gpu_timer_start(&timer));
        CUDA_TRY(run());
        CUDA_TRY(kit_gpu_timer_stop(&timer, &t));
        if (r >= 0) {
            times.push_back(t);
        }
    }
    kit_gpu_timer_destroy(&timer);
    *ms = kit_median(times.data(), times.size());
    return cudaSuccess;
}

/* Writes 0, 1, ..., n - 1: the values CUB's sort of pairs carries (their content does not
 * change the time: a radix sort moves values without looking at them). */
__global__ void fill_indices_kernel(unsigned int *values, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        values[i] = (unsigned int)i;
    }
}

/* One cub::DeviceRadixSort call: the keys of in into out, keys alone (SortKeys) or with the
 * values of values_in into values_out (SortPairs); with d_temp NULL it only sets temp_bytes. */
struct CubRadix {
    bool pairs;
    size_t n;
    unsigned int *in, *out, *values_in, *values_out;

    cudaError_t operator()(void *d_temp, size_t &temp_bytes) const
    {
        if (pairs) {
            return cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, in, out, values_in,
                                                   values_out, (int)n);
        }
        return cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, in, out, (int)n);
    }
};

/* The median ms of CUB's radix sort of d_keys, keys alone or (pairs) with a value each: the
 * values are written once, before any timed run (CUB does not change its input). */
cudaError_t time_cub_radix(const unsigned int *d_keys, size_t n, bool pairs, int reps, double *ms)
{
    CubRadix sort = {pairs, n, nullptr, nullptr, nullptr, nullptr};
    unsigned int **buffers[] = {&sort.in, &sort.out, &sort.values_in, &sort.values_out};
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    cudaError_t err = cudaSuccess;
    for (int b = 0; b < (pairs ? 4 : 2) && err == cudaSuccess; b++) {
        err = cudaMalloc(buffers[b], n * sizeof *d_keys);
    }
    if (err == cudaSuccess && pairs && n > 0) {
        fill_indices_kernel<<<1024, 256>>>(sort.values_in, n);
        err = cudaGetLastError();
    }
    err = err == cudaSuccess ? sort(nullptr, temp_bytes) : err;
    err = err == cudaSuccess ? cudaMalloc(&d_temp, temp_bytes) : err;
    if (err == cudaSuccess) {
        err = time_gpu(d_keys, sort.in, n, reps, ms, [&] { return sort(d_temp, temp_bytes); });
    }
    for (unsigned int **buffer : buffers) {
        cudaFree(*buffer);
    }
    cudaFree(d_temp);
    return err;
}

} // namespace

extern "C" cudaError_t kit_baseline_cub_radix_ms(const unsigned int *d_keys, size_t n, int reps,
                                                 double *ms)
{
    return time_cub_radix(d_keys, n, false, reps, ms);
}

extern "C" cudaError_t kit_baseline_cub_radix_pairs_ms(const unsigned int *d_keys, size_t n,
                                                       int reps, double *ms)
{
    return time_cub_radix(d_keys, n, true, reps, ms);
}

extern "C" cudaError_t kit_baseline_cub_merge_ms(const unsigned int *d_keys, size_t n, int reps,
                                                 double *ms)
{
    unsigned int *d_work = nullptr;
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_TRY(cub::DeviceMergeSort::SortKeys(d_temp, temp_bytes, d_work, (long long)n, Less()));
    CUDA_TRY(cudaMalloc(&d_work, n * sizeof *d_work));
    CUDA_TRY(cudaMalloc(&d_temp, temp_bytes));
    cudaError_t err = time_gpu(d_keys, d_work, n, reps, ms, [&] {
        return cub::DeviceMergeSort::SortKeys(d_temp, temp_bytes, d_work, (long long)n, Less());
    });
    cudaFree(d_work);
    cudaFree(d_temp);
    return err;
}

extern "C" int kit_baseline_std_sort_ms(const unsigned int *keys, size_t n, int reps, double *ms)
{
    std::vector<unsigned int> work(n);
    std::vector<double> times;
    for (int r = -1; r < reps; r++) {
        std::memcpy(work.data(), keys, n * sizeof *keys);
        double start = kit_host_ms();
        std::sort(work.begin(), work.end());
        if (r >= 0) {
            times.push_back(kit_host_ms() - start);
        }
    }
    *ms = kit_median(times.data(), times.size());
    return 0;
}

extern "C" cudaError_t kit_baseline_copy_gbps(size_t bytes, int reps, double *gbps)
{
    void *a = nullptr, *b = nullptr;
    CUDA_TRY(cudaMalloc(&a, bytes));
    CUDA_TRY(cudaMalloc(&b, bytes));
    CUDA_TRY(cudaMemset(a, 1, bytes));
    kit_gpu_timer timer;
    CUDA_TRY(kit_gpu_timer_create(&timer));
    std::vector<double> times;
    for (int r = -1; r < reps; r++) {
        float t = 0;
        CUDA_TRY(kit_gpu_timer_start(&timer));
        CUDA_TRY(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        CUDA_TRY(kit_gpu_timer_stop(&timer, &t));
        if (r >= 0) {
            times.push_back(t);
        }
    }
    kit_gpu_timer_destroy(&timer);
    cudaFree(a);
    cudaFree(b);
    double ms = kit_median(times.data(), times.size());
    *gbps = ms > 0 ? 2.0 * bytes / (ms * 1e6) : 0;
    return cudaSuccess;
}

/* kit_baseline_describe_row()'s device: a row keeps a pointer to its name. */
static cudaDeviceProp described_device;

extern "C" cudaError_t kit_baseline_describe_row(kit_bench_row *row)
{
    cudaDeviceProp &prop = described_device;
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    err = err == cudaSuccess ? cudaGetDeviceProperties(&prop, device) : err;
    err = err == cudaSuccess ? cudaDriverGetVersion(&row->driver) : err;
    const char *commit = getenv("KIT_COMMIT");
    row->device = prop.name;
    row->commit = commit && *commit ? commit : "unknown";
    return err;
}
