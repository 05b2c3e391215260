/*
 * What the files of the device side of the kit's CPU emulation (emulation/README.md) share, and
 * nothing else sees (internal.h is what they share with api.cpp, device_launch.cpp, symbols.cpp
 * and race.cpp). The device side, one concept a file:
 *
 *   order.cpp          the settings of a run and its thread order (internal.h: thread_order_t)
 *   kernels.cpp        the registry of the program's kernels
 *   launch.cpp         launches: their checks, their streams, from the host and from device code
 *   compare.cpp        KIT_EMU_ORDER=compare: each launch in every order, results compared
 *   blocks.cpp         the blocks of a launch: which run together, in which order they start
 *   scheduler.cpp      the scheduler's rounds over the fibers that are the GPU threads
 *   barriers.cpp       __syncthreads, grid.sync(), polls, atomics' bookkeeping
 *   warp.cpp           warp-level functions and __activemask()
 *   shared_memory.cpp  a block's __shared__ variables and dynamic shared memory
 *   signals.cpp        the watchdog, preemption, invalid accesses, the clock, code places
 *   reports.cpp        faults and what a report says of a launch, its blocks and threads
 *
 * The types below are the state of the running launch: its blocks, their fibers, the warp-level
 * functions they wait at.
 */
#ifndef KIT_EMU_LAUNCH_STATE_H
#define KIT_EMU_LAUNCH_STATE_H

#include "internal.h"

#include <setjmp.h>
#include <signal.h>

#include <string>
#include <vector>

#include "fiber.h"

namespace kit_emu
{

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
    unsigned long long clock_reads;   /* clock() and clock64() in device code */
    unsigned long long threads_ended; /* the watchdog's sign of a launch that is slow, not stuck */
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

/* The running launch (launch.cpp), NULL between launches. */
extern launch_state *active;
/* The blocks that run now (run_blocks'), for reports. */
extern std::vector<block *> *running_set;

/* The thread that runs now; in host code, @p what is misused (outside_kernel). */
inline fiber *running_fiber(const char *what, const char *file, int line)
{
    if (!active || !active->running) {
        outside_kernel(what, file, line);
    }
    return active->running;
}

/* ---- reports (reports.cpp) ---------------------------------------------------------------- */

/* "kernel (file:line), launched at file:line with <<<(x,y,z), (x,y,z)>>>" */
std::string describe_launch(const launch_state *l);
/* Prints one fault: the launch, the message, and how to run the same thread order again. */
void report(const launch_state *l, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* "thread (x,y,z) of block (x,y,z)" */
std::string thread_name(const fiber *f);
/* "threads 0-31, 64" of the ranks given (sorted); "lanes 3, 5-7" with @p noun "lane". */
std::string ranks_text(const std::vector<unsigned> &ranks, const char *noun = "thread");
/* "lanes 0-15" of a mask of lanes. */
std::string lanes_text(unsigned mask);
/* What each thread of a block is doing, grouped. */
std::string block_states(const block *b);
/* What the threads of the blocks that run now are doing: "\n  block (x,y,z): ..." each. */
std::string running_states();
/* "\n  5 of the launch's 8 blocks have not started: ..." when some have not, else "". */
std::string not_started_text();

/* ---- signals (signals.cpp) ---------------------------------------------------------------- */

/* What a preempted thread was doing, for reports (fiber::wait_what). */
extern const char PREEMPTED[];
/* The watchdog fired while no thread ran: the scheduler reports it after the round. */
extern volatile sig_atomic_t watchdog_fired;
/* The handlers of SIGALRM (the tick), SIGSEGV and SIGBUS, once. */
void install_signals();
/* Starts the tick with the watchdog @p seconds away, or stops it (0). */
void watchdog(double seconds);
/* " at file:line (in function)" of @p pcs, a code address and its callers. */
std::string code_place(void *const *pcs, int depth);

/* ---- warp-level functions (warp.cpp) ------------------------------------------------------ */

/* Reports @p f, about to wait elsewhere or to return (@p file NULL), if lanes of its warp wait
 * at a warp-level function whose mask names it. */
void find_awaiting(fiber *f, const char *doing, const char *file, int line);

inline void check_not_awaited(fiber *f, const char *doing, const char *file, int line)
{
    if (f->blk->at_warp != 0) {
        find_awaiting(f, doing, file, line);
    }
}

/* At the end of a round: each thread at an __activemask() gets its lanes, and goes on. */
void release_activemask(std::vector<block *> &set);

/* ---- barriers (barriers.cpp) -------------------------------------------------------------- */

/* Every live thread of @p b waits at a __syncthreads: lets them on, or reports why not. */
bool release_block_barrier(block *b);
/* Every live thread of @p set waits at a grid.sync(): lets them on, or reports why not. */
bool release_grid(std::vector<block *> &set);

/* ---- shared memory (shared_memory.cpp) ---------------------------------------------------- */

/* @p bytes of poisoned shared memory, aligned to @p align (at least 16). */
void *shared_alloc(size_t bytes, size_t align);

/* ---- the scheduler (scheduler.cpp) and blocks (blocks.cpp) -------------------------------- */

/* The blocks of a launch still to start, and room for those that run (not cooperative). */
struct block_feed {
    const std::vector<unsigned long long> *order; /* linear block indices, in starting order */
    size_t next;
    std::vector<block *> free; /* blocks to start the next ones in */
};

/* Runs the fibers of @p set (and of the blocks @p feed starts as others end) until all return;
 * false on a fault (reported). */
bool run_blocks(std::vector<block *> &set, order_random &order_rng, block_feed *feed);

/* Block number @p linear of @p l starts in @p b: its threads made, its shared memory given; and
 * ends: what it had dropped. */
void block_start(block *b, const launch_state *l, unsigned long long linear);
void block_end(block *b);
/* Runs every block of the launch @p l, in the thread order. */
void run_grid(launch_state &l, unsigned long long blocks);

/* ---- compare mode (compare.cpp) ----------------------------------------------------------- */

/* Runs the launch @p l in each thread order and compares the results. */
void run_in_every_order(launch_state &l, unsigned long long blocks);

} // namespace kit_emu

#endif
