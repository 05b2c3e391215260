/*
 * The loads and stores with a cache hint, as samples use them: a sum in one pass whose last
 * block adds the blocks' partial sums (NVIDIA's threadFenceReduction: each block stores its sum
 * with __stwt, fences, takes a ticket with atomicInc, and the last one reads the sums with
 * __ldcv), and a streaming copy of float4 and int2 arrays through __ldcs, __ldca, __ldlu,
 * __stcs, __stwb and __ldg. Exit 0 when both results are the CPU's.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sm_35_intrinsics.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define THREADS 128

__device__ unsigned int blocks_done = 0;

__global__ void sum_one_pass(const unsigned *in, unsigned *partial, unsigned *total, int n)
{
    __shared__ unsigned sums[THREADS];
    __shared__ bool last_block;
    unsigned mine = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        mine += __ldg(&in[i]);
    }
    sums[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        __stwt(&partial[blockIdx.x], sums[0]);
        __threadfence(); /* the sum is visible to every block before the ticket is taken */
        unsigned ticket = atomicInc(&blocks_done, gridDim.x);
        last_block = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last_block) {
        unsigned all = 0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
            all += __ldcv(&partial[b]);
        }
        sums[threadIdx.x] = all;
        __syncthreads();
        for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
            if (threadIdx.x < stride) {
                sums[threadIdx.x] += sums[threadIdx.x + stride];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            __stcs(total, sums[0]);
            blocks_done = 0; /* for the next launch */
        }
    }
}

/* out = 2 * in, for float4 (streamed: read and written once), and b = a + (1, -1), int2 */
__global__ void stream_copy(const float4 *in, float4 *out, const int2 *a, int2 *b, const double *d,
                            double *d_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = __ldcs(&in[i]);
        __stcs(&out[i], make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w));
        int2 w = __ldca(&a[i]);
        __stwb(&b[i], make_int2(w.x + 1, w.y - 1));
        d_out[i] = __ldlu(&d[i]) + 0.5;
    }
}

static int check_sum(void)
{
    const int n = 100000, blocks = 37;
    unsigned *in = (unsigned *)malloc(n * sizeof(unsigned)), expected = 0, total = 0;
    for (int i = 0; i < n; i++) {
        in[i] = (unsigned)(i * 2654435761u) >> 12;
        expected += in[i];
    }
    unsigned *d_in, *d_partial, *d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_total, sizeof(unsigned)));
    CHECK(cudaMemcpy(d_in, in, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    int bad = 0;
    for (int run = 0; run < 2 && !bad; run++) { /* the counter is back to 0 for the second */
        CHECK(cudaMemset(d_total, 0, sizeof(unsigned)));
        sum_one_pass<<<blocks, THREADS>>>(d_in, d_partial, d_total, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&total, d_total, sizeof(unsigned), cudaMemcpyDeviceToHost));
        if (total != expected) {
            printf("sum, run %d: %u, expected %u\n", run, total, expected);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_total));
    free(in);
    return bad;
}

static int check_copy(void)
{
    const int n = 5000;
    float4 *in = (float4 *)malloc(n * sizeof(float4)), *out = (float4 *)malloc(n * sizeof(float4));
    int2 *a = (int2 *)malloc(n * sizeof(int2)), *b = (int2 *)malloc(n * sizeof(int2));
    double *d = (double *)malloc(n * sizeof(double)), *d_res = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        in[i] = make_float4(i, -i, 0.25f * i, 1e6f - i);
        a[i] = make_int2(i, i * 3);
        d[i] = i / 4.0;
    }
    float4 *d_in, *d_out;
    int2 *d_a, *d_b;
    double *d_d, *d_dout;
    CHECK(cudaMalloc(&d_in, n * sizeof(float4)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float4)));
    CHECK(cudaMalloc(&d_a, n * sizeof(int2)));
    CHECK(cudaMalloc(&d_b, n * sizeof(int2)));
    CHECK(cudaMalloc(&d_d, n * sizeof(double)));
    CHECK(cudaMalloc(&d_dout, n * sizeof(double)));
    CHECK(cudaMemcpy(d_in, in, n * sizeof(float4), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(int2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_d, d, n * sizeof(double), cudaMemcpyHostToDevice));
    stream_copy<<<(n + 255) / 256, 256>>>(d_in, d_out, d_a, d_b, d_d, d_dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, n * sizeof(float4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b, d_b, n * sizeof(int2), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(d_res, d_dout, n * sizeof(double), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        if (out[i].x != 2 * in[i].x || out[i].y != 2 * in[i].y || out[i].z != 2 * in[i].z ||
            out[i].w != 2 * in[i].w || b[i].x != a[i].x + 1 || b[i].y != a[i].y - 1 ||
            d_res[i] != d[i] + 0.5) {
            printf("element %d: (%g %g %g %g) (%d %d) %g\n", i, out[i].x, out[i].y, out[i].z,
                   out[i].w, b[i].x, b[i].y, d_res[i]);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_d));
    CHECK(cudaFree(d_dout));
    free(in);
    free(out);
    free(a);
    free(b);
    free(d);
    free(d_res);
    return bad;
}

int main(void)
{
    int bad = check_sum();
    bad |= check_copy();
    if (bad) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
