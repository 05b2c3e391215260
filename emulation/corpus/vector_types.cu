/*
 * CUDA's vector types as students and samples use them: an RGBA image of uchar4 pixels (a
 * histogram per channel in shared memory, and the inverted image made with make_uchar4), SAXPY
 * through float4 loads and stores, complex products in double2, float3 and int3 arrays of 12-byte
 * elements, vectors passed to a kernel by value, and one of every make_ function in device code.
 * Every size and alignment is CUDA's (static_assert, from CUDA's vector_types.h on a 64-bit Linux
 * host). Exit 0 when every result is the CPU's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_launch_parameters.h"
#include <vector_functions.h>
#include <vector_types.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define LAYOUT(T, size, align)                                                                     \
    static_assert(sizeof(T) == (size), "sizeof(" #T ")");                                          \
    static_assert(alignof(T) == (align), "alignof(" #T ")")

LAYOUT(char1, 1, 1);
LAYOUT(char2, 2, 2);
LAYOUT(char3, 3, 1);
LAYOUT(char4, 4, 4);
LAYOUT(uchar1, 1, 1);
LAYOUT(uchar2, 2, 2);
LAYOUT(uchar3, 3, 1);
LAYOUT(uchar4, 4, 4);
LAYOUT(short1, 2, 2);
LAYOUT(short2, 4, 4);
LAYOUT(short3, 6, 2);
LAYOUT(short4, 8, 8);
LAYOUT(ushort1, 2, 2);
LAYOUT(ushort2, 4, 4);
LAYOUT(ushort3, 6, 2);
LAYOUT(ushort4, 8, 8);
LAYOUT(int1, 4, 4);
LAYOUT(int2, 8, 8);
LAYOUT(int3, 12, 4);
LAYOUT(int4, 16, 16);
LAYOUT(uint1, 4, 4);
LAYOUT(uint2, 8, 8);
LAYOUT(uint3, 12, 4);
LAYOUT(uint4, 16, 16);
LAYOUT(long1, 8, 8);
LAYOUT(long2, 16, 16);
LAYOUT(long3, 24, 8);
LAYOUT(ulong1, 8, 8);
LAYOUT(ulong2, 16, 16);
LAYOUT(ulong3, 24, 8);
LAYOUT(longlong1, 8, 8);
LAYOUT(longlong2, 16, 16);
LAYOUT(longlong3, 24, 8);
LAYOUT(ulonglong1, 8, 8);
LAYOUT(ulonglong2, 16, 16);
LAYOUT(ulonglong3, 24, 8);
LAYOUT(float1, 4, 4);
LAYOUT(float2, 8, 8);
LAYOUT(float3, 12, 4);
LAYOUT(float4, 16, 16);
LAYOUT(double1, 8, 8);
LAYOUT(double2, 16, 16);
LAYOUT(double3, 24, 8);
LAYOUT(dim3, 12, 4);
/* CUDA 13 deprecates the 32-byte vectors aligned 16 (double4, ...) for double4_16a and
 * double4_32a, which say their alignment; the old ones keep their layout. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
LAYOUT(long4, 32, 16);
LAYOUT(ulong4, 32, 16);
LAYOUT(longlong4, 32, 16);
LAYOUT(ulonglong4, 32, 16);
LAYOUT(double4, 32, 16);
#pragma GCC diagnostic pop
#if CUDART_VERSION >= 13000
LAYOUT(long4_16a, 32, 16);
LAYOUT(long4_32a, 32, 32);
LAYOUT(ulong4_32a, 32, 32);
LAYOUT(longlong4_32a, 32, 32);
LAYOUT(ulonglong4_16a, 32, 16);
LAYOUT(double4_16a, 32, 16);
LAYOUT(double4_32a, 32, 32);
#endif
static_assert(offsetof(float4, w) == 12 && offsetof(uchar4, w) == 3 && offsetof(double2, y) == 8,
              "member offsets");

/* ---- an RGBA image -----------------------------------------------------------------------------
 */

#define BINS 256

/* One histogram per channel, in shared memory, then added to the image's; and the inverted image
 * (alpha kept). */
__global__ void rgba_histogram(const uchar4 *image, uchar4 *inverted, unsigned *histogram, int n)
{
    __shared__ unsigned local[4 * BINS];
    for (int b = threadIdx.x; b < 4 * BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uchar4 p = image[i];
        atomicAdd(&local[0 * BINS + p.x], 1u);
        atomicAdd(&local[1 * BINS + p.y], 1u);
        atomicAdd(&local[2 * BINS + p.z], 1u);
        atomicAdd(&local[3 * BINS + p.w], 1u);
        inverted[i] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 4 * BINS; b += blockDim.x) {
        if (local[b]) {
            atomicAdd(&histogram[b], local[b]);
        }
    }
}

/* ---- SAXPY through float4 ----------------------------------------------------------------------
 */

__global__ void saxpy4(float a, const float *x, float *y, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 xv = reinterpret_cast<const float4 *>(x)[i];
        float4 yv = reinterpret_cast<float4 *>(y)[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        reinterpret_cast<float4 *>(y)[i] = yv;
    }
}

/* ---- complex numbers in double2; 12-byte elements; vectors by value ----------------------------
 */

__device__ double2 complex_mul(double2 a, double2 b)
{
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* c[i] = a[i] * b[i] * scale; p[i] = q[i] + shift (float3); m[i] = (x, y, z) of the index, int3.
 */
__global__ void small_vectors(const double2 *a, const double2 *b, double2 *c, double2 scale,
                              const float3 *q, float3 *p, float4 shift, int3 *m, uchar3 tag,
                              char3 *tags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = complex_mul(complex_mul(a[i], b[i]), scale);
        float3 v = q[i];
        p[i] = make_float3(v.x + shift.x, v.y + shift.y, v.z + shift.z);
        m[i] = make_int3(i, -i, i * 2);
        tags[i] =
            make_char3((signed char)(tag.x + i), (signed char)(tag.y - i), (signed char)tag.z);
    }
}

/* ---- every make_ function ----------------------------------------------------------------------
 */

struct all_vectors {
    char1 c1;
    char2 c2;
    char3 c3;
    char4 c4;
    uchar1 uc1;
    uchar2 uc2;
    uchar3 uc3;
    uchar4 uc4;
    short1 s1;
    short2 s2;
    short3 s3;
    short4 s4;
    ushort1 us1;
    ushort2 us2;
    ushort3 us3;
    ushort4 us4;
    int1 i1;
    int2 i2;
    int3 i3;
    int4 i4;
    uint1 u1;
    uint2 u2;
    uint3 u3;
    uint4 u4;
    long1 l1;
    long2 l2;
    long3 l3;
    ulong1 ul1;
    ulong2 ul2;
    ulong3 ul3;
    longlong1 ll1;
    longlong2 ll2;
    longlong3 ll3;
    ulonglong1 ull1;
    ulonglong2 ull2;
    ulonglong3 ull3;
    float1 f1;
    float2 f2;
    float3 f3;
    float4 f4;
    double1 d1;
    double2 d2;
    double3 d3;
};

/* Fills v from k: the same on the host and on the device. */
__host__ __device__ void make_all(all_vectors *v, int k)
{
    v->c1 = make_char1(-k);
    v->c2 = make_char2(-k, k + 1);
    v->c3 = make_char3(k, -2, 3);
    v->c4 = make_char4(1, -k, 3, 127);
    v->uc1 = make_uchar1(200 + k);
    v->uc2 = make_uchar2(k, 255);
    v->uc3 = make_uchar3(1, 2, 250 + k);
    v->uc4 = make_uchar4(k, 128, 0, 255);
    v->s1 = make_short1(-1000 * k);
    v->s2 = make_short2(k, -32768);
    v->s3 = make_short3(32767, k, -k);
    v->s4 = make_short4(1, 2, 3, -4 * k);
    v->us1 = make_ushort1(65535 - k);
    v->us2 = make_ushort2(k, 40000);
    v->us3 = make_ushort3(1, k, 3);
    v->us4 = make_ushort4(k, k, 65535, 0);
    v->i1 = make_int1(-100000 * k);
    v->i2 = make_int2(k, -k);
    v->i3 = make_int3(k, 2 * k, 3 * k);
    v->i4 = make_int4(-1, k, 2147483647, -2147483647 - 1);
    v->u1 = make_uint1(4000000000u + k);
    v->u2 = make_uint2(k, 7u);
    v->u3 = make_uint3(1u, 2u, k);
    v->u4 = make_uint4(k, 0u, 0xffffffffu, 5u);
    v->l1 = make_long1(-3000000000L * k);
    v->l2 = make_long2(k, -k);
    v->l3 = make_long3(1, k, 1L << 40);
    v->ul1 = make_ulong1(1UL << 63);
    v->ul2 = make_ulong2(k, 18446744073709551615UL);
    v->ul3 = make_ulong3(k, 2, 3);
    v->ll1 = make_longlong1(-(1LL << 62) + k);
    v->ll2 = make_longlong2(k, -7);
    v->ll3 = make_longlong3(k, k * 1000000000LL, -k);
    v->ull1 = make_ulonglong1(12345678901234567890ULL + k);
    v->ull2 = make_ulonglong2(k, 1);
    v->ull3 = make_ulonglong3(1, 2, k);
    v->f1 = make_float1(0.5f * k);
    v->f2 = make_float2(k, -1.25f);
    v->f3 = make_float3(1e30f, k, -0.0f);
    v->f4 = make_float4(k, k + 0.5f, k + 0.25f, k + 0.125f);
    v->d1 = make_double1(1e300 * k);
    v->d2 = make_double2(k, 0.1);
    v->d3 = make_double3(-k, 2.5, 1.0 / 3.0);
}

__global__ void make_vectors(all_vectors *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        make_all(&out[i], i);
    }
}

/* ---- the host ------------------------------------------------------------------------------ */

static unsigned next_random(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static int check_image(void)
{
    const int n = 64 * 1024 + 17;
    uchar4 *image = (uchar4 *)malloc(n * sizeof(uchar4));
    uchar4 *inverted = (uchar4 *)malloc(n * sizeof(uchar4));
    unsigned histogram[4 * BINS], expected[4 * BINS] = {0}, state = 7;
    for (int i = 0; i < n; i++) {
        unsigned r = next_random(&state);
        image[i] = make_uchar4(r & 0xff, (r >> 8) & 0xff, (unsigned char)(i / 300), 255 - i % 3);
        expected[0 * BINS + image[i].x]++;
        expected[1 * BINS + image[i].y]++;
        expected[2 * BINS + image[i].z]++;
        expected[3 * BINS + image[i].w]++;
    }
    uchar4 *d_image, *d_inverted;
    unsigned *d_histogram;
    CHECK(cudaMalloc(&d_image, n * sizeof(uchar4)));
    CHECK(cudaMalloc(&d_inverted, n * sizeof(uchar4)));
    CHECK(cudaMalloc(&d_histogram, sizeof histogram));
    CHECK(cudaMemcpy(d_image, image, n * sizeof(uchar4), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_histogram, 0, sizeof histogram));
    rgba_histogram<<<24, 256>>>(d_image, d_inverted, d_histogram, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(histogram, d_histogram, sizeof histogram, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(inverted, d_inverted, n * sizeof(uchar4), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < 4 * BINS && !bad; b++) {
        if (histogram[b] != expected[b]) {
            printf("histogram of channel %d, bin %d: %u, expected %u\n", b / BINS, b % BINS,
                   histogram[b], expected[b]);
            bad = 1;
        }
    }
    for (int i = 0; i < n && !bad; i++) {
        uchar4 p = image[i], q = inverted[i];
        if (q.x != 255 - p.x || q.y != 255 - p.y || q.z != 255 - p.z || q.w != p.w) {
            printf("inverted pixel %d: (%d %d %d %d) of (%d %d %d %d)\n", i, q.x, q.y, q.z, q.w,
                   p.x, p.y, p.z, p.w);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_image));
    CHECK(cudaFree(d_inverted));
    CHECK(cudaFree(d_histogram));
    free(image);
    free(inverted);
    return bad;
}

static int check_saxpy(void)
{
    const int n = 4 * 5000;
    const float a = 2.5f;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    float *result = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.25f;
        y[i] = (float)(i % 7) - 3.0f;
    }
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy4<<<(n / 4 + 127) / 128, 128>>>(a, d_x, d_y, n / 4);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(result, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        float expected = a * x[i] + y[i]; /* exact: multiples of 1/8 well within 24 bits */
        if (result[i] != expected) {
            printf("saxpy4: y[%d] = %g, expected %g\n", i, result[i], expected);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    free(x);
    free(y);
    free(result);
    return bad;
}

static int check_small_vectors(void)
{
    const int n = 1000;
    double2 *a = (double2 *)malloc(n * sizeof(double2)),
            *b = (double2 *)malloc(n * sizeof(double2));
    double2 *c = (double2 *)malloc(n * sizeof(double2));
    float3 *q = (float3 *)malloc(n * sizeof(float3)), *p = (float3 *)malloc(n * sizeof(float3));
    int3 *m = (int3 *)malloc(n * sizeof(int3));
    char3 *tags = (char3 *)malloc(n * sizeof(char3));
    for (int i = 0; i < n; i++) {
        /* small integers: every product and sum is exact, with or without a fused multiply-add */
        a[i] = make_double2(i % 17 - 8, i % 5);
        b[i] = make_double2(3 - i % 4, i % 11 - 5);
        q[i] = make_float3(i, -i, 0.5f * i);
    }
    const double2 scale = make_double2(2, -1);
    const float4 shift = make_float4(1.0f, 2.0f, -3.0f, 99.0f);
    const uchar3 tag = make_uchar3(10, 200, 65);
    double2 *d_a, *d_b, *d_c;
    float3 *d_q, *d_p;
    int3 *d_m;
    char3 *d_tags;
    CHECK(cudaMalloc(&d_a, n * sizeof(double2)));
    CHECK(cudaMalloc(&d_b, n * sizeof(double2)));
    CHECK(cudaMalloc(&d_c, n * sizeof(double2)));
    CHECK(cudaMalloc(&d_q, n * sizeof(float3)));
    CHECK(cudaMalloc(&d_p, n * sizeof(float3)));
    CHECK(cudaMalloc(&d_m, n * sizeof(int3)));
    CHECK(cudaMalloc(&d_tags, n * sizeof(char3)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(double2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, n * sizeof(double2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_q, q, n * sizeof(float3), cudaMemcpyHostToDevice));
    small_vectors<<<(n + 63) / 64, 64>>>(d_a, d_b, d_c, scale, d_q, d_p, shift, d_m, tag, d_tags,
                                         n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c, d_c, n * sizeof(double2), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(p, d_p, n * sizeof(float3), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(m, d_m, n * sizeof(int3), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tags, d_tags, n * sizeof(char3), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        double re = a[i].x * b[i].x - a[i].y * b[i].y, im = a[i].x * b[i].y + a[i].y * b[i].x;
        double2 want = make_double2(re * scale.x - im * scale.y, re * scale.y + im * scale.x);
        if (c[i].x != want.x || c[i].y != want.y) {
            printf("complex product %d: (%g, %g), expected (%g, %g)\n", i, c[i].x, c[i].y, want.x,
                   want.y);
            bad = 1;
        }
        if (p[i].x != q[i].x + 1.0f || p[i].y != q[i].y + 2.0f || p[i].z != q[i].z - 3.0f) {
            printf("float3 %d: (%g, %g, %g)\n", i, p[i].x, p[i].y, p[i].z);
            bad = 1;
        }
        if (m[i].x != i || m[i].y != -i || m[i].z != 2 * i) {
            printf("int3 %d: (%d, %d, %d)\n", i, m[i].x, m[i].y, m[i].z);
            bad = 1;
        }
        if (tags[i].x != (signed char)(10 + i) || tags[i].y != (signed char)(200 - i) ||
            tags[i].z != 65) {
            printf("char3 %d: (%d, %d, %d)\n", i, tags[i].x, tags[i].y, tags[i].z);
            bad = 1;
        }
    }
    /* the element size on the device is sizeof on the host: the int3 of index 1 starts at byte 12
     */
    int raw[6];
    memcpy(raw, m, sizeof raw);
    if (!bad && (raw[3] != 1 || raw[4] != -1 || raw[5] != 2)) {
        printf("int3 layout: %d %d %d\n", raw[3], raw[4], raw[5]);
        bad = 1;
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_q));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_m));
    CHECK(cudaFree(d_tags));
    free(a);
    free(b);
    free(c);
    free(q);
    free(p);
    free(m);
    free(tags);
    return bad;
}

/* all_vectors' members, compared one by one (the bytes between them are not the functions') */
#define MEMBER(m)                                                                                  \
    {                                                                                              \
        offsetof(all_vectors, m), sizeof(((all_vectors *)0)->m), #m                                \
    }
static const struct {
    size_t offset, size;
    const char *name;
} members[] = {
    MEMBER(c1),   MEMBER(c2),  MEMBER(c3),  MEMBER(c4),  MEMBER(uc1), MEMBER(uc2),  MEMBER(uc3),
    MEMBER(uc4),  MEMBER(s1),  MEMBER(s2),  MEMBER(s3),  MEMBER(s4),  MEMBER(us1),  MEMBER(us2),
    MEMBER(us3),  MEMBER(us4), MEMBER(i1),  MEMBER(i2),  MEMBER(i3),  MEMBER(i4),   MEMBER(u1),
    MEMBER(u2),   MEMBER(u3),  MEMBER(u4),  MEMBER(l1),  MEMBER(l2),  MEMBER(l3),   MEMBER(ul1),
    MEMBER(ul2),  MEMBER(ul3), MEMBER(ll1), MEMBER(ll2), MEMBER(ll3), MEMBER(ull1), MEMBER(ull2),
    MEMBER(ull3), MEMBER(f1),  MEMBER(f2),  MEMBER(f3),  MEMBER(f4),  MEMBER(d1),   MEMBER(d2),
    MEMBER(d3),
};
#undef MEMBER

static int check_make_functions(void)
{
    const int n = 100;
    all_vectors *device_made = (all_vectors *)malloc(n * sizeof(all_vectors));
    all_vectors *d_out;
    CHECK(cudaMalloc(&d_out, n * sizeof(all_vectors)));
    make_vectors<<<2, 64>>>(d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(device_made, d_out, n * sizeof(all_vectors), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int k = 0; k < n && !bad; k++) {
        all_vectors host_made;
        make_all(&host_made, k);
        const unsigned char *h = (const unsigned char *)&host_made;
        const unsigned char *d = (const unsigned char *)&device_made[k];
        for (size_t j = 0; j < sizeof members / sizeof members[0] && !bad; j++) {
            if (memcmp(h + members[j].offset, d + members[j].offset, members[j].size) != 0) {
                printf("make_ functions, k = %d: %s differs\n", k, members[j].name);
                bad = 1;
            }
        }
    }
    /* and a few by value */
    if (!bad && (device_made[3].uc4.x != 3 || device_made[3].uc4.y != 128 ||
                 device_made[5].s2.y != -32768 || device_made[7].ul2.y != 18446744073709551615UL ||
                 device_made[9].f4.w != 9.125f || device_made[2].d3.z != 1.0 / 3.0 ||
                 device_made[1].c4.y != -1 || device_made[0].uc1.x != 200)) {
        printf("make_ functions: a value differs\n");
        bad = 1;
    }
    CHECK(cudaFree(d_out));
    free(device_made);
    return bad;
}

int main(void)
{
    if (check_image() || check_saxpy() || check_small_vectors() || check_make_functions()) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
