/*
 * The host side of the kit's CPU emulation (emulation/README.md): errors, the one emulated
 * device, device memory, streams and events.
 *
 * Device memory is host memory from posix_memalign, exactly the size asked (so that under
 * AddressSanitizer, the default of `make emulate`, a kernel that reads or writes past the end
 * of an allocation is reported with its line), filled with 0xA5 bytes (as a GPU's memory is
 * not zeros either). Work on a stream runs when it is issued, so every stream is in order and
 * every synchronization only reports errors.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <map>
#include <set>

namespace kit_emu
{

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
    snprintf(p->name, sizeof p->name, "kit emulation on the CPU (%s order, no GPU)", order_name());
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
}

/* ---- memory ---------------------------------------------------------------------------------- */

/* Device allocations: start -> size. */
static std::map<const char *, size_t> allocations;
static std::set<void *> host_allocations;
static size_t allocated = 0;
static const unsigned char MEMORY_POISON = 0xA5;

/* The allocation that holds [p, p + bytes), or false. */
static bool device_range(const void *p, size_t bytes)
{
    const char *c = static_cast<const char *>(p);
    auto it = allocations.upper_bound(c);
    if (it == allocations.begin()) {
        return false;
    }
    --it;
    return c >= it->first && c + bytes <= it->first + it->second &&
           (bytes > 0 || c < it->first + it->second || it->second == 0);
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

static cudaError_t copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                        const char *call)
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
    memmove(dst, src, count);
    return cudaSuccess;
}

static cudaError_t fill(void *p, int value, size_t count, const char *call)
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
    memset(p, value, count);
    return cudaSuccess;
}

std::vector<device_copy> device_snapshot()
{
    std::vector<device_copy> copies;
    for (auto &a : allocations) {
        char *start = const_cast<char *>(a.first);
        copies.push_back(device_copy{start, std::vector<unsigned char>(start, start + a.second)});
    }
    return copies;
}

void device_restore(const std::vector<device_copy> &copies)
{
    for (const device_copy &c : copies) {
        if (allocations.count(c.start) && allocations[c.start] == c.bytes.size()) {
            memcpy(c.start, c.bytes.data(), c.bytes.size());
        }
    }
}

/* ---- streams and events ---------------------------------------------------------------------- */

struct stream_record {
    unsigned flags;
};
static std::set<cudaStream_t> streams;

bool stream_valid(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || streams.count(s);
}

struct event_record {
    unsigned flags;
    double ms; /* host time when recorded, < 0 before */
};
static std::set<cudaEvent_t> events;

static double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

} // namespace kit_emu

using namespace kit_emu;

extern "C" {

/* ---- errors ---------------------------------------------------------------------------------- */

cudaError_t cudaGetLastError(void)
{
    if (sticky != cudaSuccess) {
        return sticky;
    }
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    return err;
}

cudaError_t cudaPeekAtLastError(void)
{
    return sticky != cudaSuccess ? sticky : last_error;
}

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define NAME(e)                                                                                    \
    case e:                                                                                        \
        return #e;
        NAME(cudaSuccess)
        NAME(cudaErrorInvalidValue)
        NAME(cudaErrorMemoryAllocation)
        NAME(cudaErrorInitializationError)
        NAME(cudaErrorInvalidConfiguration)
        NAME(cudaErrorInvalidSymbol)
        NAME(cudaErrorInvalidDevicePointer)
        NAME(cudaErrorInvalidMemcpyDirection)
        NAME(cudaErrorInsufficientDriver)
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
        NAME(cudaErrorNotSupported)
        NAME(cudaErrorUnknown)
#undef NAME
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
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
    case cudaErrorInvalidSymbol:
        return "invalid device symbol";
    case cudaErrorInvalidDevicePointer:
        return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
        return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
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
    case cudaErrorNotSupported:
        return "operation not supported";
    default:
        return "unknown error";
    }
}

/* ---- the device ------------------------------------------------------------------------------ */

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) {
        return answer(cudaErrorInvalidValue);
    }
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) {
        return answer(cudaErrorInvalidValue);
    }
    *device = 0;
    return answer(cudaSuccess);
}

cudaError_t cudaSetDevice(int device)
{
    return answer(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!prop || device != 0) {
        return answer(!prop ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
    }
    properties(prop);
    return answer(cudaSuccess);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
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
    if (!version) {
        return answer(cudaErrorInvalidValue);
    }
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    return cudaDriverGetVersion(version);
}

cudaError_t cudaDeviceSynchronize(void)
{
    return answer(cudaSuccess);
}

cudaError_t cudaDeviceReset(void)
{
    for (auto &a : allocations) {
        free((void *)a.first);
    }
    allocations.clear();
    allocated = 0;
    sticky = cudaSuccess;
    last_error = cudaSuccess;
    return cudaSuccess;
}

static size_t limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
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
    if (!value || (int)limit < 0 || (int)limit > 6) {
        return answer(cudaErrorInvalidValue);
    }
    *value = limits[limit];
    return answer(cudaSuccess);
}

/* ---- memory ---------------------------------------------------------------------------------- */

cudaError_t cudaMalloc(void **ptr, size_t size)
{
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
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    if (!ptr) {
        return answer(cudaSuccess);
    }
    auto it = allocations.find((const char *)ptr);
    if (it == allocations.end()) {
        fprintf(stderr, "emulation: cudaFree(%p): not the start of a device allocation\n", ptr);
        return answer(cudaErrorInvalidValue);
    }
    allocated -= it->second;
    allocations.erase(it);
    free(ptr);
    return answer(cudaSuccess);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr) {
        return answer(cudaErrorInvalidValue);
    }
    *ptr = malloc(size ? size : 1);
    if (!*ptr) {
        return answer(cudaErrorMemoryAllocation);
    }
    host_allocations.insert(*ptr);
    return answer(cudaSuccess);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMallocHost(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr)
{
    if (!ptr) {
        return answer(cudaSuccess);
    }
    if (!host_allocations.erase(ptr)) {
        fprintf(stderr, "emulation: cudaFreeHost(%p): not from cudaMallocHost\n", ptr);
        return answer(cudaErrorInvalidValue);
    }
    free(ptr);
    return answer(cudaSuccess);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes) {
        return answer(cudaErrorInvalidValue);
    }
    *free_bytes = GLOBAL_MEMORY - allocated;
    *total_bytes = GLOBAL_MEMORY;
    return answer(cudaSuccess);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return copy(dst, src, count, kind, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return copy(dst, src, count, kind, "cudaMemcpyAsync");
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    return fill(ptr, value, count, "cudaMemset");
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    if (!stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return fill(ptr, value, count, "cudaMemsetAsync");
}

/* ---- streams --------------------------------------------------------------------------------- */

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    if (!stream) {
        return answer(cudaErrorInvalidValue);
    }
    stream_record *s = new stream_record{flags};
    *stream = reinterpret_cast<cudaStream_t>(s);
    streams.insert(*stream);
    return answer(cudaSuccess);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!streams.erase(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    delete reinterpret_cast<stream_record *>(stream);
    return answer(cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return answer(stream_valid(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return cudaStreamSynchronize(stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    if (!stream_valid(stream) || !events.count(event)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    return answer(cudaSuccess);
}

/* ---- events ---------------------------------------------------------------------------------- */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event) {
        return answer(cudaErrorInvalidValue);
    }
    event_record *e = new event_record{flags, -1.0};
    *event = reinterpret_cast<cudaEvent_t>(e);
    events.insert(*event);
    return answer(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!events.count(event) || !stream_valid(stream)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    reinterpret_cast<event_record *>(event)->ms = now_ms();
    return answer(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return answer(events.count(event) ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    return cudaEventSynchronize(event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
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
    if (a->ms < 0 || b->ms < 0) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    *ms = (float)(b->ms - a->ms);
    return answer(cudaSuccess);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!events.erase(event)) {
        return answer(cudaErrorInvalidResourceHandle);
    }
    delete reinterpret_cast<event_record *>(event);
    return answer(cudaSuccess);
}

/* ---- kernels --------------------------------------------------------------------------------- */

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
                                                          int block_size, size_t dynamic_shared)
{
    if (!blocks || block_size <= 0 || block_size > 1024) {
        return answer(cudaErrorInvalidValue);
    }
    if (!find_kernel(func)) {
        return answer(cudaErrorInvalidDeviceFunction);
    }
    *blocks = blocks_per_sm((unsigned)block_size, dynamic_shared);
    return answer(cudaSuccess);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
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
