/*
 * Barriers and polls: __syncthreads() (and its _count/_and/_or), grid.sync(), the polls that
 * let other threads run (__nanosleep, __ldcg, an atomic that changes nothing) and the
 * bookkeeping of atomics that tells progress from a spin; and the release of a barrier every
 * live thread waits at, after a round, or the report of a divergent one.
 */
#include "launch_state.h"

#include <string.h>

#include <vector>

namespace kit_emu
{

/* The device-side entry points below hold the running thread's no_preempt while they change
 * the scheduler's state (not a kit_emu::preempt_guard: under AddressSanitizer an object on the
 * stack costs a third of a barrier wait). */

int block_barrier(int predicate, int reduce, const char *file, int line)
{
    race_flush(); /* before it waits: see race.cpp */
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
    race_flush(); /* before it waits: see race.cpp */
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
    race_flush(); /* before it waits: see race.cpp */
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

/* Every live thread of @p b waits at a __syncthreads: lets them on, or reports why not. */
bool release_block_barrier(block *b)
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

bool release_grid(std::vector<block *> &set)
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

} // namespace kit_emu
