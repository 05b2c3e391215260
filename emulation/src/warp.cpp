/*
 * Warp-level functions (__syncwarp, the shuffles, votes, matches and reductions) and
 * __activemask(). A lane that calls one joins the group of its warp's lanes that wait at the
 * same function with the same mask (whatever the line: on sm_70 and later the lanes of a mask
 * may meet at different calls of one function), and waits; the lane that completes the group
 * computes every lane's result from the values they brought and lets them all go on. What a GPU
 * leaves undefined, or hangs on, is an error naming the line: a mask without the caller, lanes
 * the block does not have, a bad width, a lane of the mask that returned or waits where it
 * cannot come from.
 */
#include "launch_state.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace kit_emu
{

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

__attribute__((noinline)) void find_awaiting(fiber *f, const char *doing, const char *file,
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
    race_flush(); /* before it waits: see race.cpp */
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
    if (!((mask >> lane) & 1u) || (op >= WARP_SHFL_IDX && op <= WARP_SHFL_XOR &&
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
void release_activemask(std::vector<block *> &set)
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

} // namespace kit_emu
