/**
 * @file remote_api.h
 * @brief Listing a lab's API once for both processes of a graded test (see remote.h).
 *
 * Each lab has a file grading/calls/api_NN_name.c that names its API functions with the macros
 * below. make compiles that file twice:
 * - as it is, for the verdict process: each macro becomes a stub with the function's own
 *   name and signature, which sends the call to the executor and returns its answer;
 * - with `-DKIT_REMOTE_EXECUTOR`, for the executor: each macro becomes a small function that
 *   unpacks the arguments and calls the student's function, registered under its name.
 *
 * `KIT_REMOTE_FNk(ret, name, budget, t0, ..., tk-1)`: a function of k = 2 .. 7 scalar arguments
 * (device pointers, sizes, flags). `budget` is how many bytes the student's code may copy from
 * the device to the host during one call (0 for a sort): the verdict side fails the call when
 * the executor counted more.
 * `KIT_REMOTE_ARRAY_FN(ret, name, elem)`: `ret name(const elem *values, size_t n)` on a host
 * array, which travels to the executor (the grader's host-only fixture labs use it).
 * `KIT_REMOTE_ARRAY_FN4(ret, name, elem, t2, t3)`: `ret name(const elem *values, size_t n,
 * t2 a2, t3 a3)`, the same with two scalar arguments after the array (Lab 02's co-rank on the
 * host). An array function runs on the host: it copies nothing from the device (budget 0).
 * Arguments must be integers or pointers (no floating point, no structs).
 */
#ifndef KIT_REMOTE_API_H
#define KIT_REMOTE_API_H

#include <stddef.h>
#include <stdint.h>

/** An argument as the 64-bit word that travels. */
#define KIT_WORD(x) ((uint64_t)(uintptr_t)(x))

#ifndef KIT_REMOTE_EXECUTOR

/**
 * Sends one API call to the executor and returns what the function returned. When the
 * executor counted more than @p d2h_budget bytes copied to the host, or when it died, the
 * failure is reported (a test failure under the runner) and the answer is an error.
 */
int64_t kit_remote_call(const char *name, uint64_t d2h_budget, const uint64_t *args, unsigned count,
                        const void *input, uint64_t input_bytes);

#define KIT_REMOTE_FN2(ret, name, budget, t0, t1)                                                  \
    ret name(t0 a0, t1 a1)                                                                         \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1)};                                         \
        return (ret)kit_remote_call(#name, budget, w, 2, NULL, 0);                                 \
    }
#define KIT_REMOTE_FN3(ret, name, budget, t0, t1, t2)                                              \
    ret name(t0 a0, t1 a1, t2 a2)                                                                  \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1), KIT_WORD(a2)};                           \
        return (ret)kit_remote_call(#name, budget, w, 3, NULL, 0);                                 \
    }
#define KIT_REMOTE_FN4(ret, name, budget, t0, t1, t2, t3)                                          \
    ret name(t0 a0, t1 a1, t2 a2, t3 a3)                                                           \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1), KIT_WORD(a2), KIT_WORD(a3)};             \
        return (ret)kit_remote_call(#name, budget, w, 4, NULL, 0);                                 \
    }
#define KIT_REMOTE_FN5(ret, name, budget, t0, t1, t2, t3, t4)                                      \
    ret name(t0 a0, t1 a1, t2 a2, t3 a3, t4 a4)                                                    \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1), KIT_WORD(a2), KIT_WORD(a3),              \
                              KIT_WORD(a4)};                                                       \
        return (ret)kit_remote_call(#name, budget, w, 5, NULL, 0);                                 \
    }
#define KIT_REMOTE_FN6(ret, name, budget, t0, t1, t2, t3, t4, t5)                                  \
    ret name(t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5)                                             \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1), KIT_WORD(a2),                            \
                              KIT_WORD(a3), KIT_WORD(a4), KIT_WORD(a5)};                           \
        return (ret)kit_remote_call(#name, budget, w, 6, NULL, 0);                                 \
    }
#define KIT_REMOTE_FN7(ret, name, budget, t0, t1, t2, t3, t4, t5, t6)                              \
    ret name(t0 a0, t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6)                                      \
    {                                                                                              \
        const uint64_t w[] = {KIT_WORD(a0), KIT_WORD(a1), KIT_WORD(a2), KIT_WORD(a3),              \
                              KIT_WORD(a4), KIT_WORD(a5), KIT_WORD(a6)};                           \
        return (ret)kit_remote_call(#name, budget, w, 7, NULL, 0);                                 \
    }
#define KIT_REMOTE_ARRAY_FN(ret, name, elem)                                                       \
    ret name(const elem *values, size_t n)                                                         \
    {                                                                                              \
        const uint64_t w[] = {0, KIT_WORD(n)};                                                     \
        return (ret)kit_remote_call(#name, 0, w, 2, values, n * sizeof *values);                   \
    }
#define KIT_REMOTE_ARRAY_FN4(ret, name, elem, t2, t3)                                              \
    ret name(const elem *values, size_t n, t2 a2, t3 a3)                                           \
    {                                                                                              \
        const uint64_t w[] = {0, KIT_WORD(n), KIT_WORD(a2), KIT_WORD(a3)};                         \
        return (ret)kit_remote_call(#name, 0, w, 4, values, n * sizeof *values);                   \
    }

#else /* KIT_REMOTE_EXECUTOR */

/** Runs one registered function on the unpacked words (and the host array, if any). */
typedef int64_t (*kit_remote_thunk)(const uint64_t *w, const void *input);

/** Called by the constructors the macros write: makes @p name callable by the verdict side. */
void kit_remote_register(const char *name, unsigned arg_count, kit_remote_thunk thunk);

/* A thunk for `name`, and a constructor that registers it before main(). */
#define KIT_REMOTE_THUNK(name, count)                                                              \
    static int64_t kit_thunk_##name(const uint64_t *w, const void *input);                         \
    __attribute__((constructor)) static void kit_register_##name(void)                             \
    {                                                                                              \
        kit_remote_register(#name, count, kit_thunk_##name);                                       \
    }                                                                                              \
    static int64_t kit_thunk_##name(const uint64_t *w, const void *input)

#define KIT_ARG(t, i) ((t)(uintptr_t)w[i])

#define KIT_REMOTE_FN2(ret, name, budget, t0, t1)                                                  \
    KIT_REMOTE_THUNK(name, 2)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1));                                      \
    }
#define KIT_REMOTE_FN3(ret, name, budget, t0, t1, t2)                                              \
    KIT_REMOTE_THUNK(name, 3)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1), KIT_ARG(t2, 2));                      \
    }
#define KIT_REMOTE_FN4(ret, name, budget, t0, t1, t2, t3)                                          \
    KIT_REMOTE_THUNK(name, 4)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1), KIT_ARG(t2, 2), KIT_ARG(t3, 3));      \
    }
#define KIT_REMOTE_FN5(ret, name, budget, t0, t1, t2, t3, t4)                                      \
    KIT_REMOTE_THUNK(name, 5)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1), KIT_ARG(t2, 2), KIT_ARG(t3, 3),       \
                             KIT_ARG(t4, 4));                                                      \
    }
#define KIT_REMOTE_FN6(ret, name, budget, t0, t1, t2, t3, t4, t5)                                  \
    KIT_REMOTE_THUNK(name, 6)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1), KIT_ARG(t2, 2), KIT_ARG(t3, 3),       \
                             KIT_ARG(t4, 4), KIT_ARG(t5, 5));                                      \
    }
#define KIT_REMOTE_FN7(ret, name, budget, t0, t1, t2, t3, t4, t5, t6)                              \
    KIT_REMOTE_THUNK(name, 7)                                                                      \
    {                                                                                              \
        (void)input;                                                                               \
        return (int64_t)name(KIT_ARG(t0, 0), KIT_ARG(t1, 1), KIT_ARG(t2, 2), KIT_ARG(t3, 3),       \
                             KIT_ARG(t4, 4), KIT_ARG(t5, 5), KIT_ARG(t6, 6));                      \
    }
#define KIT_REMOTE_ARRAY_FN(ret, name, elem)                                                       \
    KIT_REMOTE_THUNK(name, 2)                                                                      \
    {                                                                                              \
        return (int64_t)name((const elem *)input, KIT_ARG(size_t, 1));                             \
    }
#define KIT_REMOTE_ARRAY_FN4(ret, name, elem, t2, t3)                                              \
    KIT_REMOTE_THUNK(name, 4)                                                                      \
    {                                                                                              \
        return (int64_t)name((const elem *)input, KIT_ARG(size_t, 1), KIT_ARG(t2, 2),              \
                             KIT_ARG(t3, 3));                                                      \
    }

#endif /* KIT_REMOTE_EXECUTOR */

#endif
