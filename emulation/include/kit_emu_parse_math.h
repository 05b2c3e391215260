/*
 * kit_emu_parse_math.h of the kit's CPU emulation (emulation/README.md): the C math library as
 * device code calls it, declared for clang's parse of a .cu file alone (cu2cpp.py, KIT_EMU_PARSE).
 * Clang takes the C library's functions for host functions, which device code may not call, so
 * each is declared again for the device, as CUDA's own headers do: double and float in C, and the
 * float overloads of C++ (sqrt(1.0f)). When the rewrite is compiled these declarations are gone
 * and the calls are the host's, which compute what CUDA's device functions do to within their
 * documented error.
 */
#ifndef KIT_EMU_PARSE_MATH_H
#define KIT_EMU_PARSE_MATH_H
#if defined(KIT_EMU_PARSE)

#define KIT_EMU_D __attribute__((device))
/* name(x), name(x, y), name(x, y, z): double name and float name##f, in C; float name in C++. */
#define KIT_EMU_MATH_1(name)                                                                       \
    extern "C" KIT_EMU_D double name(double);                                                      \
    extern "C" KIT_EMU_D float name##f(float);                                                     \
    KIT_EMU_D float name(float);
#define KIT_EMU_MATH_2(name)                                                                       \
    extern "C" KIT_EMU_D double name(double, double);                                              \
    extern "C" KIT_EMU_D float name##f(float, float);                                              \
    KIT_EMU_D float name(float, float);
#define KIT_EMU_MATH_3(name)                                                                       \
    extern "C" KIT_EMU_D double name(double, double, double);                                      \
    extern "C" KIT_EMU_D float name##f(float, float, float);                                       \
    KIT_EMU_D float name(float, float, float);
/* f(x, extra): frexp(x, int *), ldexp(x, int), ... */
#define KIT_EMU_MATH_X(name, extra_d, extra_f)                                                     \
    extern "C" KIT_EMU_D double name(double, extra_d);                                             \
    extern "C" KIT_EMU_D float name##f(float, extra_f);                                            \
    KIT_EMU_D float name(float, extra_f);
/* r f(x): an integer of a real */
#define KIT_EMU_MATH_R(r, name)                                                                    \
    extern "C" KIT_EMU_D r name(double);                                                           \
    extern "C" KIT_EMU_D r name##f(float);                                                         \
    KIT_EMU_D r name(float);

/* clang-format off */
KIT_EMU_MATH_1(acos) KIT_EMU_MATH_1(asin) KIT_EMU_MATH_1(atan) KIT_EMU_MATH_1(acosh)
KIT_EMU_MATH_1(asinh) KIT_EMU_MATH_1(atanh) KIT_EMU_MATH_1(cbrt) KIT_EMU_MATH_1(ceil)
KIT_EMU_MATH_1(cos) KIT_EMU_MATH_1(cosh) KIT_EMU_MATH_1(erf) KIT_EMU_MATH_1(erfc)
KIT_EMU_MATH_1(exp) KIT_EMU_MATH_1(exp2) KIT_EMU_MATH_1(expm1) KIT_EMU_MATH_1(fabs)
KIT_EMU_MATH_1(floor) KIT_EMU_MATH_1(lgamma) KIT_EMU_MATH_1(log) KIT_EMU_MATH_1(log10)
KIT_EMU_MATH_1(log1p) KIT_EMU_MATH_1(log2) KIT_EMU_MATH_1(logb) KIT_EMU_MATH_1(nearbyint)
KIT_EMU_MATH_1(rint) KIT_EMU_MATH_1(round) KIT_EMU_MATH_1(sin) KIT_EMU_MATH_1(sinh)
KIT_EMU_MATH_1(sqrt) KIT_EMU_MATH_1(tan) KIT_EMU_MATH_1(tanh) KIT_EMU_MATH_1(tgamma)
KIT_EMU_MATH_1(trunc)
KIT_EMU_MATH_2(atan2) KIT_EMU_MATH_2(copysign) KIT_EMU_MATH_2(fdim) KIT_EMU_MATH_2(fmax)
KIT_EMU_MATH_2(fmin) KIT_EMU_MATH_2(fmod) KIT_EMU_MATH_2(hypot) KIT_EMU_MATH_2(nextafter)
KIT_EMU_MATH_2(pow) KIT_EMU_MATH_2(remainder)
KIT_EMU_MATH_3(fma)
KIT_EMU_MATH_X(frexp, int *, int *) KIT_EMU_MATH_X(ldexp, int, int)
KIT_EMU_MATH_X(scalbn, int, int) KIT_EMU_MATH_X(modf, double *, float *)
KIT_EMU_MATH_R(int, ilogb) KIT_EMU_MATH_R(long, lround) KIT_EMU_MATH_R(long long, llround)
KIT_EMU_MATH_R(long, lrint) KIT_EMU_MATH_R(long long, llrint)
    /* clang-format on */

    extern "C" KIT_EMU_D int abs(int);
extern "C" KIT_EMU_D long labs(long);
extern "C" KIT_EMU_D long long llabs(long long);
extern "C" KIT_EMU_D void sincos(double, double *, double *);
extern "C" KIT_EMU_D void sincosf(float, float *, float *);

#undef KIT_EMU_MATH_1
#undef KIT_EMU_MATH_2
#undef KIT_EMU_MATH_3
#undef KIT_EMU_MATH_X
#undef KIT_EMU_MATH_R
#undef KIT_EMU_D

#endif
#endif
