/*
 * The blocks of a launch: a block's threads made and its shared memory given when it starts,
 * dropped when it ends; how many blocks run at once, and in which order they start.
 */
#include "launch_state.h"

#include <stdlib.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "fiber.h"

namespace kit_emu
{

void block_start(block *b, const launch_state *l, unsigned long long linear)
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
        f.ts.race_last_read[0] = f.ts.race_last_read[1] = 0;
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

void block_end(block *b)
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
    if (thread_order.kind != ORDER_RANDOM) {
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
void run_grid(launch_state &l, unsigned long long blocks)
{
    race_grid_begins();
    order_random order_rng = thread_order.blocks_random(l.number);
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
        if (thread_order.kind == ORDER_REVERSE) {
            std::reverse(block_order.begin(), block_order.end());
        } else if (thread_order.kind == ORDER_RANDOM) {
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

} // namespace kit_emu
