/*
 * kit_emu_intrinsics.h of the kit's CPU emulation (emulation/README.md): CUDA's integer and float
 * intrinsics that kit_emu_device.h does not define itself. Included at its end, so every .cu file
 * has them, as with nvcc. Each computes what the GPU computes (PTX's definition of the
 * instruction nvcc makes of it), bit for bit, a float NaN included (0x7fffffff, where the host
 * would make 0xffc00000), except the approximate float functions (__expf, __sinf, __fdividef,
 * rsqrtf, ...), which the host computes the way the GPU does, within CUDA's documented error of
 * the GPU's result, with the GPU's special cases.
 *
 * - integer: __mul24, __umul24, __mulhi, __umulhi, __mul64hi, __umul64hi, __sad, __usad,
 *   __byte_perm, __funnelshift_l/lc/r/rc, __hadd, __rhadd, __uhadd, __urhadd, umin, umax, llmin,
 *   llmax, ullmin, ullmax, __dp4a, __dp2a_lo, __dp2a_hi, and the SIMD functions on the 2
 *   halfwords or 4 bytes of an unsigned int (__vadd4, __vabsdiffu4, __vsadu4, __vcmpgtu2, ...);
 * - float, correctly rounded in a chosen direction (_rn to nearest even, _rz toward zero, _ru up,
 *   _rd down): __fadd_, __fsub_, __fmul_, __fdiv_, __frcp_, __fsqrt_, __fmaf_ and the double
 *   __dadd_, __dsub_, __dmul_, __ddiv_, __drcp_, __dsqrt_, __fma_. The host computes them in its
 *   own IEEE arithmetic with its rounding mode set to the direction (<fenv.h>) for that one
 *   operation, as the GPU's add.rz.f32 and friends do;
 * - conversions: __float2int_rn/rz/ru/rd and the other float or double to integer ones, which
 *   saturate as the GPU does (NaN gives 0 from a float to 32 bits, else the sign bit alone), the
 *   integer to float or double ones and __double2float_ with their rounding, and the bit casts
 *   (__double_as_longlong, __longlong_as_double, __double2hiint, __double2loint,
 *   __hiloint2double);
 * - fast float: __fdividef, __saturatef, rsqrtf, rsqrt, __expf, __exp10f, __logf, __log2f,
 *   __log10f, __powf, __sinf, __cosf, __tanf, __sincosf, sincosf, sincos. __expf, __powf and the
 *   others computed through exp2 and log2 on a GPU are computed the same way (so __powf(-2, 2) is
 *   NaN, as there);
 * - loads and stores with a cache hint: __ldca, __ldcs, __ldlu, __ldcv, __stwb, __stcs, __stwt,
 *   plain accesses here (__ldcv, the volatile load a spin-wait reads with, is a poll, as __ldcg
 *   is: other threads run meanwhile).
 */
#ifndef KIT_EMU_INTRINSICS_H
#define KIT_EMU_INTRINSICS_H

#include <fenv.h>
#include <math.h>
#include <string.h>

#include <limits>
#include <type_traits>

namespace kit_emu
{

/** The host's rounding mode set to `mode` (FE_TOWARDZERO, ...) until the end of the scope. The
 * thread is not preempted meanwhile. */
class rounding_scope
{
  public:
    KIT_EMU_HD explicit rounding_scope(int mode) : saved(fegetround())
    {
        fesetround(mode);
    }
    KIT_EMU_HD ~rounding_scope()
    {
        fesetround(saved);
    }
    rounding_scope(const rounding_scope &) = delete;
    rounding_scope &operator=(const rounding_scope &) = delete;

  private:
    preempt_guard guard;
    int saved;
};

/** `value`, through a volatile: the compiler can neither compute it before the rounding mode is
 * set nor use it after it is restored. */
template <typename T> KIT_EMU_HD inline T opaque(T value)
{
    volatile T v = value;
    return v;
}

/** A float result as a GPU gives it: its single-precision arithmetic makes every NaN 0x7fffffff
 * (the host's keeps an operand's NaN, or makes 0xffc00000). Doubles: as on the host. */
KIT_EMU_HD inline float gpu_nan(float r)
{
    if (r != r) {
        unsigned int canonical = 0x7fffffffu;
        memcpy(&r, &canonical, sizeof r);
    }
    return r;
}
KIT_EMU_HD inline double gpu_nan(double r)
{
    return r;
}

/** The rounding directions of CUDA's suffixes _rn, _rz, _ru and _rd. */
enum rounding { RN, RZ, RU, RD };

/** `x` rounded to an integral value in direction `dir`, exactly, whatever the host's mode. */
template <typename F> KIT_EMU_HD inline F round_integral(F x, rounding dir)
{
    switch (dir) {
    case RZ:
        return trunc(x);
    case RU:
        return ceil(x);
    case RD:
        return floor(x);
    default: {
        F t = trunc(x);
        if (fabs(x - t) != F(0.5)) {
            return round(x);
        }
        return fmod(t, F(2)) == 0 ? t : t + copysign(F(1), x);
    }
    }
}

/** cvt.{rni,rzi,rpi,rmi}.{s,u}{32,64}.{f32,f64}: rounded as `dir` says, then saturated to I's
 * range. A NaN gives 0 from a float to a 32-bit integer and the sign bit alone otherwise (PTX's
 * rule). */
template <typename I, typename F> KIT_EMU_HD inline I float_to_integer(F x, rounding dir)
{
    constexpr int bits = 8 * sizeof(I);
    constexpr bool is_signed = std::is_signed<I>::value;
    if (x != x) {
        return sizeof(F) == 4 && bits == 32 ? I(0) : I(1ull << (bits - 1));
    }
    F r = round_integral(x, dir);
    /* 2^(bits-1) for a signed I, 2^bits for an unsigned one: exact in F */
    const F top = F(1ull << (bits - 1)) * (is_signed ? 1 : 2);
    if (r >= top) {
        return std::numeric_limits<I>::max();
    }
    if (is_signed ? r < -top : r < 0) {
        return std::numeric_limits<I>::min();
    }
    return (I)r;
}

/** `x` converted to R in the host's rounding mode `mode`. (A double NaN keeps the high bits of
 * its payload, on the host as on the GPU.) */
template <typename R, typename T> KIT_EMU_HD inline R convert_rounded(T x, int mode)
{
    rounding_scope scope(mode);
    return opaque((R)opaque(x));
}

/** The value of the `bits`-wide lane of `v` that starts at bit `shift`, signed or not. */
template <int bits, bool is_signed> KIT_EMU_HD inline int simd_lane(unsigned v, int shift)
{
    unsigned lane = (v >> shift) & ((1u << bits) - 1);
    if (is_signed && (lane >> (bits - 1))) {
        return (int)lane - (1 << bits);
    }
    return (int)lane;
}

/** The SIMD functions: op(a's lane, b's lane) for each `bits`-wide lane (8 or 16), each result
 * cut to its lane. */
template <int bits, bool is_signed, typename Op>
KIT_EMU_HD inline unsigned simd(unsigned a, unsigned b, Op op)
{
    unsigned r = 0;
    for (int shift = 0; shift < 32; shift += bits) {
        int v = op(simd_lane<bits, is_signed>(a, shift), simd_lane<bits, is_signed>(b, shift));
        r |= ((unsigned)v & ((1u << bits) - 1)) << shift;
    }
    return r;
}

/** The sum of op(a's lane, b's lane) over the lanes (__vsadu4 and friends). */
template <int bits, bool is_signed, typename Op>
KIT_EMU_HD inline unsigned simd_sum(unsigned a, unsigned b, Op op)
{
    unsigned sum = 0;
    for (int shift = 0; shift < 32; shift += bits) {
        sum += (unsigned)op(simd_lane<bits, is_signed>(a, shift),
                            simd_lane<bits, is_signed>(b, shift));
    }
    return sum;
}

/** v clamped to a `bits`-wide lane's range, signed or not (the saturating SIMD functions). */
template <int bits, bool is_signed> KIT_EMU_HD inline int simd_saturate(int v)
{
    int lo = is_signed ? -(1 << (bits - 1)) : 0;
    int hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
    return v < lo ? lo : v > hi ? hi : v;
}

/** The same type as T, where a template must not deduce T from it (__stcs(p, 0)). */
template <typename T> struct same_type {
    typedef T type;
};

/** The bits of a double (__double_as_longlong) and back. */
KIT_EMU_HD inline unsigned long long double_bits(double d)
{
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}
KIT_EMU_HD inline double bits_double(unsigned long long u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---- the fast float functions, as a GPU computes them -----------------------------------------
 * The functions behind __expf and the others, which glibc's <math.h> declares for itself under
 * the same names (its own exact ones): the names are macros below. */

/* Measured on an H200 (CUDA 13.0) over 2^20 arguments: __expf, __exp10f, __fdividef and rsqrtf
 * within 2 ulp of the GPU's, __sinf and __cosf within 3.4e-7 (the GPU's own error), where the
 * exact sin of a large argument is 0.01 away from the GPU's. */

/** __fdividef: x times the approximate reciprocal of y (div.approx.f32), whose reciprocal of a
 * y beyond 2^126 is 0: the quotient is then 0, or NaN for an infinite x. */
KIT_EMU_HD inline float fast_fdividef(float x, float y)
{
    if (fabsf(y) > 0x1p126f && isfinite(y)) {
        return gpu_nan(x * copysignf(0.0f, y));
    }
    return gpu_nan(x / y);
}
/** ex2.approx.f32(x * log2(e)), as nvcc makes __expf */
KIT_EMU_HD inline float fast_expf(float x)
{
    return gpu_nan(exp2f(x * 0x1.715476p+0f));
}
/** ex2.approx.f32(x * log2(10)) */
KIT_EMU_HD inline float fast_exp10f(float x)
{
    return gpu_nan(exp2f(x * 0x1.a934f0p+1f));
}
/** lg2.approx.f32(x) */
KIT_EMU_HD inline float fast_log2f(float x)
{
    return gpu_nan(log2f(x));
}
/** lg2.approx.f32(x) * ln(2) */
KIT_EMU_HD inline float fast_logf(float x)
{
    return gpu_nan(log2f(x) * 0x1.62e430p-1f);
}
/** lg2.approx.f32(x) * log10(2) */
KIT_EMU_HD inline float fast_log10f(float x)
{
    return gpu_nan(log2f(x) * 0x1.344136p-2f);
}
/** ex2.approx.f32(y * lg2.approx.f32(x)): NaN for a negative x, and for 0^0, 1^inf, inf^0 */
KIT_EMU_HD inline float fast_powf(float x, float y)
{
    return gpu_nan(exp2f(y * log2f(x)));
}
/** sin.approx.f32 and cos.approx.f32 take x in turns, x * (1 / 2 pi) rounded toward zero to a
 * float (so a large x loses its fraction of a turn, as on the GPU), then sin and cos of that many
 * turns; below 2^-64, where sin(x) is x, x itself. */
KIT_EMU_HD inline double fast_turns(float x)
{
    double exact = (double)x * 0x1.45f306p-3f; /* a product of two floats: exact */
    float turns = (float)exact;
    if (fabs((double)turns) > fabs(exact)) {
        turns = nextafterf(turns, 0.0f);
    }
    return 2 * 3.14159265358979323846 * turns;
}
KIT_EMU_HD inline float fast_sinf(float x)
{
    return gpu_nan(fabsf(x) < 0x1p-64f ? x : (float)sin(fast_turns(x)));
}
KIT_EMU_HD inline float fast_cosf(float x)
{
    return gpu_nan(fabsf(x) < 0x1p-64f ? 1.0f : (float)cos(fast_turns(x)));
}
/** sin.approx.f32(x) / cos.approx.f32(x), the division an approximate one */
KIT_EMU_HD inline float fast_tanf(float x)
{
    return fast_fdividef(fast_sinf(x), fast_cosf(x));
}
KIT_EMU_HD inline void fast_sincosf(float x, float *sptr, float *cptr)
{
    *sptr = fast_sinf(x);
    *cptr = fast_cosf(x);
}

} // namespace kit_emu

/* ---- integer -----------------------------------------------------------------------------------
 */

/** The low 32 bits of the product of x's and y's low 24 bits, as signed 24-bit integers. */
KIT_EMU_HD inline int __mul24(int x, int y)
{
    long long a = (int)((unsigned)x << 8) >> 8, b = (int)((unsigned)y << 8) >> 8;
    return (int)(unsigned)(a * b);
}
/** The low 32 bits of the product of x's and y's low 24 bits. */
KIT_EMU_HD inline unsigned int __umul24(unsigned int x, unsigned int y)
{
    return (x & 0xffffffu) * (y & 0xffffffu);
}
/** The high 32 bits of the 64-bit product. */
KIT_EMU_HD inline int __mulhi(int x, int y)
{
    return (int)(((long long)x * y) >> 32);
}
KIT_EMU_HD inline unsigned int __umulhi(unsigned int x, unsigned int y)
{
    return (unsigned)(((unsigned long long)x * y) >> 32);
}
/** The high 64 bits of the 128-bit product. */
KIT_EMU_HD inline long long int __mul64hi(long long int x, long long int y)
{
    return (long long)(((__int128)x * y) >> 64);
}
KIT_EMU_HD inline unsigned long long int __umul64hi(unsigned long long int x,
                                                    unsigned long long int y)
{
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}

/** |x - y| + z, modulo 2^32. */
KIT_EMU_HD inline unsigned int __sad(int x, int y, unsigned int z)
{
    long long d = (long long)x - y;
    return (unsigned)(d < 0 ? -d : d) + z;
}
KIT_EMU_HD inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z)
{
    return (x > y ? x - y : y - x) + z;
}

/** Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x's low byte is byte 0). */
KIT_EMU_HD inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long bytes = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int n = 0; n < 4; n++) {
        unsigned int selector = (s >> (4 * n)) & 7u;
        r |= (unsigned)((bytes >> (8 * selector)) & 0xffu) << (8 * n);
    }
    return r;
}

/** hi:lo shifted left by shift & 31 (_l) or by min(shift, 32) (_lc): the high 32 bits. */
KIT_EMU_HD inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift & 31u)) >> 32);
}
KIT_EMU_HD inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                                unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift < 32u ? shift : 32u)) >> 32);
}
/** hi:lo shifted right by shift & 31 (_r) or by min(shift, 32) (_rc): the low 32 bits. */
KIT_EMU_HD inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift & 31u));
}
KIT_EMU_HD inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                                unsigned int shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift < 32u ? shift : 32u));
}

/** (x + y) >> 1 and (x + y + 1) >> 1, without overflow. */
KIT_EMU_HD inline int __hadd(int x, int y)
{
    return (int)(((long long)x + y) >> 1);
}
KIT_EMU_HD inline int __rhadd(int x, int y)
{
    return (int)(((long long)x + y + 1) >> 1);
}
KIT_EMU_HD inline unsigned int __uhadd(unsigned int x, unsigned int y)
{
    return (unsigned)(((unsigned long long)x + y) >> 1);
}
KIT_EMU_HD inline unsigned int __urhadd(unsigned int x, unsigned int y)
{
    return (unsigned)(((unsigned long long)x + y + 1) >> 1);
}

KIT_EMU_HD inline unsigned int umin(unsigned int x, unsigned int y)
{
    return y < x ? y : x;
}
KIT_EMU_HD inline unsigned int umax(unsigned int x, unsigned int y)
{
    return x < y ? y : x;
}
KIT_EMU_HD inline long long int llmin(long long int x, long long int y)
{
    return y < x ? y : x;
}
KIT_EMU_HD inline long long int llmax(long long int x, long long int y)
{
    return x < y ? y : x;
}
KIT_EMU_HD inline unsigned long long int ullmin(unsigned long long int x, unsigned long long int y)
{
    return y < x ? y : x;
}
KIT_EMU_HD inline unsigned long long int ullmax(unsigned long long int x, unsigned long long int y)
{
    return x < y ? y : x;
}

/** c plus the four products of a's and b's bytes, signed (int) or not (unsigned), modulo 2^32. */
KIT_EMU_HD inline int __dp4a(int srcA, int srcB, int c)
{
    unsigned int sum = (unsigned)c;
    for (int shift = 0; shift < 32; shift += 8) {
        sum += (unsigned)(kit_emu::simd_lane<8, true>((unsigned)srcA, shift) *
                          kit_emu::simd_lane<8, true>((unsigned)srcB, shift));
    }
    return (int)sum;
}
KIT_EMU_HD inline unsigned int __dp4a(unsigned int srcA, unsigned int srcB, unsigned int c)
{
    unsigned int sum = c;
    for (int shift = 0; shift < 32; shift += 8) {
        sum += ((srcA >> shift) & 0xffu) * ((srcB >> shift) & 0xffu);
    }
    return sum;
}
KIT_EMU_HD inline int __dp4a(char4 srcA, char4 srcB, int c)
{
    unsigned int sum = (unsigned)c;
    sum += (unsigned)(srcA.x * srcB.x) + (unsigned)(srcA.y * srcB.y);
    sum += (unsigned)(srcA.z * srcB.z) + (unsigned)(srcA.w * srcB.w);
    return (int)sum;
}
KIT_EMU_HD inline unsigned int __dp4a(uchar4 srcA, uchar4 srcB, unsigned int c)
{
    return c + (unsigned)(srcA.x * srcB.x + srcA.y * srcB.y + srcA.z * srcB.z + srcA.w * srcB.w);
}

namespace kit_emu
{
/** __dp2a_lo (shift 0) and __dp2a_hi (shift 16): c plus the products of a's two halfwords with
 * b's bytes 0 and 1 (lo) or 2 and 3 (hi), modulo 2^32. */
template <bool is_signed>
KIT_EMU_HD inline unsigned dp2a(unsigned a, unsigned b, unsigned c, int shift)
{
    unsigned sum = c;
    sum += (unsigned)(simd_lane<16, is_signed>(a, 0) * simd_lane<8, is_signed>(b, shift));
    sum += (unsigned)(simd_lane<16, is_signed>(a, 16) * simd_lane<8, is_signed>(b, shift + 8));
    return sum;
}
KIT_EMU_HD inline unsigned pack2(unsigned short x, unsigned short y)
{
    return x | (unsigned)y << 16;
}
KIT_EMU_HD inline unsigned pack4(unsigned char x, unsigned char y, unsigned char z, unsigned char w)
{
    return x | (unsigned)y << 8 | (unsigned)z << 16 | (unsigned)w << 24;
}
} // namespace kit_emu

KIT_EMU_HD inline int __dp2a_lo(int srcA, int srcB, int c)
{
    return (int)kit_emu::dp2a<true>((unsigned)srcA, (unsigned)srcB, (unsigned)c, 0);
}
KIT_EMU_HD inline unsigned int __dp2a_lo(unsigned int srcA, unsigned int srcB, unsigned int c)
{
    return kit_emu::dp2a<false>(srcA, srcB, c, 0);
}
KIT_EMU_HD inline int __dp2a_hi(int srcA, int srcB, int c)
{
    return (int)kit_emu::dp2a<true>((unsigned)srcA, (unsigned)srcB, (unsigned)c, 16);
}
KIT_EMU_HD inline unsigned int __dp2a_hi(unsigned int srcA, unsigned int srcB, unsigned int c)
{
    return kit_emu::dp2a<false>(srcA, srcB, c, 16);
}
KIT_EMU_HD inline int __dp2a_lo(short2 srcA, char4 srcB, int c)
{
    return __dp2a_lo((int)kit_emu::pack2(srcA.x, srcA.y),
                     (int)kit_emu::pack4(srcB.x, srcB.y, srcB.z, srcB.w), c);
}
KIT_EMU_HD inline unsigned int __dp2a_lo(ushort2 srcA, uchar4 srcB, unsigned int c)
{
    return __dp2a_lo(kit_emu::pack2(srcA.x, srcA.y), kit_emu::pack4(srcB.x, srcB.y, srcB.z, srcB.w),
                     c);
}
KIT_EMU_HD inline int __dp2a_hi(short2 srcA, char4 srcB, int c)
{
    return __dp2a_hi((int)kit_emu::pack2(srcA.x, srcA.y),
                     (int)kit_emu::pack4(srcB.x, srcB.y, srcB.z, srcB.w), c);
}
KIT_EMU_HD inline unsigned int __dp2a_hi(ushort2 srcA, uchar4 srcB, unsigned int c)
{
    return __dp2a_hi(kit_emu::pack2(srcA.x, srcA.y), kit_emu::pack4(srcB.x, srcB.y, srcB.z, srcB.w),
                     c);
}

/* ---- SIMD: 2 halfwords (…2) or 4 bytes (…4) of an unsigned int, each lane apart ---------------
 * KIT_EMU_SIMD(name, lane bits, signed lanes, expression of the lanes x and y) */
#define KIT_EMU_SIMD(name, bits, is_signed, expr)                                                  \
    KIT_EMU_HD inline unsigned int name(unsigned int a, unsigned int b)                            \
    {                                                                                              \
        return kit_emu::simd<bits, is_signed>(a, b, [](int x, int y) { return (expr); });          \
    }
#define KIT_EMU_SIMD_UNARY(name, bits, expr)                                                       \
    KIT_EMU_HD inline unsigned int name(unsigned int a)                                            \
    {                                                                                              \
        return kit_emu::simd<bits, true>(a, 0u, [](int x, int) { return (expr); });                \
    }
#define KIT_EMU_SAT(bits, is_signed, v) kit_emu::simd_saturate<bits, is_signed>(v)
#define KIT_EMU_ABS(v) ((v) < 0 ? -(v) : (v))
/* clang-format off */
KIT_EMU_SIMD(__vadd2, 16, false, x + y)
KIT_EMU_SIMD(__vadd4, 8, false, x + y)
KIT_EMU_SIMD(__vaddss2, 16, true, KIT_EMU_SAT(16, true, x + y))
KIT_EMU_SIMD(__vaddss4, 8, true, KIT_EMU_SAT(8, true, x + y))
KIT_EMU_SIMD(__vaddus2, 16, false, KIT_EMU_SAT(16, false, x + y))
KIT_EMU_SIMD(__vaddus4, 8, false, KIT_EMU_SAT(8, false, x + y))
KIT_EMU_SIMD(__vsub2, 16, false, x - y)
KIT_EMU_SIMD(__vsub4, 8, false, x - y)
KIT_EMU_SIMD(__vsubss2, 16, true, KIT_EMU_SAT(16, true, x - y))
KIT_EMU_SIMD(__vsubss4, 8, true, KIT_EMU_SAT(8, true, x - y))
KIT_EMU_SIMD(__vsubus2, 16, false, KIT_EMU_SAT(16, false, x - y))
KIT_EMU_SIMD(__vsubus4, 8, false, KIT_EMU_SAT(8, false, x - y))
KIT_EMU_SIMD(__vabsdiffs2, 16, true, KIT_EMU_ABS(x - y))
KIT_EMU_SIMD(__vabsdiffs4, 8, true, KIT_EMU_ABS(x - y))
KIT_EMU_SIMD(__vabsdiffu2, 16, false, KIT_EMU_ABS(x - y))
KIT_EMU_SIMD(__vabsdiffu4, 8, false, KIT_EMU_ABS(x - y))
KIT_EMU_SIMD(__vavgu2, 16, false, (x + y + 1) >> 1)
KIT_EMU_SIMD(__vavgu4, 8, false, (x + y + 1) >> 1)
KIT_EMU_SIMD(__vhaddu2, 16, false, (x + y) >> 1)
KIT_EMU_SIMD(__vhaddu4, 8, false, (x + y) >> 1)
KIT_EMU_SIMD(__vmaxs2, 16, true, x < y ? y : x)
KIT_EMU_SIMD(__vmaxs4, 8, true, x < y ? y : x)
KIT_EMU_SIMD(__vmaxu2, 16, false, x < y ? y : x)
KIT_EMU_SIMD(__vmaxu4, 8, false, x < y ? y : x)
KIT_EMU_SIMD(__vmins2, 16, true, y < x ? y : x)
KIT_EMU_SIMD(__vmins4, 8, true, y < x ? y : x)
KIT_EMU_SIMD(__vminu2, 16, false, y < x ? y : x)
KIT_EMU_SIMD(__vminu4, 8, false, y < x ? y : x)
/* comparisons: __vcmp* give a lane of ones where true, __vset* a lane of 1 */
KIT_EMU_SIMD(__vcmpeq2, 16, false, x == y ? -1 : 0)
KIT_EMU_SIMD(__vcmpeq4, 8, false, x == y ? -1 : 0)
KIT_EMU_SIMD(__vcmpne2, 16, false, x != y ? -1 : 0)
KIT_EMU_SIMD(__vcmpne4, 8, false, x != y ? -1 : 0)
KIT_EMU_SIMD(__vcmpges2, 16, true, x >= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpges4, 8, true, x >= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgeu2, 16, false, x >= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgeu4, 8, false, x >= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgts2, 16, true, x > y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgts4, 8, true, x > y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgtu2, 16, false, x > y ? -1 : 0)
KIT_EMU_SIMD(__vcmpgtu4, 8, false, x > y ? -1 : 0)
KIT_EMU_SIMD(__vcmples2, 16, true, x <= y ? -1 : 0)
KIT_EMU_SIMD(__vcmples4, 8, true, x <= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpleu2, 16, false, x <= y ? -1 : 0)
KIT_EMU_SIMD(__vcmpleu4, 8, false, x <= y ? -1 : 0)
KIT_EMU_SIMD(__vcmplts2, 16, true, x < y ? -1 : 0)
KIT_EMU_SIMD(__vcmplts4, 8, true, x < y ? -1 : 0)
KIT_EMU_SIMD(__vcmpltu2, 16, false, x < y ? -1 : 0)
KIT_EMU_SIMD(__vcmpltu4, 8, false, x < y ? -1 : 0)
KIT_EMU_SIMD(__vseteq2, 16, false, x == y)
KIT_EMU_SIMD(__vseteq4, 8, false, x == y)
KIT_EMU_SIMD(__vsetne2, 16, false, x != y)
KIT_EMU_SIMD(__vsetne4, 8, false, x != y)
KIT_EMU_SIMD(__vsetges2, 16, true, x >= y)
KIT_EMU_SIMD(__vsetges4, 8, true, x >= y)
KIT_EMU_SIMD(__vsetgeu2, 16, false, x >= y)
KIT_EMU_SIMD(__vsetgeu4, 8, false, x >= y)
KIT_EMU_SIMD(__vsetgts2, 16, true, x > y)
KIT_EMU_SIMD(__vsetgts4, 8, true, x > y)
KIT_EMU_SIMD(__vsetgtu2, 16, false, x > y)
KIT_EMU_SIMD(__vsetgtu4, 8, false, x > y)
KIT_EMU_SIMD(__vsetles2, 16, true, x <= y)
KIT_EMU_SIMD(__vsetles4, 8, true, x <= y)
KIT_EMU_SIMD(__vsetleu2, 16, false, x <= y)
KIT_EMU_SIMD(__vsetleu4, 8, false, x <= y)
KIT_EMU_SIMD(__vsetlts2, 16, true, x < y)
KIT_EMU_SIMD(__vsetlts4, 8, true, x < y)
KIT_EMU_SIMD(__vsetltu2, 16, false, x < y)
KIT_EMU_SIMD(__vsetltu4, 8, false, x < y)
KIT_EMU_SIMD_UNARY(__vabs2, 16, KIT_EMU_ABS(x))
KIT_EMU_SIMD_UNARY(__vabs4, 8, KIT_EMU_ABS(x))
KIT_EMU_SIMD_UNARY(__vabsss2, 16, KIT_EMU_SAT(16, true, KIT_EMU_ABS(x)))
KIT_EMU_SIMD_UNARY(__vabsss4, 8, KIT_EMU_SAT(8, true, KIT_EMU_ABS(x)))
KIT_EMU_SIMD_UNARY(__vneg2, 16, -x)
KIT_EMU_SIMD_UNARY(__vneg4, 8, -x)
KIT_EMU_SIMD_UNARY(__vnegss2, 16, KIT_EMU_SAT(16, true, -x))
KIT_EMU_SIMD_UNARY(__vnegss4, 8, KIT_EMU_SAT(8, true, -x))
/* clang-format on */
#undef KIT_EMU_SIMD
#undef KIT_EMU_SIMD_UNARY
#undef KIT_EMU_SAT

/** The sum of the lanes' absolute differences, signed lanes or not. */
KIT_EMU_HD inline unsigned int __vsads2(unsigned int a, unsigned int b)
{
    return kit_emu::simd_sum<16, true>(a, b, [](int x, int y) { return KIT_EMU_ABS(x - y); });
}
KIT_EMU_HD inline unsigned int __vsads4(unsigned int a, unsigned int b)
{
    return kit_emu::simd_sum<8, true>(a, b, [](int x, int y) { return KIT_EMU_ABS(x - y); });
}
KIT_EMU_HD inline unsigned int __vsadu2(unsigned int a, unsigned int b)
{
    return kit_emu::simd_sum<16, false>(a, b, [](int x, int y) { return KIT_EMU_ABS(x - y); });
}
KIT_EMU_HD inline unsigned int __vsadu4(unsigned int a, unsigned int b)
{
    return kit_emu::simd_sum<8, false>(a, b, [](int x, int y) { return KIT_EMU_ABS(x - y); });
}
#undef KIT_EMU_ABS

/* ---- float and double arithmetic, rounded in one direction ------------------------------------
 * KIT_EMU_ROUNDEDn(name, type, host rounding mode, expression of the operands a, b, c) */
#define KIT_EMU_ROUNDED1(name, T, mode, expr)                                                      \
    KIT_EMU_HD inline T name(T x)                                                                  \
    {                                                                                              \
        kit_emu::rounding_scope scope(mode);                                                       \
        T a = kit_emu::opaque(x);                                                                  \
        return kit_emu::gpu_nan(kit_emu::opaque<T>(expr));                                         \
    }
#define KIT_EMU_ROUNDED2(name, T, mode, expr)                                                      \
    KIT_EMU_HD inline T name(T x, T y)                                                             \
    {                                                                                              \
        kit_emu::rounding_scope scope(mode);                                                       \
        T a = kit_emu::opaque(x), b = kit_emu::opaque(y);                                          \
        return kit_emu::gpu_nan(kit_emu::opaque<T>(expr));                                         \
    }
#define KIT_EMU_ROUNDED3(name, T, mode, expr)                                                      \
    KIT_EMU_HD inline T name(T x, T y, T z)                                                        \
    {                                                                                              \
        kit_emu::rounding_scope scope(mode);                                                       \
        T a = kit_emu::opaque(x), b = kit_emu::opaque(y), c = kit_emu::opaque(z);                  \
        return kit_emu::gpu_nan(kit_emu::opaque<T>(expr));                                         \
    }
/* The four roundings of one operation: NAME_rn, _rz, _ru and _rd. */
#define KIT_EMU_ROUNDED_MODES(define, name, T, expr)                                               \
    define(name##_rn, T, FE_TONEAREST, expr) define(name##_rz, T, FE_TOWARDZERO, expr)             \
        define(name##_ru, T, FE_UPWARD, expr) define(name##_rd, T, FE_DOWNWARD, expr)
/* clang-format off */
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __fadd, float, a + b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __fsub, float, a - b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __fmul, float, a * b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __fdiv, float, a / b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED1, __frcp, float, 1.0f / a)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED1, __fsqrt, float, sqrtf(a))
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED3, __fmaf, float, fmaf(a, b, c))

KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __dadd, double, a + b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __dsub, double, a - b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __dmul, double, a * b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED2, __ddiv, double, a / b)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED1, __drcp, double, 1.0 / a)
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED1, __dsqrt, double, sqrt(a))
KIT_EMU_ROUNDED_MODES(KIT_EMU_ROUNDED3, __fma, double, fma(a, b, c))
/* clang-format on */
#undef KIT_EMU_ROUNDED1
#undef KIT_EMU_ROUNDED2
#undef KIT_EMU_ROUNDED3
#undef KIT_EMU_ROUNDED_MODES

/* ---- conversions ------------------------------------------------------------------------------
 * KIT_EMU_TO_INTEGER(name, integer type, float type, direction): saturating, as the GPU's cvt.
 * KIT_EMU_TO_FLOAT(name, result type, argument type, host rounding mode). */
#define KIT_EMU_TO_INTEGER(name, I, F, dir)                                                        \
    KIT_EMU_HD inline I name(F x)                                                                  \
    {                                                                                              \
        return kit_emu::float_to_integer<I>(x, kit_emu::dir);                                      \
    }
#define KIT_EMU_TO_FLOAT(name, R, T, mode)                                                         \
    KIT_EMU_HD inline R name(T x)                                                                  \
    {                                                                                              \
        return kit_emu::convert_rounded<R>(x, mode);                                               \
    }
/* clang-format off */
KIT_EMU_TO_INTEGER(__float2int_rn, int, float, RN)
KIT_EMU_TO_INTEGER(__float2int_rz, int, float, RZ)
KIT_EMU_TO_INTEGER(__float2int_ru, int, float, RU)
KIT_EMU_TO_INTEGER(__float2int_rd, int, float, RD)
KIT_EMU_TO_INTEGER(__float2uint_rn, unsigned int, float, RN)
KIT_EMU_TO_INTEGER(__float2uint_rz, unsigned int, float, RZ)
KIT_EMU_TO_INTEGER(__float2uint_ru, unsigned int, float, RU)
KIT_EMU_TO_INTEGER(__float2uint_rd, unsigned int, float, RD)
KIT_EMU_TO_INTEGER(__float2ll_rn, long long int, float, RN)
KIT_EMU_TO_INTEGER(__float2ll_rz, long long int, float, RZ)
KIT_EMU_TO_INTEGER(__float2ll_ru, long long int, float, RU)
KIT_EMU_TO_INTEGER(__float2ll_rd, long long int, float, RD)
KIT_EMU_TO_INTEGER(__float2ull_rn, unsigned long long int, float, RN)
KIT_EMU_TO_INTEGER(__float2ull_rz, unsigned long long int, float, RZ)
KIT_EMU_TO_INTEGER(__float2ull_ru, unsigned long long int, float, RU)
KIT_EMU_TO_INTEGER(__float2ull_rd, unsigned long long int, float, RD)
KIT_EMU_TO_INTEGER(__double2int_rn, int, double, RN)
KIT_EMU_TO_INTEGER(__double2int_rz, int, double, RZ)
KIT_EMU_TO_INTEGER(__double2int_ru, int, double, RU)
KIT_EMU_TO_INTEGER(__double2int_rd, int, double, RD)
KIT_EMU_TO_INTEGER(__double2uint_rn, unsigned int, double, RN)
KIT_EMU_TO_INTEGER(__double2uint_rz, unsigned int, double, RZ)
KIT_EMU_TO_INTEGER(__double2uint_ru, unsigned int, double, RU)
KIT_EMU_TO_INTEGER(__double2uint_rd, unsigned int, double, RD)
KIT_EMU_TO_INTEGER(__double2ll_rn, long long int, double, RN)
KIT_EMU_TO_INTEGER(__double2ll_rz, long long int, double, RZ)
KIT_EMU_TO_INTEGER(__double2ll_ru, long long int, double, RU)
KIT_EMU_TO_INTEGER(__double2ll_rd, long long int, double, RD)
KIT_EMU_TO_INTEGER(__double2ull_rn, unsigned long long int, double, RN)
KIT_EMU_TO_INTEGER(__double2ull_rz, unsigned long long int, double, RZ)
KIT_EMU_TO_INTEGER(__double2ull_ru, unsigned long long int, double, RU)
KIT_EMU_TO_INTEGER(__double2ull_rd, unsigned long long int, double, RD)

KIT_EMU_TO_FLOAT(__int2float_rn, float, int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__int2float_rz, float, int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__int2float_ru, float, int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__int2float_rd, float, int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__uint2float_rn, float, unsigned int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__uint2float_rz, float, unsigned int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__uint2float_ru, float, unsigned int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__uint2float_rd, float, unsigned int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__ll2float_rn, float, long long int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__ll2float_rz, float, long long int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__ll2float_ru, float, long long int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__ll2float_rd, float, long long int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__ull2float_rn, float, unsigned long long int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__ull2float_rz, float, unsigned long long int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__ull2float_ru, float, unsigned long long int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__ull2float_rd, float, unsigned long long int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__ll2double_rn, double, long long int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__ll2double_rz, double, long long int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__ll2double_ru, double, long long int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__ll2double_rd, double, long long int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__ull2double_rn, double, unsigned long long int, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__ull2double_rz, double, unsigned long long int, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__ull2double_ru, double, unsigned long long int, FE_UPWARD)
KIT_EMU_TO_FLOAT(__ull2double_rd, double, unsigned long long int, FE_DOWNWARD)
KIT_EMU_TO_FLOAT(__double2float_rn, float, double, FE_TONEAREST)
KIT_EMU_TO_FLOAT(__double2float_rz, float, double, FE_TOWARDZERO)
KIT_EMU_TO_FLOAT(__double2float_ru, float, double, FE_UPWARD)
KIT_EMU_TO_FLOAT(__double2float_rd, float, double, FE_DOWNWARD)
/* clang-format on */
#undef KIT_EMU_TO_INTEGER
#undef KIT_EMU_TO_FLOAT

/** Exact: every int and unsigned int is a double. */
KIT_EMU_HD inline double __int2double_rn(int x)
{
    return (double)x;
}
KIT_EMU_HD inline double __uint2double_rn(unsigned int x)
{
    return (double)x;
}

KIT_EMU_HD inline long long int __double_as_longlong(double x)
{
    return (long long)kit_emu::double_bits(x);
}
KIT_EMU_HD inline double __longlong_as_double(long long int x)
{
    return kit_emu::bits_double((unsigned long long)x);
}
/** The high and the low 32 bits of a double, and the double of two such halves. */
KIT_EMU_HD inline int __double2hiint(double x)
{
    return (int)(unsigned)(kit_emu::double_bits(x) >> 32);
}
KIT_EMU_HD inline int __double2loint(double x)
{
    return (int)(unsigned)kit_emu::double_bits(x);
}
KIT_EMU_HD inline double __hiloint2double(int hi, int lo)
{
    return kit_emu::bits_double((unsigned long long)(unsigned)hi << 32 | (unsigned)lo);
}

/* ---- fast float functions ------------------------------------------------------------------- */

/** x clamped to [0, 1]; NaN gives 0. */
KIT_EMU_HD inline float __saturatef(float x)
{
    return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f;
}
KIT_EMU_HD inline float __fdividef(float x, float y)
{
    return kit_emu::fast_fdividef(x, y);
}
/* The names glibc's <math.h> declares too, for its exact functions (above). */
#define __expf(x) kit_emu::fast_expf(x)
#define __exp10f(x) kit_emu::fast_exp10f(x)
#define __logf(x) kit_emu::fast_logf(x)
#define __log2f(x) kit_emu::fast_log2f(x)
#define __log10f(x) kit_emu::fast_log10f(x)
#define __powf(x, y) kit_emu::fast_powf(x, y)
#define __sinf(x) kit_emu::fast_sinf(x)
#define __cosf(x) kit_emu::fast_cosf(x)
#define __tanf(x) kit_emu::fast_tanf(x)
#define __sincosf(x, sptr, cptr) kit_emu::fast_sincosf(x, sptr, cptr)

/* rsqrtf, rsqrt, sincosf and sincos: templates, so that where the C library has its own (glibc
 * declares sincosf and sincos, and rsqrtf and rsqrt since C23), the library's is called and these
 * are never in the way. */
template <typename KitEmuT = void> KIT_EMU_HD inline float rsqrtf(float x)
{
    return kit_emu::gpu_nan(1.0f / sqrtf(x));
}
template <typename KitEmuT = void> KIT_EMU_HD inline double rsqrt(double x)
{
    return 1.0 / sqrt(x);
}
template <typename KitEmuT = void> KIT_EMU_HD inline void sincosf(float x, float *sptr, float *cptr)
{
    *sptr = sinf(x);
    *cptr = cosf(x);
}
template <typename KitEmuT = void>
KIT_EMU_HD inline void sincos(double x, double *sptr, double *cptr)
{
    *sptr = sin(x);
    *cptr = cos(x);
}

/* ---- loads and stores with a cache hint: plain accesses ---------------------------------------
 */

template <typename T> KIT_EMU_HD inline T __ldca(const T *address)
{
    return *address;
}
template <typename T> KIT_EMU_HD inline T __ldcs(const T *address)
{
    return *address;
}
template <typename T> KIT_EMU_HD inline T __ldlu(const T *address)
{
    return *address;
}
/* A load that fetches again every time: what a spin-wait on another thread's flag reads with, so
 * a poll, as __ldcg. */
template <typename T> KIT_EMU_HD inline T __ldcv(const T *address, KIT_EMU_WHERE)
{
    kit_emu::poll("__ldcv", file, line);
    if constexpr (std::is_scalar<T>::value) {
        return *(const volatile T *)address;
    } else {
        return *address;
    }
}
template <typename T>
KIT_EMU_HD inline void __stwb(T *address, typename kit_emu::same_type<T>::type value)
{
    *address = value;
}
template <typename T>
KIT_EMU_HD inline void __stcs(T *address, typename kit_emu::same_type<T>::type value)
{
    *address = value;
}
template <typename T>
KIT_EMU_HD inline void __stwt(T *address, typename kit_emu::same_type<T>::type value)
{
    *address = value;
}

#endif
