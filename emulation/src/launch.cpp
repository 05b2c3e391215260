/*
 * Launches: a kernel launch from the host (<<<...>>>, cudaLaunchKernel,
 * cudaLaunchCooperativeKernel), its configuration checked, queued on a created stream or run
 * now with every grid it launches from device code; and a launch from device code, checked and
 * queued in the tree of grids (device_launch.cpp).
 */
#include "launch_state.h"

#include <stdio.h>
#include <string.h>

#include <memory>
#include <utility>

namespace kit_emu
{

launch_state *active = NULL;
static unsigned long long launch_count = 0;

static cudaError_t check_config(const launch_state &l)
{
    unsigned long long threads = (unsigned long long)l.blk.x * l.blk.y * l.blk.z;
    if (threads == 0 || threads > 1024 || l.blk.x > 1024 || l.blk.y > 1024 || l.blk.z > 64 ||
        l.grid.x == 0 || l.grid.y == 0 || l.grid.z == 0 || l.grid.x > 2147483647u ||
        l.grid.y > 65535 || l.grid.z > 65535) {
        return cudaErrorInvalidConfiguration;
    }
    if (l.shmem > device_shared_static()) {
        kernel_info *k = find_kernel_named(l.name);
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
    KIT_EMU_HOST_CALL;
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
    l.clock_reads = 0;
    l.threads_ended = 0;
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
    if (thread_order.compare) {
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
    KIT_EMU_HOST_CALL;
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
