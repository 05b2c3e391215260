/*
 * CUDA's fast float intrinsics and math_constants.h, as a physics or graphics kernel uses them:
 * __expf, __exp10f, __logf, __log2f, __log10f, __powf, __sinf, __cosf, __tanf, __sincosf,
 * __fdividef, rsqrtf, rsqrt, sincosf and sincos, each within the error CUDA documents for it on
 * its documented range (the CPU computes them in double precision), and their special cases,
 * where a GPU computes them through exp2 and log2 (__powf of a negative base is NaN, __fdividef
 * by a number beyond 2^126 is 0); the CUDART_ constants, bit for bit; and a particle step that
 * normalizes vectors with rsqrtf and rotates them with __sincosf. Exit 0 when every result is
 * within its bound, else print the first miss of each function and exit 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math_constants.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum function {
    FDIVIDEF,
    EXPF,
    EXP10F,
    LOGF,
    LOG2F,
    LOG10F,
    POWF,
    SINF,
    COSF,
    TANF,
    SINCOSF_SIN,
    SINCOSF_COS,
    RSQRTF,
    SINCOSF_FULL_SIN,
    SINCOSF_FULL_COS,
    SINF_LARGE,
    COSF_LARGE,
    FUNCTIONS
};
static const char *names[FUNCTIONS] = {
    "__fdividef",       "__expf",          "__exp10f", "__logf",        "__log2f",
    "__log10f",         "__powf",          "__sinf",   "__cosf",        "__tanf",
    "__sincosf (sin)",  "__sincosf (cos)", "rsqrtf",   "sincosf (sin)", "sincosf (cos)",
    "__sinf (large x)", "__cosf (large x)"};

/* x and y of each function, in its documented range */
__global__ void fast_functions(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float *r = out + (size_t)i * FUNCTIONS;
        const float *xs = x + (size_t)i * FUNCTIONS, *ys = y + (size_t)i * FUNCTIONS;
        r[FDIVIDEF] = __fdividef(xs[FDIVIDEF], ys[FDIVIDEF]);
        r[EXPF] = __expf(xs[EXPF]);
        r[EXP10F] = __exp10f(xs[EXP10F]);
        r[LOGF] = __logf(xs[LOGF]);
        r[LOG2F] = __log2f(xs[LOG2F]);
        r[LOG10F] = __log10f(xs[LOG10F]);
        r[POWF] = __powf(xs[POWF], ys[POWF]);
        r[SINF] = __sinf(xs[SINF]);
        r[COSF] = __cosf(xs[COSF]);
        r[TANF] = __tanf(xs[TANF]);
        __sincosf(xs[SINCOSF_SIN], &r[SINCOSF_SIN], &r[SINCOSF_COS]);
        r[RSQRTF] = rsqrtf(xs[RSQRTF]);
        sincosf(xs[SINCOSF_FULL_SIN], &r[SINCOSF_FULL_SIN], &r[SINCOSF_FULL_COS]);
        r[SINF_LARGE] = __sinf(xs[SINF_LARGE]);
        r[COSF_LARGE] = __cosf(xs[COSF_LARGE]);
    }
}

__global__ void double_functions(const double *x, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[3 * i] = rsqrt(x[i]);
        sincos(x[i], &out[3 * i + 1], &out[3 * i + 2]);
    }
}

/* ---- special cases and constants, bit for bit ------------------------------------------------ */

#define SPECIALS 24
/* one is 1 at run time: the compiler cannot compute these itself */
__global__ void special_cases(float one, float inf, float nan_value, unsigned *bits,
                              unsigned long long *dbits)
{
    float r[SPECIALS] = {
        __fdividef(1.0f * one, 0x1.8p126f * one), /* 0: beyond 2^126 */
        __fdividef(-3.0f * one, 0x1p127f * one),  /* -0 */
        __fdividef(inf, 0x1.8p126f * one),        /* NaN */
        __fdividef(inf, 2.0f * one),              /* inf */
        __fdividef(5.0f * one, inf),              /* 0 */
        __powf(-2.0f * one, 2.0f * one),          /* NaN: exp2(2 log2(-2)) */
        __powf(0.0f * one, 0.0f * one),           /* NaN: exp2(0 * -inf) */
        __powf(2.0f * one, 0.0f * one),           /* 1 */
        __powf(0.0f * one, 2.0f * one),           /* 0 */
        __powf(4.0f * one, 0.5f * one),           /* 2 */
        __logf(0.0f * one),                       /* -inf */
        __logf(-1.0f * one),                      /* NaN */
        __expf(-inf),                             /* 0 */
        __expf(inf),                              /* inf */
        __log2f(inf),                             /* inf */
        rsqrtf(0.0f * one),                       /* inf */
        rsqrtf(-0.0f * one),                      /* -inf */
        rsqrtf(inf),                              /* 0 */
        rsqrtf(-4.0f * one),                      /* NaN */
        CUDART_INF_F + nan_value * 0,             /* NaN */
        CUDART_PI_F,
        CUDART_MAX_NORMAL_F,
        CUDART_MIN_DENORM_F,
        CUDART_NEG_ZERO_F,
    };
    for (int k = 0; k < SPECIALS; k++) {
        bits[k] = __float_as_uint(r[k]);
    }
    bits[SPECIALS] = __float_as_uint(CUDART_NAN_F);
    bits[SPECIALS + 1] = __float_as_uint(CUDART_INF_F);
    bits[SPECIALS + 2] = __float_as_uint(CUDART_L2E_F);
    bits[SPECIALS + 3] = __float_as_uint(CUDART_SQRT_HALF_F);
    dbits[0] = __double_as_longlong(CUDART_PI);
    dbits[1] = __double_as_longlong(CUDART_NAN);
    dbits[2] = __double_as_longlong(CUDART_INF);
    dbits[3] = __double_as_longlong(CUDART_LN2_HI);
    dbits[4] = __double_as_longlong(CUDART_LN2_LO);
    dbits[5] = __double_as_longlong(CUDART_SQRT_2PI);
}

/* 0x7fffffff: the NaN a GPU's float arithmetic makes; 0xffffffff: any NaN (that of plain float
 * arithmetic, which the intrinsics are not) */
static const unsigned expected_special[SPECIALS + 4] = {
    0x00000000, 0x80000000, 0x7fffffff, 0x7f800000, 0x00000000, 0x7fffffff, 0x7fffffff,
    0x3f800000, 0x00000000, 0x40000000, 0xff800000, 0x7fffffff, 0x00000000, 0x7f800000,
    0x7f800000, 0x7f800000, 0xff800000, 0x00000000, 0x7fffffff, 0xffffffff, 0x40490fdb,
    0x7f7fffff, 0x00000001, 0x80000000, 0x7fffffff, 0x7f800000, 0x3fb8aa3b, 0x3f3504f3};
static const unsigned long long expected_double[6] = {0x400921fb54442d18ull, 0xfff8000000000000ull,
                                                      0x7ff0000000000000ull, 0x3fe62e42fefa39efull,
                                                      0x3c7abc9e3b39803full, 0x40040d931ff62706ull};

/* ---- a particle step ------------------------------------------------------------------------ */

/* Each velocity made a unit vector (rsqrtf), turned by an angle (__sincosf) in the xy plane and
 * damped by exp(-t) (__expf); the position moves along it. */
__global__ void particle_step(float4 *position, float4 *velocity, float angle, float t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = velocity[i];
        float inverse = rsqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
        float s, c;
        __sincosf(angle * (1 + i % 3), &s, &c);
        float damping = __expf(-t);
        float3 u = make_float3(v.x * inverse, v.y * inverse, v.z * inverse);
        v = make_float4((c * u.x - s * u.y) * damping, (s * u.x + c * u.y) * damping, u.z * damping,
                        v.w);
        velocity[i] = v;
        float4 p = position[i];
        position[i] = make_float4(p.x + v.x, p.y + v.y, p.z + v.z, p.w);
    }
}

/* ---- the host ------------------------------------------------------------------------------ */

static unsigned long long next_random(unsigned long long *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

/* uniform in [lo, hi) */
static double uniform(unsigned long long *state, double lo, double hi)
{
    return lo + (hi - lo) * ((double)next_random(state) / 0x1p53);
}

/* a positive float with a random exponent in [lo, hi] */
static float log_uniform(unsigned long long *state, int lo, int hi)
{
    return ldexpf((float)uniform(state, 1, 2), lo + (int)(next_random(state) % (hi - lo + 1)));
}

/* The error bound of function f at x (and y), the documented one: in units of the float's ulp
 * (ulps), or absolute (abs) */
static void bound(int f, double x, double y, double *ulps, double *abs_error)
{
    *ulps = 0;
    *abs_error = 0;
    switch (f) {
    case FDIVIDEF:
    case RSQRTF:
    case SINCOSF_FULL_SIN:
    case SINCOSF_FULL_COS:
        *ulps = 2;
        break;
    case EXPF:
        *ulps = 2 + floor(fabs(1.173 * x));
        break;
    case EXP10F:
        *ulps = 2 + floor(fabs(2.97 * x));
        break;
    case LOGF:
        if (x >= 0.5 && x <= 2) {
            *abs_error = 0x1p-21;
        } else {
            *ulps = 3;
        }
        break;
    case LOG2F:
        if (x >= 0.5 && x <= 2) {
            *abs_error = 0x1p-22;
        } else {
            *ulps = 2;
        }
        break;
    case LOG10F:
        if (x >= 0.5 && x <= 2) {
            *abs_error = 0x1p-23;
        } else {
            *ulps = 3;
        }
        break;
    case POWF: /* exp2(y log2(x)): log2's error times y, then exp2's */
        *ulps = 2 + 0x1p-21 / 0x1p-24 * fabs(y) * 0.7;
        break;
    case SINF:
    case COSF:
    case SINCOSF_SIN:
    case SINCOSF_COS:
    case SINF_LARGE:
    case COSF_LARGE:
        *abs_error = 0x1p-21;
        break;
    case TANF: /* sin / cos, both within 2^-21.41, and an approximate division */
        *abs_error = 0x1p-20 * (1 + tan(x) * tan(x));
        *ulps = 2;
        break;
    }
}

/* What __sinf and __cosf take: x in turns, x * (1 / 2 pi) rounded toward zero to a float (nvcc
 * makes FMUL.RZ and MUFU.SIN of them), in radians. For a large x it is not x: the GPU's result is
 * then the sine of this, not of x. */
static double reduced(double x)
{
    double exact = x * (double)0.15915494f; /* a product of two floats, exact */
    float turns = (float)exact;
    if (fabs((double)turns) > fabs(exact)) {
        turns = nextafterf(turns, 0.0f);
    }
    return 2 * M_PI * turns;
}

static double reference(int f, double x, double y)
{
    switch (f) {
    case FDIVIDEF:
        return x / y;
    case EXPF:
        return exp(x);
    case EXP10F:
        return pow(10, x);
    case LOGF:
        return log(x);
    case LOG2F:
        return log2(x);
    case LOG10F:
        return log10(x);
    case POWF:
        return pow(x, y);
    case SINF:
    case SINCOSF_SIN:
    case SINCOSF_FULL_SIN:
        return sin(x);
    case COSF:
    case SINCOSF_COS:
    case SINCOSF_FULL_COS:
        return cos(x);
    case TANF:
        return tan(x);
    case SINF_LARGE:
        return sin(reduced(x));
    case COSF_LARGE:
        return cos(reduced(x));
    case RSQRTF:
        return 1 / sqrt(x);
    }
    return 0;
}

static void inputs(int f, unsigned long long *state, float *x, float *y)
{
    *y = 0;
    switch (f) {
    case FDIVIDEF:
        *x = log_uniform(state, -60, 60) * (next_random(state) % 2 ? 1 : -1);
        *y = log_uniform(state, -60, 60);
        break;
    case EXPF:
        *x = (float)uniform(state, -80, 80);
        break;
    case EXP10F:
        *x = (float)uniform(state, -35, 35);
        break;
    case LOGF:
    case LOG2F:
    case LOG10F:
        *x = next_random(state) % 2 ? (float)uniform(state, 0.5, 2) : log_uniform(state, -120, 120);
        break;
    case POWF:
        *x = (float)uniform(state, 0.125, 8);
        *y = (float)uniform(state, -12, 12);
        break;
    case SINF:
    case COSF:
    case SINCOSF_SIN:
        *x = (float)uniform(state, -M_PI, M_PI);
        break;
    case TANF:
        *x = (float)uniform(state, -1.4, 1.4);
        break;
    case RSQRTF:
        *x = log_uniform(state, -120, 120);
        break;
    case SINCOSF_FULL_SIN:
        *x = (float)uniform(state, -1000, 1000);
        break;
    case SINF_LARGE:
    case COSF_LARGE:
        *x = (float)uniform(state, -1e5, 1e5);
        break;
    default:
        *x = 0;
    }
}

static int check_functions(void)
{
    const int n = 20000;
    float *x = (float *)malloc((size_t)n * FUNCTIONS * sizeof(float));
    float *y = (float *)malloc((size_t)n * FUNCTIONS * sizeof(float));
    float *out = (float *)malloc((size_t)n * FUNCTIONS * sizeof(float));
    double *dx = (double *)malloc(n * sizeof(double)),
           *dout = (double *)malloc(3 * n * sizeof(double));
    unsigned long long state = 99;
    for (int i = 0; i < n; i++) {
        for (int f = 0; f < FUNCTIONS; f++) {
            inputs(f, &state, &x[(size_t)i * FUNCTIONS + f], &y[(size_t)i * FUNCTIONS + f]);
        }
        dx[i] = i % 2 ? uniform(&state, -1e4, 1e4) : ldexp(uniform(&state, 1, 2), i % 200 - 100);
    }
    float *d_x, *d_y, *d_out;
    double *d_dx, *d_dout;
    CHECK(cudaMalloc(&d_x, (size_t)n * FUNCTIONS * sizeof(float)));
    CHECK(cudaMalloc(&d_y, (size_t)n * FUNCTIONS * sizeof(float)));
    CHECK(cudaMalloc(&d_out, (size_t)n * FUNCTIONS * sizeof(float)));
    CHECK(cudaMalloc(&d_dx, n * sizeof(double)));
    CHECK(cudaMalloc(&d_dout, 3 * n * sizeof(double)));
    CHECK(cudaMemcpy(d_x, x, (size_t)n * FUNCTIONS * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y, (size_t)n * FUNCTIONS * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_dx, dx, n * sizeof(double), cudaMemcpyHostToDevice));
    fast_functions<<<(n + 127) / 128, 128>>>(d_x, d_y, d_out, n);
    CHECK(cudaGetLastError());
    double_functions<<<(n + 127) / 128, 128>>>(d_dx, d_dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, (size_t)n * FUNCTIONS * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dout, d_dout, 3 * n * sizeof(double), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int f = 0; f < FUNCTIONS; f++) {
        for (int i = 0; i < n; i++) {
            /* __sincosf and sincosf take their one argument from the _SIN slot */
            int from = f == SINCOSF_COS        ? SINCOSF_SIN
                       : f == SINCOSF_FULL_COS ? SINCOSF_FULL_SIN
                                               : f;
            double xi = x[(size_t)i * FUNCTIONS + from], yi = y[(size_t)i * FUNCTIONS + from];
            double want = reference(f, xi, yi), got = out[(size_t)i * FUNCTIONS + f], ulps,
                   abs_error;
            bound(f, xi, yi, &ulps, &abs_error);
            /* a float's ulp near `want` is at most 2^-23 |want| */
            double allowed = abs_error + ulps * 0x1p-23 * fabs(want);
            if (!(fabs(got - want) <= allowed)) {
                printf("%s(%a, %a) = %a, expected %a within %g\n", names[f], xi, yi, got, want,
                       allowed);
                bad = 1;
                break;
            }
        }
    }
    const char *double_names[3] = {"rsqrt", "sincos (sin)", "sincos (cos)"};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n; i++) {
            double want = k == 0 ? 1 / sqrt(fabs(dx[i])) : k == 1 ? sin(dx[i]) : cos(dx[i]);
            double got = dout[3 * i + k];
            if (k == 0 && dx[i] < 0) {
                if (!isnan(got)) {
                    printf("rsqrt(%a) = %a, expected NaN\n", dx[i], got);
                    bad = 1;
                    break;
                }
                continue;
            }
            if (!(fabs(got - want) <= 3 * 0x1p-52 * fabs(want) + (k ? 0x1p-60 : 0))) {
                printf("%s(%a) = %a, expected %a\n", double_names[k], dx[i], got, want);
                bad = 1;
                break;
            }
        }
    }
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_dx));
    CHECK(cudaFree(d_dout));
    free(x);
    free(y);
    free(out);
    free(dx);
    free(dout);
    return bad;
}

static int check_specials(void)
{
    unsigned bits[SPECIALS + 4], *d_bits;
    unsigned long long dbits[6], *d_dbits;
    CHECK(cudaMalloc(&d_bits, sizeof bits));
    CHECK(cudaMalloc(&d_dbits, sizeof dbits));
    special_cases<<<1, 1>>>(1.0f, INFINITY, NAN, d_bits, d_dbits);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(bits, d_bits, sizeof bits, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dbits, d_dbits, sizeof dbits, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int k = 0; k < SPECIALS + 4; k++) {
        unsigned want = expected_special[k];
        int is_nan = (bits[k] & 0x7fffffff) > 0x7f800000;
        if (want == 0xffffffff ? !is_nan : bits[k] != want) {
            printf("special case %d: 0x%08x, expected %s0x%08x\n", k, bits[k],
                   want == 0xffffffff ? "a NaN, as " : "", want);
            bad = 1;
        }
    }
    for (int k = 0; k < 6; k++) {
        if (dbits[k] != expected_double[k]) {
            printf("double constant %d: 0x%016llx, expected 0x%016llx\n", k, dbits[k],
                   expected_double[k]);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_bits));
    CHECK(cudaFree(d_dbits));
    return bad;
}

static int check_particles(void)
{
    const int n = 1000;
    const float angle = 0.3f, t = 0.05f;
    float4 position[n], velocity[n], p_out[n], v_out[n];
    unsigned long long state = 5;
    for (int i = 0; i < n; i++) {
        position[i] = make_float4(i, -i, 0.5f * i, 1);
        velocity[i] = make_float4((float)uniform(&state, -3, 3), (float)uniform(&state, -3, 3),
                                  (float)uniform(&state, 0.1, 3), (float)i);
    }
    float4 *d_position, *d_velocity;
    CHECK(cudaMalloc(&d_position, sizeof position));
    CHECK(cudaMalloc(&d_velocity, sizeof velocity));
    CHECK(cudaMemcpy(d_position, position, sizeof position, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_velocity, velocity, sizeof velocity, cudaMemcpyHostToDevice));
    particle_step<<<(n + 255) / 256, 256>>>(d_position, d_velocity, angle, t, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(p_out, d_position, sizeof p_out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(v_out, d_velocity, sizeof v_out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        float4 v = velocity[i], p = position[i];
        double length = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        double ux = v.x / length, uy = v.y / length, uz = v.z / length;
        double a = angle * (1 + i % 3), damping = exp(-t);
        double want[3] = {(cos(a) * ux - sin(a) * uy) * damping,
                          (sin(a) * ux + cos(a) * uy) * damping, uz * damping};
        float got[3] = {v_out[i].x, v_out[i].y, v_out[i].z};
        float moved[3] = {p_out[i].x - p.x, p_out[i].y - p.y, p_out[i].z - p.z};
        for (int k = 0; k < 3; k++) {
            if (fabs(got[k] - want[k]) > 1e-5 || fabs(moved[k] - want[k]) > 1e-3) {
                printf("particle %d, component %d: velocity %g, moved %g, expected %g\n", i, k,
                       got[k], moved[k], want[k]);
                bad = 1;
                break;
            }
        }
        if (v_out[i].w != v.w || p_out[i].w != 1) {
            printf("particle %d: w changed\n", i);
            bad = 1;
        }
    }
    CHECK(cudaFree(d_position));
    CHECK(cudaFree(d_velocity));
    return bad;
}

int main(void)
{
    int bad = check_functions();
    bad |= check_specials();
    bad |= check_particles();
    if (bad) {
        return 1;
    }
    printf("ok\n");
    return 0;
}
