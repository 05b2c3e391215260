/* What the parts of the emulation's runtime share: api.cpp (the host API: errors, the emulated
 * device, memory, streams, events), device_launch.cpp, symbols.cpp, race.cpp, and the files of
 * the device side (launches and device code: launch_state.h lists them, and what they share
 * with each other alone). */
#ifndef KIT_EMU_INTERNAL_H
#define KIT_EMU_INTERNAL_H

#define KIT_EMU_RUNTIME 1
#include "cuda_runtime.h"

#include <stdint.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "asan.h"

/* The functions that instrumented code calls for every access (race.cpp's __asan_load4, ...)
 * live in a section of their own, which the scheduler never preempts (signals.cpp): at their
 * first or last instruction the frame pointer is still the caller's, so a walk of the frames
 * from there would skip the line of the student's code that called them. */
#if defined(__ELF__)
#define KIT_EMU_HOOK __attribute__((section("kit_emu_hooks")))
extern "C" const char __start_kit_emu_hooks[] __attribute__((weak));
extern "C" const char __stop_kit_emu_hooks[] __attribute__((weak));
#else
#define KIT_EMU_HOOK
#endif

namespace kit_emu
{

/* ---- host threads (api.cpp) ---- */

/** Held by every call of the runtime from host code: a program may call CUDA from several host
 * threads at once (simpleCallback's workers), and the emulation's device, streams and launches
 * are one; so one host thread's call runs at a time, whole (its kernels included). A call from
 * device code (a fiber, on the thread that holds it already) takes nothing. */
struct host_call {
    bool locked;
    host_call();
    ~host_call();
    host_call(const host_call &) = delete;
    host_call &operator=(const host_call &) = delete;
};
#define KIT_EMU_HOST_CALL ::kit_emu::host_call kit_emu_host_call_

/* ---- the settings and the thread order of this run (order.cpp) ---- */

/** Read once from the environment: KIT_EMU_ORDER (thread_order), KIT_EMU_TIMEOUT,
 * KIT_EMU_RESIDENT_BLOCKS, KIT_EMU_PREEMPT, KIT_EMU_RACECHECK. */
void read_settings();
struct settings_t {
    double timeout_s;
    unsigned long spin_rounds;
    unsigned resident_blocks; /* KIT_EMU_RESIDENT_BLOCKS: blocks of a launch (not cooperative)
                                 that run at once, in every order; 0: the order decides */
    bool preempt;             /* a thread that runs a slice without waiting lets others run */
    int racecheck;            /* KIT_EMU_RACECHECK: 0 never, 1 in every order, 2 (the default)
                                 in the forward order (race.cpp: what it finds does not depend
                                 on the order, so one order suffices) */
};
extern settings_t settings;

enum order_kind { ORDER_FORWARD, ORDER_REVERSE, ORDER_RANDOM };

/** The random generator of the thread order. Every random choice of a run draws from one: the
 * order in which a launch's blocks start and its threads run each round, which grid of a tree
 * starts next (device_launch.cpp), when the queue of a created stream runs (api.cpp). Only
 * thread_order_t makes them; each choice keeps the seed and the steps it always had (splitmix64
 * for blocks and threads, a 64-bit LCG for a tree's grids, xorshift64 for streams), so that
 * random:SEED repeats the runs, and the reports, it always did. */
class order_random
{
  public:
    /** The next number of the sequence (of the LCG, its high 31 bits). */
    uint64_t next()
    {
        switch (steps) {
        case LCG64:
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return state >> 33;
        case XORSHIFT64:
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            return state;
        default:
            state = mix(state);
            return state;
        }
    }
    /** Puts @p v in a random order. */
    template <typename T> void shuffle(std::vector<T> &v)
    {
        for (size_t i = v.size(); i > 1; i--) {
            std::swap(v[i - 1], v[next() % i]);
        }
    }

  private:
    friend struct thread_order_t;
    enum step_kind { SPLITMIX64, LCG64, XORSHIFT64 };
    order_random(step_kind steps, uint64_t state) : steps(steps), state(state) {}
    /* A small generator for the random order: splitmix64. */
    static uint64_t mix(uint64_t x)
    {
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    step_kind steps;
    uint64_t state;
};

/** The thread order of this run (KIT_EMU_ORDER): what every place that orders threads, blocks,
 * grids of a tree or the work of streams asks. */
struct thread_order_t {
    order_kind kind; /* in compare mode, the order the launch runs in now (compare.cpp) */
    bool compare;    /* KIT_EMU_ORDER=compare: each launch in every order, results compared */
    unsigned long long seed; /* random:SEED; 1 unless it says */
    /** "forward", "reverse" or "random:SEED": the order the threads run in. */
    const char *name() const;
    /** What KIT_EMU_ORDER repeats this run: "compare", or name(). */
    const char *repeated_by() const;
    /** The random choices of the random order, each a sequence of its own: the order in which
     * launch number @p launch starts its blocks and runs its threads each round; which grid of
     * a tree starts next; when the queues of created streams run. */
    order_random blocks_random(unsigned long long launch) const;
    order_random tree_random() const;
    order_random streams_random() const;
};
extern thread_order_t thread_order;

struct kernel_info {
    const void *func;
    const char *name;
    const char *file;
    int line;
    invoke_args_fn invoke;
    int max_dynamic_shared; /* cudaFuncAttributeMaxDynamicSharedMemorySize */
};
kernel_info *find_kernel(const void *func);
/** The kernel named @p name (the last the registry holds, when several are), or NULL. */
kernel_info *find_kernel_named(const char *name);

/* The race detector (race.cpp): the memory it watches, and what orders threads. */
/** Watches [p, p + bytes): device memory, or a block's shared variable (a read of a word no
 * thread wrote is reported); @p name names it in reports (NULL: an allocation). */
void race_track(const void *p, size_t bytes, bool shared, const char *name);
void race_untrack(const void *p);
/** A grid begins to run (a launch, or a grid of a tree): blocks of it are not ordered. */
void race_grid_begins();
/** A block begins: the record its threads' thread_state::race_block point at (NULL: off). */
void *race_block_begins(unsigned threads);
void race_block_ends(void *record);
/** A __syncthreads of the block was released; a grid.sync() of the grid; a warp-level function
 * completed for the lanes of @p mask of warp @p warp. */
void race_barrier(void *record);
void race_grid_synced();
void race_warp_synced(void *record, unsigned warp, unsigned mask);
/** After a round of the scheduler: a race two writes of different values made, or "". */
std::string race_round_ends();
/** Scheduler (reports.cpp): ends the launch for a race the running thread made. */
[[noreturn]] void race_fault(const char *format, ...) __attribute__((format(printf, 1, 2)));
/** Scheduler: a note on stderr about what the running thread did; the launch goes on. */
void race_note(const char *format, ...) __attribute__((format(printf, 1, 2)));
/** Before the running thread waits or ends: a store of its own that no call reported (see
 * race.cpp) is recorded now. */
void race_flush();
/** " at FILE:LINE (in FUNCTION)": the place of a code address of the program. */
std::string code_place_of(const void *pc);

/* Device variables (symbols.cpp): whether [p, p + bytes) lies in one registered `__device__` or
 * `__constant__` variable, which counts as device memory. */
bool symbol_range(const void *p, size_t bytes);

/* The emulated device (api.cpp). */
size_t device_shared_static(); /* what a block may declare statically (48 KiB) */
size_t device_shared_optin();  /* what a block may have in all, with the opt-in (227 KiB) */
int resident_blocks(unsigned threads_per_block, size_t dynamic_shared); /* on the whole GPU */
int blocks_per_sm(unsigned threads_per_block, size_t dynamic_shared);

/* Errors (api.cpp): the sticky error of a faulted kernel, and the last error. */
cudaError_t sticky_error();
void set_sticky_error(cudaError_t err);
void set_last_error(cudaError_t err);
bool stream_valid(cudaStream_t stream);

/* Streams (api.cpp): a stream the program created queues its work, run when the program waits
 * for it or as the thread order says; the default stream runs its work at once. */
/** Whether work issued on @p stream now waits in its queue (a created stream, issued by host
 * code). */
bool stream_deferred(cudaStream_t stream);
/** Queues @p work on the created stream @p stream. */
void stream_enqueue(cudaStream_t stream, std::function<void()> work);
/** Before work that runs now on @p stream: the work it must come after is done (a created
 * stream's queue; for the default stream, that of every blocking stream). */
void stream_ready_for(cudaStream_t stream);

long long clock64_now();

/** A limit as cudaDeviceSetLimit set it (api.cpp). */
size_t device_limit(enum cudaLimit limit);

/* Dynamic parallelism (device_launch.cpp): the tree of grids a launch from the host starts. */
/** A launch from the host begins a tree; its grid is the root, running now. */
void tree_begin();
/** A launch from device code, by a thread of block @p block (linear) of the running grid, its
 * configuration checked: queued in the tree, or the error the launching thread gets. */
cudaError_t device_launch_enqueue(const void *func, const config &c, invoke_fn invoke,
                                  std::shared_ptr<void> closure, unsigned long long block,
                                  const char *file, int line);
/** cudaStreamCreateWithFlags in device code: a stream of the tree (cudaStreamNonBlocking). */
cudaError_t device_stream_create(cudaStream_t *stream, unsigned int flags, const char *file,
                                 int line);
/** Whether @p stream is one device code created in this tree. */
bool device_stream_valid(cudaStream_t stream);
/** Compare mode runs a grid again in another order: drops what its earlier run launched. */
void tree_discard_launches();
/** The root grid has run (@p root_error its fault, if any): runs the grids of the tree until
 * every one is complete, or one faults; returns the first fault. */
cudaError_t tree_finish(cudaError_t root_error);
/** Runs one grid of a tree (launch.cpp), as the host's launch of it would. */
cudaError_t run_device_grid(const void *func, const config &c, invoke_fn invoke,
                            const void *closure, const char *file, int line);

/* A copy of every device allocation (api.cpp): what a launch in compare mode starts from. */
struct device_copy {
    char *start;
    std::vector<unsigned char> bytes;
};
std::vector<device_copy> device_snapshot();
void device_restore(const std::vector<device_copy> &copies);

} // namespace kit_emu

#endif
