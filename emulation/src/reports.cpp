/*
 * Faults and reports (emulation/README.md, "The scheduler, and the checks a GPU cannot make"):
 * a fault in device code ends the launch with a sticky error and a message that names the
 * kernel, its launch, the line, the block and the thread, and the thread order that repeats
 * it; what the threads of a block are doing, grouped, for the reports of a divergent barrier,
 * a deadlock or the watchdog.
 */
#include "launch_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace kit_emu
{

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
std::string describe_launch(const launch_state *l)
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

/* Prints one fault: the launch, the message, and how to run the same thread order again. */
void report(const launch_state *l, const char *format, ...)
{
    char message[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fprintf(stderr,
            "emulation: kernel %s:\n  %s\n  (thread order %s; KIT_EMU_ORDER=%s repeats it)\n",
            describe_launch(l).c_str(), message, thread_order.name(), thread_order.repeated_by());
    fflush(stderr);
}

std::string thread_name(const fiber *f)
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

void race_note(const char *format, ...)
{
    preempt_guard guard;
    char message[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fiber *f = running_fiber("a memory access", "?", 0);
    fprintf(stderr, "emulation: note: kernel %s:\n  %s: %s\n", describe_launch(active).c_str(),
            thread_name(f).c_str(), message);
    fflush(stderr);
}

void unsupported(const char *what, const char *file, int line)
{
    fault(cudaErrorLaunchFailure, file, line,
          "the emulation has no %s yet: run this on a GPU (or see emulation/README.md)", what);
}

/* ---- thread ranges, for reports -------------------------------------------------------------- */

/* "threads 0-31, 64" of the ranks given (sorted); "lanes 3, 5-7" with @p noun "lane". */
std::string ranks_text(const std::vector<unsigned> &ranks, const char *noun)
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
std::string lanes_text(unsigned mask)
{
    std::vector<unsigned> lanes;
    for (unsigned lane = 0; lane < 32; lane++) {
        if ((mask >> lane) & 1u) {
            lanes.push_back(lane);
        }
    }
    return lanes.empty() ? "no lane" : ranks_text(lanes, "lane");
}
/* What each thread of a block is doing, grouped: "threads 0-15 wait at __syncthreads
 * (a.cu:10); threads 16-31 returned". */
std::string block_states(const block *b)
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
std::string running_states()
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

/* "\n  5 of the launch's 8 blocks have not started: ..." when some have not, else "". */
std::string not_started_text()
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

} // namespace kit_emu
