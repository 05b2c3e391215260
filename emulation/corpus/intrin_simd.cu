/*
 * CUDA's SIMD intrinsics on the 2 halfwords or 4 bytes of a word (__vadd4, __vabsdiffu4, __vsadu4,
 * __vcmpgtu2, __vmaxs4, ... 84 of them) and the integer dot products (__dp4a, __dp2a_lo,
 * __dp2a_hi, with ints, unsigned ints, char4 and uchar4): each on edge values and random ones,
 * and as samples use them, a grayscale image difference (__vabsdiffu4, __vsadu4) and an int8 dot
 * product (__dp4a over char4). The CPU computes each lane as CUDA documents it. Exit 0 when every
 * result is the CPU's, else print the first difference of each function and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sm_61_intrinsics.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The lanes' results, as CUDA's documentation defines them: x and y are a lane of each argument
 * (signed or not, as the function says), the result is cut to the lane's width. */
static int saturate(int v, int bits, int is_signed)
{
    int lo = is_signed ? -(1 << (bits - 1)) : 0,
        hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
    return v < lo ? lo : v > hi ? hi : v;
}
#define ABS(v) ((v) < 0 ? -(v) : (v))
#define SAT(bits, s, v) saturate(v, bits, s)

/* X(function, lane bits, signed lanes, the lane's result of x and y) */
#define SIMD2(X)                                                                                   \
    X(__vadd2, 16, 0, x + y)                                                                       \
    X(__vadd4, 8, 0, x + y)                                                                        \
    X(__vaddss2, 16, 1, SAT(16, 1, x + y))                                                         \
    X(__vaddss4, 8, 1, SAT(8, 1, x + y))                                                           \
    X(__vaddus2, 16, 0, SAT(16, 0, x + y))                                                         \
    X(__vaddus4, 8, 0, SAT(8, 0, x + y))                                                           \
    X(__vsub2, 16, 0, x - y)                                                                       \
    X(__vsub4, 8, 0, x - y)                                                                        \
    X(__vsubss2, 16, 1, SAT(16, 1, x - y))                                                         \
    X(__vsubss4, 8, 1, SAT(8, 1, x - y))                                                           \
    X(__vsubus2, 16, 0, SAT(16, 0, x - y))                                                         \
    X(__vsubus4, 8, 0, SAT(8, 0, x - y))                                                           \
    X(__vabsdiffs2, 16, 1, ABS(x - y))                                                             \
    X(__vabsdiffs4, 8, 1, ABS(x - y))                                                              \
    X(__vabsdiffu2, 16, 0, ABS(x - y))                                                             \
    X(__vabsdiffu4, 8, 0, ABS(x - y))                                                              \
    X(__vavgu2, 16, 0, (x + y + 1) / 2)                                                            \
    X(__vavgu4, 8, 0, (x + y + 1) / 2)                                                             \
    X(__vhaddu2, 16, 0, (x + y) / 2)                                                               \
    X(__vhaddu4, 8, 0, (x + y) / 2)                                                                \
    X(__vmaxs2, 16, 1, x > y ? x : y)                                                              \
    X(__vmaxs4, 8, 1, x > y ? x : y)                                                               \
    X(__vmaxu2, 16, 0, x > y ? x : y)                                                              \
    X(__vmaxu4, 8, 0, x > y ? x : y)                                                               \
    X(__vmins2, 16, 1, x < y ? x : y)                                                              \
    X(__vmins4, 8, 1, x < y ? x : y)                                                               \
    X(__vminu2, 16, 0, x < y ? x : y)                                                              \
    X(__vminu4, 8, 0, x < y ? x : y)                                                               \
    X(__vcmpeq2, 16, 0, x == y ? 0xffff : 0)                                                       \
    X(__vcmpeq4, 8, 0, x == y ? 0xff : 0)                                                          \
    X(__vcmpne2, 16, 0, x != y ? 0xffff : 0)                                                       \
    X(__vcmpne4, 8, 0, x != y ? 0xff : 0)                                                          \
    X(__vcmpges2, 16, 1, x >= y ? 0xffff : 0)                                                      \
    X(__vcmpges4, 8, 1, x >= y ? 0xff : 0)                                                         \
    X(__vcmpgeu2, 16, 0, x >= y ? 0xffff : 0)                                                      \
    X(__vcmpgeu4, 8, 0, x >= y ? 0xff : 0)                                                         \
    X(__vcmpgts2, 16, 1, x > y ? 0xffff : 0)                                                       \
    X(__vcmpgts4, 8, 1, x > y ? 0xff : 0)                                                          \
    X(__vcmpgtu2, 16, 0, x > y ? 0xffff : 0)                                                       \
    X(__vcmpgtu4, 8, 0, x > y ? 0xff : 0)                                                          \
    X(__vcmples2, 16, 1, x <= y ? 0xffff : 0)                                                      \
    X(__vcmples4, 8, 1, x <= y ? 0xff : 0)                                                         \
    X(__vcmpleu2, 16, 0, x <= y ? 0xffff : 0)                                                      \
    X(__vcmpleu4, 8, 0, x <= y ? 0xff : 0)                                                         \
    X(__vcmplts2, 16, 1, x < y ? 0xffff : 0)                                                       \
    X(__vcmplts4, 8, 1, x < y ? 0xff : 0)                                                          \
    X(__vcmpltu2, 16, 0, x < y ? 0xffff : 0)                                                       \
    X(__vcmpltu4, 8, 0, x < y ? 0xff : 0)                                                          \
    X(__vseteq2, 16, 0, x == y)                                                                    \
    X(__vseteq4, 8, 0, x == y)                                                                     \
    X(__vsetne2, 16, 0, x != y)                                                                    \
    X(__vsetne4, 8, 0, x != y)                                                                     \
    X(__vsetges2, 16, 1, x >= y)                                                                   \
    X(__vsetges4, 8, 1, x >= y)                                                                    \
    X(__vsetgeu2, 16, 0, x >= y)                                                                   \
    X(__vsetgeu4, 8, 0, x >= y)                                                                    \
    X(__vsetgts2, 16, 1, x > y)                                                                    \
    X(__vsetgts4, 8, 1, x > y)                                                                     \
    X(__vsetgtu2, 16, 0, x > y)                                                                    \
    X(__vsetgtu4, 8, 0, x > y)                                                                     \
    X(__vsetles2, 16, 1, x <= y)                                                                   \
    X(__vsetles4, 8, 1, x <= y)                                                                    \
    X(__vsetleu2, 16, 0, x <= y)                                                                   \
    X(__vsetleu4, 8, 0, x <= y)                                                                    \
    X(__vsetlts2, 16, 1, x < y)                                                                    \
    X(__vsetlts4, 8, 1, x < y)                                                                     \
    X(__vsetltu2, 16, 0, x < y)                                                                    \
    X(__vsetltu4, 8, 0, x < y)
/* one argument: x is its lane, signed */
#define SIMD1(X)                                                                                   \
    X(__vabs2, 16, 1, ABS(x))                                                                      \
    X(__vabs4, 8, 1, ABS(x))                                                                       \
    X(__vabsss2, 16, 1, SAT(16, 1, ABS(x)))                                                        \
    X(__vabsss4, 8, 1, SAT(8, 1, ABS(x)))                                                          \
    X(__vneg2, 16, 1, -x)                                                                          \
    X(__vneg4, 8, 1, -x)                                                                           \
    X(__vnegss2, 16, 1, SAT(16, 1, -x))                                                            \
    X(__vnegss4, 8, 1, SAT(8, 1, -x))
/* the sum over the lanes of |x - y| */
#define SIMD_SUM(X)                                                                                \
    X(__vsads2, 16, 1, 0)                                                                          \
    X(__vsads4, 8, 1, 0)                                                                           \
    X(__vsadu2, 16, 0, 0)                                                                          \
    X(__vsadu4, 8, 0, 0)
/* c plus the products of lanes of a and b; the pairs (a's lane, b's lane) */
#define DOT(X)                                                                                     \
    X(__dp4a, int, 8, 1, 0)                                                                        \
    X(__dp4a, unsigned, 8, 0, 0)                                                                   \
    X(__dp2a_lo, int, 16, 1, 0)                                                                    \
    X(__dp2a_lo, unsigned, 16, 0, 0)                                                               \
    X(__dp2a_hi, int, 16, 1, 16)                                                                   \
    X(__dp2a_hi, unsigned, 16, 0, 16)

#define COUNT(...) +1
enum { FUNCTIONS = 0 SIMD2(COUNT) SIMD1(COUNT) SIMD_SUM(COUNT) DOT(COUNT) + 2 };

#define CALL2(f, bits, s, expr) *r++ = f(x, y);
#define CALL1(f, bits, s, expr) *r++ = f(x);
#define CALL_DOT(f, T, bits, s, shift) *r++ = (unsigned)f((T)x, (T)y, (T)z);

__global__ void simd_intrinsics(const unsigned *a, const unsigned *b, const unsigned *c,
                                unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i], z = c[i];
        unsigned *r = out + (size_t)i * FUNCTIONS;
        SIMD2(CALL2)
        SIMD1(CALL1)
        SIMD_SUM(CALL2)
        DOT(CALL_DOT)
        char4 xc = make_char4(x, x >> 8, x >> 16, x >> 24),
              yc = make_char4(y, y >> 8, y >> 16, y >> 24);
        uchar4 xu = make_uchar4(x, x >> 8, x >> 16, x >> 24),
               yu = make_uchar4(y, y >> 8, y >> 16, y >> 24);
        *r++ = (unsigned)__dp4a(xc, yc, (int)z);
        *r++ = __dp4a(xu, yu, z);
    }
}

/* ---- the CPU's ----------------------------------------------------------------------------- */

static int lane(unsigned v, int k, int bits, int is_signed)
{
    int value = (int)((v >> (k * bits)) & ((1u << bits) - 1));
    return is_signed && value >= 1 << (bits - 1) ? value - (1 << bits) : value;
}

struct reference {
    const char *name;
    int kind; /* 2: lanes of x and y; 1: lanes of x; 0: the sum of |x - y|; 3, 4: dot products */
    int bits, is_signed, shift;
    int (*op)(int, int);
};
#define REF2(f, bits, s, expr) {#f, 2, bits, s, 0, [](int x, int y) { return (int)(expr); }},
#define REF1(f, bits, s, expr) {#f, 1, bits, s, 0, [](int x, int) { return (int)(expr); }},
#define REF_SUM(f, bits, s, expr) {#f, 0, bits, s, 0, 0},
#define REF_DOT(f, T, bits, s, shift) {#f "(" #T ")", 3, bits, s, shift, 0},
/* clang-format off */
static const reference references[FUNCTIONS] = {
    SIMD2(REF2) SIMD1(REF1) SIMD_SUM(REF_SUM) DOT(REF_DOT)
    {"__dp4a(char4)", 4, 8, 1, 0, 0},
    {"__dp4a(uchar4)", 4, 8, 0, 0, 0},
};
/* clang-format on */

static unsigned expected(const reference *f, unsigned x, unsigned y, unsigned z)
{
    int lanes = 32 / f->bits;
    unsigned r = 0;
    switch (f->kind) {
    case 2:
    case 1:
        for (int k = 0; k < lanes; k++) {
            int v = f->op(lane(x, k, f->bits, f->is_signed), lane(y, k, f->bits, f->is_signed));
            r |= ((unsigned)v & ((1u << f->bits) - 1)) << (k * f->bits);
        }
        return r;
    case 0:
        for (int k = 0; k < lanes; k++) {
            r += (unsigned)ABS(lane(x, k, f->bits, f->is_signed) -
                               lane(y, k, f->bits, f->is_signed));
        }
        return r;
    case 4:
    case 3:
        /* a's 4 bytes (dp4a) or 2 halfwords (dp2a) times b's bytes from `shift` on */
        r = z;
        for (int k = 0; k < lanes; k++) {
            int bx = lane(x, k, f->bits, f->is_signed);
            int by = lane(y >> f->shift, k, 8, f->is_signed);
            r += (unsigned)(bx * by);
        }
        return r;
    }
    return 0;
}

/* ---- as samples use them -------------------------------------------------------------------- */

/* The difference of two grayscale images, 4 pixels a word, and each row's sum of differences. */
__global__ void image_difference(const unsigned *a, const unsigned *b, unsigned *diff,
                                 unsigned *row_sums, int words_per_row)
{
    int row = blockIdx.x;
    unsigned sum = 0;
    for (int w = threadIdx.x; w < words_per_row; w += blockDim.x) {
        unsigned x = a[row * words_per_row + w], y = b[row * words_per_row + w];
        diff[row * words_per_row + w] = __vabsdiffu4(x, y);
        sum += __vsadu4(x, y);
    }
    atomicAdd(&row_sums[row], sum);
}

/* int8 dot products of rows of char4 (a quantized matrix-vector product). */
__global__ void int8_matvec(const char4 *matrix, const char4 *vector, int *result, int rows,
                            int cols4)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        int acc = 0;
        for (int k = 0; k < cols4; k++) {
            acc = __dp4a(matrix[row * cols4 + k], vector[k], acc);
        }
        result[row] = acc;
    }
}

/* ---- the host ------------------------------------------------------------------------------ */

static unsigned next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(*state >> 32);
}

static const unsigned edges[] = {0,          1,          0x7f,       0x80,       0xff,
                                 0x7fff,     0x8000,     0xffff,     0x80808080, 0x7f7f7f7f,
                                 0xffffffff, 0x01ff80fe, 0x7fff8000, 0x8000ffff, 0x00ff00ff,
                                 0xff00ff00, 0x12345678, 0xfedcba98};

static int check_all(void)
{
    const int ne = sizeof edges / sizeof edges[0];
    const int n = ne * ne + 10000;
    unsigned *a = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned *b = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned *c = (unsigned *)malloc(n * sizeof(unsigned));
    unsigned *out = (unsigned *)malloc((size_t)n * FUNCTIONS * sizeof(unsigned));
    unsigned long long state = 3;
    for (int i = 0; i < n; i++) {
        if (i < ne * ne) {
            a[i] = edges[i / ne];
            b[i] = edges[i % ne];
            c[i] = edges[(i / ne + 3 * (i % ne)) % ne];
        } else {
            a[i] = next_random(&state);
            b[i] = i % 4 == 0 ? a[i] ^ (1u << (i % 32)) : next_random(&state);
            c[i] = next_random(&state);
        }
    }
    unsigned *d_a, *d_b, *d_c, *d_out;
    CHECK(cudaMalloc(&d_a, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_b, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_c, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out, (size_t)n * FUNCTIONS * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    simd_intrinsics<<<(n + 127) / 128, 128>>>(d_a, d_b, d_c, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, (size_t)n * FUNCTIONS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int f = 0; f < FUNCTIONS; f++) {
        for (int i = 0; i < n; i++) {
            unsigned want = expected(&references[f], a[i], b[i], c[i]);
            unsigned got = out[(size_t)i * FUNCTIONS + f];
            if (got != want) {
                printf("%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, expected 0x%08x\n", references[f].name,
                       a[i], b[i], c[i], got, want);
                bad = 1;
                break;
            }
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_out));
    free(a);
    free(b);
    free(c);
    free(out);
    return bad;
}

static int check_samples(void)
{
    const int rows = 48, words = 80, cols4 = 32;
    unsigned a[rows * words], b[rows * words], diff[rows * words], row_sums[rows];
    char4 matrix[rows * cols4], vector[cols4];
    int result[rows];
    unsigned long long state = 11;
    for (int i = 0; i < rows * words; i++) {
        a[i] = next_random(&state);
        b[i] = next_random(&state);
    }
    for (int i = 0; i < rows * cols4; i++) {
        unsigned r = next_random(&state);
        matrix[i] = make_char4(r, r >> 8, r >> 16, r >> 24);
    }
    for (int k = 0; k < cols4; k++) {
        unsigned r = next_random(&state);
        vector[k] = make_char4(r, r >> 8, -128, 127);
    }
    unsigned *d_a, *d_b, *d_diff, *d_sums;
    char4 *d_matrix, *d_vector;
    int *d_result;
    CHECK(cudaMalloc(&d_a, sizeof a));
    CHECK(cudaMalloc(&d_b, sizeof b));
    CHECK(cudaMalloc(&d_diff, sizeof diff));
    CHECK(cudaMalloc(&d_sums, sizeof row_sums));
    CHECK(cudaMalloc(&d_matrix, sizeof matrix));
    CHECK(cudaMalloc(&d_vector, sizeof vector));
    CHECK(cudaMalloc(&d_result, sizeof result));
    CHECK(cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, sizeof row_sums));
    CHECK(cudaMemcpy(d_matrix, matrix, sizeof matrix, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vector, vector, sizeof vector, cudaMemcpyHostToDevice));
    image_difference<<<rows, 32>>>(d_a, d_b, d_diff, d_sums, words);
    CHECK(cudaGetLastError());
    int8_matvec<<<1, 64>>>(d_matrix, d_vector, d_result, rows, cols4);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(diff, d_diff, sizeof diff, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(row_sums, d_sums, sizeof row_sums, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int row = 0; row < rows && !bad; row++) {
        unsigned sum = 0;
        for (int w = 0; w < words; w++) {
            unsigned x = a[row * words + w], y = b[row * words + w], want = 0;
            for (int k = 0; k < 4; k++) {
                int px = (x >> (8 * k)) & 0xff, py = (y >> (8 * k)) & 0xff;
                want |= (unsigned)ABS(px - py) << (8 * k);
                sum += ABS(px - py);
            }
            if (diff[row * words + w] != want && !bad) {
                printf("image difference (%d, %d): 0x%08x, expected 0x%08x\n", row, w,
                       diff[row * words + w], want);
                bad = 1;
            }
        }
        if (row_sums[row] != sum && !bad) {
            printf("image difference, row %d: sum %u, expected %u\n", row, row_sums[row], sum);
            bad = 1;
        }
        int acc = 0;
        for (int k = 0; k < cols4; k++) {
            char4 m = matrix[row * cols4 + k], v = vector[k];
            acc += m.x * v.x + m.y * v.y + m.z * v.z + m.w * v.w;
        }
        if (result[row] != acc && !bad) {
            printf("int8 matvec, row %d: %d, expected %d\n", row, result[row], acc);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_diff));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_matrix));
    CHECK(cudaFree(d_vector));
    CHECK(cudaFree(d_result));
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
