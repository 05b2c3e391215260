/*
 * The device side of the kit's CPU emulation (emulation/README.md), C++17: the built-in
 * variables, barriers, shared memory, atomics and intrinsics a kernel uses, and what a rewritten
 * `k<<<grid, block, shmem, stream>>>(args)` calls. Every emulated GPU thread is a fiber; a
 * fiber runs until it waits (a barrier, a grid sync, a poll of memory), and the runtime
 * (emulation/src/) decides which fiber runs next.
 *
 * Device functions here take the caller's file and line as defaulted arguments
 * (__builtin_FILE(), __builtin_LINE()), so an error names the line of the student's code.
 */
#ifndef KIT_EMU_DEVICE_H
#define KIT_EMU_DEVICE_H

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The C library as device code may call it (printf, memcpy, memset, malloc, free, assert), as
 * CUDA provides it on the device: while cu2cpp.py parses, clang takes the C library's functions
 * for host functions, which device code may not call, so they are declared again for the device
 * (as clang's own CUDA headers do). When the rewrite is compiled they are the host's. */
#if defined(KIT_EMU_PARSE)
extern "C" {
__attribute__((device)) int printf(const char *, ...);
__attribute__((device)) void *memcpy(void *, const void *, size_t);
__attribute__((device)) void *memset(void *, int, size_t);
__attribute__((device)) void *malloc(size_t);
__attribute__((device)) void free(void *);
__attribute__((device)) void __assert_fail(const char *, const char *, unsigned int, const char *);
__attribute__((device)) clock_t clock(void);
}
#endif
#include "kit_emu_parse_math.h"
#if defined(KIT_EMU_PARSE)
/* new and delete in device code (CUDA allocates from the device heap; the emulation from the
 * host's), placement new included. */
__attribute__((device)) void *operator new(size_t);
__attribute__((device)) void *operator new[](size_t);
__attribute__((device)) void operator delete(void *) noexcept;
__attribute__((device)) void operator delete[](void *) noexcept;
__attribute__((device)) void operator delete(void *, size_t) noexcept;
__attribute__((device)) void operator delete[](void *, size_t) noexcept;
__attribute__((device)) inline void *operator new(size_t, void *p) noexcept
{
    return p;
}
__attribute__((device)) inline void *operator new[](size_t, void *p) noexcept
{
    return p;
}
#endif

#include <memory>
#include <new> /* placement new, which device code may use as CUDA allows */
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

/* After the C++ headers above, as libstdc++ writes __attribute__((__noinline__)) (in <memory>):
 * a .cu file that includes such a header itself after this one breaks, as under nvcc. */
#ifndef KIT_EMU_RUNTIME
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#endif

#define KIT_EMU_WHERE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace kit_emu
{

/** What one emulated GPU thread sees of itself; the runtime points current_thread at it. */
struct thread_state {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
    /* Nonzero while the thread is inside the emulation's own code (::preempt_guard, or a plain
     * count in the hottest paths): the scheduler may then not preempt it
     * (emulation/src/signals.cpp). */
    int no_preempt;
    /* What cudaGetLastError() gives in device code: the thread's last launch that failed. */
    cudaError_t last_error;
    /* What the race detector (emulation/src/race.cpp) knows of the thread: its block's record
     * (NULL: no detection), its rank there, whether it is inside an atomic, how many fences it
     * has made and how many stores (a store's number tells two stores apart). */
    void *race_block;
    unsigned race_rank;
    unsigned race_atomic;
    unsigned race_fences;
    unsigned race_stores;
    /* Its last two reads of one word each, and the words' values then: a change by the next
     * time the thread is seen is a store of its own that the compiler folded into such a
     * read's instruction (`s[i] += s[j]` loads s[i], then s[j], and stores s[i] unreported). */
    uintptr_t race_last_read[2];
    unsigned race_last_value[2];
    unsigned char race_last_bytes[2], race_last_atomic[2];
    const void *race_last_pc[2];
};

/** The running GPU thread, or NULL while host code runs: one per host thread (a program may
 * run host code on one thread while another's kernel runs; api.cpp's host_call). */
extern __thread thread_state *current_thread; /* (__thread: no C++ TLS wrapper to import) */

/**
 * Marks a stretch of device-side code that must not be interrupted by the scheduler's
 * preemption of a thread that runs too long without waiting (an atomic's read-modify-write,
 * the runtime's bookkeeping): one per scope, on the running thread.
 */
struct preempt_guard {
    thread_state *t;
    KIT_EMU_HD preempt_guard() : t(current_thread)
    {
        if (t) {
            t->no_preempt++;
        }
    }
    KIT_EMU_HD ~preempt_guard()
    {
        if (t) {
            t->no_preempt--;
        }
    }
    preempt_guard(const preempt_guard &) = delete;
    preempt_guard &operator=(const preempt_guard &) = delete;
};

/** Stops the program: a built-in variable or device function used outside a kernel. */
[[noreturn]] KIT_EMU_HD void outside_kernel(const char *what, const char *file, int line);

/* Not instrumented: the emulation's own memory, which the race detector need not see. */
__attribute__((no_sanitize_address, always_inline)) KIT_EMU_HD inline thread_state &
current(const char *what, const char *file, int line)
{
    if (!current_thread) {
        outside_kernel(what, file, line);
    }
    return *current_thread;
}

/**
 * Ends the running launch with @p err (a sticky error, as a GPU fault is), after printing
 * "emulation: <kernel>: <message>" with the thread, the block and the thread order.
 */
[[noreturn]] void fault(cudaError_t err, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/** A __threadfence() of the running thread, counted by the race detector (race.cpp). */
KIT_EMU_HD void race_fence();

/** A device feature the emulation does not model: stops the launch, naming it. */
[[noreturn]] KIT_EMU_HD void unsupported(const char *what, const char *file, int line);

/** Waits at a block barrier (__syncthreads and friends); returns the block's reduction of
 * @p predicate: 0 none, 1 count, 2 and, 3 or. */
KIT_EMU_HD int block_barrier(int predicate, int reduce, const char *file, int line);

/** Waits at the grid barrier of a cooperative launch. */
KIT_EMU_HD void grid_barrier(const char *file, int line);

/** An atomic has been done: @p changed whether it wrote a new value (progress), else it was a
 * poll, and the fiber lets the others run. */
KIT_EMU_HD void atomic_done(bool changed, const char *file, int line);

/** A poll of memory (__nanosleep, __ldcg): lets the other fibers run. */
KIT_EMU_HD void poll(const char *what, const char *file, int line);

/** The block's instance of a `__shared__` variable (@p tag is unique to its declaration):
 * allocated, exactly @p bytes, and poisoned when the first thread of the block reaches it. */
KIT_EMU_HD void *shared_var(const void *tag, size_t bytes, size_t align, const char *name,
                            const char *file, int line);

/** The block's dynamic shared memory (`extern __shared__`): the launch's shmem bytes. */
KIT_EMU_HD void *dynamic_shared(size_t align, const char *name, const char *file, int line);

/* ---- warp-level functions ------------------------------------------------------------------- */

/** The warp-level functions (__syncwarp, the shuffles, the votes, __match_*_sync, the
 * reductions): what warp_collective() computes. */
enum warp_op {
    WARP_SYNC,
    WARP_SHFL_IDX,
    WARP_SHFL_UP,
    WARP_SHFL_DOWN,
    WARP_SHFL_XOR,
    WARP_BALLOT,
    WARP_ANY,
    WARP_ALL,
    WARP_MATCH_ANY,
    WARP_MATCH_ALL,
    WARP_REDUCE_ADD,
    WARP_REDUCE_MIN,
    WARP_REDUCE_MAX,
    WARP_REDUCE_AND,
    WARP_REDUCE_OR,
    WARP_REDUCE_XOR
};

/**
 * The calling lane's part in the warp-level function @p op over the lanes of @p mask: it brings
 * @p value (@p bytes of it are the type's), @p param (the source lane, delta or lane mask of a
 * shuffle; 1 for a signed reduction) and @p width (a shuffle's); it waits until every lane of
 * @p mask has called @p op with the same mask, and returns its own result (__match_all_sync:
 * the mask in the low 32 bits, the predicate in bit 32).
 */
KIT_EMU_HD unsigned long long warp_collective(int op, unsigned mask, unsigned long long value,
                                              unsigned bytes, long long param, int width,
                                              const char *file, int line);

/** __activemask(): the lanes of the caller's warp that call it at the same line at the same
 * time (in the same round of the scheduler), which is what "converged" means here. */
KIT_EMU_HD unsigned active_mask(const char *file, int line);

/** A value of a warp-level function, as the runtime carries it: its bytes, zero-extended. */
template <typename T> KIT_EMU_HD inline unsigned long long warp_bits(T value)
{
    static_assert(sizeof(T) <= sizeof(unsigned long long) && std::is_trivially_copyable<T>::value,
                  "a warp-level function's value is at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof value);
    return bits;
}

template <typename T> KIT_EMU_HD inline T warp_value(unsigned long long bits)
{
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* ---- launches -------------------------------------------------------------------------------- */

/** What `<<<grid, block, shmem, stream>>>` says. */
struct config {
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
    KIT_EMU_HD config(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0)
        : grid(g), block(b), shared_bytes(s), stream(st)
    {
    }
};

/** Runs one GPU thread's call of the kernel, from a closure the launch holds. */
typedef void (*invoke_fn)(const void *closure);

/**
 * Launches @p func: every GPU thread of the grid calls invoke(closure) on a fiber of its own.
 * The error (a bad configuration, or a fault of the kernel) is what cudaGetLastError and the
 * next synchronizing call report.
 */
KIT_EMU_HD cudaError_t launch_kernel(const void *func, const config &c, invoke_fn invoke,
                                     const void *closure, bool cooperative, const char *file,
                                     int line);

/**
 * launch_kernel() of a closure the launch owns (`new`, freed by @p destroy): a launch on a
 * stream the program created waits in the stream's queue with it, and runs when the stream gets
 * there (emulation/src/api.cpp, "streams and events").
 */
KIT_EMU_HD cudaError_t launch_kernel_owned(const void *func, const config &c, invoke_fn invoke,
                                           void *closure, void (*destroy)(void *), const char *file,
                                           int line);

/** cudaLaunchKernel and cudaLaunchCooperativeKernel: @p args as those take them. */
cudaError_t launch_with_args(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream, bool cooperative, const char *file, int line);

/** What `k<<<...>>>` becomes: launch(k, config(...), file, line)(args...). */
template <typename... P> struct kernel_call {
    void (*kernel)(P...);
    config cfg;
    const char *file;
    int line;

    /* The arguments convert to the kernel's parameter types as in a call; each GPU thread
     * gets its own copy of them, as a kernel's parameters are its own. The launch keeps them
     * (a copy on the heap) until it runs: on a created stream, later. */
    KIT_EMU_HD void operator()(P... args) const
    {
        struct closure {
            void (*kernel)(P...);
            std::tuple<P...> args;
        };
        launch_kernel_owned((const void *)kernel, cfg,
                            [](const void *p) {
                                const closure *cl = static_cast<const closure *>(p);
                                std::apply(cl->kernel, cl->args);
                            },
                            new closure{kernel, std::tuple<P...>(args...)},
                            [](void *p) { delete static_cast<closure *>(p); }, file, line);
    }
};

/** Calls a kernel with the arguments of a cudaLaunchKernel-style `void **args`. */
typedef void (*invoke_args_fn)(const void *func, void **args);

/** Records a kernel's name and how to call it from `void **args` (cu2cpp.py writes one per
 * kernel of the file, at its end). */
void register_kernel(const void *func, const char *name, const char *file, int line,
                     invoke_args_fn invoke);
/** Whether @p func is a registered kernel. */
bool kernel_known(const void *func);

template <typename... P> void invoke_with_args(const void *func, void **args);

/** An instance of a kernel template (cu2cpp.py registers the kernels a file defines, not the
 * instances of its templates): registered when the program first launches it or asks about it,
 * under the name written at the launch (`sort_tile<float>`). */
extern const char TEMPLATE_INSTANCE[]; /* the name of an instance not launched yet */
/** Names an instance registered as TEMPLATE_INSTANCE after the kernel as launched. */
void name_kernel(const void *func, const char *name, const char *file, int line);

/* A kernel passed as `(const void *)kernel`: it is registered already, or unknown. */
KIT_EMU_HD inline void know_kernel(const void *) {}

template <typename... P>
KIT_EMU_HD inline void know_kernel(void (*kernel)(P...), const char *name = TEMPLATE_INSTANCE,
                                   const char *file = "?", int line = 0)
{
    if (!kernel_known((const void *)kernel)) {
        register_kernel((const void *)kernel, name, file, line, &invoke_with_args<P...>);
    } else if (name != TEMPLATE_INSTANCE) {
        name_kernel((const void *)kernel, name, file, line);
    }
}

template <typename... P>
KIT_EMU_HD kernel_call<P...> launch(void (*kernel)(P...), const config &c, const char *file,
                                    int line, const char *name = TEMPLATE_INSTANCE)
{
    know_kernel(kernel, name, file, line);
    return kernel_call<P...>{kernel, c, file, line};
}

template <typename... P, size_t... I>
void call_with_args(void (*kernel)(P...), void **args, std::index_sequence<I...>)
{
    kernel(*static_cast<P *>(args[I])...);
}

template <typename... P> void invoke_with_args(const void *func, void **args)
{
    call_with_args((void (*)(P...))func, args, std::index_sequence_for<P...>{});
}

/** Records a `__device__` or `__constant__` variable of the program, so that the symbol calls
 * find it and copies to it count as copies to device memory (cu2cpp.py writes one per such
 * variable of the file, at its end). */
void register_symbol(const void *address, size_t bytes, const char *name);

struct symbol_registration {
    symbol_registration(const void *address, size_t bytes, const char *name)
    {
        register_symbol(address, bytes, name);
    }
};

/** Stops the program (exit 2) when @p source, the .cu file it was built from, changed after
 * it was built: a student who runs an emulated test binary by hand after an edit would
 * otherwise test the code of before (cu2cpp.py writes one per file, at its end). */
void check_fresh(const char *source);

struct source_freshness {
    explicit source_freshness(const char *source)
    {
        check_fresh(source);
    }
};

struct kernel_registration {
    template <typename... P>
    kernel_registration(void (*kernel)(P...), const char *name, const char *file, int line)
    {
        register_kernel((const void *)kernel, name, file, line, &invoke_with_args<P...>);
    }
};

/* ---- atomics ---------------------------------------------------------------------------------
 * One OS thread runs every fiber, so a read-modify-write is atomic by construction; what the
 * emulation adds is the scheduling: an atomic that changes nothing is a poll. */
template <typename T, typename F>
KIT_EMU_HD inline T atomic_rmw(T *address, F op, const char *file, int line)
{
    /* No other thread may run between the read and the write (a plain count, not a
     * preempt_guard: an object on the stack costs much under AddressSanitizer). */
    thread_state *t = current_thread;
    if (t) {
        t->no_preempt++;
        t->race_atomic++; /* its read and write are an atomic's, for the race detector */
    }
    T old = *address;
    T updated = op(old);
    *address = updated;
    if (t) {
        t->race_atomic--;
        t->no_preempt--;
    }
    /* Bytes, not ==: a float that stays NaN has changed nothing either. */
    const unsigned char *a = reinterpret_cast<const unsigned char *>(&old);
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&updated);
    bool changed = false;
    for (size_t i = 0; i < sizeof old; i++) {
        changed |= a[i] != b[i];
    }
    atomic_done(changed, file, line);
    return old;
}

} // namespace kit_emu

/* ---- built-in variables ---------------------------------------------------------------------- */

#ifndef KIT_EMU_RUNTIME
/* Read by value, in functions AddressSanitizer does not instrument: the emulation's own memory,
 * which every thread reads often and the race detector need not see (a call per read). */
namespace kit_emu
{
#define KIT_EMU_BUILTIN(function, field, T, name)                                                  \
    __attribute__((no_sanitize_address)) KIT_EMU_HD inline T function(const char *file, int line)  \
    {                                                                                              \
        return current(name, file, line).field;                                                    \
    }
KIT_EMU_BUILTIN(thread_idx, thread_idx, uint3, "threadIdx")
KIT_EMU_BUILTIN(block_idx, block_idx, uint3, "blockIdx")
KIT_EMU_BUILTIN(block_dim, block_dim, dim3, "blockDim")
KIT_EMU_BUILTIN(grid_dim, grid_dim, dim3, "gridDim")
#undef KIT_EMU_BUILTIN
} // namespace kit_emu
#define threadIdx (::kit_emu::thread_idx(__FILE__, __LINE__))
#define blockIdx (::kit_emu::block_idx(__FILE__, __LINE__))
#define blockDim (::kit_emu::block_dim(__FILE__, __LINE__))
#define gridDim (::kit_emu::grid_dim(__FILE__, __LINE__))
#endif
/* A variable, as in CUDA (a macro would break cudaDeviceProp's field of that name). */
constexpr int warpSize = 32;

/* ---- barriers -------------------------------------------------------------------------------- */

KIT_EMU_HD inline void __syncthreads(KIT_EMU_WHERE)
{
    kit_emu::block_barrier(0, 0, file, line);
}
KIT_EMU_HD inline int __syncthreads_count(int predicate, KIT_EMU_WHERE)
{
    return kit_emu::block_barrier(predicate, 1, file, line);
}
KIT_EMU_HD inline int __syncthreads_and(int predicate, KIT_EMU_WHERE)
{
    return kit_emu::block_barrier(predicate, 2, file, line);
}
KIT_EMU_HD inline int __syncthreads_or(int predicate, KIT_EMU_WHERE)
{
    return kit_emu::block_barrier(predicate, 3, file, line);
}

/* Memory fences order one thread's writes as other threads see them; with one OS thread every
 * write is seen at once. The race detector counts them: two halves of a word written with no
 * fence between them may be read torn by another block (emulation/src/race.cpp). */
KIT_EMU_HD inline void __threadfence(void)
{
    kit_emu::race_fence();
}
KIT_EMU_HD inline void __threadfence_block(void)
{
    __threadfence();
}
KIT_EMU_HD inline void __threadfence_system(void)
{
    __threadfence();
}

/* __trap(): the kernel stops with an error, as a GPU's does (cudaErrorLaunchFailure there too). */
[[noreturn]] KIT_EMU_HD inline void __trap(KIT_EMU_WHERE)
{
    kit_emu::fault(cudaErrorLaunchFailure, file, line, "__trap() was called");
}

KIT_EMU_HD inline void __nanosleep(unsigned ns, KIT_EMU_WHERE)
{
    (void)ns;
    kit_emu::poll("__nanosleep", file, line);
}

/* ---- warp-level functions --------------------------------------------------------------------
 * Computed in lockstep over the lanes of the mask: each lane that calls one waits until every
 * lane its mask names has called the same function with the same mask; then the results of all
 * of them are computed at once from the values they brought (kit_emu::warp_collective). A lane
 * the mask names that cannot arrive (it returned, or waits at a barrier or at another warp
 * function that waits for this lane) is an error naming the kernel and the line, as is a mask
 * that leaves out the calling lane or names lanes the block does not have. */

KIT_EMU_HD inline void __syncwarp(unsigned mask = 0xffffffffu, KIT_EMU_WHERE)
{
    kit_emu::warp_collective(kit_emu::WARP_SYNC, mask, 0, 0, 0, 32, file, line);
}

KIT_EMU_HD inline unsigned __activemask(KIT_EMU_WHERE)
{
    return kit_emu::active_mask(file, line);
}

/* The shuffles and __match_*_sync, for each type CUDA has them for (other integer types promote
 * to int, as with nvcc). */
#define KIT_EMU_WARP_TYPE(T)                                                                       \
    KIT_EMU_HD inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize,       \
                                    KIT_EMU_WHERE)                                                 \
    {                                                                                              \
        return kit_emu::warp_value<T>(kit_emu::warp_collective(kit_emu::WARP_SHFL_IDX, mask,       \
                                                               kit_emu::warp_bits(var), sizeof(T), \
                                                               srcLane, width, file, line));       \
    }                                                                                              \
    KIT_EMU_HD inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta,                   \
                                       int width = warpSize, KIT_EMU_WHERE)                        \
    {                                                                                              \
        return kit_emu::warp_value<T>(kit_emu::warp_collective(kit_emu::WARP_SHFL_UP, mask,        \
                                                               kit_emu::warp_bits(var), sizeof(T), \
                                                               delta, width, file, line));         \
    }                                                                                              \
    KIT_EMU_HD inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta,                 \
                                         int width = warpSize, KIT_EMU_WHERE)                      \
    {                                                                                              \
        return kit_emu::warp_value<T>(kit_emu::warp_collective(kit_emu::WARP_SHFL_DOWN, mask,      \
                                                               kit_emu::warp_bits(var), sizeof(T), \
                                                               delta, width, file, line));         \
    }                                                                                              \
    KIT_EMU_HD inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,  \
                                        KIT_EMU_WHERE)                                             \
    {                                                                                              \
        return kit_emu::warp_value<T>(kit_emu::warp_collective(kit_emu::WARP_SHFL_XOR, mask,       \
                                                               kit_emu::warp_bits(var), sizeof(T), \
                                                               laneMask, width, file, line));      \
    }                                                                                              \
    KIT_EMU_HD inline unsigned __match_any_sync(unsigned mask, T value, KIT_EMU_WHERE)             \
    {                                                                                              \
        return (unsigned)kit_emu::warp_collective(kit_emu::WARP_MATCH_ANY, mask,                   \
                                                  kit_emu::warp_bits(value), sizeof(T), 0, 32,     \
                                                  file, line);                                     \
    }                                                                                              \
    KIT_EMU_HD inline unsigned __match_all_sync(unsigned mask, T value, int *pred, KIT_EMU_WHERE)  \
    {                                                                                              \
        unsigned long long r =                                                                     \
            kit_emu::warp_collective(kit_emu::WARP_MATCH_ALL, mask, kit_emu::warp_bits(value),     \
                                     sizeof(T), 0, 32, file, line);                                \
        *pred = (int)(r >> 32);                                                                    \
        return (unsigned)r;                                                                        \
    }
KIT_EMU_WARP_TYPE(int)
KIT_EMU_WARP_TYPE(unsigned int)
KIT_EMU_WARP_TYPE(long)
KIT_EMU_WARP_TYPE(unsigned long)
KIT_EMU_WARP_TYPE(long long)
KIT_EMU_WARP_TYPE(unsigned long long)
KIT_EMU_WARP_TYPE(float)
KIT_EMU_WARP_TYPE(double)
#undef KIT_EMU_WARP_TYPE

KIT_EMU_HD inline unsigned __ballot_sync(unsigned mask, int predicate, KIT_EMU_WHERE)
{
    return (unsigned)kit_emu::warp_collective(kit_emu::WARP_BALLOT, mask, predicate != 0, 4, 0, 32,
                                              file, line);
}
KIT_EMU_HD inline int __any_sync(unsigned mask, int predicate, KIT_EMU_WHERE)
{
    return (int)kit_emu::warp_collective(kit_emu::WARP_ANY, mask, predicate != 0, 4, 0, 32, file,
                                         line);
}
KIT_EMU_HD inline int __all_sync(unsigned mask, int predicate, KIT_EMU_WHERE)
{
    return (int)kit_emu::warp_collective(kit_emu::WARP_ALL, mask, predicate != 0, 4, 0, 32, file,
                                         line);
}

/* The warp reductions of sm_80 and later: add, min and max of int or unsigned, and, or and xor
 * of unsigned (param 1: signed). */
#define KIT_EMU_WARP_REDUCE(name, op, T, is_signed)                                                \
    KIT_EMU_HD inline T name(unsigned mask, T value, KIT_EMU_WHERE)                                \
    {                                                                                              \
        return (T)kit_emu::warp_collective(kit_emu::op, mask, (unsigned)value, 4, is_signed, 32,   \
                                           file, line);                                            \
    }
KIT_EMU_WARP_REDUCE(__reduce_add_sync, WARP_REDUCE_ADD, unsigned, 0)
KIT_EMU_WARP_REDUCE(__reduce_add_sync, WARP_REDUCE_ADD, int, 1)
KIT_EMU_WARP_REDUCE(__reduce_min_sync, WARP_REDUCE_MIN, unsigned, 0)
KIT_EMU_WARP_REDUCE(__reduce_min_sync, WARP_REDUCE_MIN, int, 1)
KIT_EMU_WARP_REDUCE(__reduce_max_sync, WARP_REDUCE_MAX, unsigned, 0)
KIT_EMU_WARP_REDUCE(__reduce_max_sync, WARP_REDUCE_MAX, int, 1)
KIT_EMU_WARP_REDUCE(__reduce_and_sync, WARP_REDUCE_AND, unsigned, 0)
KIT_EMU_WARP_REDUCE(__reduce_or_sync, WARP_REDUCE_OR, unsigned, 0)
KIT_EMU_WARP_REDUCE(__reduce_xor_sync, WARP_REDUCE_XOR, unsigned, 0)
#undef KIT_EMU_WARP_REDUCE

/* ---- atomics --------------------------------------------------------------------------------- */

#define KIT_EMU_ATOMIC(name, T, expr)                                                              \
    KIT_EMU_HD inline T name(T *address, T val, KIT_EMU_WHERE)                                     \
    {                                                                                              \
        return kit_emu::atomic_rmw(                                                                \
            address, [val]([[maybe_unused]] T old) -> T { return (expr); }, file, line);           \
    }
#define KIT_EMU_ATOMIC_INTEGERS(name, expr)                                                        \
    KIT_EMU_ATOMIC(name, int, expr)                                                                \
    KIT_EMU_ATOMIC(name, unsigned int, expr)                                                       \
    KIT_EMU_ATOMIC(name, unsigned long long, expr)

KIT_EMU_ATOMIC_INTEGERS(atomicAdd, old + val)
KIT_EMU_ATOMIC(atomicAdd, float, old + val)
KIT_EMU_ATOMIC(atomicAdd, double, old + val)
KIT_EMU_ATOMIC(atomicSub, int, old - val)
KIT_EMU_ATOMIC(atomicSub, unsigned int, old - val)
KIT_EMU_ATOMIC_INTEGERS(atomicExch, val)
KIT_EMU_ATOMIC(atomicExch, float, val)
KIT_EMU_ATOMIC_INTEGERS(atomicMin, val < old ? val : old)
KIT_EMU_ATOMIC(atomicMin, long long, val < old ? val : old)
KIT_EMU_ATOMIC_INTEGERS(atomicMax, val > old ? val : old)
KIT_EMU_ATOMIC(atomicMax, long long, val > old ? val : old)
KIT_EMU_ATOMIC_INTEGERS(atomicAnd, old &val)
KIT_EMU_ATOMIC_INTEGERS(atomicOr, old | val)
KIT_EMU_ATOMIC_INTEGERS(atomicXor, old ^ val)
KIT_EMU_ATOMIC(atomicInc, unsigned int, old >= val ? 0u : old + 1u)
KIT_EMU_ATOMIC(atomicDec, unsigned int, (old == 0u || old > val) ? val : old - 1u)

/* The scoped atomics of sm_60 and later (atomicAdd_block, atomicAdd_system, ...): one OS thread
 * runs every emulated thread, so every scope is the same atomic. */
#define KIT_EMU_ATOMIC_SCOPES(name)                                                                \
    template <typename T, typename V> KIT_EMU_HD inline T name##_block(T *a, V v, KIT_EMU_WHERE)   \
    {                                                                                              \
        return name(a, (T)v, file, line);                                                          \
    }                                                                                              \
    template <typename T, typename V> KIT_EMU_HD inline T name##_system(T *a, V v, KIT_EMU_WHERE)  \
    {                                                                                              \
        return name(a, (T)v, file, line);                                                          \
    }
KIT_EMU_ATOMIC_SCOPES(atomicAdd)
KIT_EMU_ATOMIC_SCOPES(atomicSub)
KIT_EMU_ATOMIC_SCOPES(atomicExch)
KIT_EMU_ATOMIC_SCOPES(atomicMin)
KIT_EMU_ATOMIC_SCOPES(atomicMax)
KIT_EMU_ATOMIC_SCOPES(atomicAnd)
KIT_EMU_ATOMIC_SCOPES(atomicOr)
KIT_EMU_ATOMIC_SCOPES(atomicXor)
KIT_EMU_ATOMIC_SCOPES(atomicInc)
KIT_EMU_ATOMIC_SCOPES(atomicDec)
#undef KIT_EMU_ATOMIC_SCOPES

#define KIT_EMU_ATOMIC_CAS(T)                                                                      \
    KIT_EMU_HD inline T atomicCAS(T *address, T compare, T val, KIT_EMU_WHERE)                     \
    {                                                                                              \
        return kit_emu::atomic_rmw(                                                                \
            address, [compare, val](T old) -> T { return old == compare ? val : old; }, file,      \
            line);                                                                                 \
    }
KIT_EMU_ATOMIC_CAS(int)
KIT_EMU_ATOMIC_CAS(unsigned int)
KIT_EMU_ATOMIC_CAS(unsigned long long)
KIT_EMU_ATOMIC_CAS(unsigned short)
template <typename T> KIT_EMU_HD inline T atomicCAS_block(T *a, T compare, T val, KIT_EMU_WHERE)
{
    return atomicCAS(a, compare, val, file, line);
}
template <typename T> KIT_EMU_HD inline T atomicCAS_system(T *a, T compare, T val, KIT_EMU_WHERE)
{
    return atomicCAS(a, compare, val, file, line);
}

/* ---- loads, bits, conversions ---------------------------------------------------------------- */

template <typename T> KIT_EMU_HD inline T __ldg(const T *address)
{
    return *address;
}
/* A load that bypasses L1 is what a spin-wait on another block's flag reads with: a poll. */
template <typename T> KIT_EMU_HD inline T __ldcg(const T *address, KIT_EMU_WHERE)
{
    kit_emu::poll("__ldcg", file, line);
    return *address;
}
template <typename T> KIT_EMU_HD inline void __stcg(T *address, T value)
{
    *address = value;
}

KIT_EMU_HD inline int __popc(unsigned int x)
{
    return __builtin_popcount(x);
}
KIT_EMU_HD inline int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}
KIT_EMU_HD inline int __clz(int x)
{
    return x == 0 ? 32 : __builtin_clz((unsigned)x);
}
KIT_EMU_HD inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
KIT_EMU_HD inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
KIT_EMU_HD inline int __ffsll(long long x)
{
    return __builtin_ffsll(x);
}
KIT_EMU_HD inline unsigned int __brev(unsigned int x)
{
    unsigned int r = 0;
    for (int i = 0; i < 32; i++, x >>= 1) {
        r = (r << 1) | (x & 1u);
    }
    return r;
}
KIT_EMU_HD inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
KIT_EMU_HD inline unsigned int __float_as_uint(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return u;
}
KIT_EMU_HD inline float __uint_as_float(unsigned int u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
KIT_EMU_HD inline int __float_as_int(float f)
{
    return (int)__float_as_uint(f);
}
KIT_EMU_HD inline float __int_as_float(int i)
{
    return __uint_as_float((unsigned)i);
}

KIT_EMU_HD long long clock64(void);

/* CUDA's min and max, for host and device code alike. */
#define KIT_EMU_MINMAX(T)                                                                          \
    KIT_EMU_HD inline T min(T a, T b)                                                              \
    {                                                                                              \
        return b < a ? b : a;                                                                      \
    }                                                                                              \
    KIT_EMU_HD inline T max(T a, T b)                                                              \
    {                                                                                              \
        return a < b ? b : a;                                                                      \
    }
KIT_EMU_MINMAX(int)
KIT_EMU_MINMAX(unsigned int)
KIT_EMU_MINMAX(long)
KIT_EMU_MINMAX(unsigned long)
KIT_EMU_MINMAX(long long)
KIT_EMU_MINMAX(unsigned long long)
KIT_EMU_MINMAX(float)
KIT_EMU_MINMAX(double)
KIT_EMU_HD inline unsigned int min(int a, unsigned int b)
{
    return min((unsigned)a, b);
}
KIT_EMU_HD inline unsigned int min(unsigned int a, int b)
{
    return min(a, (unsigned)b);
}
KIT_EMU_HD inline unsigned int max(int a, unsigned int b)
{
    return max((unsigned)a, b);
}
KIT_EMU_HD inline unsigned int max(unsigned int a, int b)
{
    return max(a, (unsigned)b);
}

/* make_int2, make_float4, ...: CUDA's make_ function for each vector type. */
#include "vector_functions.h"

/* ---- the runtime API's C++ overloads (cuda_runtime.h) ---------------------------------------- */

template <class T> inline cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return cudaMalloc((void **)devPtr, size);
}
template <class T> inline cudaError_t cudaMallocHost(T **ptr, size_t size)
{
    return cudaMallocHost((void **)ptr, size);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                     unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged((void **)devPtr, size, flags);
}
template <class T>
inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch((void **)devPtr, pitch, width, height);
}
template <class T> inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return cudaHostAlloc((void **)ptr, size, flags);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return cudaHostGetDevicePointer((void **)pDevice, pHost, flags);
}
#if !defined(KIT_EMU_RUNTIME) && !defined(KIT_EMU_PARSE)
template <class T>
inline cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shared = 0,
                                    cudaStream_t stream = 0, KIT_EMU_WHERE)
{
    kit_emu::know_kernel(func);
    return kit_emu::launch_with_args((const void *)func, grid, block, args, shared, stream, false,
                                     file, line);
}
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args,
                                               size_t shared = 0, cudaStream_t stream = 0,
                                               KIT_EMU_WHERE)
{
    kit_emu::know_kernel(func);
    return kit_emu::launch_with_args((const void *)func, grid, block, args, shared, stream, true,
                                     file, line);
}
#endif
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, T func, int size,
                                                                 size_t shared)
{
    kit_emu::know_kernel(func);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)func, size, shared);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, T func,
                                                                          int size, size_t shared,
                                                                          unsigned int flags)
{
    kit_emu::know_kernel(func);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, (const void *)func, size,
                                                                  shared, flags);
}

/**
 * cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags as CUDA's header computes it: the block
 * size (a multiple of the warp, at most @p limit when nonzero) that keeps the most threads
 * resident on an SM, the larger block on a tie; and the grid that fills the device with it.
 */
template <class T, class SharedOf>
inline cudaError_t
cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *min_grid, int *block_size, T func,
                                                        SharedOf shared_of, int limit = 0,
                                                        unsigned int flags = cudaOccupancyDefault)
{
    if (!min_grid || !block_size) {
        return cudaErrorInvalidValue;
    }
    struct cudaFuncAttributes attr;
    int sms = 0;
    cudaError_t err = cudaFuncGetAttributes(&attr, (const void *)func);
    if (err == cudaSuccess) {
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    }
    if (err != cudaSuccess) {
        return err;
    }
    int most = attr.maxThreadsPerBlock;
    if (limit > 0 && limit < most) {
        most = limit;
    }
    int best_size = 0, best_threads = 0, best_blocks = 0;
    for (int size = (most + warpSize - 1) / warpSize * warpSize; size > 0; size -= warpSize) {
        int size_now = size > most ? most : size;
        int blocks = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, (const void *)func, size_now, (size_t)shared_of(size_now), flags);
        if (err != cudaSuccess) {
            return err;
        }
        if (blocks * size_now > best_threads) {
            best_size = size_now, best_threads = blocks * size_now, best_blocks = blocks;
        }
    }
    *block_size = best_size;
    *min_grid = best_blocks * sms;
    return cudaSuccess;
}

template <class T, class SharedOf>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *min_grid, int *block_size,
                                                                  T func, SharedOf shared_of,
                                                                  int limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid, block_size, func,
                                                                   shared_of, limit);
}

template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block_size,
                                                               T func, size_t shared = 0,
                                                               int limit = 0,
                                                               unsigned int flags = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        min_grid, block_size, func, [shared](int) { return shared; }, limit, flags);
}

template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, T func,
                                                      size_t shared = 0, int limit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, func, shared, limit);
}

template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config)
{
    kit_emu::know_kernel(func);
    return cudaFuncSetCacheConfig((const void *)func, config);
}

/* The symbol calls of C++: the variable itself, not its address (symbols.cpp). */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                      size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
inline cudaError_t
cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                        enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
    return cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                             size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                             cudaStream_t stream = 0)
{
    return cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **dev_ptr, const T &symbol)
{
    return cudaGetSymbolAddress(dev_ptr, (const void *)&symbol);
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
    return cudaGetSymbolSize(size, (const void *)&symbol);
}

template <class T>
inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value)
{
    kit_emu::know_kernel(func);
    return cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T> inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, T *func)
{
    kit_emu::know_kernel(func);
    return cudaFuncGetAttributes(a, (const void *)func);
}

/* The integer and float intrinsics beyond the ones above (__umul24, umin, __fdividef, ...). */
#include "kit_emu_intrinsics.h"

#endif
