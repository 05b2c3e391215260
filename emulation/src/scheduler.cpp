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
#include <errno.h>
#if defined(__linux__)
#include <link.h>
#endif
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

void read_settings()
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
    settings.resident_blocks = 0;
    settings.preempt = true;
    settings.racecheck = 2;
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
    const char *resident = getenv("KIT_EMU_RESIDENT_BLOCKS");
    if (resident && atoi(resident) > 0) {
        settings.resident_blocks = (unsigned)atoi(resident);
    }
    const char *preempt = getenv("KIT_EMU_PREEMPT");
    if (preempt && strcmp(preempt, "0") == 0) {
        settings.preempt = false;
    }
    const char *racecheck = getenv("KIT_EMU_RACECHECK");
    settings.racecheck = !racecheck || !*racecheck ? 2 : strcmp(racecheck, "0") == 0 ? 0 : 1;
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

const char TEMPLATE_INSTANCE[] = "(an instance of a kernel template)";

void name_kernel(const void *func, const char *name, const char *file, int line)
{
    kernel_info *k = find_kernel(func);
    if (k && k->name == TEMPLATE_INSTANCE) {
        k->name = name;
        k->file = file;
        k->line = line;
    }
}

bool kernel_known(const void *func)
{
    return registry().count(func) != 0;
}

kernel_info *find_kernel(const void *func)
{
    auto it = registry().find(func);
    return it == registry().end() ? NULL : &it->second;
}

/* ---- the running launch ---------------------------------------------------------------------- */

enum fiber_state : unsigned char {
    RUNNABLE,
    AT_BARRIER,    /* a __syncthreads */
    AT_GRID,       /* a grid.sync() */
    AT_WARP,       /* a warp-level function, until every lane of its mask has come */
    AT_ACTIVEMASK, /* an __activemask(), until the end of the round */
    DONE
};

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
    /* At a warp-level function: its group (block::groups), what it brought and what it gets. */
    int group;
    unsigned wait_mask;
    unsigned long long warp_value, warp_result;
    long long warp_param;
    int warp_width;
    /* Where it was when the scheduler last preempted it (a code address and its callers). */
    void *preempt_pcs[8];
    int preempt_depth;
};

/* The lanes of one warp that wait at one warp-level function with one mask. */
struct warp_group {
    bool used;
    unsigned warp;
    int op;
    unsigned mask, arrived;
    const char *file; /* where its first lane called it */
    int line;
};

struct shared_instance {
    const void *tag;
    void *address;
    size_t bytes;
    const char *name;
};

struct block {
    uint3 idx;
    unsigned long long linear; /* the index of the block in its grid */
    std::vector<fiber> fibers;
    unsigned live, at_barrier, at_grid, at_warp, at_activemask, exited;
    int barrier_count; /* how many waiters had a true predicate, at the last release */
    unsigned barrier_live;
    std::vector<warp_group> groups;
    std::vector<shared_instance> shared;
    size_t shared_bytes;
    void *dynamic;
    size_t dynamic_bytes;
    void *race; /* the race detector's record of the block (race.cpp), or NULL */
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
    unsigned long long progress;      /* barriers reached, threads ended, atomics that wrote, blocks
                                         started, threads preempted */
    unsigned long long polls;         /* __nanosleep, __ldcg, atomics that changed nothing */
    unsigned long long atomic_writes; /* atomics that changed memory */
    unsigned long long blocks_total, blocks_started;
    unsigned resident;      /* blocks that run at once (not cooperative) */
    unsigned at_activemask; /* threads of the launch at an __activemask() */
    fiber *running;
    /* A signal handler's way back to the scheduler (run_fiber). */
    sigjmp_buf escape;
    volatile sig_atomic_t escape_armed;
    volatile sig_atomic_t escape_reason;
    void *fault_address;
    void *fault_pcs[16]; /* where the fiber was when the signal came, and its callers */
    int fault_depth;
    /* Preemption: how many times a fiber was resumed, as the last tick saw it. */
    volatile unsigned long long resumes;
    volatile unsigned long long resumes_seen;
    unsigned long long preemptions;
};

static launch_state *active = NULL;
/* The blocks that run now (run_blocks'), for reports. */
static std::vector<block *> *running_set = NULL;
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
    preempt_guard guard;
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

void race_fault(const char *format, ...)
{
    preempt_guard guard;
    char message[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fiber *f = running_fiber("a memory access", "?", 0);
    report(active, "%s: %s", thread_name(f).c_str(), message);
    active->error = cudaErrorLaunchFailure;
    fiber_yield(&f->ctx);
    abort(); /* never resumed */
}

static std::string code_place(void *const *pcs, int depth);

std::string code_place_of(const void *pc)
{
    void *pcs[1] = {const_cast<void *>(pc)};
    return code_place(pcs, 1);
}

void unsupported(const char *what, const char *file, int line)
{
    fault(cudaErrorLaunchFailure, file, line,
          "the emulation has no %s yet: run this on a GPU (or see emulation/README.md)", what);
}

/* ---- thread ranges, for reports -------------------------------------------------------------- */

/* "threads 0-31, 64" of the ranks given (sorted); "lanes 3, 5-7" with @p noun "lane". */
static std::string ranks_text(const std::vector<unsigned> &ranks, const char *noun = "thread")
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
    return std::string(noun) + (ranks.size() == 1 ? " " : "s ") + out;
}

/* "lanes 0-15" of a mask of lanes. */
static std::string lanes_text(unsigned mask)
{
    std::vector<unsigned> lanes;
    for (unsigned lane = 0; lane < 32; lane++) {
        if ((mask >> lane) & 1u) {
            lanes.push_back(lane);
        }
    }
    return lanes.empty() ? "no lane" : ranks_text(lanes, "lane");
}

static std::string code_place(void *const *pcs, int depth);
static std::string not_started_text();

/* The name of a warp-level function, for messages. */
static const char *warp_op_name(int op)
{
    static const char *const names[] = {
        "__syncwarp",        "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",
        "__shfl_xor_sync",   "__ballot_sync",     "__any_sync",        "__all_sync",
        "__match_any_sync",  "__match_all_sync",  "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",  "__reduce_xor_sync"};
    return op >= 0 && op < (int)(sizeof names / sizeof names[0]) ? names[op] : "?";
}

/* What a preempted thread was doing, for reports. */
static const char PREEMPTED[] = "a loop that never waits";

/* What each thread of a block is doing, grouped: "threads 0-15 wait at __syncthreads
 * (a.cu:10); threads 16-31 returned". */
static std::string block_states(const block *b)
{
    struct group {
        fiber_state state;
        const char *what;
        const char *file;
        int line;
        unsigned mask;
        bool started;
        const fiber *first;
        std::vector<unsigned> ranks;
    };
    std::vector<group> groups;
    for (const fiber &f : b->fibers) {
        const char *what = f.state == RUNNABLE || f.state == AT_WARP ? f.wait_what : NULL;
        const char *file = f.state == DONE ? NULL : f.wait_file;
        int line = f.state == DONE ? 0 : f.wait_line;
        unsigned mask = f.state == AT_WARP ? f.wait_mask : 0;
        if (f.state == RUNNABLE && what == PREEMPTED) {
            file = NULL; /* where it spins is found below, from its code address */
            line = 0;
        }
        group *g = NULL;
        for (group &candidate : groups) {
            if (candidate.state == f.state && candidate.file == file && candidate.line == line &&
                candidate.what == what && candidate.mask == mask &&
                candidate.started == f.has_stack) {
                g = &candidate;
            }
        }
        if (!g) {
            groups.push_back(group{f.state, what, file, line, mask, f.has_stack, &f, {}});
            g = &groups.back();
        }
        g->ranks.push_back(f.rank);
    }
    std::string out;
    for (const group &g : groups) {
        char part[1400];
        switch (g.state) {
        case AT_BARRIER:
            snprintf(part, sizeof part, "wait at __syncthreads (%s:%d)", g.file, g.line);
            break;
        case AT_GRID:
            snprintf(part, sizeof part, "wait at grid.sync() (%s:%d)", g.file, g.line);
            break;
        case AT_WARP:
            snprintf(part, sizeof part, "wait at %s (%s:%d) with mask 0x%08x", g.what, g.file,
                     g.line, g.mask);
            break;
        case AT_ACTIVEMASK:
            snprintf(part, sizeof part, "wait at __activemask (%s:%d)", g.file, g.line);
            break;
        case DONE:
            snprintf(part, sizeof part, "returned");
            break;
        default:
            if (g.what == PREEMPTED) {
                snprintf(part, sizeof part,
                         "spin: a loop that never waits, preempted again and again,%s",
                         code_place(g.first->preempt_pcs, g.first->preempt_depth).c_str());
            } else if (g.what) {
                snprintf(part, sizeof part, "spin: polled with %s (%s:%d) again and again", g.what,
                         g.file, g.line);
            } else if (g.first->has_stack) {
                snprintf(part, sizeof part, "can go on (or ran when this happened)");
            } else {
                snprintf(part, sizeof part, "have not run yet");
            }
        }
        out += (out.empty() ? "" : "; ") + ranks_text(g.ranks) + " " + part;
    }
    return out;
}

/* What the threads of the blocks that run now are doing (after "the kernel ran for more than"):
 * "\n  block (x,y,z): ..." each. */
static std::string running_states()
{
    std::string states;
    int shown = 0;
    for (const block *b : running_set ? *running_set : std::vector<block *>()) {
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
    return states;
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
    preempt_guard guard;
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
    if (b->race) {
        race_track(p, bytes, true, name);
    }
    return p;
}

void *dynamic_shared(size_t align, const char *name, const char *file, int line)
{
    preempt_guard guard;
    fiber *f = running_fiber("extern __shared__", file, line);
    if (align > 16 && ((uintptr_t)f->blk->dynamic % align) != 0) {
        fault(cudaErrorMisalignedAddress, file, line,
              "extern __shared__ %s wants %zu-byte alignment; the emulation gives 16", name, align);
    }
    return f->blk->dynamic;
}

/* ---- warp-level functions -------------------------------------------------------------------
 * A lane that calls one joins the group of its warp's lanes that wait at the same function with
 * the same mask (whatever the line: on sm_70 and later the lanes of a mask may meet at different
 * calls of one function), and waits; the lane that completes the group computes every lane's
 * result from the values they brought and lets them all go on. What a GPU leaves undefined, or
 * hangs on, is an error naming the line: a mask without the caller, lanes the block does not
 * have, a bad width, a lane of the mask that returned or waits where it cannot come from. */

/* What a shuffle returns from a lane that is not in the mask (undefined on a GPU). */
static const unsigned long long SHUFFLE_POISON = 0xA5A5A5A5A5A5A5A5ull;

/* The lanes that warp @p warp of @p b has (its last warp may have fewer than 32). */
static unsigned warp_lanes(const block *b, unsigned warp)
{
    size_t lanes = b->fibers.size() - (size_t)warp * 32u;
    return lanes >= 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u;
}

/* @p f is about to wait elsewhere, or to return (@p file NULL), while lanes of its warp wait at
 * a warp-level function whose mask names it: they would wait for ever. (Reports are kept out of
 * the functions every wait goes through: a std::string there makes AddressSanitizer set up the
 * stack frame of each call.) */
[[noreturn]] __attribute__((noinline, cold)) static void
awaited_elsewhere(fiber *f, const warp_group &g, const char *doing, const char *file, int line)
{
    unsigned warp = f->rank / 32u, lane = f->rank % 32u;
    fault(cudaErrorLaunchFailure, file ? file : g.file, file ? line : g.line,
          "lane %u of warp %u %s while %s of its warp wait at %s (%s:%d) with mask 0x%08x, which "
          "names lane %u: it never gets there. Every lane that a warp-level function's mask "
          "names must call it (on a GPU: undefined, often a hang)",
          lane, warp, doing, lanes_text(g.arrived).c_str(), warp_op_name(g.op), g.file, g.line,
          g.mask, lane);
}

__attribute__((noinline)) static void find_awaiting(fiber *f, const char *doing, const char *file,
                                                    int line)
{
    const block *b = f->blk;
    unsigned warp = f->rank / 32u, lane = f->rank % 32u;
    for (size_t i = 0; i < b->groups.size(); i++) {
        const warp_group &g = b->groups[i];
        if (g.used && g.warp == warp && ((g.mask >> lane) & 1u)) {
            awaited_elsewhere(f, g, doing, file, line);
        }
    }
}

static inline void check_not_awaited(fiber *f, const char *doing, const char *file, int line)
{
    if (f->blk->at_warp != 0) {
        find_awaiting(f, doing, file, line);
    }
}

/* Where lane @p lane's shuffle reads, in the lanes @p lanes of its group (NULL: not in the
 * mask), as PTX's shfl.sync defines it for a segment of `width` lanes, with the source lane,
 * delta or lane mask taken modulo 32 (its low five bits: a delta of 40 shifts by 8 on a GPU):
 * idx reads the source lane modulo the width in its own segment; up and down read `delta` lanes
 * away and keep their own value past the segment's ends; xor reads lane ^ laneMask, its own
 * value when that lies in a later segment (an earlier one it reads). */
static unsigned long long shuffle_result(const warp_group &g, const fiber *lanes, unsigned lane)
{
    const fiber &f = lanes[lane];
    unsigned width = (unsigned)f.warp_width;
    unsigned first = lane & ~(width - 1u), last = first + width - 1u;
    unsigned param = (unsigned)f.warp_param & 31u;
    unsigned long long src = lane;
    switch (g.op) {
    case WARP_SHFL_IDX:
        src = first + (param & (width - 1u));
        break;
    case WARP_SHFL_UP:
        if (param <= lane - first) {
            src = lane - param;
        }
        break;
    case WARP_SHFL_DOWN:
        if (param <= last - lane) {
            src = lane + param;
        }
        break;
    default: /* WARP_SHFL_XOR */
        src = lane ^ param;
        if (src > last) {
            src = lane;
        }
    }
    if (src >= 32 || !((g.mask >> src) & 1u)) {
        /* Undefined on a GPU, and often harmless (a lane that ignores what it got): a value
         * that shows, and a note once per line. */
        static std::vector<std::pair<const char *, int>> noted;
        std::pair<const char *, int> site(f.wait_file, f.wait_line);
        if (std::find(noted.begin(), noted.end(), site) == noted.end()) {
            noted.push_back(site);
            fprintf(stderr,
                    "emulation: note: %s:%d: %s: lane %u of warp %u reads lane %llu, which the "
                    "mask 0x%08x leaves out: on a GPU the value is undefined; here its bytes are "
                    "0xA5\n",
                    f.wait_file, f.wait_line, warp_op_name(g.op), lane, g.warp, src, g.mask);
        }
        return SHUFFLE_POISON;
    }
    return lanes[src].warp_value;
}

/* Every lane of group @p id has come: computes their results and lets them go on. (Out of line,
 * and with no array on the stack, which AddressSanitizer would make every call pay for.) */
__attribute__((noinline)) static void complete_group(block *b, int id)
{
    warp_group &g = b->groups[id];
    race_warp_synced(b->race, g.warp, g.mask);
    fiber *lanes = &b->fibers[g.warp * 32u]; /* lane l: lanes[l], when the mask has it */
    unsigned long long common = 0; /* the result of every lane, for the votes and reductions */
    unsigned ballot = 0;
    bool all_equal = true;
    unsigned long long first_value = lanes[__builtin_ctz(g.mask)].warp_value;
    unsigned acc = 0;
    bool signed_op = false, started = false;
    for (unsigned m = g.mask; m; m &= m - 1u) {
        const fiber &f = lanes[__builtin_ctz(m)];
        unsigned v = (unsigned)f.warp_value;
        ballot |= f.warp_value != 0 ? 1u << __builtin_ctz(m) : 0u;
        all_equal = all_equal && f.warp_value == first_value;
        signed_op = f.warp_param != 0;
        switch (g.op) {
        case WARP_REDUCE_ADD:
            acc += v;
            break;
        case WARP_REDUCE_MIN:
            acc = !started    ? v
                  : signed_op ? (unsigned)std::min((int)acc, (int)v)
                              : std::min(acc, v);
            break;
        case WARP_REDUCE_MAX:
            acc = !started    ? v
                  : signed_op ? (unsigned)std::max((int)acc, (int)v)
                              : std::max(acc, v);
            break;
        case WARP_REDUCE_AND:
            acc = !started ? v : acc & v;
            break;
        case WARP_REDUCE_OR:
            acc |= v;
            break;
        case WARP_REDUCE_XOR:
            acc ^= v;
            break;
        default:
            break;
        }
        started = true;
    }
    switch (g.op) {
    case WARP_BALLOT:
        common = ballot;
        break;
    case WARP_ANY:
        common = ballot != 0;
        break;
    case WARP_ALL:
        common = ballot == g.mask;
        break;
    case WARP_MATCH_ALL:
        common = all_equal ? (g.mask | (1ull << 32)) : 0;
        break;
    default:
        common = acc;
    }
    for (unsigned m = g.mask; m; m &= m - 1u) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        fiber &f = lanes[lane];
        unsigned long long result = common;
        if (g.op >= WARP_SHFL_IDX && g.op <= WARP_SHFL_XOR) {
            result = shuffle_result(g, lanes, lane);
        } else if (g.op == WARP_MATCH_ANY) {
            result = 0;
            for (unsigned n = g.mask; n; n &= n - 1u) {
                if (lanes[__builtin_ctz(n)].warp_value == f.warp_value) {
                    result |= 1ull << __builtin_ctz(n);
                }
            }
        }
        f.warp_result = result;
    }
    for (unsigned m = g.mask; m; m &= m - 1u) {
        fiber &f = lanes[__builtin_ctz(m)];
        f.state = RUNNABLE;
        f.group = -1;
        f.wait_what = NULL;
    }
    b->at_warp -= (unsigned)__builtin_popcount(g.mask);
    g.used = false;
}

/* A call of a warp-level function that is wrong by itself: a mask without the caller, a bad
 * width. */
[[noreturn]] __attribute__((noinline, cold)) static void
bad_warp_call(fiber *f, int op, unsigned mask, int width, const char *file, int line)
{
    const char *name = warp_op_name(op);
    unsigned warp = f->rank / 32u, lane = f->rank % 32u;
    if (!((mask >> lane) & 1u)) {
        fault(cudaErrorLaunchFailure, file, line,
              "%s with mask 0x%08x, which leaves out the calling lane (lane %u of warp %u): a "
              "lane that calls a warp-level function must be in its mask (on a GPU: undefined)",
              name, mask, lane, warp);
    }
    fault(cudaErrorLaunchFailure, file, line,
          "%s with width %d: the width must be a power of two from 1 to 32 (on a GPU: undefined)",
          name, width);
}

/* Lane @p o, which the mask names, cannot come: it returned, or waits where it waits for us. */
[[noreturn]] __attribute__((noinline, cold)) static void
lane_cannot_come(fiber *f, int op, unsigned mask, const fiber &o, const char *file, int line)
{
    const char *name = warp_op_name(op);
    unsigned warp = f->rank / 32u, other = o.rank % 32u;
    if (o.state == DONE) {
        fault(cudaErrorLaunchFailure, file, line,
              "%s with mask 0x%08x: lane %u of warp %u, which the mask names, has returned: it "
              "never gets there. Every lane that the mask names must call it (give the mask of "
              "the lanes that take part, e.g. from __ballot_sync before some return)",
              name, mask, other, warp);
    }
    if (o.state == AT_BARRIER || o.state == AT_GRID) {
        fault(cudaErrorLaunchFailure, file, line,
              "%s with mask 0x%08x: lane %u of warp %u, which the mask names, waits at %s (%s:%d), "
              "which waits for this lane: neither ever goes on (on a GPU: a hang)",
              name, mask, other, warp, o.state == AT_BARRIER ? "__syncthreads" : "grid.sync()",
              o.wait_file, o.wait_line);
    }
    const warp_group &g = f->blk->groups[o.group];
    fault(cudaErrorLaunchFailure, file, line,
          "%s with mask 0x%08x: lane %u of warp %u, which the mask names, waits at %s (%s:%d) "
          "with mask 0x%08x, which names this lane: each waits for the other. The lanes that a "
          "mask names must call the same warp-level function with the same mask (on a GPU: "
          "undefined, often a hang)",
          name, mask, other, warp, warp_op_name(g.op), o.wait_file, o.wait_line, g.mask);
}

/* A group for the first lane of @p warp that calls @p op with @p mask: its index in b->groups.
 * (Out of line: a warp_group made on the stack would cost every call under AddressSanitizer.) */
__attribute__((noinline)) static int new_group(block *b, unsigned warp, int op, unsigned mask,
                                               const char *file, int line)
{
    size_t id = 0;
    while (id < b->groups.size() && b->groups[id].used) {
        id++;
    }
    if (id == b->groups.size()) {
        b->groups.push_back(warp_group());
    }
    b->groups[id] = warp_group{true, warp, op, mask, 0u, file, line};
    return (int)id;
}

unsigned long long warp_collective(int op, unsigned mask, unsigned long long value, unsigned bytes,
                                   long long param, int width, const char *file, int line)
{
    const char *name = warp_op_name(op);
    fiber *f = running_fiber(name, file, line);
    f->ts.no_preempt++;
    block *b = f->blk;
    (void)bytes;
    unsigned warp = f->rank / 32u, lane = f->rank % 32u;
    /* Lanes that the block does not have (its last warp may be partial) take no part, as on
     * sm_70 and later, where a full mask in a block of 16 threads involves the 16 lanes that
     * exist: the group is the lanes of the mask that exist. */
    mask &= warp_lanes(b, warp);
    if (!((mask >> lane) & 1u) ||
        (op >= WARP_SHFL_IDX && op <= WARP_SHFL_XOR &&
         (width < 1 || width > 32 || (width & (width - 1)) != 0))) {
        bad_warp_call(f, op, mask, width, file, line);
    }
    /* The lanes of this warp that wait at this function with this mask, if any; and whether
     * other lanes of the warp wait at another one. */
    int id = -1;
    bool other_groups = false;
    for (size_t i = 0; i < b->groups.size(); i++) {
        const warp_group &g = b->groups[i];
        if (g.used && g.warp == warp) {
            if (g.op == op && g.mask == mask) {
                id = (int)i;
            } else {
                other_groups = true;
            }
        }
    }
    /* Every other lane of the mask must be able to come here: none can fail to while no thread
     * of the block has returned or waits at a barrier, and no lane of the warp elsewhere. */
    if (b->exited > 0 || b->at_barrier > 0 || b->at_grid > 0 || other_groups) {
        for (unsigned m = mask & ~(1u << lane); m; m &= m - 1u) {
            const fiber &o = b->fibers[warp * 32u + (unsigned)__builtin_ctz(m)];
            if (o.state == DONE || o.state == AT_BARRIER || o.state == AT_GRID ||
                (o.state == AT_WARP &&
                 (b->groups[o.group].op != op || b->groups[o.group].mask != mask) &&
                 ((b->groups[o.group].mask >> lane) & 1u))) {
                lane_cannot_come(f, op, mask, o, file, line);
            }
        }
    }
    if (id < 0) {
        id = new_group(b, warp, op, mask, file, line);
    }
    f->state = AT_WARP;
    f->group = id;
    f->wait_mask = mask;
    f->wait_what = name;
    f->wait_file = file;
    f->wait_line = line;
    f->warp_value = value;
    f->warp_param = param;
    f->warp_width = width;
    b->at_warp++;
    b->groups[id].arrived |= 1u << lane;
    if (b->groups[id].arrived == mask) {
        complete_group(b, id);
    }
    /* Even the last lane waits for the next round: after a warp-level function, as after a
     * barrier, the thread order decides who goes first. */
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
    return f->warp_result;
}

unsigned active_mask(const char *file, int line)
{
    fiber *f = running_fiber("__activemask", file, line);
    f->ts.no_preempt++;
    f->state = AT_ACTIVEMASK;
    f->wait_file = file;
    f->wait_line = line;
    f->wait_what = NULL;
    f->blk->at_activemask++;
    active->at_activemask++;
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
    return (unsigned)f->warp_result;
}

/* At the end of a round: each thread at an __activemask() gets the lanes of its warp that wait
 * at the same line, and goes on. */
static void release_activemask(std::vector<block *> &set)
{
    for (block *b : set) {
        if (b->at_activemask == 0) {
            continue;
        }
        for (fiber &f : b->fibers) {
            if (f.state != AT_ACTIVEMASK) {
                continue;
            }
            unsigned warp = f.rank / 32u, mask = 0;
            for (unsigned lane = 0; lane < 32 && warp * 32u + lane < b->fibers.size(); lane++) {
                const fiber &o = b->fibers[warp * 32u + lane];
                if (o.state == AT_ACTIVEMASK && o.wait_line == f.wait_line &&
                    strcmp(o.wait_file, f.wait_file) == 0) {
                    mask |= 1u << lane;
                }
            }
            f.warp_result = mask;
        }
        for (fiber &f : b->fibers) {
            if (f.state == AT_ACTIVEMASK) {
                f.state = RUNNABLE;
            }
        }
        b->at_activemask = 0;
    }
    active->at_activemask = 0;
}

/* ---- barriers and polls ---------------------------------------------------------------------- */

/* The device-side entry points below hold the running thread's no_preempt while they change
 * the scheduler's state (not a kit_emu::preempt_guard: under AddressSanitizer an object on the
 * stack costs a third of a barrier wait). */

int block_barrier(int predicate, int reduce, const char *file, int line)
{
    fiber *f = running_fiber("__syncthreads", file, line);
    f->ts.no_preempt++;
    check_not_awaited(f, "reaches __syncthreads", file, line);
    f->state = AT_BARRIER;
    f->wait_file = file;
    f->wait_line = line;
    f->wait_what = NULL;
    f->predicate = predicate;
    f->blk->at_barrier++;
    active->progress++;
    fiber_yield(&f->ctx);
    int result = 0;
    switch (reduce) {
    case 1:
        result = f->blk->barrier_count;
        break;
    case 2:
        result = (unsigned)f->blk->barrier_count == f->blk->barrier_live;
        break;
    case 3:
        result = f->blk->barrier_count > 0;
        break;
    default:
        break;
    }
    f->ts.no_preempt--;
    return result;
}

void grid_barrier(const char *file, int line)
{
    fiber *f = running_fiber("grid.sync()", file, line);
    f->ts.no_preempt++;
    if (!active->cooperative) {
        fault(cudaErrorLaunchFailure, file, line,
              "grid.sync() in a kernel not launched with cudaLaunchCooperativeKernel (on a GPU: "
              "undefined, a hang or an error)");
    }
    check_not_awaited(f, "reaches grid.sync()", file, line);
    f->state = AT_GRID;
    f->wait_file = file;
    f->wait_line = line;
    f->wait_what = NULL;
    f->blk->at_grid++;
    active->progress++;
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
}

void poll(const char *what, const char *file, int line)
{
    fiber *f = running_fiber(what, file, line);
    f->ts.no_preempt++;
    active->polls++;
    f->wait_what = what;
    f->wait_file = file;
    f->wait_line = line;
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
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

/* ---- signals: the watchdog, preemption and invalid accesses -----------------------------------
 * While a launch runs, SIGALRM comes every millisecond (every quarter of one once a thread of the
 * launch has been preempted: each tick costs the program a little, a preemption waits a tick or
 * two). Once the launch has run longer
 * than KIT_EMU_TIMEOUT it is the watchdog: the running thread is stopped where it is and
 * reported with its line. Before that it is the preemption: a thread that has run a whole tick
 * without waiting (a spin on a volatile flag, a long loop) is switched out, as if it had polled,
 * so that the threads it may wait for (another block's, in a look-back) can run. A thread is
 * preempted only where that is safe: on its own stack, in the program's own code (never inside
 * the C library, the C++ library or AddressSanitizer, which may hold locks), and never inside
 * the emulation's own code, which holds the thread's no_preempt count while it changes the
 * scheduler's state (kit_emu::preempt_guard; in the paths every wait or atomic goes through, a
 * plain count). Device-side code added to the runtime must do the same. */

static const long TICK_US = 1000, FAST_TICK_US = 250;
static volatile long tick_us = 0; /* the tick now, 0 when none */
/* When the watchdog fires (CLOCK_MONOTONIC nanoseconds), 0 when no launch runs. */
static volatile long long watchdog_deadline = 0;
/* The program's own machine code: where a thread may be preempted. */
static uintptr_t program_text_start = 0, program_text_end = 0;

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define KIT_EMU_CAN_PREEMPT 1
static int find_program_text(struct dl_phdr_info *info, size_t, void *)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            program_text_start = info->dlpi_addr + ph.p_vaddr;
            program_text_end = program_text_start + ph.p_memsz;
        }
    }
    return 1; /* the first object is the program */
}
#else
#define KIT_EMU_CAN_PREEMPT 0
#endif

/* The code address of an interrupted thread, its stack and frame pointers. */
struct interrupted {
    uintptr_t pc, sp, fp;
};

static bool interrupted_at(void *context, interrupted *at)
{
    if (!context) {
        return false;
    }
#if defined(__linux__) && defined(__x86_64__)
    const greg_t *regs = ((ucontext_t *)context)->uc_mcontext.gregs;
    at->pc = (uintptr_t)regs[REG_RIP];
    at->sp = (uintptr_t)regs[REG_RSP];
    at->fp = (uintptr_t)regs[REG_RBP];
    return true;
#elif defined(__linux__) && defined(__aarch64__)
    const mcontext_t &m = ((ucontext_t *)context)->uc_mcontext;
    at->pc = (uintptr_t)m.pc;
    at->sp = (uintptr_t)m.sp;
    at->fp = (uintptr_t)m.regs[29];
    return true;
#else
    return false;
#endif
}

/* @p pcs gets the code address and the callers' return addresses along the frame pointers (the
 * emulation's builds keep them), as long as they stay on @p f's stack; returns how many. */
static int walk_frames(const fiber *f, const interrupted &at, void **pcs, int room)
{
    int depth = 0;
    pcs[depth++] = (void *)at.pc;
#if defined(__x86_64__) || defined(__aarch64__)
    const char *low = f->ctx.stack.base;
    const char *high = low + f->ctx.stack.size;
    const uintptr_t *frame = (const uintptr_t *)at.fp;
    while (depth < room && (const char *)frame >= low && (const char *)(frame + 2) <= high &&
           frame[1] != 0) {
        pcs[depth++] = (void *)(frame[1] - 1);
        if ((const uintptr_t *)frame[0] <= frame) {
            break;
        }
        frame = (const uintptr_t *)frame[0];
    }
#endif
    return depth;
}

static void set_tick(long us)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_usec = us;
    t.it_interval.tv_usec = us;
    tick_us = us;
    setitimer(ITIMER_REAL, &t, NULL);
}

/* A tick before the deadline: preempts the running thread if it has run a whole tick and may be
 * switched out where it is. Runs on the thread's own stack (SIGALRM has no alternate stack), so
 * that its frame, with the registers the kernel saved, waits there until the thread runs again. */
/* Whether the signal that brought @p context interrupted fiber @p f where it may be switched
 * out or escaped from: on its own stack, in the program's own code, outside the emulation's
 * (no_preempt; a switch half done, which AddressSanitizer must see finished). */
static bool safe_to_interrupt(const fiber *f, void *context, interrupted *at)
{
    return !f->ts.no_preempt && interrupted_at(context, at) &&
           at->sp >= (uintptr_t)f->ctx.stack.base &&
           at->sp < (uintptr_t)f->ctx.stack.base + f->ctx.stack.size &&
           at->pc >= program_text_start && at->pc < program_text_end;
}

static void preempt(void *context)
{
    launch_state *l = active;
    if (!KIT_EMU_CAN_PREEMPT || !settings.preempt || !l || !l->running || !l->escape_armed) {
        return;
    }
    fiber *f = l->running;
    if (l->resumes != l->resumes_seen) { /* it started within this tick */
        l->resumes_seen = l->resumes;
        return;
    }
    interrupted at;
    if (!safe_to_interrupt(f, context, &at)) {
        return;
    }
    f->preempt_depth = walk_frames(f, at, f->preempt_pcs, 8);
    f->wait_what = PREEMPTED;
    if (tick_us == TICK_US) {
        set_tick(FAST_TICK_US); /* threads spin in this launch: preempt them sooner */
    }
    l->preemptions++;
    l->progress++; /* a thread that computes, or spins: the watchdog bounds both */
    int saved_errno = errno;
    f->ts.no_preempt++;
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
    errno = saved_errno;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    if (sig == SIGALRM) {
        if (watchdog_deadline == 0) {
            return; /* a tick after the launch, or after the watchdog fired */
        }
        if (clock64_now() < watchdog_deadline) {
            preempt(context);
            return;
        }
        interrupted at;
        if (KIT_EMU_CAN_PREEMPT && active && active->running && active->escape_armed &&
            !safe_to_interrupt(active->running, context, &at)) {
            return; /* in the C library or the emulation's own code: at a later tick */
        }
        watchdog_deadline = 0;
        if (!(active && active->running && active->escape_armed)) {
            watchdog_fired = 1; /* the scheduler reports it after the round */
            return;
        }
    }
    if (active && active->running && active->escape_armed) {
        active->escape_reason = sig == SIGALRM ? ESCAPE_TIMEOUT : ESCAPE_SEGV;
        active->fault_address = info ? info->si_addr : NULL;
        interrupted at;
        active->fault_depth = 0;
        if (interrupted_at(context, &at)) {
            active->fault_depth = walk_frames(active->running, at, active->fault_pcs, 16);
        }
        fiber_escaping();
        siglongjmp(active->escape, 1);
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
#if KIT_EMU_CAN_PREEMPT
    dl_iterate_phdr(find_program_text, NULL);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    /* The tick on the running thread's own stack (preempt() says why), not deferred while its
     * handler waits there; calls it interrupts (a pipe read of addr2line) go on. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
#if !KIT_EMU_ASAN
    /* Under AddressSanitizer its own report (with the line) is better. */
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
#endif
}

/* Starts the tick with the watchdog @p seconds away, or stops it (0). */
static void watchdog(double seconds)
{
    watchdog_fired = 0;
    if (seconds > 0) {
        watchdog_deadline = clock64_now() + (long long)(seconds * 1e9);
        set_tick(TICK_US);
    } else {
        watchdog_deadline = 0;
        set_tick(0);
    }
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
        size_t length = strlen(line);
        bool no_line = length >= 2 && strcmp(line + length - 2, ":?") == 0;
        bool runtime = strstr(line, "/emulation/src/") || strstr(line, "/emulation/include/") ||
                       strncmp(line, "emulation/src/", 14) == 0 ||
                       strncmp(line, "emulation/include/", 18) == 0;
        if (found || no_line || strncmp(line, "??", 2) == 0 || strncmp(line, "/usr/", 5) == 0 ||
            strncmp(line, "./", 2) == 0 || runtime) {
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
    f->ts.no_preempt = 0; /* the kernel's own code: preemptible */
    active->invoke(active->closure);
    f->ts.no_preempt = 1;
    check_not_awaited(f, "returns", NULL, 0);
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
    active->resumes++;
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
        if (active->escape_reason == ESCAPE_TIMEOUT && f->preempt_depth > 0) {
            /* The scheduler let the others run while it looped, and still nothing ended. */
            report(active,
                   "the kernel ran for more than KIT_EMU_TIMEOUT=%g s; %s was running%s, in a "
                   "loop that never waits (at a barrier, or polling with __nanosleep or an atomic "
                   "that changes nothing): the scheduler preempted it again and again to let the "
                   "other threads run, and it still did not end. A spin-wait for something that "
                   "never comes (a block that has not started?), or a loop that never ends?%s",
                   settings.timeout_s, thread_name(f).c_str(), place.c_str(),
                   (running_states() + not_started_text()).c_str());
            active->error = cudaErrorLaunchTimeout;
        } else if (active->escape_reason == ESCAPE_TIMEOUT) {
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
    race_barrier(b->race);
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
    race_grid_synced();
    for (block *b : set) {
        for (fiber &f : b->fibers) {
            if (f.state == AT_GRID) {
                f.state = RUNNABLE;
            }
        }
        b->at_grid = 0;
        race_barrier(b->race);
    }
    return true;
}

/* "\n  5 of the launch's 8 blocks have not started: ..." when some have not, else "". */
static std::string not_started_text()
{
    char waiting[640] = "";
    if (active->blocks_started < active->blocks_total) {
        snprintf(
            waiting, sizeof waiting,
            "\n  %llu of the launch's %llu blocks have not started: the emulation runs %u blocks "
            "at once in this order (KIT_EMU_RESIDENT_BLOCKS sets it), started in the order of "
            "the run, and starts one when one ends. CUDA promises neither which blocks run "
            "together nor in which order they start: a block may wait only for blocks that "
            "have started before it (take a tile number from an atomic counter, not blockIdx)",
            active->blocks_total - active->blocks_started, active->blocks_total, active->resident);
    }
    return waiting;
}

static void report_stuck(bool spinning)
{
    std::string states = running_states(), waiting = not_started_text();
    if (spinning) {
        report(active,
               "deadlock: for %lu rounds no thread reached a barrier, returned or changed memory "
               "with an atomic; the threads that can run only poll memory no one will change "
               "(a spin-wait for a block that has not run, or for a thread that waits at a "
               "barrier?):%s%s",
               settings.spin_rounds, states.c_str(), waiting.c_str());
    } else {
        report(active, "deadlock: no thread can go on:%s%s", states.c_str(), waiting.c_str());
    }
    active->error = spinning ? cudaErrorLaunchTimeout : cudaErrorLaunchFailure;
}

/* The blocks of a launch still to start, and room for those that run (not cooperative). */
struct block_feed {
    const std::vector<unsigned long long> *order; /* linear block indices, in starting order */
    size_t next;
    std::vector<block *> free; /* blocks to start the next ones in */
};

static void block_start(block *b, const launch_state *l, unsigned long long linear);
static void block_end(block *b);

/* Ends the blocks of @p set whose threads all returned, and starts the next ones of @p feed in
 * their place. */
static void refill(std::vector<block *> &set, block_feed *feed)
{
    for (size_t i = 0; i < set.size();) {
        if (set[i]->live == 0) {
            block_end(set[i]);
            feed->free.push_back(set[i]);
            set.erase(set.begin() + (long)i);
        } else {
            i++;
        }
    }
    while (!feed->free.empty() && feed->next < feed->order->size()) {
        block *b = feed->free.back();
        feed->free.pop_back();
        block_start(b, active, (*feed->order)[feed->next++]);
        set.push_back(b);
        active->blocks_started++;
        active->progress++;
    }
}

/* Runs the fibers of @p set (and of the blocks @p feed starts as others end) until all return;
 * false on a fault (reported). */
static bool run_blocks(std::vector<block *> &set, rng &order_rng, block_feed *feed)
{
    running_set = &set;
    std::vector<fiber *> order;
    unsigned long idle_rounds = 0;
    for (;;) {
        if (feed) {
            refill(set, feed);
            if (set.empty()) {
                return true;
            }
        }
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
        unsigned long long before = active->progress, polls_before = active->polls;
        for (fiber *f : order) {
            if (f->state == RUNNABLE && !run_fiber(f)) {
                return false;
            }
        }
        std::string race = race_round_ends(); /* two writes of different values */
        if (!race.empty()) {
            report(active, "%s", race.c_str());
            active->error = cudaErrorLaunchFailure;
            return false;
        }
        if (watchdog_fired) {
            report(active, "the kernel ran for more than KIT_EMU_TIMEOUT=%g s:%s",
                   settings.timeout_s, running_states().c_str());
            active->error = cudaErrorLaunchTimeout;
            return false;
        }
        if (active->at_activemask > 0) {
            release_activemask(set);
        }
        bool released = false, done = true;
        unsigned long long live = 0, waiting = 0, at_grid = 0;
        for (block *b : set) {
            live += b->live;
            waiting += b->at_barrier + b->at_grid + b->at_warp;
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
            if (!feed || feed->next == feed->order->size()) {
                return true;
            }
            continue; /* the next blocks start */
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
            report_stuck(false);
            return false;
        }
        /* A round is idle when threads polled and none made progress. A round of warp-level
         * functions alone neither counts nor resets the idle rounds: a look-back that votes in
         * one round and sleeps in the next is still found, and a long loop of shuffles (no
         * polls) is not taken for a spin. */
        if (active->progress != before) {
            idle_rounds = 0;
        } else if (active->polls != polls_before && ++idle_rounds > settings.spin_rounds) {
            report_stuck(true);
            return false;
        }
    }
}

/* ---- blocks ---------------------------------------------------------------------------------- */

static void block_start(block *b, const launch_state *l, unsigned long long linear)
{
    unsigned threads = l->blk.x * l->blk.y * l->blk.z;
    b->linear = linear;
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
        f.ts.no_preempt = 1; /* until fiber_main calls the kernel */
        f.ts.last_error = cudaSuccess;
        f.group = -1;
        f.wait_mask = 0;
        f.warp_value = f.warp_result = 0;
        f.warp_param = 0;
        f.warp_width = 32;
        f.preempt_depth = 0;
        f.ts.race_rank = r;
        f.ts.race_atomic = 0;
        f.ts.race_fences = 0;
        f.ts.race_stores = 0;
    }
    b->race = race_block_begins(threads);
    for (fiber &f : b->fibers) {
        f.ts.race_block = b->race;
    }
    b->live = threads;
    b->at_barrier = b->at_grid = b->at_warp = b->at_activemask = b->exited = 0;
    b->groups.clear();
    b->barrier_count = 0;
    b->barrier_live = 0;
    b->shared.clear();
    b->shared_bytes = l->shmem;
    b->dynamic_bytes = l->shmem;
    b->dynamic = shared_alloc(l->shmem, 16);
    if (b->race) {
        race_track(b->dynamic, l->shmem, true, "the dynamic shared memory (extern __shared__)");
    }
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
        race_untrack(s.address);
        free(s.address);
    }
    b->shared.clear();
    race_untrack(b->dynamic);
    free(b->dynamic);
    b->dynamic = NULL;
    race_block_ends(b->race);
    b->race = NULL;
}

/* How many blocks of a launch (not cooperative) run at once. Forward and reverse: 3, so that a
 * block that waits for one not started yet shows (in reverse, a look-back keyed on blockIdx);
 * random: as many as 12288 threads make (48 blocks of 256), so that many blocks interleave (a
 * look-back that must walk past 32 predecessors that have not finished). */
static unsigned resident_blocks(const launch_state &l)
{
    if (settings.resident_blocks > 0) {
        return settings.resident_blocks;
    }
    if (settings.order != ORDER_RANDOM) {
        return 3;
    }
    unsigned threads = l.blk.x * l.blk.y * l.blk.z;
    return std::max(3u, 12288u / threads);
}

/* Runs every block of the launch @p l in the order of the settings: a cooperative launch's all
 * at once (grid.sync() needs them alive); any other's resident_blocks() at a time, started in
 * the order of the run (the block order, reversed or shuffled with the threads), each block that
 * ends making room for the next. Blocks that run together interleave at every wait of their
 * threads, so a block that spins on another's flag lets that block run (a decoupled look-back
 * completes), and one that waits for a block that has not started is a deadlock. */
static void run_grid(launch_state &l, unsigned long long blocks)
{
    race_grid_begins();
    rng order_rng(settings.seed * 0x100000001b3ull + l.number);
    l.blocks_total = blocks;
    l.blocks_started = 0;
    watchdog(settings.timeout_s);
    if (l.cooperative) {
        std::vector<std::unique_ptr<block>> owned;
        std::vector<block *> set;
        for (unsigned long long i = 0; i < blocks; i++) {
            owned.emplace_back(new block());
            block_start(owned.back().get(), &l, i);
            set.push_back(owned.back().get());
        }
        l.blocks_started = blocks;
        run_blocks(set, order_rng, NULL);
        running_set = NULL;
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
        /* Reused from launch to launch: their fibers' storage stays allocated. */
        static std::vector<std::unique_ptr<block>> pool;
        l.resident = resident_blocks(l);
        while (pool.size() < l.resident) {
            pool.emplace_back(new block());
        }
        block_feed feed{&block_order, 0, {}};
        for (unsigned i = 0; i < l.resident; i++) {
            feed.free.push_back(pool[l.resident - 1 - i].get());
        }
        std::vector<block *> set;
        run_blocks(set, order_rng, &feed);
        running_set = NULL;
        for (block *b : set) {
            block_end(b);
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
            tree_discard_launches(); /* the launches the earlier order's run made */
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
    preempt_guard guard; /* in device code: the closure's owner is shared state */
    /* From device code, the running grid's own closure is here: it must live on. */
    std::shared_ptr<void> outer = std::move(issued_closure);
    issued_closure = std::shared_ptr<void>(closure, destroy);
    cudaError_t err = launch_kernel(func, c, invoke, closure, false, file, line);
    issued_closure = std::move(outer); /* (a launch that ran now, or was refused, frees it) */
    return err;
}

/* Fills @p l for a launch of @p func as @p c says (not yet run). */
static void prepare_launch(launch_state &l, const void *func, const config &c, invoke_fn invoke,
                           const void *closure, bool cooperative, const char *file, int line)
{
    kernel_info *k = find_kernel(func);
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
    l.polls = 0;
    l.atomic_writes = 0;
    l.blocks_total = l.blocks_started = 0;
    l.resident = 0;
    l.at_activemask = 0;
    l.resumes = l.resumes_seen = 0;
    l.preemptions = 0;
    l.running = NULL;
    l.escape_armed = 0;
    l.escape_reason = ESCAPE_NONE;
    l.fault_address = NULL;
    l.fault_depth = 0;
}

/* The message of a configuration check_config() refused. */
static void report_config(const launch_state &l, cudaError_t err)
{
    fprintf(stderr, "emulation: kernel %s: %s\n", describe_launch(&l).c_str(),
            err == cudaErrorInvalidConfiguration
                ? "invalid configuration (a block of 1 to 1024 threads, z at most 64; grid y "
                  "and z at most 65535)"
                : "more dynamic shared memory than a block may have");
}

/* Runs the grid of the prepared launch @p l (in every order in compare mode); a fault becomes
 * the sticky error. */
static cudaError_t run_launch(launch_state &l)
{
    unsigned long long blocks = (unsigned long long)l.grid.x * l.grid.y * l.grid.z;
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

cudaError_t run_device_grid(const void *func, const config &c, invoke_fn invoke,
                            const void *closure, const char *file, int line)
{
    launch_state l;
    prepare_launch(l, func, c, invoke, closure, false, file, line);
    return run_launch(l);
}

/* A launch from device code (dynamic parallelism, device_launch.cpp), made by the running
 * thread: checked as a GPU checks it, then queued in the tree of grids; a launch that fails is
 * the thread's error (cudaGetLastError() in device code), and nothing stops. */
static cudaError_t launch_from_device(const void *func, const config &c, invoke_fn invoke,
                                      const void *closure, bool cooperative, const char *file,
                                      int line)
{
    preempt_guard guard;
    fiber *f = running_fiber("a kernel launch", file, line);
    if (cooperative) {
        unsupported("cooperative launch from device code", file, line);
    }
    if (!issued_closure || issued_closure.get() != closure) {
        unsupported("cudaLaunchKernel() in device code (launch with <<<...>>>)", file, line);
    }
    launch_state l;
    prepare_launch(l, func, c, invoke, closure, false, file, line);
    cudaError_t err = check_config(l);
    if (err != cudaSuccess) {
        report_config(l, err);
    } else {
        err = device_launch_enqueue(func, c, invoke, std::move(issued_closure), f->blk->linear,
                                    file, line);
    }
    if (err != cudaSuccess) {
        f->ts.last_error = err;
    }
    return err;
}

cudaError_t launch_kernel(const void *func, const config &c, invoke_fn invoke, const void *closure,
                          bool cooperative, const char *file, int line)
{
    read_settings();
    install_signals();
    if (active) {
        return launch_from_device(func, c, invoke, closure, cooperative, file, line);
    }
    cudaError_t sticky = sticky_error();
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (!stream_valid(c.stream)) {
        set_last_error(cudaErrorInvalidResourceHandle);
        return cudaErrorInvalidResourceHandle;
    }
    launch_state l;
    prepare_launch(l, func, c, invoke, closure, cooperative, file, line);
    cudaError_t err = check_config(l);
    if (err != cudaSuccess) {
        report_config(l, err);
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
    /* The grid, then every grid it launches from device code: the host's launch is complete
     * when its whole tree is. */
    tree_begin();
    return tree_finish(run_launch(l));
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
