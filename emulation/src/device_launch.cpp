/*
 * Dynamic parallelism in the emulation: the grids that kernels launch from device code, and
 * when each runs (emulation/README.md, "Launches from device code").
 *
 * A launch from the host starts a tree: its grid is the root, and every grid a kernel of the
 * tree launches is a node below the grid that launched it. As on a GPU since CUDA 12 (CDP2),
 * nothing in device code waits for a child, and the host's launch is complete only when the
 * whole tree is. The rules a GPU keeps, kept here:
 *
 * - cudaStreamFireAndForget: the child may run as soon as it is launched;
 * - cudaStreamTailLaunch: the child runs after its parent grid is complete (its own threads
 *   and every grid it launched into the other streams), the tail launches of one grid one
 *   after the other, in the order they were made;
 * - the NULL stream: one stream per block of the parent, in order: a launch starts after the
 *   block's previous one into it is complete;
 * - a stream device code created (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) in a
 *   kernel): its launches in order, as the NULL stream's, and independent of every other stream;
 *   cudaStreamDestroy lets the work already launched into it run;
 * - at most cudaLimitDevRuntimePendingLaunchCount launches (cudaDeviceSetLimit; 2048 by default)
 *   may be pending, launched and not yet started: the launch past it fails with
 *   cudaErrorLaunchPendingCountExceeded, which the launching thread's cudaGetLastError() gives.
 * No depth is refused: the nesting depth of 24 the programming guide names did not bind on an
 * H100 with CUDA 13, which ran a chain of 32 fire-and-forget grids (the device test dp_depth).
 *
 * The grids of the emulation run one at a time, so a child runs once the grid that launched it
 * has ended (a GPU may start it sooner: code that needs it to, a parent that spins on what its
 * child writes, is a deadlock here, reported as one). Among the launches that may run, the
 * thread order picks: forward the oldest first (level by level), reverse the newest first (depth
 * first), random any. A fault in any grid ends the tree: the rest is dropped, and the error is
 * the host's, sticky, as a GPU's fault is.
 */
#include "internal.h"

#include <stdio.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

namespace kit_emu
{

enum launch_kind { ROOT, FIRE_AND_FORGET, TAIL, BLOCK_STREAM };

/* One grid of the tree. */
struct grid_node {
    /* What runs: as launch_kernel() was given it, the arguments (closure) owned. */
    const void *func;
    config cfg;
    invoke_fn invoke;
    std::shared_ptr<void> closure;
    const char *file;
    int line;
    grid_node *parent;
    launch_kind kind;
    bool ran;               /* its own threads have all ended */
    bool complete;          /* and so have all its descendants */
    unsigned open_children; /* children into fire-and-forget or the NULL stream, not complete */
    std::vector<grid_node *> tails; /* its tail launches, in launch order */
    size_t tails_done;
    bool tail_started;
    /* Launches into the NULL stream that wait for this one (the same block's next ones). */
    std::vector<grid_node *> followers;
    /* Per block of this grid (linear index), and per stream device code created: its last
     * launch into that stream. */
    std::unordered_map<unsigned long long, grid_node *> block_stream_last;

    grid_node(const void *f, const config &c, invoke_fn inv, std::shared_ptr<void> cl,
              const char *fl, int ln, grid_node *p, launch_kind k)
        : func(f), cfg(c), invoke(inv), closure(std::move(cl)), file(fl), line(ln), parent(p),
          kind(k), ran(false), complete(false), open_children(0), tails_done(0), tail_started(false)
    {
    }
};

static struct {
    std::vector<std::unique_ptr<grid_node>> nodes; /* every grid of the tree, the root first */
    std::deque<grid_node *> ready;                 /* launched, may start, not started */
    grid_node *running;                            /* the grid whose threads run now */
    size_t pending;                                /* launched and not started */
} tree = {{}, {}, NULL, 0};

/* The streams device code created (a handle each, never dereferenced), per tree. */
static std::unordered_map<cudaStream_t, unsigned long long> device_streams;
static std::vector<std::unique_ptr<char>> device_stream_handles;

cudaError_t device_stream_create(cudaStream_t *stream, unsigned int flags, const char *file,
                                 int line)
{
    if (!stream) {
        return cudaErrorInvalidValue;
    }
    if (flags != cudaStreamNonBlocking) {
        fprintf(stderr,
                "emulation: %s:%d: a stream created in device code must be "
                "cudaStreamNonBlocking (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking))\n",
                file, line);
        return cudaErrorInvalidValue;
    }
    device_stream_handles.emplace_back(new char);
    *stream = reinterpret_cast<cudaStream_t>(device_stream_handles.back().get());
    device_streams[*stream] = device_streams.size() + 1;
    return cudaSuccess;
}

bool device_stream_valid(cudaStream_t stream)
{
    return device_streams.count(stream) != 0;
}

void tree_begin()
{
    device_streams.clear();
    device_stream_handles.clear();
    tree.nodes.clear();
    tree.ready.clear();
    tree.pending = 0;
    tree.nodes.emplace_back(
        new grid_node(NULL, config(dim3(1), dim3(1)), NULL, NULL, "", 0, NULL, ROOT));
    tree.running = tree.nodes.front().get();
}

static void settle(grid_node *n);

/* @p n is complete: the launches that waited for it may start, and its parent hears of it. */
static void completed(grid_node *n)
{
    n->complete = true;
    for (grid_node *f : n->followers) {
        tree.ready.push_back(f);
    }
    grid_node *p = n->parent;
    if (!p) {
        return;
    }
    if (n->kind == TAIL) {
        p->tails_done++;
        p->tail_started = false;
    } else {
        p->open_children--;
    }
    settle(p);
}

/* What @p n waits for now: its children, then its tail launches one by one, then nothing. */
static void settle(grid_node *n)
{
    if (!n->ran || n->complete || n->open_children > 0) {
        return;
    }
    if (n->tails_done < n->tails.size()) {
        if (!n->tail_started) {
            n->tail_started = true;
            tree.ready.push_back(n->tails[n->tails_done]);
        }
        return;
    }
    completed(n);
}

cudaError_t device_launch_enqueue(const void *func, const config &c, invoke_fn invoke,
                                  std::shared_ptr<void> closure, unsigned long long block,
                                  const char *file, int line)
{
    grid_node *parent = tree.running;
    launch_kind kind;
    /* The launch's stream among the parent's ordered ones: its block's NULL stream, or a stream
     * device code created (numbered past every block). */
    unsigned long long ordered = block;
    if (c.stream == cudaStreamFireAndForget) {
        kind = FIRE_AND_FORGET;
    } else if (c.stream == cudaStreamTailLaunch) {
        kind = TAIL;
    } else if (c.stream == NULL) {
        kind = BLOCK_STREAM;
    } else if (device_stream_valid(c.stream)) {
        kind = BLOCK_STREAM;
        ordered = (1ull << 63) | device_streams[c.stream];
    } else {
        fprintf(stderr,
                "emulation: %s:%d: a launch from device code into a stream the host made (or "
                "an unknown one): device code launches into cudaStreamFireAndForget, "
                "cudaStreamTailLaunch, the NULL stream or a stream it created\n",
                file, line);
        return cudaErrorInvalidResourceHandle;
    }
    if (tree.pending >= device_limit(cudaLimitDevRuntimePendingLaunchCount)) {
        return cudaErrorLaunchPendingCountExceeded;
    }
    tree.nodes.emplace_back(
        new grid_node(func, c, invoke, std::move(closure), file, line, parent, kind));
    grid_node *n = tree.nodes.back().get();
    tree.pending++;
    if (kind == TAIL) {
        parent->tails.push_back(n);
        return cudaSuccess;
    }
    parent->open_children++;
    if (kind == BLOCK_STREAM) {
        grid_node *&last = parent->block_stream_last[ordered];
        grid_node *before = last;
        last = n;
        if (before && !before->complete) {
            before->followers.push_back(n);
            return cudaSuccess;
        }
    }
    tree.ready.push_back(n);
    return cudaSuccess;
}

void tree_discard_launches()
{
    grid_node *p = tree.running;
    auto launched_by_p = [p](const grid_node *n) { return n->parent == p; };
    tree.ready.erase(std::remove_if(tree.ready.begin(), tree.ready.end(), launched_by_p),
                     tree.ready.end());
    size_t before = tree.nodes.size();
    tree.nodes.erase(
        std::remove_if(tree.nodes.begin(), tree.nodes.end(),
                       [p](const std::unique_ptr<grid_node> &n) { return n->parent == p; }),
        tree.nodes.end());
    tree.pending -= before - tree.nodes.size();
    p->open_children = 0;
    p->tails.clear();
    p->block_stream_last.clear();
}

/* The next grid to start, as the thread order picks it. */
static grid_node *take_ready(order_random &random)
{
    grid_node *n;
    if (thread_order.kind == ORDER_REVERSE) {
        n = tree.ready.back();
        tree.ready.pop_back();
    } else if (thread_order.kind == ORDER_RANDOM) {
        size_t at = (size_t)random.next() % tree.ready.size();
        n = tree.ready[at];
        tree.ready[at] = tree.ready.back();
        tree.ready.pop_back();
    } else {
        n = tree.ready.front();
        tree.ready.pop_front();
    }
    return n;
}

cudaError_t tree_finish(cudaError_t root_error)
{
    grid_node *root = tree.nodes.front().get();
    root->ran = true;
    settle(root);
    cudaError_t err = root_error;
    order_random random = thread_order.tree_random();
    while (err == cudaSuccess && !tree.ready.empty()) {
        grid_node *n = take_ready(random);
        tree.pending--;
        tree.running = n;
        err = run_device_grid(n->func, n->cfg, n->invoke, n->closure.get(), n->file, n->line);
        n->ran = true;
        settle(n);
    }
    /* A fault dropped what was left; a tree with no fault ends with every grid complete. */
    tree.nodes.clear();
    tree.ready.clear();
    tree.pending = 0;
    tree.running = NULL;
    return err;
}

} // namespace kit_emu
