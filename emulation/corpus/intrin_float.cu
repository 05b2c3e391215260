/*
 * CUDA's correctly rounded float and double intrinsics, in each rounding direction (_rn to
 * nearest even, _rz toward zero, _ru up, _rd down): __fadd_, __fsub_, __fmul_, __fdiv_, __frcp_,
 * __fsqrt_, __fmaf_, __dadd_, __dsub_, __dmul_, __ddiv_, __drcp_, __dsqrt_, __fma_rn; the
 * conversions between floats, doubles and integers (__float2int_rn ... __ull2double_rd), which
 * saturate; the bit casts (__double_as_longlong, __hiloint2double, ...) and __saturatef. Inputs:
 * edge values (zeros, subnormals, FLT_MAX, infinities, NaN, ties) and random ones. The CPU rounds
 * the exact result in the direction itself, from a double-length value and exact comparisons,
 * without the host's rounding modes. Exit 0 when every result is the CPU's, bit for bit (a float
 * NaN is 0x7fffffff, the one a GPU makes; a double NaN any NaN), else print the first difference
 * of each function and exit 1.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum direction { RN, RZ, RU, RD };
enum operation { ADD, SUB, MUL, DIV, RCP, SQRT, FMA };

/* X(function, operation, direction) */
#define FLOAT_OPS(X)                                                                               \
    X(__fadd_rn, ADD, RN)                                                                          \
    X(__fadd_rz, ADD, RZ)                                                                          \
    X(__fadd_ru, ADD, RU)                                                                          \
    X(__fadd_rd, ADD, RD)                                                                          \
    X(__fsub_rn, SUB, RN)                                                                          \
    X(__fsub_rz, SUB, RZ)                                                                          \
    X(__fsub_ru, SUB, RU)                                                                          \
    X(__fsub_rd, SUB, RD)                                                                          \
    X(__fmul_rn, MUL, RN)                                                                          \
    X(__fmul_rz, MUL, RZ)                                                                          \
    X(__fmul_ru, MUL, RU)                                                                          \
    X(__fmul_rd, MUL, RD)                                                                          \
    X(__fdiv_rn, DIV, RN)                                                                          \
    X(__fdiv_rz, DIV, RZ)                                                                          \
    X(__fdiv_ru, DIV, RU)                                                                          \
    X(__fdiv_rd, DIV, RD)                                                                          \
    X(__frcp_rn, RCP, RN)                                                                          \
    X(__frcp_rz, RCP, RZ)                                                                          \
    X(__frcp_ru, RCP, RU)                                                                          \
    X(__frcp_rd, RCP, RD)                                                                          \
    X(__fsqrt_rn, SQRT, RN)                                                                        \
    X(__fsqrt_rz, SQRT, RZ)                                                                        \
    X(__fsqrt_ru, SQRT, RU)                                                                        \
    X(__fsqrt_rd, SQRT, RD)                                                                        \
    X(__fmaf_rn, FMA, RN)                                                                          \
    X(__fmaf_rz, FMA, RZ)                                                                          \
    X(__fmaf_ru, FMA, RU)                                                                          \
    X(__fmaf_rd, FMA, RD)
#define DOUBLE_OPS(X)                                                                              \
    X(__dadd_rn, ADD, RN)                                                                          \
    X(__dadd_rz, ADD, RZ)                                                                          \
    X(__dadd_ru, ADD, RU)                                                                          \
    X(__dadd_rd, ADD, RD)                                                                          \
    X(__dsub_rn, SUB, RN)                                                                          \
    X(__dsub_rz, SUB, RZ)                                                                          \
    X(__dsub_ru, SUB, RU)                                                                          \
    X(__dsub_rd, SUB, RD)                                                                          \
    X(__dmul_rn, MUL, RN)                                                                          \
    X(__dmul_rz, MUL, RZ)                                                                          \
    X(__dmul_ru, MUL, RU)                                                                          \
    X(__dmul_rd, MUL, RD)                                                                          \
    X(__ddiv_rn, DIV, RN)                                                                          \
    X(__ddiv_rz, DIV, RZ)                                                                          \
    X(__ddiv_ru, DIV, RU)                                                                          \
    X(__ddiv_rd, DIV, RD)                                                                          \
    X(__drcp_rn, RCP, RN)                                                                          \
    X(__drcp_rz, RCP, RZ)                                                                          \
    X(__drcp_ru, RCP, RU)                                                                          \
    X(__drcp_rd, RCP, RD)                                                                          \
    X(__dsqrt_rn, SQRT, RN)                                                                        \
    X(__dsqrt_rz, SQRT, RZ)                                                                        \
    X(__dsqrt_ru, SQRT, RU)                                                                        \
    X(__dsqrt_rd, SQRT, RD)                                                                        \
    X(__fma_rn, FMA, RN)

#define COUNT(...) +1
enum { FLOAT_RESULTS = 0 FLOAT_OPS(COUNT) + 1, DOUBLE_RESULTS = 0 DOUBLE_OPS(COUNT) };

#define CALL_ADD(f) f(x, y)
#define CALL_SUB(f) f(x, y)
#define CALL_MUL(f) f(x, y)
#define CALL_DIV(f) f(x, y)
#define CALL_RCP(f) f(x)
#define CALL_SQRT(f) f(x)
#define CALL_FMA(f) f(x, y, z)
#define CALL_FLOAT(f, op, dir) *r++ = CALL_##op(f);

__global__ void float_ops(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i], z = c[i];
        float *r = out + (size_t)i * FLOAT_RESULTS;
        FLOAT_OPS(CALL_FLOAT)
        *r++ = __saturatef(x);
    }
}

__global__ void double_ops(const double *a, const double *b, const double *c, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i], z = c[i];
        double *r = out + (size_t)i * DOUBLE_RESULTS;
        DOUBLE_OPS(CALL_FLOAT)
    }
}

/* The conversions, each result's bits in an unsigned long long: from a float x, a double d, an
 * int or unsigned k (the low half of l) and a long long or unsigned long long l. */
/* clang-format off */
#define CONVERSIONS(X) \
    X(__float2int_rn, x) X(__float2int_rz, x) X(__float2int_ru, x) X(__float2int_rd, x) \
    X(__float2uint_rn, x) X(__float2uint_rz, x) X(__float2uint_ru, x) X(__float2uint_rd, x) \
    X(__float2ll_rn, x) X(__float2ll_rz, x) X(__float2ll_ru, x) X(__float2ll_rd, x) \
    X(__float2ull_rn, x) X(__float2ull_rz, x) X(__float2ull_ru, x) X(__float2ull_rd, x) \
    X(__double2int_rn, d) X(__double2int_rz, d) X(__double2int_ru, d) X(__double2int_rd, d) \
    X(__double2uint_rn, d) X(__double2uint_rz, d) X(__double2uint_ru, d) X(__double2uint_rd, d) \
    X(__double2ll_rn, d) X(__double2ll_rz, d) X(__double2ll_ru, d) X(__double2ll_rd, d) \
    X(__double2ull_rn, d) X(__double2ull_rz, d) X(__double2ull_ru, d) X(__double2ull_rd, d) \
    X(__double2float_rn, d) X(__double2float_rz, d) \
    X(__double2float_ru, d) X(__double2float_rd, d) \
    X(__int2float_rn, (int)l) X(__int2float_rz, (int)l) \
    X(__int2float_ru, (int)l) X(__int2float_rd, (int)l) \
    X(__uint2float_rn, (unsigned)l) X(__uint2float_rz, (unsigned)l) \
    X(__uint2float_ru, (unsigned)l) X(__uint2float_rd, (unsigned)l) \
    X(__ll2float_rn, (long long)l) X(__ll2float_rz, (long long)l) \
    X(__ll2float_ru, (long long)l) X(__ll2float_rd, (long long)l) \
    X(__ull2float_rn, l) X(__ull2float_rz, l) X(__ull2float_ru, l) X(__ull2float_rd, l) \
    X(__ll2double_rn, (long long)l) X(__ll2double_rz, (long long)l) \
    X(__ll2double_ru, (long long)l) X(__ll2double_rd, (long long)l) \
    X(__ull2double_rn, l) X(__ull2double_rz, l) X(__ull2double_ru, l) X(__ull2double_rd, l) \
    X(__int2double_rn, (int)l) X(__uint2double_rn, (unsigned)l) \
    X(__double_as_longlong, d) X(__longlong_as_double, (long long)l) \
    X(__double2hiint, d) X(__double2loint, d)
/* clang-format on */
enum { CONVERSION_RESULTS = 0 CONVERSIONS(COUNT) + 1 };

__device__ unsigned long long bits_of(int v)
{
    return (unsigned)v;
}
__device__ unsigned long long bits_of(unsigned v)
{
    return v;
}
__device__ unsigned long long bits_of(long long v)
{
    return (unsigned long long)v;
}
__device__ unsigned long long bits_of(unsigned long long v)
{
    return v;
}
__device__ unsigned long long bits_of(float v)
{
    return __float_as_uint(v);
}
__device__ unsigned long long bits_of(double v)
{
    return (unsigned long long)__double_as_longlong(v);
}
#define CALL_CONVERSION(f, arg) *r++ = bits_of(f(arg));

__global__ void conversions(const float *xs, const double *ds, const unsigned long long *ls,
                            unsigned long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        double d = ds[i];
        unsigned long long l = ls[i];
        unsigned long long *r = out + (size_t)i * CONVERSION_RESULTS;
        CONVERSIONS(CALL_CONVERSION)
        *r++ = bits_of(__hiloint2double((int)(l >> 32), (int)l));
    }
}

/* ---- the CPU's: the exact result, rounded ---------------------------------------------------- */

/* An exact real number known by comparisons: compare(X) is the sign of X - the number, for any
 * double X near it. The operations' exact results on floats are such numbers. */
struct exact {
    int op;      /* ADD (also SUB and FMA: a sum of two terms), MUL, DIV (also RCP), SQRT */
    double a, b; /* the terms of a sum, or the operands */
    double s, e; /* the result is s + e (ADD, MUL), or s rounded to nearest (DIV, SQRT) */
    int finite;  /* the operands it uses are finite */
};

static int sign(double v)
{
    return (v > 0) - (v < 0);
}

/* s + e = a + b exactly (both doubles) */
static void two_sum(double a, double b, double *s, double *e)
{
    *s = a + b;
    double bb = *s - a;
    *e = (a - (*s - bb)) + (b - bb);
}

static exact exact_float_op(int op, float x, float y, float z)
{
    exact v = {ADD, x, y, 0, 0, isfinite(x) && isfinite(y)};
    switch (op) {
    case SUB:
        v.b = -v.b;
        break;
    case FMA: /* the product of two floats is a double */
        v.a = (double)x * y;
        v.b = z;
        v.finite = isfinite(x) && isfinite(y) && isfinite(z);
        break;
    case MUL:
        v.op = MUL;
        v.s = v.a * v.b;
        return v;
    case RCP:
        v.a = 1;
        v.b = x;
        v.finite = isfinite(x);
        /* fall through */
    case DIV:
        v.op = DIV;
        v.s = v.a / v.b;
        return v;
    case SQRT:
        v.op = SQRT;
        v.s = sqrt(v.a);
        v.finite = isfinite(x);
        return v;
    }
    two_sum(v.a, v.b, &v.s, &v.e);
    return v;
}

static int compare(const exact *v, double X)
{
    switch (v->op) {
    case DIV: /* X - a/b has the sign of ((X - s) b - (a - s b)) b; a - s b is exact */
    {
        double remainder = fma(-v->s, v->b, v->a);
        return sign(fma(X - v->s, v->b, -remainder)) * sign(v->b);
    }
    case SQRT: /* X - sqrt(a) has the sign of X^2 - a, for X >= 0 */
        return X < 0 ? -1 : sign(fma(X, X, -v->a));
    default:
        return sign((X - v->s) - v->e);
    }
}

/* A sum of two terms that is exactly 0 is -0 where both are -0, or rounding down (IEEE 754). */
static double zero_sum(double t1, double t2, int dir)
{
    return (signbit(t1) && signbit(t2)) ||
                   (dir == RD && !(t1 == 0 && t2 == 0 && !signbit(t1) && !signbit(t2)))
               ? -0.0
               : 0.0;
}

static float round_float(const exact *v, int dir)
{
    float f = (float)v->s;
    if (!v->finite || isnan(v->s)) {
        return f; /* infinities and NaN: the same in every direction */
    }
    int c = compare(v, f);
    if (c == 0) {
        return f == 0 && v->op == ADD ? (float)zero_sum(v->a, v->b, dir) : f;
    }
    /* lo < the number < hi, neighbours */
    float lo = c > 0 ? nextafterf(f, -INFINITY) : f, hi = c > 0 ? f : nextafterf(f, INFINITY);
    int positive = lo >= 0; /* lo and hi have one sign, or lo is -0 */
    switch (dir) {
    case RZ:
        return positive ? lo : hi;
    case RU:
        return hi;
    case RD:
        return lo;
    }
    /* nearest: the midpoint (exact in a double); beyond FLT_MAX, the one to 2^128 */
    double mid = ((isinf(lo) ? -0x1p128 : (double)lo) + (isinf(hi) ? 0x1p128 : (double)hi)) / 2;
    int to_mid = compare(v, mid);
    if (to_mid == 0) { /* a tie: the even one */
        unsigned bits;
        memcpy(&bits, &lo, sizeof bits);
        return bits % 2 == 0 ? lo : hi;
    }
    return to_mid > 0 ? lo : hi;
}

/* A double result: s = the operation rounded to nearest (IEEE), and the sign of the rest, with
 * the operands scaled where the rest would underflow. */
static double round_double(int op, int dir, double a, double b, double c)
{
    double s = 0;
    int rest = 0; /* the sign of the exact result - s */
    int finite = isfinite(a) && (op == RCP || op == SQRT || isfinite(b));
    switch (op) {
    case ADD:
    case SUB: {
        double e;
        b = op == ADD ? b : -b;
        two_sum(a, b, &s, &e);
        rest = sign(e);
        if (s == 0 && rest == 0 && finite) {
            return zero_sum(a, b, dir);
        }
        break;
    }
    case MUL: { /* with a = ma 2^ea, b = mb 2^eb: the sign of ma mb - s 2^-(ea+eb) */
        int ea, eb;
        double ma = frexp(a, &ea), mb = frexp(b, &eb);
        s = a * b;
        rest = sign(fma(ma, mb, -ldexp(s, -ea - eb)));
        break;
    }
    case RCP:
        b = a;
        a = 1;
        /* fall through */
    case DIV: { /* the sign of (ma - s 2^(eb-ea) mb) b */
        int ea, eb;
        double ma = frexp(a, &ea), mb = frexp(b, &eb);
        s = a / b;
        rest = sign(fma(-ldexp(s, eb - ea), mb, ma)) * sign(b);
        break;
    }
    case SQRT: { /* with a = m 2^2e: the sign of m - (s 2^-e)^2 */
        int ea;
        double m = frexp(a, &ea);
        if (ea % 2) {
            m *= 2;
            ea--;
        }
        s = sqrt(a);
        double t = ldexp(s, -ea / 2);
        rest = -sign(fma(t, t, -m));
        break;
    }
    case FMA:
        return fma(a, b, c);
    }
    if (!finite || isnan(s)) {
        return s;
    }
    if (isinf(s) && !((op == DIV || op == RCP) && b == 0)) {
        /* an overflow: the largest double where rounding goes toward zero */
        int toward_zero = dir == RZ || (dir == RU && s < 0) || (dir == RD && s > 0);
        return toward_zero ? copysign(DBL_MAX, s) : s;
    }
    if (rest == 0 || dir == RN) {
        return s;
    }
    double lo = rest > 0 ? s : nextafter(s, -INFINITY), hi = rest > 0 ? nextafter(s, INFINITY) : s;
    return dir == RU ? hi : dir == RD ? lo : (lo >= 0 ? lo : hi);
}

/* A float or double to an integer of `bits` bits: rounded, then saturated; NaN gives 0 from a
 * float to 32 bits, else the sign bit alone (the PTX ISA's cvt). */
static unsigned long long to_integer(double x, int from_float, int dir, int bits, int is_signed)
{
    if (isnan(x)) {
        return from_float && bits == 32 ? 0 : 1ull << (bits - 1);
    }
    double r = floor(x);
    switch (dir) {
    case RN:
        r += x - r > 0.5 || (x - r == 0.5 && fmod(r, 2) != 0);
        break;
    case RZ:
        r = x < 0 ? ceil(x) : r;
        break;
    case RU:
        r = ceil(x);
        break;
    }
    double top = is_signed ? ldexp(1, bits - 1) : ldexp(1, bits);
    double bottom = is_signed ? -top : 0;
    unsigned long long mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (r >= top) {
        return (is_signed ? (1ull << (bits - 1)) - 1 : ~0ull) & mask;
    }
    if (r <= bottom) {
        return (is_signed ? 1ull << (bits - 1) : 0) & mask;
    }
    return (r < 0 ? (unsigned long long)(long long)r : (unsigned long long)r) & mask;
}

/* An integer to a float or double: s + e exactly, s the nearest double. */
static unsigned long long integer_to_real(long long sl, unsigned long long ul, int is_signed,
                                          int bits, int to_double, int dir)
{
    exact v = {MUL, 0, 0, 0, 0, 1}; /* s + e, not a sum of terms */
    if (is_signed) {
        v.s = (double)sl;
        v.e = v.s >= 0x1p63 ? (double)(sl - LLONG_MAX - 1) : (double)(sl - (long long)v.s);
    } else {
        v.s = (double)ul;
        v.e = v.s >= 0x1p64                   ? -(double)(0 - ul)
              : ul >= (unsigned long long)v.s ? (double)(ul - (unsigned long long)v.s)
                                              : -(double)((unsigned long long)v.s - ul);
    }
    (void)bits;
    if (to_double) {
        double r = v.s;
        if (v.e != 0 && dir != RN) {
            double lo = v.e > 0 ? v.s : nextafter(v.s, -INFINITY);
            double hi = v.e > 0 ? nextafter(v.s, INFINITY) : v.s;
            r = dir == RU ? hi : dir == RD ? lo : (lo >= 0 ? lo : hi);
        }
        unsigned long long out;
        memcpy(&out, &r, sizeof out);
        return out;
    }
    float f = round_float(&v, dir);
    unsigned out;
    memcpy(&out, &f, sizeof out);
    return out;
}

static unsigned long long float_bits(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static unsigned long long double_bits(double d)
{
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The expected bits of conversion k (CONVERSIONS' order) of x, d and l. */
static unsigned long long expected_conversion(int k, float x, double d, unsigned long long l)
{
    if (k < 32) { /* float and double to int, unsigned, long long, unsigned long long */
        static const int bits[4] = {32, 32, 64, 64}, is_signed[4] = {1, 0, 1, 0};
        int from_float = k < 16, type = (k % 16) / 4;
        return to_integer(from_float ? (double)x : d, from_float, k % 4, bits[type],
                          is_signed[type]);
    }
    if (k < 36) { /* double to float */
        exact v = {MUL, d, 0, d, 0, isfinite(d)};
        return float_bits(round_float(&v, k % 4));
    }
    if (k < 60) { /* int, unsigned, long long, unsigned long long to float; (u)ll to double */
        int type = (k - 36) / 4, dir = k % 4;
        switch (type) {
        case 0:
            return integer_to_real((int)l, 0, 1, 32, 0, dir);
        case 1:
            return integer_to_real(0, (unsigned)l, 0, 32, 0, dir);
        case 2:
            return integer_to_real((long long)l, 0, 1, 64, 0, dir);
        case 3:
            return integer_to_real(0, l, 0, 64, 0, dir);
        case 4:
            return integer_to_real((long long)l, 0, 1, 64, 1, dir);
        default:
            return integer_to_real(0, l, 0, 64, 1, dir);
        }
    }
    switch (k) {
    case 60:
        return double_bits((double)(int)l);
    case 61:
        return double_bits((double)(unsigned)l);
    case 62:
        return double_bits(d);
    case 63:
        return l;
    case 64:
        return double_bits(d) >> 32;
    case 65:
        return double_bits(d) & 0xffffffffu;
    default: /* __hiloint2double(l's high half, l's low half) */
        return l;
    }
}

#define NAME(f, ...) #f,
static const char *float_names[FLOAT_RESULTS] = {FLOAT_OPS(NAME) "__saturatef"};
static const char *double_names[DOUBLE_RESULTS] = {DOUBLE_OPS(NAME)};
static const char *conversion_names[CONVERSION_RESULTS] = {CONVERSIONS(NAME) "__hiloint2double"};
#define OPERATION(f, op, dir) {op, dir},
static const int float_ops_of[][2] = {FLOAT_OPS(OPERATION)};
static const int double_ops_of[][2] = {DOUBLE_OPS(OPERATION)};

/* ---- the host ------------------------------------------------------------------------------ */

static unsigned long long next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

static float random_float(unsigned long long *state, int i)
{
    unsigned long long r = next_random(state);
    unsigned bits = (unsigned)(r >> 32);
    float f;
    if (i % 3 == 0) { /* any bits at all */
        memcpy(&f, &bits, sizeof f);
    } else { /* moderate exponents, where sums round */
        f = ldexpf((float)(bits & 0xffffff) / 0x1p24f, (int)((r >> 8) % 40) - 20);
        f = bits >> 31 ? -f : f;
    }
    return f;
}

static double random_double(unsigned long long *state, int i)
{
    unsigned long long bits = next_random(state);
    double d;
    if (i % 3 == 0) {
        memcpy(&d, &bits, sizeof d);
    } else {
        d = ldexp((double)(bits >> 11) / 0x1p53, (int)(next_random(state) % 140) - 70);
        d = bits & 1 ? -d : d;
    }
    return d;
}

static const float float_edges[] = {
    0.0f,        -0.0f,      1.0f,        -1.0f,    0.5f,       1.5f,       2.5f,
    -2.5f,       3.0f,       0.1f,        1.0f / 3, FLT_MAX,    -FLT_MAX,   FLT_MIN,
    0x1p-149f,   -0x1p-149f, 0x1.8p-130f, INFINITY, -INFINITY,  NAN,        0x1p24f,
    0x1p24f + 2, 16777215,   0x1p31f,     -0x1p31f, 2147483520, 0x1p32f,    0x1p63f,
    -0x1p63f,    0x1p64f,    4294967040., 1e20f,    -1e-20f,    0.49999997f};
static const double double_edges[] = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.0,
                                      0.5,
                                      -0.5,
                                      2.5,
                                      0.1,
                                      1.0 / 3,
                                      DBL_MAX,
                                      DBL_MIN,
                                      0x1p-1074,
                                      INFINITY,
                                      -INFINITY,
                                      NAN,
                                      0x1p31,
                                      -0x1p31,
                                      2147483647.5,
                                      -2147483648.5,
                                      -2147483649.0,
                                      4294967295.5,
                                      0x1p32,
                                      0x1p63,
                                      -0x1p63,
                                      0x1p64,
                                      18446744073709549568.0,
                                      0x1.fffffffp127,
                                      0x1.fffffffp-127,
                                      FLT_MAX,
                                      3.4028235677973366e38,
                                      0x1p-150,
                                      0x1.0000001p-149,
                                      1e300};
static const unsigned long long integer_edges[] = {0,
                                                   1,
                                                   0xffffffffull,
                                                   0x7fffffffull,
                                                   0x80000000ull,
                                                   16777217,
                                                   16777219,
                                                   0x7fffffffffffffffull,
                                                   0x8000000000000000ull,
                                                   0xffffffffffffffffull,
                                                   0x20000000000001ull,
                                                   0x20000000000003ull,
                                                   0xfffffffffffff800ull,
                                                   0xfffffffffffffc00ull,
                                                   0x8000008000000001ull,
                                                   0x3ff0000000000000ull,
                                                   0x7ff0000000000000ull,
                                                   0xfff8000000000000ull};

/* Bit for bit; a NaN is the GPU's float NaN, 0x7fffffff */
static int same_float(float got, float want)
{
    return isnan(want) ? float_bits(got) == 0x7fffffff : float_bits(got) == float_bits(want);
}

static int same_double(double got, double want)
{
    return double_bits(got) == double_bits(want) || (isnan(got) && isnan(want));
}

static int check_arithmetic(void)
{
    const int nf = sizeof float_edges / sizeof float_edges[0];
    const int nd = sizeof double_edges / sizeof double_edges[0];
    const int n = nf * nf + 30000;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    float *c = (float *)malloc(n * sizeof(float));
    double *da = (double *)malloc(n * sizeof(double)), *db = (double *)malloc(n * sizeof(double));
    double *dc = (double *)malloc(n * sizeof(double));
    float *out = (float *)malloc((size_t)n * FLOAT_RESULTS * sizeof(float));
    double *dout = (double *)malloc((size_t)n * DOUBLE_RESULTS * sizeof(double));
    unsigned long long state = 17;
    for (int i = 0; i < n; i++) {
        if (i < nf * nf) {
            a[i] = float_edges[i / nf];
            b[i] = float_edges[i % nf];
            c[i] = float_edges[(i / nf + 7 * (i % nf)) % nf];
        } else {
            a[i] = random_float(&state, i);
            b[i] = random_float(&state, i);
            c[i] = i % 5 == 0 ? -a[i] * b[i] : random_float(&state, i);
        }
        if (i < nd * nd) {
            da[i] = double_edges[i / nd];
            db[i] = double_edges[i % nd];
            dc[i] = double_edges[(i / nd + 5 * (i % nd)) % nd];
        } else {
            da[i] = random_double(&state, i);
            db[i] = random_double(&state, i);
            dc[i] = random_double(&state, i);
        }
    }
    float *d_a, *d_b, *d_c, *d_out;
    double *d_da, *d_db, *d_dc, *d_dout;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMalloc(&d_c, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, (size_t)n * FLOAT_RESULTS * sizeof(float)));
    CHECK(cudaMalloc(&d_da, n * sizeof(double)));
    CHECK(cudaMalloc(&d_db, n * sizeof(double)));
    CHECK(cudaMalloc(&d_dc, n * sizeof(double)));
    CHECK(cudaMalloc(&d_dout, (size_t)n * DOUBLE_RESULTS * sizeof(double)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_da, da, n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_db, db, n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_dc, dc, n * sizeof(double), cudaMemcpyHostToDevice));
    float_ops<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, d_out, n);
    CHECK(cudaGetLastError());
    double_ops<<<(n + 255) / 256, 256>>>(d_da, d_db, d_dc, d_dout, n);
    CHECK(cudaGetLastError());
    CHECK(
        cudaMemcpy(out, d_out, (size_t)n * FLOAT_RESULTS * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dout, d_dout, (size_t)n * DOUBLE_RESULTS * sizeof(double),
                     cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int f = 0; f < FLOAT_RESULTS; f++) {
        for (int i = 0; i < n; i++) {
            float want, got = out[(size_t)i * FLOAT_RESULTS + f];
            if (f == FLOAT_RESULTS - 1) { /* __saturatef: [0, 1], NaN to 0 */
                want = a[i] >= 1 ? 1.0f : a[i] > 0 ? a[i] : 0.0f;
            } else {
                exact v = exact_float_op(float_ops_of[f][0], a[i], b[i], c[i]);
                want = round_float(&v, float_ops_of[f][1]);
            }
            if (!same_float(got, want)) {
                printf("%s(%a, %a, %a) = %a, expected %a\n", float_names[f], a[i], b[i], c[i], got,
                       want);
                bad = 1;
                break;
            }
        }
    }
    for (int f = 0; f < DOUBLE_RESULTS; f++) {
        for (int i = 0; i < n; i++) {
            double got = dout[(size_t)i * DOUBLE_RESULTS + f];
            double want =
                round_double(double_ops_of[f][0], double_ops_of[f][1], da[i], db[i], dc[i]);
            if (!same_double(got, want)) {
                printf("%s(%a, %a, %a) = %a, expected %a\n", double_names[f], da[i], db[i], dc[i],
                       got, want);
                bad = 1;
                break;
            }
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_da));
    CHECK(cudaFree(d_db));
    CHECK(cudaFree(d_dc));
    CHECK(cudaFree(d_dout));
    free(a);
    free(b);
    free(c);
    free(da);
    free(db);
    free(dc);
    free(out);
    free(dout);
    return bad;
}

static int check_conversions(void)
{
    const int nf = sizeof float_edges / sizeof float_edges[0];
    const int nd = sizeof double_edges / sizeof double_edges[0];
    const int nl = sizeof integer_edges / sizeof integer_edges[0];
    const int n = 20000;
    float *xs = (float *)malloc(n * sizeof(float));
    double *ds = (double *)malloc(n * sizeof(double));
    unsigned long long *ls = (unsigned long long *)malloc(n * sizeof(unsigned long long));
    unsigned long long *out =
        (unsigned long long *)malloc((size_t)n * CONVERSION_RESULTS * sizeof(unsigned long long));
    unsigned long long state = 23;
    for (int i = 0; i < n; i++) {
        xs[i] = i < nf ? float_edges[i] : random_float(&state, i);
        ds[i] = i < nd ? double_edges[i] : random_double(&state, i);
        if (i % 7 == 1) { /* values near the integers' limits and halves */
            ds[i] =
                ldexp((double)(next_random(&state) >> 11), (int)(next_random(&state) % 20) - 20);
            xs[i] = (float)ds[i];
        }
        ls[i] = i < nl ? integer_edges[i] : next_random(&state) >> (next_random(&state) % 64);
    }
    float *d_xs;
    double *d_ds;
    unsigned long long *d_ls, *d_out;
    CHECK(cudaMalloc(&d_xs, n * sizeof(float)));
    CHECK(cudaMalloc(&d_ds, n * sizeof(double)));
    CHECK(cudaMalloc(&d_ls, n * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d_out, (size_t)n * CONVERSION_RESULTS * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_xs, xs, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_ds, ds, n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_ls, ls, n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    conversions<<<(n + 127) / 128, 128>>>(d_xs, d_ds, d_ls, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, (size_t)n * CONVERSION_RESULTS * sizeof(unsigned long long),
                     cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int k = 0; k < CONVERSION_RESULTS; k++) {
        for (int i = 0; i < n; i++) {
            unsigned long long want = expected_conversion(k, xs[i], ds[i], ls[i]);
            unsigned long long got = out[(size_t)i * CONVERSION_RESULTS + k];
            if (got != want) {
                printf("%s of (%a, %a, 0x%016llx): 0x%llx, expected 0x%llx\n", conversion_names[k],
                       xs[i], ds[i], ls[i], got, want);
                bad = 1;
                break;
            }
        }
    }
    CHECK(cudaFree(d_xs));
    CHECK(cudaFree(d_ds));
    CHECK(cudaFree(d_ls));
    CHECK(cudaFree(d_out));
    free(xs);
    free(ds);
    free(ls);
    free(out);
    return bad;
}

int main(void)
{
    int bad = check_arithmetic();
    bad |= check_conversions();
    if (bad) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
