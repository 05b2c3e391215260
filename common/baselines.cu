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

namespace {

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

} // namespace

extern "C" cudaError_t kit_baseline_cub_radix_ms(const unsigned int *d_keys, size_t n, int reps,
                                                 double *ms)
{
    unsigned int *d_in = nullptr, *d_out = nullptr;
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_out, (int)n));
    CUDA_TRY(cudaMalloc(&d_in, n * sizeof *d_in));
    CUDA_TRY(cudaMalloc(&d_out, n * sizeof *d_out));
    CUDA_TRY(cudaMalloc(&d_temp, temp_bytes));
    cudaError_t err = time_gpu(d_keys, d_in, n, reps, ms, [&] {
        return cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_out, (int)n);
    });
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_temp);
    return err;
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
