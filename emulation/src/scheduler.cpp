/*
 * The device side of the kit's CPU emulation (emulation/README.md): launches, the scheduler
 * of the fibers that are the GPU threads, barriers, shared memory, and the checks a GPU cannot
 * make (thread orders, divergent barriers, deadlocks, poisoned shared memory).
 *
 * One OS thread runs everything. A launch runs its blocks one after another (all at once for a
 * cooperative launch, whose grid.sync() needs every block alive). Within the blocks that run,
 * the scheduler goes in rounds: each round resumes every runnable fiber once, in the thread
 * order of the run (KIT_EMU_ORDER: forward, reverse, random[:SEED]); a fiber runs until it
 * waits at a barrier, polls memory, or returns. After a round, a barrier every live thread of
 * the block waits at is released, or found divergent; a round where no thread can go on, or
 * many rounds without progress, is a deadlock. Each fault ends the launch with a sticky CUDA
 * error and a message naming the kernel, the line, the block and the thread.
 */
#include "internal.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fiber.h"

#if KIT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace kit_emu
{

thread_state *current_thread = NULL;

/* ---- settings -------------------------------------------------------------------------------- */

settings_t settings;

static void read_settings()
{
    static bool done = false;
    if (done) {
        return;
    }
    done = true;
    settings.order = ORDER_FORWARD;
    settings.compare = false;
    settings.seed = 1;
    settings.timeout_s = 20;
    settings.spin_rounds = 20000;
    const char *order = getenv("KIT_EMU_ORDER");
    if (order && *order) {
        if (strcmp(order, "forward") == 0) {
            settings.order = ORDER_FORWARD;
        } else if (strcmp(order, "reverse") == 0) {
            settings.order = ORDER_REVERSE;
        } else if (strcmp(order, "compare") == 0) {
            settings.compare = true;
        } else if (strncmp(order, "random", 6) == 0 && (order[6] == '\0' || order[6] == ':')) {
            settings.order = ORDER_RANDOM;
            if (order[6] == ':') {
                settings.seed = strtoull(order + 7, NULL, 10);
            }
        } else {
            fprintf(stderr,
                    "emulation: KIT_EMU_ORDER=%s: want forward, reverse, random[:SEED] "
                    "or compare\n",
                    order);
            exit(2);
        }
    }
    const char *timeout = getenv("KIT_EMU_TIMEOUT");
    if (timeout && atof(timeout) > 0) {
        settings.timeout_s = atof(timeout);
    }
}

const char *order_name()
{
    static char name[48];
    read_settings();
    switch (settings.order) {
    case ORDER_FORWARD:
        return "forward";
    case ORDER_REVERSE:
        return "reverse";
    default:
        snprintf(name, sizeof name, "random:%llu", (unsigned long long)settings.seed);
        return name;
    }
}

/* A small generator for the random order: splitmix64. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct rng {
    uint64_t state;
    explicit rng(uint64_t seed) : state(mix(seed)) {}
    uint64_t next()
    {
        state = mix(state);
        return state;
    }
    template <typename T> void shuffle(std::vector<T> &v)
    {
        for (size_t i = v.size(); i > 1; i--) {
            std::swap(v[i - 1], v[next() % i]);
        }
    }
};

/* ---- kernels --------------------------------------------------------------------------------- */

static std::unordered_map<const void *, kernel_info> &registry()
{
    static std::unordered_map<const void *, kernel_info> kernels;
    return kernels;
}

void register_kernel(const void *func, const char *name, const char *file, int line,
                     invoke_args_fn invoke)
{
    registry()[func] = kernel_info{func, name, file, line, invoke, (int)device_shared_static()};
}

kernel_info *find_kernel(const void *func)
{
    auto it = registry().find(func);
    return it == registry().end() ? NULL : &it->second;
}

/* ---- the running launch ---------------------------------------------------------------------- */

enum fiber_state : unsigned char { RUNNABLE, AT_BARRIER, AT_GRID, DONE };

struct block;

struct fiber {
    thread_state ts; /* first: current_thread points here */
    fiber_ctx ctx;
    block *blk;
    unsigned rank; /* linear index in the block */
    fiber_state state;
    bool has_stack;
    const char *wait_file; /* where it waits, or last polled */
    int wait_line;
    const char *wait_what;
    int predicate;
};

struct shared_instance {
    const void *tag;
    void *address;
    size_t bytes;
    const char *name;
};

struct block {
    uint3 idx;
    std::vector<fiber> fibers;
    unsigned live, at_barrier, at_grid, exited;
    int barrier_count; /* how many waiters had a true predicate, at the last release */
    unsigned barrier_live;
    std::vector<shared_instance> shared;
    size_t shared_bytes;
    void *dynamic;
    size_t dynamic_bytes;
};

enum escape_reason { ESCAPE_NONE, ESCAPE_TIMEOUT, ESCAPE_SEGV };

struct launch_state {
    const char *name;
    const char *kernel_file;
    int kernel_line;
    const char *file; /* the launch site */
    int line;
    dim3 grid, blk;
    size_t shmem;
    bool cooperative;
    invoke_fn invoke;
    const void *closure;
    unsigned long long number;
    cudaError_t error;
    unsigned long long progress;
    unsigned long long atomic_writes; /* atomics that changed memory */
    fiber *running;
    /* A signal handler's way back to the scheduler (run_fiber). */
    sigjmp_buf escape;
    volatile sig_atomic_t escape_armed;
    volatile sig_atomic_t escape_reason;
    void *fault_address;
    void *fault_pcs[16]; /* where the fiber was when the signal came, and its callers */
    int fault_depth;
};

static launch_state *active = NULL;
static unsigned long long launch_count = 0;
static volatile sig_atomic_t watchdog_fired = 0;

static fiber *running_fiber(const char *what, const char *file, int line)
{
    if (!active || !active->running) {
        outside_kernel(what, file, line);
    }
    return active->running;
}

void outside_kernel(const char *what, const char *file, int line)
{
    fprintf(stderr,
            "emulation: %s:%d: %s used outside a kernel (host code cannot use it; on a GPU this "
            "does not compile)\n",
            file, line, what);
    fflush(stderr);
    abort();
}

/* "kernel (file:line), launched at file:line with <<<(x,y,z), (x,y,z)>>>" */
static std::string describe_launch(const launch_state *l)
{
    char site[300], text[700];
    if (l->line > 0) {
        snprintf(site, sizeof site, "launched at %s:%d", l->file, l->line);
    } else {
        snprintf(site, sizeof site, "launched by %s", l->file);
    }
    snprintf(text, sizeof text, "%s (%s:%d), %s with <<<(%u,%u,%u), (%u,%u,%u), %zu>>>", l->name,
             l->kernel_file, l->kernel_line, site, l->grid.x, l->grid.y, l->grid.z, l->blk.x,
             l->blk.y, l->blk.z, l->shmem);
    return text;
}

static void report(const launch_state *l, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints one fault: the launch, the message, and how to run the same thread order again. */
static void report(const launch_state *l, const char *format, ...)
{
    char message[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fprintf(stderr,
            "emulation: kernel %s:\n  %s\n  (thread order %s; KIT_EMU_ORDER=%s repeats it)\n",
            describe_launch(l).c_str(), message, order_name(),
            settings.compare ? "compare" : order_name());
    fflush(stderr);
}

static std::string thread_name(const fiber *f)
{
    char text[96];
    snprintf(text, sizeof text, "thread (%u,%u,%u) of block (%u,%u,%u)", f->ts.thread_idx.x,
             f->ts.thread_idx.y, f->ts.thread_idx.z, f->ts.block_idx.x, f->ts.block_idx.y,
             f->ts.block_idx.z);
    return text;
}

void fault(cudaError_t err, const char *file, int line, const char *format, ...)
{
    char message[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fiber *f = running_fiber("a device function", file, line);
    report(active, "%s:%d: %s: %s", file, line, thread_name(f).c_str(), message);
    active->error = err;
    /* Back to the scheduler, never to be resumed: it drops the launch. */
    fiber_yield(&f->ctx);
    abort();
}

void unsupported(const char *what, const char *file, int line)
{
    fault(cudaErrorLaunchFailure, file, line,
          "the emulation has no %s yet: run this on a GPU (or see emulation/README.md)", what);
}

/* ---- thread ranges, for reports -------------------------------------------------------------- */

/* "threads 0-31, 64" of the ranks given (sorted). */
static std::string ranks_text(const std::vector<unsigned> &ranks)
{
    std::string out;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            j++;
        }
        char part[48];
        if (j == i) {
            snprintf(part, sizeof part, "%s%u", out.empty() ? "" : ", ", ranks[i]);
        } else {
            snprintf(part, sizeof part, "%s%u-%u", out.empty() ? "" : ", ", ranks[i], ranks[j]);
        }
        out += part;
        i = j + 1;
    }
    return (ranks.size() == 1 ? "thread " : "threads ") + out;
}

/* What each thread of a block is doing, grouped: "threads 0-15 wait at __syncthreads
 * (a.cu:10); threads 16-31 returned". */
static std::string block_states(const block *b)
{
    struct group {
        fiber_state state;
        const char *what;
        const char *file;
        int line;
        std::vector<unsigned> ranks;
    };
    std::vector<group> groups;
    for (const fiber &f : b->fibers) {
        const char *what = f.state == RUNNABLE ? f.wait_what : NULL;
        const char *file = f.state == DONE ? NULL : f.wait_file;
        int line = f.state == DONE ? 0 : f.wait_line;
        group *g = NULL;
        for (group &candidate : groups) {
            if (candidate.state == f.state && candidate.file == file && candidate.line == line &&
                candidate.what == what) {
                g = &candidate;
            }
        }
        if (!g) {
            groups.push_back(group{f.state, what, file, line, {}});
            g = &groups.back();
        }
        g->ranks.push_back(f.rank);
    }
    std::string out;
    for (const group &g : groups) {
        char part[256];
        switch (g.state) {
        case AT_BARRIER:
            snprintf(part, sizeof part, "wait at __syncthreads (%s:%d)", g.file, g.line);
            break;
        case AT_GRID:
            snprintf(part, sizeof part, "wait at grid.sync() (%s:%d)", g.file, g.line);
            break;
        case DONE:
            snprintf(part, sizeof part, "returned");
            break;
        default:
            if (g.what) {
                snprintf(part, sizeof part, "spin: polled with %s (%s:%d) again and again", g.what,
                         g.file, g.line);
            } else {
                snprintf(part, sizeof part, "have not run yet");
            }
        }
        out += (out.empty() ? "" : "; ") + ranks_text(g.ranks) + " " + part;
    }
    return out;
}

/* ---- shared memory --------------------------------------------------------------------------- */

/* What a block starts with in shared memory: never zeros, so code that reads what no thread
 * wrote gives wrong results at once. The same byte the tests fill blank device buffers with. */
static const unsigned char SHARED_POISON = 0xA5;

static void *shared_alloc(size_t bytes, size_t align)
{
    void *p = NULL;
    if (align < 16) {
        align = 16;
    }
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0) {
        return NULL;
    }
    memset(p, SHARED_POISON, bytes);
    return p;
}

void *shared_var(const void *tag, size_t bytes, size_t align, const char *name, const char *file,
                 int line)
{
    fiber *f = running_fiber("a __shared__ variable", file, line);
    block *b = f->blk;
    for (const shared_instance &s : b->shared) {
        if (s.tag == tag) {
            return s.address;
        }
    }
    if (b->shared_bytes - b->dynamic_bytes + bytes > device_shared_static()) {
        fault(cudaErrorLaunchOutOfResources, file, line,
              "__shared__ %s (%zu bytes) takes the block's static shared memory to %zu bytes, "
              "more than the %zu a kernel may declare",
              name, bytes, b->shared_bytes - b->dynamic_bytes + bytes, device_shared_static());
    }
    if (b->shared_bytes + bytes > device_shared_optin()) {
        fault(cudaErrorLaunchOutOfResources, file, line,
              "__shared__ %s (%zu bytes) takes the block's shared memory to %zu bytes, more than "
              "the %zu a block can have",
              name, bytes, b->shared_bytes + bytes, device_shared_optin());
    }
    void *p = shared_alloc(bytes, align);
    if (!p) {
        fault(cudaErrorMemoryAllocation, file, line, "no host memory for __shared__ %s", name);
    }
    b->shared.push_back(shared_instance{tag, p, bytes, name});
    b->shared_bytes += bytes;
    return p;
}

void *dynamic_shared(size_t align, const char *name, const char *file, int line)
{
    fiber *f = running_fiber("extern __shared__", file, line);
    if (align > 16 && ((uintptr_t)f->blk->dynamic % align) != 0) {
        fault(cudaErrorMisalignedAddress, file, line,
              "extern __shared__ %s wants %zu-byte alignment; the emulation gives 16", name, align);
    }
    return f->blk->dynamic;
}

/* ---- barriers and polls ---------------------------------------------------------------------- */

int block_barrier(int predicate, int reduce, const char *file, int line)
{
    fiber *f = running_fiber("__syncthreads", file, line);
    f->state = AT_BARRIER;
    f->wait_file = file;
    f->wait_line = line;
    f->wait_what = NULL;
    f->predicate = predicate;
    f->blk->at_barrier++;
    active->progress++;
    fiber_yield(&f->ctx);
    switch (reduce) {
    case 1:
        return f->blk->barrier_count;
    case 2:
        return (unsigned)f->blk->barrier_count == f->blk->barrier_live;
    case 3:
        return f->blk->barrier_count > 0;
    default:
        return 0;
    }
}

void grid_barrier(const char *file, int line)
{
    fiber *f = running_fiber("grid.sync()", file, line);
    if (!active->cooperative) {
        fault(cudaErrorLaunchFailure, file, line,
              "grid.sync() in a kernel not launched with cudaLaunchCooperativeKernel (on a GPU: "
              "undefined, a hang or an error)");
    }
    f->state = AT_GRID;
    f->wait_file = file;
    f->wait_line = line;
    f->wait_what = NULL;
    f->blk->at_grid++;
    active->progress++;
    fiber_yield(&f->ctx);
}

void poll(const char *what, const char *file, int line)
{
    fiber *f = running_fiber(what, file, line);
    f->wait_what = what;
    f->wait_file = file;
    f->wait_line = line;
    fiber_yield(&f->ctx);
}

void atomic_done(bool changed, const char *file, int line)
{
    if (changed) {
        if (active) {
            active->progress++;
            active->atomic_writes++;
        }
        return;
    }
    if (active && active->running) {
        poll("an atomic that changed nothing", file, line);
    }
}

long long clock64_now()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* ---- signals: the watchdog and invalid accesses ---------------------------------------------- */

static void on_signal(int sig, siginfo_t *info, void *context)
{
    if (active && active->running && active->escape_armed) {
        active->escape_reason = sig == SIGALRM ? ESCAPE_TIMEOUT : ESCAPE_SEGV;
        active->fault_address = info ? info->si_addr : NULL;
        active->fault_depth = 0;
#if defined(__x86_64__)
        /* The code address, then the callers' return addresses along the frame pointers (the
         * emulation's builds keep them), as long as they stay on the fiber's stack. */
        if (context) {
            const greg_t *regs = ((ucontext_t *)context)->uc_mcontext.gregs;
            const char *low = active->running->ctx.stack.base;
            const char *high = low + active->running->ctx.stack.size;
            active->fault_pcs[active->fault_depth++] = (void *)regs[REG_RIP];
            const uintptr_t *frame = (const uintptr_t *)regs[REG_RBP];
            while (active->fault_depth < 16 && (const char *)frame >= low &&
                   (const char *)(frame + 2) <= high && frame[1] != 0) {
                active->fault_pcs[active->fault_depth++] = (void *)(frame[1] - 1);
                if ((const uintptr_t *)frame[0] <= frame) {
                    break;
                }
                frame = (const uintptr_t *)frame[0];
            }
        }
#elif defined(__aarch64__)
        if (context) {
            active->fault_pcs[active->fault_depth++] =
                (void *)((ucontext_t *)context)->uc_mcontext.pc;
        }
#endif
        fiber_escaping();
        siglongjmp(active->escape, 1);
    }
    if (sig == SIGALRM) {
        watchdog_fired = 1;
        return;
    }
    /* An invalid access outside a kernel: the usual death. */
    signal(sig, SIG_DFL);
    raise(sig);
}

#if KIT_EMU_ASAN
/* AddressSanitizer stops the program at an invalid access, after its report (with the line):
 * this adds which GPU thread it was. */
static void on_asan_death()
{
    if (active && active->running) {
        report(active, "%s made the invalid memory access that AddressSanitizer reports above",
               thread_name(active->running).c_str());
    }
}
#endif

static void install_signals()
{
    static bool done = false;
    if (done) {
        return;
    }
    done = true;
#if KIT_EMU_ASAN
    __asan_set_death_callback(on_asan_death);
#endif
    /* The handlers run on a stack of their own: a fiber that overflowed its stack has none. */
    static char alternate[64 * 1024];
    stack_t ss;
    ss.ss_sp = alternate;
    ss.ss_size = sizeof alternate;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
#if !KIT_EMU_ASAN
    /* Under AddressSanitizer its own report (with the line) is better. */
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
#endif
}

static void watchdog(double seconds)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_sec = (time_t)seconds;
    t.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    watchdog_fired = 0;
    setitimer(ITIMER_REAL, &t, NULL);
}

/* " at file:line (in function)": the first place in the student's or the kit's code (not the
 * emulation's, not the C++ library's) among @p pcs, a code address and its callers, found with
 * addr2line when it is here; else " at 0xADDRESS". Only on the way to reporting a fault. */
static std::string code_place(void *const *pcs, int depth)
{
    char text[1200];
    snprintf(text, sizeof text, " at %p", depth > 0 ? pcs[0] : NULL);
    Dl_info self;
    char exe[1024];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (depth == 0 || !dladdr((void *)&code_place, &self) || length <= 0 ||
        memchr(exe, '\'', (size_t)length) != NULL) {
        return text;
    }
    exe[length] = '\0';
    std::string command = "addr2line -a -f -C -i -e '" + std::string(exe) + "'";
    int asked = 0;
    for (int i = 0; i < depth; i++) {
        Dl_info info;
        if (dladdr(pcs[i], &info) && info.dli_fbase == self.dli_fbase) { /* the program's */
            char offset[32];
            snprintf(offset, sizeof offset, " 0x%lx",
                     (unsigned long)((char *)pcs[i] - (char *)self.dli_fbase));
            command += offset;
            asked++;
        }
    }
    if (!asked) {
        return text;
    }
    FILE *p = popen((command + " 2>/dev/null").c_str(), "r");
    if (!p) {
        return text;
    }
    char cwd[512];
    size_t cwd_length = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    char line[1024], function[1024] = "";
    bool found = false, function_next = false;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0x", 2) == 0) { /* a new address: its function comes next */
            function_next = true;
            continue;
        }
        if (function_next) {
            snprintf(function, sizeof function, "%s", line);
            function_next = false;
            continue;
        }
        function_next = true; /* a place; an inlined caller's function may follow */
        char *extra = strstr(line, " (discriminator");
        if (extra) {
            *extra = '\0';
        }
        if (found || strncmp(line, "??", 2) == 0 || strncmp(line, "/usr/", 5) == 0 ||
            strncmp(line, "./", 2) == 0 || strstr(line, "/emulation/") ||
            strncmp(line, "emulation/", 10) == 0) {
            continue;
        }
        const char *shown = line;
        if (cwd_length && strncmp(line, cwd, cwd_length) == 0 && line[cwd_length] == '/') {
            shown = line + cwd_length + 1; /* as the compiler named it */
        }
        snprintf(text, sizeof text, " at %s (in %s)", shown, function);
        found = true;
    }
    pclose(p);
    return text;
}

/* ---- running fibers -------------------------------------------------------------------------- */

static void fiber_main(void *arg)
{
    fiber *f = static_cast<fiber *>(arg);
    active->invoke(active->closure);
    f->state = DONE;
    f->blk->live--;
    f->blk->exited++;
    active->progress++;
    fiber_exit(&f->ctx);
}

/* Runs @p f until it waits or returns; false when the launch failed meanwhile. */
static bool run_fiber(fiber *f)
{
    if (!f->has_stack) {
        f->ctx.stack = stack_get();
        f->has_stack = true;
        fiber_make(&f->ctx, fiber_main, f);
    }
    f->wait_what = NULL;
    current_thread = &f->ts;
    active->running = f;
    if (sigsetjmp(active->escape, 0) == 0) {
        active->escape_armed = 1;
        fiber_resume(&f->ctx);
        active->escape_armed = 0;
    } else {
        /* A signal handler jumped out of the fiber: it is dropped with the launch. */
        active->escape_armed = 0;
        fiber_escaped();
        current_thread = NULL;
        active->running = NULL;
        std::string place = code_place(active->fault_pcs, active->fault_depth);
        if (active->escape_reason == ESCAPE_TIMEOUT) {
            report(active,
                   "the kernel ran for more than KIT_EMU_TIMEOUT=%g s; %s was running%s and "
                   "had not waited since (at a barrier, or polling with __nanosleep or an atomic "
                   "that changes nothing): a loop that never ends?",
                   settings.timeout_s, thread_name(f).c_str(), place.c_str());
            active->error = cudaErrorLaunchTimeout;
        } else {
            char *a = (char *)active->fault_address;
            bool guard = a && a < f->ctx.stack.base && a >= f->ctx.stack.base - 65536;
            report(active, "%s made an invalid memory access to address %p%s%s",
                   thread_name(f).c_str(), active->fault_address, place.c_str(),
                   guard ? ": below its stack, a stack overflow (a large local array, or "
                           "endless recursion?)"
                         : "");
            active->error = cudaErrorIllegalAddress;
        }
        return false;
    }
    current_thread = NULL;
    active->running = NULL;
    if (f->state == DONE) {
        stack_put(f->ctx.stack, true);
        f->has_stack = false;
    }
    return active->error == cudaSuccess;
}

/* Every live thread of @p b waits at a __syncthreads: lets them on, or reports why not. */
static bool release_block_barrier(block *b)
{
    const fiber *first = NULL, *other = NULL, *gone = NULL;
    int count = 0;
    for (const fiber &f : b->fibers) {
        if (f.state == DONE) {
            gone = gone ? gone : &f;
            continue;
        }
        if (!first) {
            first = &f;
        } else if (!other && (f.wait_line != first->wait_line ||
                              (f.wait_file != first->wait_file &&
                               strcmp(f.wait_file, first->wait_file) != 0))) {
            other = &f;
        }
        count += f.predicate != 0;
    }
    if (other || gone) {
        report(active,
               "divergent __syncthreads in block (%u,%u,%u): %s. Every thread of a block must "
               "reach the same __syncthreads (a barrier in code that only some threads run, or "
               "after some threads returned, hangs a GPU or gives wrong results there)",
               b->idx.x, b->idx.y, b->idx.z, block_states(b).c_str());
        active->error = cudaErrorLaunchFailure;
        return false;
    }
    b->barrier_count = count;
    b->barrier_live = b->live;
    for (fiber &f : b->fibers) {
        if (f.state == AT_BARRIER) {
            f.state = RUNNABLE;
        }
    }
    b->at_barrier = 0;
    return true;
}

static bool release_grid(std::vector<block *> &set)
{
    for (block *b : set) {
        if (b->exited > 0) {
            report(active,
                   "divergent grid.sync(): in block (%u,%u,%u) %s. Every thread of the grid must "
                   "reach each grid.sync() (on a GPU the others wait for ever)",
                   b->idx.x, b->idx.y, b->idx.z, block_states(b).c_str());
            active->error = cudaErrorLaunchFailure;
            return false;
        }
    }
    for (block *b : set) {
        for (fiber &f : b->fibers) {
            if (f.state == AT_GRID) {
                f.state = RUNNABLE;
            }
        }
        b->at_grid = 0;
    }
    return true;
}

static void report_stuck(std::vector<block *> &set, bool spinning)
{
    std::string states;
    int shown = 0;
    for (block *b : set) {
        if (b->live == 0) {
            continue;
        }
        if (shown++ == 4) {
            states += "\n  ... and other blocks";
            break;
        }
        char head[64];
        snprintf(head, sizeof head, "\n  block (%u,%u,%u): ", b->idx.x, b->idx.y, b->idx.z);
        states += head + block_states(b);
    }
    if (spinning) {
        report(active,
               "deadlock: for %lu rounds no thread reached a barrier, returned or changed memory "
               "with an atomic; the threads that can run only poll memory no one will change "
               "(a spin-wait for a block that has not run, or for a thread that waits at a "
               "barrier?):%s",
               settings.spin_rounds, states.c_str());
    } else {
        report(active, "deadlock: no thread can go on:%s", states.c_str());
    }
    active->error = spinning ? cudaErrorLaunchTimeout : cudaErrorLaunchFailure;
}

/* Runs the fibers of @p set until all return; false on a fault (reported). */
static bool run_blocks(std::vector<block *> &set, rng &order_rng)
{
    std::vector<fiber *> order;
    unsigned long idle_rounds = 0;
    for (;;) {
        order.clear();
        for (block *b : set) {
            for (fiber &f : b->fibers) {
                if (f.state == RUNNABLE) {
                    order.push_back(&f);
                }
            }
        }
        if (settings.order == ORDER_REVERSE) {
            std::reverse(order.begin(), order.end());
        } else if (settings.order == ORDER_RANDOM) {
            order_rng.shuffle(order);
        }
        unsigned long long before = active->progress;
        for (fiber *f : order) {
            if (f->state == RUNNABLE && !run_fiber(f)) {
                return false;
            }
        }
        if (watchdog_fired) {
            report(active, "the kernel ran for more than KIT_EMU_TIMEOUT=%g s", settings.timeout_s);
            active->error = cudaErrorLaunchTimeout;
            return false;
        }
        bool released = false, done = true;
        unsigned long long live = 0, waiting = 0, at_grid = 0;
        for (block *b : set) {
            live += b->live;
            waiting += b->at_barrier + b->at_grid;
            at_grid += b->at_grid;
            if (b->live == 0) {
                continue;
            }
            done = false;
            if (b->at_barrier == b->live) {
                if (!release_block_barrier(b)) {
                    return false;
                }
                released = true;
            }
        }
        if (done) {
            return true;
        }
        if (!released && at_grid > 0 && at_grid == live) {
            if (!release_grid(set)) {
                return false;
            }
            released = true;
        }
        if (released) {
            idle_rounds = 0;
            continue;
        }
        if (waiting == live) {
            report_stuck(set, false);
            return false;
        }
        if (active->progress == before) {
            if (++idle_rounds > settings.spin_rounds) {
                report_stuck(set, true);
                return false;
            }
        } else {
            idle_rounds = 0;
        }
    }
}

/* ---- blocks ---------------------------------------------------------------------------------- */

static void block_start(block *b, const launch_state *l, unsigned long long linear)
{
    unsigned threads = l->blk.x * l->blk.y * l->blk.z;
    b->idx.x = (unsigned)(linear % l->grid.x);
    b->idx.y = (unsigned)(linear / l->grid.x % l->grid.y);
    b->idx.z = (unsigned)(linear / ((unsigned long long)l->grid.x * l->grid.y));
    b->fibers.resize(threads);
    for (unsigned r = 0; r < threads; r++) {
        fiber &f = b->fibers[r];
        f.ts.thread_idx.x = r % l->blk.x;
        f.ts.thread_idx.y = r / l->blk.x % l->blk.y;
        f.ts.thread_idx.z = r / (l->blk.x * l->blk.y);
        f.ts.block_idx = b->idx;
        f.ts.block_dim = l->blk;
        f.ts.grid_dim = l->grid;
        f.blk = b;
        f.rank = r;
        f.state = RUNNABLE;
        f.has_stack = false;
        f.wait_file = "?";
        f.wait_line = 0;
        f.wait_what = NULL;
        f.predicate = 0;
    }
    b->live = threads;
    b->at_barrier = b->at_grid = b->exited = 0;
    b->barrier_count = 0;
    b->barrier_live = 0;
    b->shared.clear();
    b->shared_bytes = l->shmem;
    b->dynamic_bytes = l->shmem;
    b->dynamic = shared_alloc(l->shmem, 16);
}

static void block_end(block *b)
{
    for (fiber &f : b->fibers) {
        if (f.has_stack) { /* a fiber dropped with a failed launch */
            stack_put(f.ctx.stack, false);
            f.has_stack = false;
        }
    }
    for (const shared_instance &s : b->shared) {
        free(s.address);
    }
    b->shared.clear();
    free(b->dynamic);
    b->dynamic = NULL;
}

/* Runs every block of the launch @p l in the order of the settings. */
static void run_grid(launch_state &l, unsigned long long blocks)
{
    rng order_rng(settings.seed * 0x100000001b3ull + l.number);
    watchdog(settings.timeout_s);
    if (l.cooperative) {
        std::vector<std::unique_ptr<block>> owned;
        std::vector<block *> set;
        for (unsigned long long i = 0; i < blocks; i++) {
            owned.emplace_back(new block());
            block_start(owned.back().get(), &l, i);
            set.push_back(owned.back().get());
        }
        run_blocks(set, order_rng);
        for (block *b : set) {
            block_end(b);
        }
    } else {
        std::vector<unsigned long long> block_order(blocks);
        for (unsigned long long i = 0; i < blocks; i++) {
            block_order[i] = i;
        }
        if (settings.order == ORDER_REVERSE) {
            std::reverse(block_order.begin(), block_order.end());
        } else if (settings.order == ORDER_RANDOM) {
            order_rng.shuffle(block_order);
        }
        static block one; /* reused: its fibers' storage stays allocated */
        std::vector<block *> set{&one};
        for (unsigned long long i : block_order) {
            block_start(&one, &l, i);
            bool ok = run_blocks(set, order_rng);
            block_end(&one);
            if (!ok) {
                break;
            }
        }
    }
    watchdog(0);
}

/* KIT_EMU_ORDER=compare: runs the launch in each thread order from the same device memory and
 * compares what each leaves there; a difference is a race, reported with the first word that
 * differs. A launch whose atomics changed memory may differ legitimately (who came first), so
 * its orders are not compared. The result kept is the last order's. */
static void run_in_every_order(launch_state &l, unsigned long long blocks)
{
    static const order_kind orders[] = {ORDER_FORWARD, ORDER_REVERSE, ORDER_RANDOM};
    std::vector<device_copy> before = device_snapshot(), first;
    for (int i = 0; i < 3 && l.error == cudaSuccess; i++) {
        if (i > 0) {
            device_restore(before);
        }
        settings.order = orders[i];
        l.atomic_writes = 0;
        run_grid(l, blocks);
        if (l.error != cudaSuccess || l.atomic_writes > 0) {
            break;
        }
        std::vector<device_copy> after = device_snapshot();
        if (i == 0) {
            first = std::move(after);
            continue;
        }
        for (size_t a = 0; a < after.size() && a < first.size(); a++) {
            const std::vector<unsigned char> &x = first[a].bytes, &y = after[a].bytes;
            size_t size = x.size() < y.size() ? x.size() : y.size(), at = 0;
            while (at < size && x[at] == y[at]) {
                at++;
            }
            if (at == size) {
                continue;
            }
            size_t word = at / 4;
            unsigned wx = 0, wy = 0;
            memcpy(&wx, &x[word * 4], size - word * 4 < 4 ? size - word * 4 : 4);
            memcpy(&wy, &y[word * 4], size - word * 4 < 4 ? size - word * 4 : 4);
            settings.order = ORDER_FORWARD;
            report(&l,
                   "race: the kernel leaves different results in thread orders forward and %s: "
                   "4-byte word %zu of the %zu-byte allocation at %p is %u (0x%08x) after one and "
                   "%u (0x%08x) after the other. Threads read what other threads write (or write "
                   "the same place) with no __syncthreads() between, or blocks share data",
                   i == 1 ? "reverse" : "random", word, x.size(), (void *)first[a].start, wx, wx,
                   wy, wy);
            l.error = cudaErrorLaunchFailure;
            break;
        }
    }
    settings.order = ORDER_FORWARD;
}

/* ---- launches -------------------------------------------------------------------------------- */

static cudaError_t check_config(const launch_state &l)
{
    unsigned long long threads = (unsigned long long)l.blk.x * l.blk.y * l.blk.z;
    if (threads == 0 || threads > 1024 || l.blk.x > 1024 || l.blk.y > 1024 || l.blk.z > 64 ||
        l.grid.x == 0 || l.grid.y == 0 || l.grid.z == 0 || l.grid.x > 2147483647u ||
        l.grid.y > 65535 || l.grid.z > 65535) {
        return cudaErrorInvalidConfiguration;
    }
    if (l.shmem > device_shared_static()) {
        kernel_info *k = NULL;
        for (auto &entry : registry()) {
            if (strcmp(entry.second.name, l.name) == 0) {
                k = &entry.second;
            }
        }
        if (!k || l.shmem > (size_t)k->max_dynamic_shared || l.shmem > device_shared_optin()) {
            return cudaErrorInvalidValue;
        }
    }
    return cudaSuccess;
}

/* A launch on a created stream (launch_kernel_owned, api.cpp's queues): the closure's owner,
 * while the launch is issued; and whether a queued launch runs now. */
static std::shared_ptr<void> issued_closure;
static bool running_queued = false;

/* After launch_kernel's checks: queues the launch on its stream when the stream is a created
 * one and the launch owns its closure (true), or lets it run now, after the work it must
 * follow (false). */
static bool defer_launch(const void *func, const config &c, invoke_fn invoke, const void *closure,
                         const char *file, int line)
{
    if (running_queued) {
        return false; /* its turn came */
    }
    if (!issued_closure || issued_closure.get() != closure || !stream_deferred(c.stream)) {
        stream_ready_for(c.stream);
        return false;
    }
    std::shared_ptr<void> owned = std::move(issued_closure);
    config cfg = c;
    stream_enqueue(c.stream, [func, cfg, invoke, owned, file, line] {
        running_queued = true;
        launch_kernel(func, cfg, invoke, owned.get(), false, file, line);
        running_queued = false;
    });
    return true;
}

cudaError_t launch_kernel_owned(const void *func, const config &c, invoke_fn invoke, void *closure,
                                void (*destroy)(void *), const char *file, int line)
{
    issued_closure = std::shared_ptr<void>(closure, destroy);
    cudaError_t err = launch_kernel(func, c, invoke, closure, false, file, line);
    issued_closure.reset(); /* (a launch that ran now, or was refused, frees it) */
    return err;
}

cudaError_t launch_kernel(const void *func, const config &c, invoke_fn invoke, const void *closure,
                          bool cooperative, const char *file, int line)
{
    read_settings();
    install_signals();
    if (active) {
        /* A launch from device code: dynamic parallelism, not modelled yet. */
        fault(cudaErrorLaunchFailure, file, line,
              "a kernel launch from device code (dynamic parallelism): the emulation has none "
              "yet: run this on a GPU");
    }
    cudaError_t sticky = sticky_error();
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (!stream_valid(c.stream)) {
        set_last_error(cudaErrorInvalidResourceHandle);
        return cudaErrorInvalidResourceHandle;
    }
    kernel_info *k = find_kernel(func);
    launch_state l;
    l.name = k ? k->name : "(a kernel the emulation did not register)";
    l.kernel_file = k ? k->file : "?";
    l.kernel_line = k ? k->line : 0;
    l.file = file;
    l.line = line;
    l.grid = c.grid;
    l.blk = c.block;
    l.shmem = c.shared_bytes;
    l.cooperative = cooperative;
    l.invoke = invoke;
    l.closure = closure;
    l.number = ++launch_count;
    l.error = cudaSuccess;
    l.progress = 0;
    l.atomic_writes = 0;
    l.running = NULL;
    l.escape_armed = 0;
    l.escape_reason = ESCAPE_NONE;
    l.fault_address = NULL;
    l.fault_depth = 0;
    cudaError_t err = check_config(l);
    if (err != cudaSuccess) {
        fprintf(stderr, "emulation: kernel %s: %s\n", describe_launch(&l).c_str(),
                err == cudaErrorInvalidConfiguration
                    ? "invalid configuration (a block of 1 to 1024 threads, z at most 64; grid y "
                      "and z at most 65535)"
                    : "more dynamic shared memory than a block may have");
        set_last_error(err);
        return err;
    }
    unsigned long long blocks = (unsigned long long)l.grid.x * l.grid.y * l.grid.z;
    unsigned threads = l.blk.x * l.blk.y * l.blk.z;
    if (cooperative && blocks > (unsigned long long)resident_blocks(threads, l.shmem)) {
        set_last_error(cudaErrorCooperativeLaunchTooLarge);
        return cudaErrorCooperativeLaunchTooLarge;
    }
    if (defer_launch(func, c, invoke, closure, file, line)) {
        return cudaSuccess; /* queued on its stream: it runs when the stream gets there */
    }
    if (sticky_error() != cudaSuccess) {
        return sticky_error(); /* work it came after faulted */
    }
    active = &l;
    if (settings.compare) {
        run_in_every_order(l, blocks);
    } else {
        run_grid(l, blocks);
    }
    active = NULL;
    current_thread = NULL;
    if (l.error != cudaSuccess) {
        set_sticky_error(l.error);
    }
    return l.error;
}

} // namespace kit_emu

long long clock64(void)
{
    return kit_emu::clock64_now();
}

extern "C" cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream)
{
    return kit_emu::launch_with_args(func, gridDim, blockDim, args, sharedMem, stream, false,
                                     "(a call of cudaLaunchKernel)", 0);
}

extern "C" cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                   void **args, size_t sharedMem,
                                                   cudaStream_t stream)
{
    return kit_emu::launch_with_args(func, gridDim, blockDim, args, sharedMem, stream, true,
                                     "(a call of cudaLaunchCooperativeKernel)", 0);
}

namespace kit_emu
{

struct args_closure {
    const kernel_info *kernel;
    void **args;
};

cudaError_t launch_with_args(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream, bool cooperative, const char *file, int line)
{
    kernel_info *k = find_kernel(func);
    if (!k) {
        cudaError_t sticky = sticky_error();
        if (sticky != cudaSuccess) {
            return sticky;
        }
        fprintf(stderr, "emulation: %s:%d: %s: %p is not a kernel of this program\n", file, line,
                cooperative ? "cudaLaunchCooperativeKernel" : "cudaLaunchKernel", func);
        set_last_error(cudaErrorInvalidDeviceFunction);
        return cudaErrorInvalidDeviceFunction;
    }
    args_closure closure{k, args};
    return launch_kernel(
        func, config(grid, block, shared, stream),
        [](const void *p) {
            const args_closure *c = static_cast<const args_closure *>(p);
            c->kernel->invoke(c->kernel->func, c->args);
        },
        &closure, cooperative, file, line);
}

} // namespace kit_emu
