/*
 * The host side of the kit's CPU emulation (emulation/README.md): errors, the one emulated
 * device, device memory, streams and events.
 *
 * Device memory is host memory from posix_memalign, exactly the size asked (so that under
 * AddressSanitizer, the default of `make emulate`, a kernel that reads or writes past the end
 * of an allocation is reported with its line), filled with 0xA5 bytes (as a GPU's memory is
 * not zeros either). Work on the default stream runs when it is issued; a stream the program
 * creates queues its work, which runs when the program waits for it or when the thread order
 * says the GPU gets to it (below, "streams and events").
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace kit_emu
{

/* ---- host threads ---------------------------------------------------------------------------- */

static std::recursive_mutex &host_mutex()
{
    static std::recursive_mutex mutex;
    return mutex;
}

host_call::host_call() : locked(current_thread == NULL)
{
    if (locked) {
        host_mutex().lock();
    }
}

host_call::~host_call()
{
    if (locked) {
        host_mutex().unlock();
    }
}

/* ---- errors ---------------------------------------------------------------------------------- */

static cudaError_t last_error = cudaSuccess;
static cudaError_t sticky = cudaSuccess;

cudaError_t sticky_error()
{
    return sticky;
}

void set_sticky_error(cudaError_t err)
{
    sticky = err;
    last_error = err;
}

void set_last_error(cudaError_t err)
{
    last_error = err;
}

/* What most calls return: the sticky error of a faulted kernel first, as on a GPU, where the
 * context is then unusable until the process ends (or cudaDeviceReset). */
static cudaError_t answer(cudaError_t err)
{
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (err != cudaSuccess) {
        last_error = err;
    }
    return err;
}

/* ---- the emulated device --------------------------------------------------------------------- */

/* One device, sized like a small part of an H100 (sm_90, so Lab 05 has CUDA 12's dynamic
 * parallelism): 4 SMs keep a cooperative grid, which must be alive all at once, small. */
static const int SMS = 4;
static const int THREADS_PER_SM = 2048;
static const int BLOCKS_PER_SM = 32;
static const size_t SHARED_STATIC = 48 * 1024;
static const size_t SHARED_OPTIN = 227 * 1024;
static const size_t SHARED_PER_SM = 228 * 1024;
static const size_t GLOBAL_MEMORY = (size_t)4 << 30;

/* cudaDeviceSetLimit's limits, by enum cudaLimit: the defaults of an H100. */
static size_t limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};

size_t device_limit(enum cudaLimit limit)
{
    return limits[limit];
}

size_t device_shared_static()
{
    return SHARED_STATIC;
}

size_t device_shared_optin()
{
    return SHARED_OPTIN;
}

int blocks_per_sm(unsigned threads, size_t dynamic_shared)
{
    if (threads == 0 || threads > 1024) {
        return 0;
    }
    unsigned warps = (threads + 31) / 32;
    int by_threads = THREADS_PER_SM / (int)(warps * 32);
    /* 1 KiB of shared memory per block is the runtime's own. */
    int by_shared = (int)(SHARED_PER_SM / (dynamic_shared + 1024));
    int n = by_threads < BLOCKS_PER_SM ? by_threads : BLOCKS_PER_SM;
    return n < by_shared ? n : by_shared;
}

int resident_blocks(unsigned threads, size_t dynamic_shared)
{
    return blocks_per_sm(threads, dynamic_shared) * SMS;
}

static void properties(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    read_settings(); /* (once) */
    snprintf(p->name, sizeof p->name, "kit emulation on the CPU (%s order, no GPU)",
             thread_order.compare ? "compare: each launch in every" : thread_order.name());
    p->totalGlobalMem = GLOBAL_MEMORY;
    p->sharedMemPerBlock = SHARED_STATIC;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = SMS;
    p->concurrentKernels = 1;
    p->l2CacheSize = 4 << 20;
    p->maxThreadsPerMultiProcessor = THREADS_PER_SM;
    p->sharedMemPerMultiprocessor = SHARED_PER_SM;
    p->sharedMemPerBlockOptin = SHARED_OPTIN;
    p->regsPerMultiprocessor = 65536;
    p->pageableMemoryAccess = 0;
    p->cooperativeLaunch = 1;
    p->maxBlocksPerMultiProcessor = BLOCKS_PER_SM;
    /* as an H100/H200's answers, where the emulation behaves the same */
    p->canMapHostMemory = 1;
    p->unifiedAddressing = 1;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->asyncEngineCount = 2;
    p->memPitch = 2147483647;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->surfaceAlignment = 512;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->hostNativeAtomicSupported = 0;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->hostRegisterSupported = 1;
    p->reservedSharedMemPerBlock = 1024;
    p->memoryBusWidth = 5120;
    p->clockRate = 1000000;       /* kHz: 1 GHz, as clock() and clock64() count nanoseconds here */
    p->memoryClockRate = 2619000; /* kHz */
    p->deviceOverlap = 1;
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* Device allocations (cudaMalloc, cudaMallocManaged, cudaMallocPitch): start -> size. */
static std::map<const char *, size_t> allocations;
static std::set<void *> host_allocations;
/* Page-locked host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister): start -> size.
 * With unified addressing a GPU reaches it too (mapped): device code may read and write it,
 * and a copy may name it either way. */
static std::map<const char *, size_t> pinned;

static bool in_map(const std::map<const char *, size_t> &m, const void *p, size_t bytes)
{
    const char *c = static_cast<const char *>(p);
    auto it = m.upper_bound(c);
    if (it == m.begin()) {
        return false;
    }
    --it;
    return c >= it->first && c + bytes <= it->first + it->second &&
           (bytes > 0 || c < it->first + it->second || it->second == 0);
}
static size_t allocated = 0;
static const unsigned char MEMORY_POISON = 0xA5;

/* Whether one allocation, or one `__device__` or `__constant__` variable, holds [p, p + bytes). */
static bool device_range(const void *p, size_t bytes)
{
    return in_map(allocations, p, bytes) || symbol_range(p, bytes) || in_map(pinned, p, bytes);
}

static const char *kind_name(enum cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost:
        return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice:
        return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost:
        return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice:
        return "cudaMemcpyDeviceToDevice";
    default:
        return "cudaMemcpyDefault";
    }
}

static void issue_work(cudaStream_t s, std::function<void()> work);

/* Checks a copy when it is issued, then issues it on @p stream. */
static cudaError_t copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                        cudaStream_t stream, const char *call)
{
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (count == 0) {
        return cudaSuccess;
    }
    bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((int)kind < 0 || (int)kind > 4) {
        return answer(cudaErrorInvalidMemcpyDirection);
    }
    if (kind == cudaMemcpyDefault) {
        dst_device = device_range(dst, count);
        src_device = device_range(src, count);
    }
    const char *wrong = NULL;
    if (dst_device && !device_range(dst, count)) {
        wrong = "the destination is not device memory, or the copy runs past the end of its "
                "allocation";
    } else if (src_device && !device_range(src, count)) {
        wrong = "the source is not device memory, or the copy runs past the end of its "
                "allocation";
    }
    if (wrong) {
        fprintf(stderr, "emulation: %s(dst=%p, src=%p, %zu bytes, %s): %s\n", call, dst, src, count,
                kind_name(kind), wrong);
        return answer(cudaErrorInvalidValue);
    }
    issue_work(stream, [dst, src, count] { memmove(dst, src, count); });
    return cudaSuccess;
}

static cudaError_t fill(void *p, int value, size_t count, cudaStream_t stream, const char *call)
{
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (count == 0) {
        return cudaSuccess;
    }
    if (!device_range(p, count)) {
        fprintf(stderr,
                "emulation: %s(%p, %d, %zu bytes): not device memory, or past the end of "
                "its allocation\n",
                call, p, value, count);
        return answer(cudaErrorInvalidValue);
    }
    issue_work(stream, [p, value, count] { memset(p, value, count); });
    return cudaSuccess;
}

/* What a kernel may write: device allocations, and the page-locked host memory it reaches. */
std::vector<device_copy> device_snapshot()
{
    std::vector<device_copy> copies;
    for (const auto *regions : {&allocations, &pinned}) {
        for (auto &a : *regions) {
            char *start = const_cast<char *>(a.first);
            copies.push_back(
                device_copy{start, std::vector<unsigned char>(start, start + a.second)});
        }
    }
    return copies;
}

void device_restore(const std::vector<device_copy> &copies)
{
    for (const device_copy &c : copies) {
        for (auto *regions : {&allocations, &pinned}) {
            auto it = regions->find(c.start);
            if (it != regions->end() && it->second == c.bytes.size()) {
                memcpy(c.start, c.bytes.data(), c.bytes.size());
                break;
            }
        }
    }
}

/* ---- streams and events ----------------------------------------------------------------------
 *
 * The default (legacy) stream runs its work when it is issued, after the work of every blocking
 * stream issued before it (CUDA's legacy-stream rule). A stream the program creates keeps its
 * work (copies, fills, kernels, event records and waits) in a queue of its own, run in order,
 * but only when the program waits for it (a synchronization, a copy of the legacy stream after
 * it for a blocking stream, an event waited for) or when the thread order says the GPU gets to
 * it: in order forward as late as that, in order reverse at once (as if the GPU were always
 * ahead), in order random at random points between. So work that two streams do with no event
 * or synchronization between them runs in other orders in different runs, and a result that
 * depends on it shows as a difference between thread orders, as a race between threads does. */

/* An event's record: done once the stream it was recorded on gets to it. A wait holds the
 * record the event had when the wait was issued (a later record does not move it). */
struct record_token {
    struct stream_record *stream; /* NULL: recorded on the legacy stream, done at once */
    bool done;
    double ms; /* host time when done */
};

struct stream_op {
    enum kind_t { WORK, RECORD, WAIT } kind;
    std::function<void()> work;          /* WORK: a copy, a fill, a kernel */
    std::shared_ptr<record_token> token; /* RECORD: marks it done; WAIT: needs it done */
};

struct stream_record {
    unsigned flags;
    std::deque<stream_op> ops;
};
static std::vector<stream_record *> stream_list; /* in the order they were created */

static stream_record *created(cudaStream_t s)
{
    stream_record *r = reinterpret_cast<stream_record *>(s);
    return std::find(stream_list.begin(), stream_list.end(), r) == stream_list.end() ? NULL : r;
}

bool stream_valid(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || created(s);
}

bool stream_deferred(cudaStream_t s)
{
    return created(s) != NULL && current_thread == NULL;
}

struct event_record {
    unsigned flags;
    std::shared_ptr<record_token> token; /* the last record, NULL before the first */
};
static std::set<cudaEvent_t> events;

static double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void run_head(stream_record *s)
{
    stream_op op = std::move(s->ops.front());
    s->ops.pop_front();
    if (op.kind == stream_op::WORK && sticky == cudaSuccess) {
        op.work(); /* (after a kernel's fault the context is lost: nothing more runs) */
    } else if (op.kind == stream_op::RECORD) {
        op.token->done = true;
        op.token->ms = now_ms();
    }
}

static bool head_ready(const stream_record *s)
{
    return !s->ops.empty() && (s->ops.front().kind != stream_op::WAIT || !s->ops.front().token ||
                               s->ops.front().token->done);
}

static void finish(const std::shared_ptr<record_token> &token, size_t depth);

/* Runs the head of @p s, first what it waits for. */
static void advance(stream_record *s, size_t depth)
{
    if (!head_ready(s)) {
        finish(s->ops.front().token, depth + 1);
    }
    run_head(s);
}

/* Runs what @p token's record waits for on its stream, and the record. */
static void finish(const std::shared_ptr<record_token> &token, size_t depth)
{
    if (depth > stream_list.size() + 1) { /* waits that wait for each other: not possible */
        fprintf(stderr, "emulation: streams that wait for each other's events (a bug of the "
                        "emulation)\n");
        abort();
    }
    while (token && !token->done && token->stream && !token->stream->ops.empty()) {
        advance(token->stream, depth);
    }
}

/* Runs every piece of work of @p s. */
static void drain(stream_record *s)
{
    while (!s->ops.empty()) {
        advance(s, 0);
    }
}

/* The legacy stream's rule: its work waits for the work of every blocking stream (one created
 * without cudaStreamNonBlocking) issued before it. */
static void drain_blocking()
{
    for (stream_record *s : stream_list) {
        if (!(s->flags & cudaStreamNonBlocking)) {
            drain(s);
        }
    }
}

static void drain_all()
{
    if (current_thread) {
        return; /* a call from device code: the host's streams wait */
    }
    for (size_t i = 0; i < stream_list.size(); i++) {
        drain(stream_list[i]);
    }
}

void stream_ready_for(cudaStream_t s)
{
    if (current_thread) {
        return;
    }
    stream_record *r = created(s);
    if (r) {
        drain(r);
    } else {
        drain_blocking();
    }
}

/* After work is issued: how far the GPU gets meanwhile, as the thread order says. */
static void gpu_progress()
{
    read_settings(); /* (once) */
    if (current_thread || thread_order.compare || thread_order.kind == ORDER_FORWARD) {
        return;
    }
    static order_random random = thread_order.streams_random();
    for (;;) {
        std::vector<stream_record *> ready;
        for (stream_record *s : stream_list) {
            if (head_ready(s)) {
                ready.push_back(s);
            }
        }
        if (ready.empty()) {
            return;
        }
        if (thread_order.kind == ORDER_REVERSE) {
            for (auto it = ready.rbegin(); it != ready.rend(); ++it) {
                run_head(*it);
            }
            continue;
        }
        uint64_t r = random.next();
        if (r % 2 == 0) {
            return; /* the GPU stops here for now */
        }
        run_head(ready[(r >> 1) % ready.size()]);
    }
}

/* Issues @p op on @p s: the legacy stream (and a call from device code) runs it now, a created
 * stream queues it. */
static void issue(cudaStream_t s, stream_op op)
{
    stream_record *r = created(s);
    if (r && !current_thread) {
        r->ops.push_back(std::move(op));
        gpu_progress();
        return;
    }
    if (!current_thread) {
        drain_blocking();
    }
    if (op.kind == stream_op::WORK) {
        op.work();
    } else if (op.kind == stream_op::RECORD) {
        op.token->done = true;
        op.token->ms = now_ms();
    } else if (!current_thread) {
        finish(op.token, 0);
    }
}

static void issue_work(cudaStream_t s, std::function<void()> work)
{
    issue(s, stream_op{stream_op::WORK, std::move(work), NULL});
}

void stream_enqueue(cudaStream_t s, std::function<void()> work)
{
    issue_work(s, std::move(work));
}

} // namespace kit_emu

using namespace kit_emu;

extern "C" {

/* ---- errors ---------------------------------------------------------------------------------- */

/* In device code, the calling thread's last error: a launch it made from there (dynamic
 * parallelism) that failed. */
cudaError_t cudaGetLastError(void)
{
    KIT_EMU_HOST_CALL;
    if (current_thread) {
        cudaError_t err = current_thread->last_error;
        current_thread->last_error = cudaSuccess;
        return err;
    }
    if (sticky != cudaSuccess) {
        return sticky;
    }
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

cudaError_t cudaPeekAtLastError(void)
{
    KIT_EMU_HOST_CALL;
    if (current_thread) {
        return current_thread->last_error;
    }
    return sticky != cudaSuccess ? sticky : last_error;
}

const char *cudaGetErrorName(cudaError_t error)
{
    KIT_EMU_HOST_CALL;
    switch (error) {
#define NAME(e)                                                                                    \
    case e:                                                                                        \
        return #e;
        NAME(cudaSuccess)
        NAME(cudaErrorInvalidValue)
        NAME(cudaErrorMemoryAllocation)
        NAME(cudaErrorInitializationError)
        NAME(cudaErrorInvalidConfiguration)
        NAME(cudaErrorInvalidPitchValue)
        NAME(cudaErrorInvalidSymbol)
        NAME(cudaErrorInvalidDevicePointer)
        NAME(cudaErrorInvalidMemcpyDirection)
        NAME(cudaErrorInsufficientDriver)
        NAME(cudaErrorLaunchMaxDepthExceeded)
        NAME(cudaErrorLaunchPendingCountExceeded)
        NAME(cudaErrorInvalidDeviceFunction)
        NAME(cudaErrorNoDevice)
        NAME(cudaErrorInvalidDevice)
        NAME(cudaErrorInvalidResourceHandle)
        NAME(cudaErrorNotReady)
        NAME(cudaErrorIllegalAddress)
        NAME(cudaErrorLaunchOutOfResources)
        NAME(cudaErrorLaunchTimeout)
        NAME(cudaErrorAssert)
        NAME(cudaErrorIllegalInstruction)
        NAME(cudaErrorMisalignedAddress)
        NAME(cudaErrorLaunchFailure)
        NAME(cudaErrorCooperativeLaunchTooLarge)
        NAME(cudaErrorHostMemoryAlreadyRegistered)
        NAME(cudaErrorHostMemoryNotRegistered)
        NAME(cudaErrorNotSupported)
        NAME(cudaErrorUnknown)
#undef NAME
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    KIT_EMU_HOST_CALL;
    switch (error) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInitializationError:
        return "initialization error";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorInvalidPitchValue:
        return "invalid pitch argument";
    case cudaErrorInvalidSymbol:
        return "invalid device symbol";
    case cudaErrorInvalidDevicePointer:
        return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
        return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorLaunchMaxDepthExceeded:
        return "launch failed because launch would exceed the maximum nesting depth";
    case cudaErrorLaunchPendingCountExceeded:
        return "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount";
    case cudaErrorInvalidDeviceFunction:
        return "invalid device function";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle";
    case cudaErrorNotReady:
        return "device not ready";
    case cudaErrorIllegalAddress:
        return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources:
        return "too many resources requested for launch";
    case cudaErrorLaunchTimeout:
        return "the launch timed out and was terminated";
    case cudaErrorAssert:
        return "device-side assert triggered";
    case cudaErrorIllegalInstruction:
        return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress:
        return "misaligned address";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure";
    case cudaErrorCooperativeLaunchTooLarge:
        return "too many blocks in cooperative launch";
    case cudaErrorHostMemoryAlreadyRegistered:
        return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered:
        return "pointer does not correspond to a registered memory region";
    case cudaErrorNotSupported:
        return "operation not supported";
    default:
        return "unknown error";
    }
}

/* ---- the device ------------------------------------------------------------------------------ */

cudaError_t cudaGetDeviceCount(int *count)
{
    KIT_EMU_HOST_CALL;
    if (!count) {
        return answer(cudaErrorInvalidValue);
    }
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    KIT_EMU_HOST_CALL;
    if (!device) {
        return answer(cudaErrorInvalidValue);
    }
    *device = 0;
    return answer(cudaSuccess);
}

cudaError_t cudaSetDevice(int device)
{
    KIT_EMU_HOST_CALL;
    return answer(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    KIT_EMU_HOST_CALL;
    if (!prop || device != 0) {
        return answer(!prop ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    }
    properties(prop);
    return answer(cudaSuccess);
}

/* The name CUDA 12's headers give cudaGetDeviceProperties in a program's imports. */
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
    KIT_EMU_HOST_CALL;
    return cudaGetDeviceProperties(prop, device);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    KIT_EMU_HOST_CALL;
    if (!value || device != 0) {
        return answer(!value ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    }
    struct cudaDeviceProp p;
    properties(&p);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
        *value = p.maxThreadsPerBlock;
        break;
    case cudaDevAttrMaxBlockDimX:
        *value = p.maxThreadsDim[0];
        break;
    case cudaDevAttrMaxBlockDimY:
        *value = p.maxThreadsDim[1];
        break;
    case cudaDevAttrMaxBlockDimZ:
        *value = p.maxThreadsDim[2];
        break;
    case cudaDevAttrMaxGridDimX:
        *value = p.maxGridSize[0];
        break;
    case cudaDevAttrMaxGridDimY:
        *value = p.maxGridSize[1];
        break;
    case cudaDevAttrMaxGridDimZ:
        *value = p.maxGridSize[2];
        break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
        *value = (int)p.sharedMemPerBlock;
        break;
    case cudaDevAttrWarpSize:
        *value = p.warpSize;
        break;
    case cudaDevAttrMultiProcessorCount:
        *value = p.multiProcessorCount;
        break;
    case cudaDevAttrComputeCapabilityMajor:
        *value = p.major;
        break;
    case cudaDevAttrComputeCapabilityMinor:
        *value = p.minor;
        break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        *value = (int)p.sharedMemPerMultiprocessor;
        break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        *value = p.maxThreadsPerMultiProcessor;
        break;
    case cudaDevAttrPageableMemoryAccess:
        *value = p.pageableMemoryAccess;
        break;
    case cudaDevAttrCooperativeLaunch:
        *value = p.cooperativeLaunch;
        break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        *value = (int)p.sharedMemPerBlockOptin;
        break;
    case cudaDevAttrClockRate: /* kHz, as an H100's boost clock: a number to print, no more */
        *value = 1980000;
        break;
    case cudaDevAttrIntegrated:
        *value = 0;
        break;
    case cudaDevAttrComputeMode: /* any process may use it */
        *value = cudaComputeModeDefault;
        break;
    default:
        fprintf(stderr,
                "emulation: cudaDeviceGetAttribute: the emulation has no attribute %d: "
                "run this on a GPU\n",
                (int)attr);
        return answer(cudaErrorInvalidValue);
    }
    return answer(cudaSuccess);
}

cudaError_t cudaDriverGetVersion(int *version)
{
    KIT_EMU_HOST_CALL;
    if (!version) {
        return answer(cudaErrorInvalidValue);
    }
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    KIT_EMU_HOST_CALL;
    return cudaDriverGetVersion(version);
}

cudaError_t cudaDeviceSynchronize(void)
{
    KIT_EMU_HOST_CALL;
    if (current_thread) {
        fault(cudaErrorLaunchFailure, "(a call of cudaDeviceSynchronize)", 0,
              "cudaDeviceSynchronize() in device code: CUDA 12 removed it (nvcc refuses it): a "
              "kernel cannot wait for the grids it launched. The host's wait covers the whole "
              "tree; work that must follow a grid's children goes into cudaStreamTailLaunch");
    }
    drain_all();
    return answer(cudaSuccess);
}

cudaError_t cudaDeviceReset(void)
{
    KIT_EMU_HOST_CALL;
    for (stream_record *s : stream_list) {
        s->ops.clear(); /* the work still queued is dropped, as a reset does */
    }
    for (auto &a : allocations) {
        free((void *)a.first);
    }
    allocations.clear();
    allocated = 0;
    sticky = cudaSuccess;
    last_error = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    KIT_EMU_HOST_CALL;
    if ((int)limit < 0 || (int)limit > 6) {
        return answer(cudaErrorInvalidValue);
    }
    if (limit == cudaLimitDevRuntimeSyncDepth) {
        return answer(cudaErrorNotSupported); /* as on sm_90 (DESIGN.md) */
    }
    limits[limit] = value;
    return answer(cudaSuccess);
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    KIT_EMU_HOST_CALL;
    if (!value || (int)limit < 0 || (int)limit > 6) {
        return answer(cudaErrorInvalidValue);
    }
    *value = limits[limit];
    return answer(cudaSuccess);
}

/* ---- memory ---------------------------------------------------------------------------------- */

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    KIT_EMU_HOST_CALL;
    if (!ptr) {
        return answer(cudaErrorInvalidValue);
    }
    *ptr = NULL;
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (size == 0) {
        return cudaSuccess;
    }
    void *p = NULL;
    if (size > GLOBAL_MEMORY - allocated || posix_memalign(&p, 256, size) != 0) {
        return answer(cudaErrorMemoryAllocation);
    }
    memset(p, MEMORY_POISON, size);
    allocations[(const char *)p] = size;
    allocated += size;
    race_track(p, size, false, NULL);
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    KIT_EMU_HOST_CALL;
    if (!ptr) {
        return answer(cudaSuccess);
    }
    drain_all(); /* (cudaFree waits for the device: queued work may use the memory) */
    auto it = allocations.find((const char *)ptr);
    if (it == allocations.end()) {
        fprintf(stderr, "emulation: cudaFree(%p): not the start of a device allocation\n", ptr);
        return answer(cudaErrorInvalidValue);
    }
    allocated -= it->second;
    allocations.erase(it);
    race_untrack(ptr);
    free(ptr);
    return answer(cudaSuccess);
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
        return answer(cudaErrorInvalidValue);
    }
    cudaError_t err = cudaMalloc(ptr, size);
    if (err == cudaSuccess && *ptr) {
        memset(*ptr, 0, size); /* (a GPU's pages of managed memory come zeroed) */
    }
    return err;
}

/* The pitch of a row: its width rounded up to the device's alignment for pitched memory. */
static const size_t PITCH_ALIGNMENT = 512;

cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    KIT_EMU_HOST_CALL;
    if (!ptr || !pitch) {
        return answer(cudaErrorInvalidValue);
    }
    *pitch = (width + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
    return cudaMalloc(ptr, *pitch * height);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    KIT_EMU_HOST_CALL;
    if (!ptr) {
        return answer(cudaErrorInvalidValue);
    }
    *ptr = malloc(size ? size : 1);
    if (!*ptr) {
        return answer(cudaErrorMemoryAllocation);
    }
    host_allocations.insert(*ptr);
    pinned[(const char *)*ptr] = size;
    return answer(cudaSuccess);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (flags &
        ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)) {
        return answer(cudaErrorInvalidValue);
    }
    return cudaMallocHost(ptr, size);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (!ptr || size == 0 ||
        (flags & ~(unsigned)(cudaHostRegisterPortable | cudaHostRegisterMapped |
                             cudaHostRegisterIoMemory | cudaHostRegisterReadOnly))) {
        return answer(cudaErrorInvalidValue);
    }
    if (in_map(pinned, ptr, 1) || in_map(pinned, (const char *)ptr + size - 1, 1)) {
        return answer(cudaErrorHostMemoryAlreadyRegistered);
    }
    pinned[(const char *)ptr] = size;
    return answer(cudaSuccess);
}

cudaError_t cudaHostUnregister(void *ptr)
{
    KIT_EMU_HOST_CALL;
    auto it = pinned.find((const char *)ptr);
    if (!ptr || it == pinned.end() || host_allocations.count(ptr)) {
        return answer(cudaErrorHostMemoryNotRegistered);
    }
    drain_all(); /* queued work may still use it */
    pinned.erase(it);
    return answer(cudaSuccess);
}

cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (!device || flags != 0 || !in_map(pinned, host, 1)) {
        return answer(cudaErrorInvalidValue);
    }
    *device = host; /* unified addressing: the same address on both sides */
    return answer(cudaSuccess);
}

static unsigned device_flags = 0;

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    device_flags = flags;
    return answer(cudaSuccess);
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    KIT_EMU_HOST_CALL;
    if (!flags) {
        return answer(cudaErrorInvalidValue);
    }
    *flags = device_flags;
    return answer(cudaSuccess);
}

cudaError_t cudaFreeHost(void *ptr)
{
    KIT_EMU_HOST_CALL;
    if (!ptr) {
        return answer(cudaSuccess);
    }
    drain_all();
    if (!host_allocations.erase(ptr)) {
        fprintf(stderr, "emulation: cudaFreeHost(%p): not from cudaMallocHost\n", ptr);
        return answer(cudaErrorInvalidValue);
    }
    pinned.erase((const char *)ptr);
    free(ptr);
    return answer(cudaSuccess);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    KIT_EMU_HOST_CALL;
    if (!free_bytes || !total_bytes) {
        return answer(cudaErrorInvalidValue);
    }
    *free_bytes = GLOBAL_MEMORY - allocated;
    *total_bytes = GLOBAL_MEMORY;
    return answer(cudaSuccess);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    KIT_EMU_HOST_CALL;
    return copy(dst, src, count, kind, NULL, "cudaMemcpy");
}

/* cudaMemcpy2D and cudaMemcpy2DAsync: `height` rows of `width` bytes, each row a copy. */
static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t height, enum cudaMemcpyKind kind, cudaStream_t stream,
                           const char *call)
{
    if (width > dpitch || width > spitch) { /* (one row: a bad argument, as a GPU says) */
        return answer(height > 1 ? cudaErrorInvalidPitchValue : cudaErrorInvalidValue);
    }
    for (size_t row = 0; row < height; row++) {
        cudaError_t err = copy((char *)dst + row * dpitch, (const char *)src + row * spitch, width,
                               kind, stream, call);
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    KIT_EMU_HOST_CALL;
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, "cudaMemcpy2D");
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, "cudaMemcpy2DAsync");
}

cudaError_t cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height)
{
    KIT_EMU_HOST_CALL;
    if (width > pitch && height > 1) { /* (one row needs no pitch: a GPU fills it) */
        return answer(cudaErrorInvalidValue);
    }
    for (size_t row = 0; row < height; row++) {
        cudaError_t err = fill((char *)ptr + row * pitch, value, width, NULL, "cudaMemset2D");
        if (err != cudaSuccess) {
            return err;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return copy(dst, src, count, kind, stream, "cudaMemcpyAsync");
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    KIT_EMU_HOST_CALL;
    return fill(ptr, value, count, NULL, "cudaMemset");
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return fill(ptr, value, count, stream, "cudaMemsetAsync");
}

/* ---- streams --------------------------------------------------------------------------------- */

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    KIT_EMU_HOST_CALL;
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (current_thread) { /* device code (dynamic parallelism): a stream of its tree */
        preempt_guard guard;
        cudaError_t err = device_stream_create(stream, flags, "device code", 0);
        if (err != cudaSuccess) {
            current_thread->last_error = err;
        }
        return err;
    }
    if (!stream) {
        return answer(cudaErrorInvalidValue);
    }
    stream_record *s = new stream_record{flags, {}};
    stream_list.push_back(s);
    *stream = reinterpret_cast<cudaStream_t>(s);
    return answer(cudaSuccess);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (current_thread) { /* device code: the work launched into it still runs */
        return device_stream_valid(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    }
    stream_record *s = created(stream);
    if (!s) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    drain(s); /* its work still runs (CUDA frees the stream once the work is done) */
    stream_list.erase(std::find(stream_list.begin(), stream_list.end(), s));
    delete s;
    return answer(cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    stream_ready_for(stream);
    return answer(cudaSuccess);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    /* Done, once the emulation has run it: a loop that polls until then ends. */
    return cudaStreamSynchronize(stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    (void)flags;
    if (!stream_valid(stream) || !events.count(event)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    /* The event's last record, as it is now (none: nothing to wait for). */
    issue(stream, stream_op{stream_op::WAIT, {}, reinterpret_cast<event_record *>(event)->token});
    return answer(cudaSuccess);
}

/* A host function in a stream's order: it runs when the work issued before it is done (a
 * created stream's queue reaches it; the legacy stream runs it now). */
/* A host function is how a program learns, without waiting, that a stream got somewhere (it sets
 * a flag the program polls, or signals another host thread): its stream runs up to it when it is
 * issued, as a GPU that is ahead may, so that such a program never waits for ever for work that
 * only a synchronization would run here. */
static void run_to_host_function(cudaStream_t stream)
{
    stream_record *r = created(stream);
    if (r && !current_thread) {
        drain(r);
    }
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *data)
{
    KIT_EMU_HOST_CALL;
    if (!fn) {
        return answer(cudaErrorInvalidValue);
    }
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    issue_work(stream, [fn, data] { fn(data); });
    run_to_host_function(stream);
    return answer(cudaSuccess);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *data,
                                  unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (!callback || flags != 0) {
        return answer(cudaErrorInvalidValue);
    }
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    issue_work(stream, [callback, stream, data] { callback(stream, sticky, data); });
    run_to_host_function(stream);
    return answer(cudaSuccess);
}

/* ---- events ---------------------------------------------------------------------------------- */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    KIT_EMU_HOST_CALL;
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    if (!event) {
        return answer(cudaErrorInvalidValue);
    }
    event_record *e = new event_record{flags, NULL};
    *event = reinterpret_cast<cudaEvent_t>(e);
    events.insert(*event);
    return answer(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    if (!events.count(event) || !stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    std::shared_ptr<record_token> token(new record_token{created(stream), false, -1.0});
    reinterpret_cast<event_record *>(event)->token = token;
    issue(stream, stream_op{stream_op::RECORD, {}, token});
    return answer(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    KIT_EMU_HOST_CALL;
    if (!events.count(event)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    if (!current_thread) {
        finish(reinterpret_cast<event_record *>(event)->token, 0);
    }
    return answer(cudaSuccess);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    KIT_EMU_HOST_CALL;
    /* Done, once the emulation has run it: a loop that polls until then ends. */
    return cudaEventSynchronize(event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    KIT_EMU_HOST_CALL;
    if (!ms) {
        return answer(cudaErrorInvalidValue);
    }
    if (!events.count(start) || !events.count(end)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    event_record *a = reinterpret_cast<event_record *>(start);
    event_record *b = reinterpret_cast<event_record *>(end);
    if ((a->flags | b->flags) & cudaEventDisableTiming) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    if (!a->token || !b->token) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    if (!a->token->done || !b->token->done) {
        /* Not an error (CUDA's words): not the last error either. */
        return sticky != cudaSuccess ? sticky : cudaErrorNotReady;
    }
    *ms = (float)(b->token->ms - a->token->ms);
    return answer(cudaSuccess);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    KIT_EMU_HOST_CALL;
    if (!events.erase(event)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    delete reinterpret_cast<event_record *>(event); /* (a wait issued keeps its record) */
    return answer(cudaSuccess);
}

/* ---- kernels --------------------------------------------------------------------------------- */

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
                                                          int block_size, size_t dynamic_shared)
{
    KIT_EMU_HOST_CALL;
    if (!blocks || block_size <= 0 || block_size > 1024) {
        return answer(cudaErrorInvalidValue);
    }
    if (!find_kernel(func)) {
        return answer(cudaErrorInvalidDeviceFunction);
    }
    *blocks = blocks_per_sm((unsigned)block_size, dynamic_shared);
    return answer(cudaSuccess);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                                   int block_size,
                                                                   size_t dynamic_shared,
                                                                   unsigned int flags)
{
    KIT_EMU_HOST_CALL;
    /* The one flag (cudaOccupancyDisableCachingOverride) concerns the L1 cache, which the
     * emulated device does not model. */
    if (flags & ~(unsigned)cudaOccupancyDisableCachingOverride) {
        return answer(cudaErrorInvalidValue);
    }
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, dynamic_shared);
}

/* The split of on-chip memory between L1 and shared memory is a preference a GPU may ignore, and
 * the emulation has no cache: checked, then nothing to do. */
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
    KIT_EMU_HOST_CALL;
    if (!find_kernel(func)) {
        return answer(cudaErrorInvalidDeviceFunction);
    }
    if ((int)config < 0 || (int)config > 3) {
        return answer(cudaErrorInvalidValue);
    }
    return answer(cudaSuccess);
}

static enum cudaFuncCache device_cache_config = cudaFuncCachePreferNone;

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    KIT_EMU_HOST_CALL;
    if ((int)config < 0 || (int)config > 3) {
        return answer(cudaErrorInvalidValue);
    }
    device_cache_config = config;
    return answer(cudaSuccess);
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    KIT_EMU_HOST_CALL;
    if (!config) {
        return answer(cudaErrorInvalidValue);
    }
    *config = device_cache_config;
    return answer(cudaSuccess);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    KIT_EMU_HOST_CALL;
    kernel_info *k = find_kernel(func);
    if (!k) {
        return answer(cudaErrorInvalidDeviceFunction);
    }
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (size_t)value > SHARED_OPTIN) {
            return answer(cudaErrorInvalidValue);
        }
        k->max_dynamic_shared = value;
    }
    return answer(cudaSuccess);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    KIT_EMU_HOST_CALL;
    kernel_info *k = find_kernel(func);
    if (!attr) {
        return answer(cudaErrorInvalidValue);
    }
    if (!k) {
        return answer(cudaErrorInvalidDeviceFunction);
    }
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = k->max_dynamic_shared;
    return answer(cudaSuccess);
}

} /* extern "C" */
