/* What the GPU suites share; see gpu_harness.h. */
#include "gpu_harness.h"

#include <stdio.h>
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
    char what[256];
    snprintf(what, sizeof what, "%s(n=%zu, dist=%s, seed=%llu)", name, n, kit_dist_name(dist),
             (unsigned long long)seed);
    kit_fail_call(what, err);
}

int kit_device_fetch(const char *what, const unsigned int *d_keys, unsigned int *keys, size_t n)
{
    cudaError_t err = cudaDeviceSynchronize(); /* an asynchronous kernel's error shows here */
    if (err == cudaSuccess && n > 0) {
        err = cudaMemcpy(keys, d_keys, n * sizeof *keys, cudaMemcpyDeviceToHost);
    }
    if (err != cudaSuccess) {
        KIT_FAIL("%s: a kernel failed while running: %s (%s)", what, cudaGetErrorName(err),
                 cudaGetErrorString(err));
        return 0;
    }
    return 1;
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

int kit_check_sweep(kit_sweep_check_fn check, const void *ctx, size_t min_n, size_t max_n,
                    const size_t *extra, size_t extra_count, uint64_t seed)
{
    for (size_t s = 0; s < kit_test_size_count + extra_count; s++) {
        size_t n = s < kit_test_size_count ? kit_test_sizes[s] : extra[s - kit_test_size_count];
        if (s < kit_test_size_count && (n < min_n || n > max_n)) {
            continue;
        }
        FOR_EACH_DIST(dist)
        {
            if (!check(n, dist, seed + n, ctx)) {
                return 0;
            }
        }
    }
    return 1;
}

/* What kit_check_sort_sweep() hands its check. */
typedef struct {
    kit_sort_u32_fn sort;
    const char *name;
} sort_u32_case;

static int check_sort_u32_case(size_t n, kit_dist dist, uint64_t seed, const void *ctx)
{
    const sort_u32_case *c = ctx;
    return kit_check_sort_u32(c->sort, c->name, n, dist, seed);
}

int kit_check_sort_sweep(kit_sort_u32_fn sort, const char *name, size_t min_n, size_t max_n,
                         uint64_t seed)
{
    const sort_u32_case c = {sort, name};
    return kit_check_sweep(check_sort_u32_case, &c, min_n, max_n, NULL, 0, seed);
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

/* ---- key/value pairs ----------------------------------------------------------------------- */

int kit_pairs_alloc(kit_pairs *p, size_t n)
{
    return kit_pairs_alloc_parts(p, n, KIT_PAIRS_VALUES);
}

int kit_pairs_alloc_parts(kit_pairs *p, size_t n, int parts)
{
    size_t bytes = (n ? n : 1) * sizeof(unsigned int);
    int values = (parts & KIT_PAIRS_VALUES) != 0, expect = (parts & KIT_PAIRS_EXPECT) != 0;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->in_keys = malloc(bytes);
    p->out_keys = malloc(bytes);
    int ok = p->in_keys && p->out_keys;
    if (values) {
        p->in_values = malloc(bytes);
        p->out_values = malloc(bytes);
        p->scratch = malloc(bytes);
        ok = ok && p->in_values && p->out_values && p->scratch;
    }
    if (expect) {
        p->expect_keys = malloc(bytes);
        ok = ok && p->expect_keys;
    }
    if (expect && values) {
        p->expect_values = malloc(bytes);
        ok = ok && p->expect_values;
    }
    if (!ok) {
        KIT_FAIL("test setup: out of host memory for n = %zu", n);
        return 0;
    }
    for (size_t i = 0; values && i < n; i++) {
        p->in_values[i] = (unsigned int)i;
    }
    return 1;
}

void kit_pairs_free(kit_pairs *p)
{
    free(p->in_keys);
    free(p->in_values);
    free(p->out_keys);
    free(p->out_values);
    free(p->scratch);
    free(p->expect_keys);
    free(p->expect_values);
}

int kit_device_pairs_upload(kit_device_pairs *d, const kit_pairs *p, int with_values)
{
    d->values = NULL;
    d->keys = kit_device_copy(p->in_keys, p->n);
    if (d->keys && with_values) {
        d->values = kit_device_copy(p->in_values, p->n);
        if (!d->values) {
            cudaFree(d->keys);
            d->keys = NULL;
        }
    }
    return d->keys != NULL;
}

int kit_device_pairs_blank(kit_device_pairs *d, const kit_pairs *p, int with_values)
{
    size_t bytes = (p->n ? p->n : 1) * sizeof(unsigned int);
    d->keys = NULL;
    d->values = NULL;
    cudaError_t err = cudaMalloc((void **)&d->keys, bytes);
    if (err == cudaSuccess) {
        err = cudaMemset(d->keys, 0xA5, bytes);
    }
    if (err == cudaSuccess && with_values) {
        err = cudaMalloc((void **)&d->values, bytes);
        if (err == cudaSuccess) {
            err = cudaMemset(d->values, 0xA5, bytes);
        }
    }
    if (err != cudaSuccess) {
        KIT_FAIL("test setup: allocating %zu pairs on the GPU failed: %s", p->n,
                 cudaGetErrorString(err));
        cudaFree(d->keys);
        cudaFree(d->values);
        d->keys = d->values = NULL;
        return 0;
    }
    return 1;
}

int kit_device_pairs_download(const char *what, const kit_device_pairs *d, kit_pairs *p)
{
    return kit_device_fetch(what, d->keys, p->out_keys, p->n) &&
           (!d->values || kit_device_fetch(what, d->values, p->out_values, p->n));
}

void kit_device_pairs_free(kit_device_pairs *d)
{
    cudaDeviceSynchronize();
    cudaFree(d->keys);
    cudaFree(d->values);
    d->keys = d->values = NULL;
}

void kit_fail_call(const char *what, cudaError_t err)
{
    if (err == cudaErrorNotSupported) {
        KIT_FAIL("%s returned cudaErrorNotSupported: not written yet (its TODO still has the "
                 "skeleton's stub)",
                 what);
    } else {
        KIT_FAIL("%s failed: %s (%s)", what, cudaGetErrorName(err), cudaGetErrorString(err));
    }
}

int kit_check_pairs_segment(const char *what, const char *segment, const kit_pairs *p,
                            int with_values, size_t base, size_t len, int flags)
{
    kit_verdict v;
    if (with_values) {
        for (size_t i = 0; i < len; i++) {
            p->scratch[i] = p->out_values[base + i] - (unsigned int)base;
        }
        v = kit_verify_pairs_u32(p->in_keys + base, p->out_keys + base, p->scratch, len, flags);
    } else {
        v = kit_verify_u32(p->in_keys + base, p->out_keys + base, len, flags & ~KIT_VERIFY_STABLE);
    }
    if (v.status == KIT_VERIFY_OK) {
        return 1;
    }
    if (base == 0 && len == p->n) {
        KIT_FAIL("%s: %s", what, v.message);
    } else {
        KIT_FAIL("%s: %s, keys %zu..%zu, must be sorted %s%s; indices and values below count "
                 "from its first key, %zu: %s",
                 what, segment, base, base + len - 1,
                 (flags & KIT_VERIFY_DESCENDING) ? "descending" : "ascending",
                 (flags & KIT_VERIFY_STABLE) && with_values ? " and stable" : "", base, v.message);
    }
    return 0;
}

int kit_check_pairs_attached(const char *what, const kit_pairs *p)
{
    kit_verdict v = kit_verify_attached_u32(p->in_keys, p->out_keys, p->out_values, p->n);
    if (v.status == KIT_VERIFY_OK) {
        return 1;
    }
    KIT_FAIL("%s: %s", what, v.message);
    return 0;
}

kit_dist kit_large_dist(unsigned set, unsigned k)
{
    static const kit_dist sets[4][KIT_LARGE_DIST_COUNT] = {
        {KIT_DIST_UNIFORM, KIT_DIST_FEW_UNIQUE, KIT_DIST_REVERSED},
        {KIT_DIST_UNIFORM, KIT_DIST_EXTREMES, KIT_DIST_ALL_EQUAL},
        {KIT_DIST_UNIFORM, KIT_DIST_SORTED, KIT_DIST_ZERO_ONE},
        {KIT_DIST_UNIFORM, KIT_DIST_NEARLY_SORTED, KIT_DIST_ORGAN_PIPE},
    };
    return sets[set % 4][k % KIT_LARGE_DIST_COUNT];
}
