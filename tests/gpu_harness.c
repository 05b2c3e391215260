/* What the GPU suites share; see gpu_harness.h. */
#include "gpu_harness.h"

#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "verify.h"

const size_t kit_test_sizes[] = {0,    1,    2,    3,    4,    7,     31,    32,      33,
                                 100,  255,  256,  257,  1000, 1023,  1024,  1025,    2047,
                                 2048, 2049, 4096, 4097, 9999, 16384, 65536, 1 << 20, 1 << 22};
const size_t kit_test_size_count = sizeof kit_test_sizes / sizeof kit_test_sizes[0];

void kit_fail_cuda(const char *name, cudaError_t err, size_t n, kit_dist dist, uint64_t seed)
{
    if (err == cudaErrorNotSupported) {
        KIT_FAIL("%s(n=%zu, dist=%s, seed=%llu) returned cudaErrorNotSupported: not written "
                 "yet (its TODO still has the skeleton's stub)",
                 name, n, kit_dist_name(dist), (unsigned long long)seed);
    } else {
        KIT_FAIL("%s(n=%zu, dist=%s, seed=%llu) failed: %s (%s)", name, n, kit_dist_name(dist),
                 (unsigned long long)seed, cudaGetErrorName(err), cudaGetErrorString(err));
    }
}

unsigned int *kit_device_copy(const unsigned int *keys, size_t n)
{
    unsigned int *d = NULL;
    cudaError_t err = cudaMalloc((void **)&d, (n ? n : 1) * sizeof *d);
    if (err == cudaSuccess && n > 0) {
        err = cudaMemcpy(d, keys, n * sizeof *d, cudaMemcpyHostToDevice);
    }
    if (err != cudaSuccess) {
        KIT_FAIL("test setup: copying %zu keys to the GPU failed: %s", n, cudaGetErrorString(err));
        cudaFree(d);
        return NULL;
    }
    return d;
}

int kit_device_fetch_free(unsigned int *d_keys, unsigned int *keys, size_t n)
{
    /* Synchronize first: an error of an asynchronous kernel shows here. */
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess && n > 0) {
        err = cudaMemcpy(keys, d_keys, n * sizeof *keys, cudaMemcpyDeviceToHost);
    }
    cudaFree(d_keys);
    if (err != cudaSuccess) {
        KIT_FAIL("a kernel failed while running (n=%zu): %s (%s)", n, cudaGetErrorName(err),
                 cudaGetErrorString(err));
        return 0;
    }
    return 1;
}

int kit_check_sort_u32(kit_sort_u32_fn sort, const char *name, size_t n, kit_dist dist,
                       uint64_t seed)
{
    unsigned int *snapshot = malloc((n ? n : 1) * sizeof *snapshot);
    unsigned int *result = malloc((n ? n : 1) * sizeof *result);
    int ok = 0;
    if (!snapshot || !result) {
        KIT_FAIL("test setup: out of host memory for n = %zu", n);
        goto done;
    }
    kit_generate_u32(snapshot, n, dist, seed);
    unsigned int *d_keys = kit_device_copy(snapshot, n);
    if (!d_keys) {
        goto done;
    }
    cudaError_t err = sort(d_keys, n);
    if (err != cudaSuccess) {
        kit_fail_cuda(name, err, n, dist, seed);
        cudaDeviceSynchronize();
        cudaFree(d_keys);
        goto done;
    }
    if (!kit_device_fetch_free(d_keys, result, n)) {
        goto done;
    }
    kit_verdict v = kit_verify_u32(snapshot, result, n, 0);
    if (v.status != KIT_VERIFY_OK) {
        KIT_FAIL("%s(n=%zu, dist=%s, seed=%llu): %s", name, n, kit_dist_name(dist),
                 (unsigned long long)seed, v.message);
        goto done;
    }
    ok = 1;
done:
    free(snapshot);
    free(result);
    return ok;
}

int kit_check_sort_sweep(kit_sort_u32_fn sort, const char *name, size_t min_n, size_t max_n,
                         uint64_t seed)
{
    for (size_t s = 0; s < kit_test_size_count; s++) {
        size_t n = kit_test_sizes[s];
        if (n < min_n || n > max_n) {
            continue;
        }
        for (int d = 0; d < KIT_DIST_COUNT; d++) {
            if (!kit_check_sort_u32(sort, name, n, (kit_dist)d, seed + n)) {
                return 0;
            }
        }
    }
    return 1;
}

int kit_check_sort_quick(kit_sort_u32_fn sort, const char *name, const size_t *sizes,
                         size_t size_count, uint64_t seed)
{
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_REVERSED, KIT_DIST_FEW_UNIQUE};
    for (size_t s = 0; s < size_count; s++) {
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++) {
            if (!kit_check_sort_u32(sort, name, sizes[s], dists[d], seed + sizes[s])) {
                return 0;
            }
        }
    }
    return 1;
}
