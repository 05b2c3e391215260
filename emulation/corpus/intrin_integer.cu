/*
 * CUDA's integer intrinsics as samples use them: __umul24 for the thread index, __byte_perm to
 * swap a word's bytes, __funnelshift_l to rotate, __sad to match a block of pixels, and every
 * other one (__mul24, __mulhi, __mul64hi, __hadd, __rhadd, __funnelshift_rc, umin, llmax, ...) on
 * edge values and random ones. The CPU computes each as CUDA documents it, in its own way. Exit 0
 * when every result is the CPU's, else print the first difference of each check and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <device_functions.h>
#include <sm_32_intrinsics.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* ---- every intrinsic on (x, y, z) -------------------------------------------------------------
 */

enum result32 {
    MUL24,
    UMUL24,
    MULHI,
    UMULHI,
    SAD,
    USAD,
    BYTE_PERM,
    FUNNELSHIFT_L,
    FUNNELSHIFT_LC,
    FUNNELSHIFT_R,
    FUNNELSHIFT_RC,
    HADD,
    RHADD,
    UHADD,
    URHADD,
    UMIN,
    UMAX,
    MIN_INT_UINT,
    RESULTS32
};
static const char *names32[RESULTS32] = {"__mul24",
                                         "__umul24",
                                         "__mulhi",
                                         "__umulhi",
                                         "__sad",
                                         "__usad",
                                         "__byte_perm",
                                         "__funnelshift_l",
                                         "__funnelshift_lc",
                                         "__funnelshift_r",
                                         "__funnelshift_rc",
                                         "__hadd",
                                         "__rhadd",
                                         "__uhadd",
                                         "__urhadd",
                                         "umin",
                                         "umax",
                                         "min(int, unsigned)"};
enum result64 { MUL64HI, UMUL64HI, LLMIN, LLMAX, ULLMIN, ULLMAX, RESULTS64 };
static const char *names64[RESULTS64] = {"__mul64hi", "__umul64hi", "llmin",
                                         "llmax",     "ullmin",     "ullmax"};

__global__ void integer_intrinsics(const unsigned *a, const unsigned *b, const unsigned *c,
                                   unsigned *out, unsigned long long *out64, int n)
{
    int i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (i >= n) {
        return;
    }
    unsigned x = a[i], y = b[i], z = c[i];
    unsigned *r = out + __umul24(i, RESULTS32);
    r[MUL24] = __mul24((int)x, (int)y);
    r[UMUL24] = __umul24(x, y);
    r[MULHI] = __mulhi((int)x, (int)y);
    r[UMULHI] = __umulhi(x, y);
    r[SAD] = __sad((int)x, (int)y, z);
    r[USAD] = __usad(x, y, z);
    r[BYTE_PERM] = __byte_perm(x, y, z);
    r[FUNNELSHIFT_L] = __funnelshift_l(x, y, z);
    r[FUNNELSHIFT_LC] = __funnelshift_lc(x, y, z);
    r[FUNNELSHIFT_R] = __funnelshift_r(x, y, z);
    r[FUNNELSHIFT_RC] = __funnelshift_rc(x, y, z);
    r[HADD] = __hadd((int)x, (int)y);
    r[RHADD] = __rhadd((int)x, (int)y);
    r[UHADD] = __uhadd(x, y);
    r[URHADD] = __urhadd(x, y);
    r[UMIN] = umin(x, y);
    r[UMAX] = umax(x, y);
    r[MIN_INT_UINT] = min((int)x, y);
    long long X = (long long)(((unsigned long long)x << 32) | y);
    long long Y = (long long)(((unsigned long long)y << 32) | z);
    unsigned long long *r64 = out64 + (size_t)i * RESULTS64;
    r64[MUL64HI] = (unsigned long long)__mul64hi(X, Y);
    r64[UMUL64HI] = __umul64hi((unsigned long long)X, (unsigned long long)Y);
    r64[LLMIN] = (unsigned long long)llmin(X, Y);
    r64[LLMAX] = (unsigned long long)llmax(X, Y);
    r64[ULLMIN] = ullmin((unsigned long long)X, (unsigned long long)Y);
    r64[ULLMAX] = ullmax((unsigned long long)X, (unsigned long long)Y);
}

/* The CPU's, from CUDA's definitions. */
static unsigned expected32(int f, unsigned x, unsigned y, unsigned z)
{
    switch (f) {
    case MUL24: { /* the low 24 bits as signed numbers, the low 32 bits of their product */
        long long sx = x & 0xffffff, sy = y & 0xffffff;
        sx -= sx >= 0x800000 ? 0x1000000 : 0;
        sy -= sy >= 0x800000 ? 0x1000000 : 0;
        return (unsigned)(unsigned long long)(sx * sy);
    }
    case UMUL24:
        return (unsigned)((unsigned long long)(x & 0xffffff) * (y & 0xffffff));
    case MULHI:
        return (unsigned)((unsigned long long)((long long)(int)x * (int)y) >> 32);
    case UMULHI:
        return (unsigned)(((unsigned long long)x * y) >> 32);
    case SAD:
        return ((int)x > (int)y ? x - y : y - x) + z;
    case USAD:
        return (x > y ? x - y : y - x) + z;
    case BYTE_PERM: { /* bytes 0-3 of x, then 4-7 of y; each selector nibble's low 3 bits */
        unsigned char bytes[8];
        for (int k = 0; k < 4; k++) {
            bytes[k] = (unsigned char)(x >> (8 * k));
            bytes[k + 4] = (unsigned char)(y >> (8 * k));
        }
        unsigned r = 0;
        for (int k = 0; k < 4; k++) {
            r |= (unsigned)bytes[(z >> (4 * k)) & 7] << (8 * k);
        }
        return r;
    }
    case FUNNELSHIFT_L: /* lo = x, hi = y */
    case FUNNELSHIFT_LC: {
        unsigned s = f == FUNNELSHIFT_L ? z & 31 : (z < 32 ? z : 32);
        return s == 0 ? y : s == 32 ? x : (y << s) | (x >> (32 - s));
    }
    case FUNNELSHIFT_R:
    case FUNNELSHIFT_RC: {
        unsigned s = f == FUNNELSHIFT_R ? z & 31 : (z < 32 ? z : 32);
        return s == 0 ? x : s == 32 ? y : (x >> s) | (y << (32 - s));
    }
    case HADD:
    case RHADD: { /* floor((x + y) / 2), floor((x + y + 1) / 2) */
        long long sum = (long long)(int)x + (int)y + (f == RHADD);
        long long half = sum / 2 - (sum < 0 && sum % 2 != 0);
        return (unsigned)(int)half;
    }
    case UHADD:
        return (unsigned)(((unsigned long long)x + y) / 2);
    case URHADD:
        return (unsigned)(((unsigned long long)x + y + 1) / 2);
    case UMIN:
    case MIN_INT_UINT: /* min(int, unsigned) compares as unsigned, as C++ does */
        return x < y ? x : y;
    case UMAX:
        return x > y ? x : y;
    }
    return 0;
}

/* The high 64 bits of a 128-bit product, from 32-bit halves. */
static unsigned long long high_product(unsigned long long a, unsigned long long b)
{
    unsigned long long a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    unsigned long long low = a0 * b0, mid1 = a1 * b0, mid2 = a0 * b1, high = a1 * b1;
    unsigned long long carry = ((low >> 32) + (mid1 & 0xffffffffu) + (mid2 & 0xffffffffu)) >> 32;
    return high + (mid1 >> 32) + (mid2 >> 32) + carry;
}

static unsigned long long expected64(int f, unsigned x, unsigned y, unsigned z)
{
    unsigned long long X = ((unsigned long long)x << 32) | y, Y = ((unsigned long long)y << 32) | z;
    long long sX = (long long)X, sY = (long long)Y;
    switch (f) {
    case MUL64HI: /* signed: the unsigned product, less Y for a negative X and X for a negative Y */
        return high_product(X, Y) - (sX < 0 ? Y : 0) - (sY < 0 ? X : 0);
    case UMUL64HI:
        return high_product(X, Y);
    case LLMIN:
        return sX < sY ? X : Y;
    case LLMAX:
        return sX > sY ? X : Y;
    case ULLMIN:
        return X < Y ? X : Y;
    case ULLMAX:
        return X > Y ? X : Y;
    }
    return 0;
}

/* ---- as samples use them -------------------------------------------------------------------- */

/* Big-endian to little-endian: each word's bytes reversed; and each word rotated left by i % 32.
 */
__global__ void swap_and_rotate(const unsigned *in, unsigned *swapped, unsigned *rotated, int n)
{
    int i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (i < n) {
        unsigned w = in[i];
        swapped[i] = __byte_perm(w, 0, 0x0123);
        rotated[i] = __funnelshift_l(w, w, i);
    }
}

#define BLOCK 16
#define CANDIDATES 64

/* The sum of absolute differences between a block of BLOCK pixels and each of CANDIDATES
 * positions of a search row (motion estimation). */
__global__ void block_match(const int *block, const int *row, unsigned *sads)
{
    int candidate = blockIdx.x * blockDim.x + threadIdx.x;
    if (candidate < CANDIDATES) {
        unsigned sad = 0;
        for (int k = 0; k < BLOCK; k++) {
            sad = __sad(block[k], row[candidate + k], sad);
        }
        sads[candidate] = sad;
    }
}

/* ---- the host ------------------------------------------------------------------------------ */

static unsigned next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(*state >> 32);
}

static const unsigned edges[] = {
    0,          1,          2,          3,          31,         32,         33,
    63,         0x7f,       0x80,       0xff,       0x7fff,     0x8000,     0xffff,
    0x7fffff,   0x800000,   0xffffff,   0x1000000,  0x7fffffff, 0x80000000, 0x80000001,
    0xfffffffe, 0xffffffff, 0x01020304, 0x80808080, 0x7f7f7f7f, 0xdeadbeef, 0x00ff00ff};

static int check_all(void)
{
    const int ne = sizeof edges / sizeof edges[0];
    const int n = ne * ne + 20000;
    unsigned *a = (unsigned *)malloc(n * sizeof(unsigned)),
             *b = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned *c = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned *out = (unsigned *)malloc((size_t)n * RESULTS32 * sizeof(unsigned));
    unsigned long long *out64 =
        (unsigned long long *)malloc((size_t)n * RESULTS64 * sizeof(unsigned long long));
    unsigned long long state = 41;
    for (int i = 0; i < n; i++) {
        if (i < ne * ne) {
            a[i] = edges[i / ne];
            b[i] = edges[i % ne];
            c[i] = edges[(i / ne + i % ne) % ne];
        } else {
            a[i] = next_random(&state);
            b[i] = next_random(&state);
            /* shifts and selectors beyond 32 as often as below */
            c[i] = i % 3 == 0 ? next_random(&state) % 70 : next_random(&state);
        }
    }
    unsigned *d_a, *d_b, *d_c, *d_out;
    unsigned long long *d_out64;
    CHECK(cudaMalloc(&d_a, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_b, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_c, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out, (size_t)n * RESULTS32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out64, (size_t)n * RESULTS64 * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    integer_intrinsics<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, d_out, d_out64, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, (size_t)n * RESULTS32 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out64, d_out64, (size_t)n * RESULTS64 * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int f = 0; f < RESULTS32; f++) {
        for (int i = 0; i < n; i++) {
            unsigned want = expected32(f, a[i], b[i], c[i]), got = out[(size_t)i * RESULTS32 + f];
            if (got != want) {
                printf("%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, expected 0x%08x\n", names32[f], a[i],
                       b[i], c[i], got, want);
                bad = 1;
                break;
            }
        }
    }
    for (int f = 0; f < RESULTS64; f++) {
        for (int i = 0; i < n; i++) {
            unsigned long long want = expected64(f, a[i], b[i], c[i]);
            unsigned long long got = out64[(size_t)i * RESULTS64 + f];
            if (got != want) {
                printf("%s of (0x%08x, 0x%08x, 0x%08x) = 0x%016llx, expected 0x%016llx\n",
                       names64[f], a[i], b[i], c[i], got, want);
                bad = 1;
                break;
            }
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_out64));
    free(a);
    free(b);
    free(c);
    free(out);
    free(out64);
    return bad;
}

static int check_samples(void)
{
    const int n = 3000;
    unsigned in[n], swapped[n], rotated[n];
    unsigned long long state = 5;
    for (int i = 0; i < n; i++) {
        in[i] = next_random(&state);
    }
    int block[BLOCK], row[CANDIDATES + BLOCK];
    unsigned sads[CANDIDATES];
    for (int k = 0; k < BLOCK; k++) {
        block[k] = (int)(next_random(&state) % 256) - (k == 3 ? 2000000000 : 0);
    }
    for (int k = 0; k < CANDIDATES + BLOCK; k++) {
        row[k] = (int)(next_random(&state) % 256) + (k == 40 ? 2000000000 : 0);
    }
    unsigned *d_in, *d_swapped, *d_rotated, *d_sads;
    int *d_block, *d_row;
    CHECK(cudaMalloc(&d_in, sizeof in));
    CHECK(cudaMalloc(&d_swapped, sizeof swapped));
    CHECK(cudaMalloc(&d_rotated, sizeof rotated));
    CHECK(cudaMalloc(&d_block, sizeof block));
    CHECK(cudaMalloc(&d_row, sizeof row));
    CHECK(cudaMalloc(&d_sads, sizeof sads));
    CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_block, block, sizeof block, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_row, row, sizeof row, cudaMemcpyHostToDevice));
    swap_and_rotate<<<(n + 127) / 128, 128>>>(d_in, d_swapped, d_rotated, n);
    CHECK(cudaGetLastError());
    block_match<<<2, 32>>>(d_block, d_row, d_sads);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(swapped, d_swapped, sizeof swapped, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rotated, d_rotated, sizeof rotated, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sads, d_sads, sizeof sads, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        unsigned w = in[i], r = i % 32;
        unsigned want_swapped = (w >> 24) | ((w >> 8) & 0xff00) | ((w << 8) & 0xff0000) | (w << 24);
        unsigned want_rotated = r ? (w << r) | (w >> (32 - r)) : w;
        if (swapped[i] != want_swapped || rotated[i] != want_rotated) {
            printf("word %d (0x%08x): swapped 0x%08x (expected 0x%08x), rotated 0x%08x "
                   "(expected 0x%08x)\n",
                   i, w, swapped[i], want_swapped, rotated[i], want_rotated);
            bad = 1;
        }
    }
    for (int candidate = 0; candidate < CANDIDATES && !bad; candidate++) {
        unsigned want = 0;
        for (int k = 0; k < BLOCK; k++) {
            long long d = (long long)block[k] - row[candidate + k];
            want += (unsigned)(d < 0 ? -d : d);
        }
        if (sads[candidate] != want) {
            printf("block match %d: sad %u, expected %u\n", candidate, sads[candidate], want);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_swapped));
    CHECK(cudaFree(d_rotated));
    CHECK(cudaFree(d_block));
    CHECK(cudaFree(d_row));
    CHECK(cudaFree(d_sads));
    return bad;
}

int main(void)
{
    int bad = check_all();
    bad |= check_samples();
    if (bad) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
