/*
 * The scheduler of the fibers that are the GPU threads: the rounds in which it runs the threads
 * of the blocks that run, and the checks it makes after each (emulation/README.md;
 * launch_state.h lists the other files of the device side).
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
#include "launch_state.h"

#include <setjmp.h>
#include <stdio.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fiber.h"

namespace kit_emu
{

__thread thread_state *current_thread = NULL;
/* The blocks that run now (run_blocks'), for reports. */
std::vector<block *> *running_set = NULL;

static void fiber_main(void *arg)
{
    fiber *f = static_cast<fiber *>(arg);
    f->ts.no_preempt = 0; /* the kernel's own code: preemptible */
    active->invoke(active->closure);
    race_flush(); /* a store of its own the race detector has not seen yet */
    f->ts.no_preempt = 1;
    check_not_awaited(f, "returns", NULL, 0);
    f->state = DONE;
    f->blk->live--;
    f->blk->exited++;
    active->progress++;
    active->threads_ended++;
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
                   "no thread of the kernel ended in KIT_EMU_TIMEOUT=%g s of CPU time; %s "
                   "was running%s, in a loop that never waits (at a barrier, or polling with "
                   "__nanosleep or an atomic "
                   "that changes nothing): the scheduler preempted it again and again to let the "
                   "other threads run, and it still did not end. A spin-wait for something that "
                   "never comes (a block that has not started?), or a loop that never ends?%s",
                   settings.timeout_s, thread_name(f).c_str(), place.c_str(),
                   (running_states() + not_started_text()).c_str());
            active->error = cudaErrorLaunchTimeout;
        } else if (active->escape_reason == ESCAPE_TIMEOUT) {
            report(active,
                   "no thread of the kernel ended in KIT_EMU_TIMEOUT=%g s of CPU time; %s "
                   "was running%s and had not waited since (at a barrier, or polling with "
                   "__nanosleep or an atomic "
                   "that changes nothing): a loop that never ends? (A kernel that is only slow "
                   "ends threads as it goes; one long loop in one thread may need a larger "
                   "KIT_EMU_TIMEOUT.)",
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
bool run_blocks(std::vector<block *> &set, order_random &order_rng, block_feed *feed)
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
        if (thread_order.kind == ORDER_REVERSE) {
            std::reverse(order.begin(), order.end());
        } else if (thread_order.kind == ORDER_RANDOM) {
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
            report(active, "no thread of the kernel ended in KIT_EMU_TIMEOUT=%g s of CPU time:%s",
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

} // namespace kit_emu
