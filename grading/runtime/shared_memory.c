/*
 * Device memory the verdict process owns and the executor maps: see shared_memory.h.
 * Both halves use the CUDA driver's virtual memory API (cuMemCreate with a POSIX file
 * descriptor handle, cuMemMap, cuMemSetAccess), reached through dlopen so that a machine
 * without a driver can still start the programs.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared_memory.h"

/* ---- the driver's functions ------------------------------------------------------------ */

/* The functions used here, by the names libcuda exports (cuda.h maps some to _v2). */
#define DRIVER_FUNCTIONS(X)                                                                        \
    X(cuInit, "cuInit")                                                                            \
    X(cuDeviceGet, "cuDeviceGet")                                                                  \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                                        \
    X(cuCtxSetCurrent, "cuCtxSetCurrent")                                                          \
    X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity")                              \
    X(cuMemCreate, "cuMemCreate")                                                                  \
    X(cuMemRelease, "cuMemRelease")                                                                \
    X(cuMemAddressReserve, "cuMemAddressReserve")                                                  \
    X(cuMemAddressFree, "cuMemAddressFree")                                                        \
    X(cuMemMap, "cuMemMap")                                                                        \
    X(cuMemUnmap, "cuMemUnmap")                                                                    \
    X(cuMemSetAccess, "cuMemSetAccess")                                                            \
    X(cuMemExportToShareableHandle, "cuMemExportToShareableHandle")                                \
    X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle")                            \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                                                             \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                                                             \
    X(cuMemcpyDtoD, "cuMemcpyDtoD_v2")                                                             \
    X(cuMemsetD8, "cuMemsetD8_v2")                                                                 \
    X(cuMemHostRegister, "cuMemHostRegister_v2")                                                   \
    X(cuCtxSynchronize, "cuCtxSynchronize")

#define DECLARE(fn, symbol) __typeof__(&fn) fn;
static struct {
    DRIVER_FUNCTIONS(DECLARE)
} driver;

/* Loads the driver's functions once: 0, or -1 with the reason. */
static int load_driver(char *why, size_t why_size)
{
    static int loaded; /* 0 not yet, 1 done, -1 failed */
    static char failure[200];
    if (loaded == 0) {
        void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        loaded = library ? 1 : -1;
        if (!library) {
            snprintf(failure, sizeof failure, "cannot load the CUDA driver: %s", dlerror());
        }
#define RESOLVE(fn, symbol)                                                                        \
    if (loaded == 1 && !(*(void **)&driver.fn = dlsym(library, symbol))) {                         \
        snprintf(failure, sizeof failure, "the CUDA driver has no %s", symbol);                    \
        loaded = -1;                                                                               \
    }
        DRIVER_FUNCTIONS(RESOLVE)
    }
    if (loaded < 0 && why) {
        snprintf(why, why_size, "%s", failure);
    }
    return loaded == 1 ? 0 : -1;
}

/* A CUresult as a cudaError_t number (they agree where the kit looks). */
static int as_error(CUresult result)
{
    return (int)result;
}

static CUmemAllocationProp allocation_properties(int device)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}

/* Maps @p handle at a new reservation of @p bytes (at @p wanted if it is free) and gives
 * @p device read and write access to it. */
static CUresult map_handle(CUmemGenericAllocationHandle handle, uint64_t bytes, uint64_t wanted,
                           int device, CUdeviceptr *address)
{
    CUresult result = driver.cuMemAddressReserve(address, bytes, 0, (CUdeviceptr)wanted, 0);
    if (result != CUDA_SUCCESS) {
        return result;
    }
    result = driver.cuMemMap(*address, bytes, 0, handle, 0);
    if (result == CUDA_SUCCESS) {
        CUmemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        result = driver.cuMemSetAccess(*address, bytes, &access, 1);
        if (result != CUDA_SUCCESS) {
            driver.cuMemUnmap(*address, bytes);
        }
    }
    if (result != CUDA_SUCCESS) {
        driver.cuMemAddressFree(*address, bytes);
    }
    return result;
}

/* ---- buffers: the verdict's own, or the executor's mappings of them --------------------- */

typedef struct {
    uint64_t address;                    /* here */
    uint64_t verdict;                    /* in the verdict process (the same as address there) */
    uint64_t bytes;                      /* mapped */
    CUmemGenericAllocationHandle handle; /* the verdict's; 0 in the executor */
} buffer;

static buffer *buffers;
static size_t buffer_count, buffer_capacity;

static int remember(buffer b)
{
    if (buffer_count == buffer_capacity) {
        size_t capacity = buffer_capacity ? 2 * buffer_capacity : 64;
        buffer *grown = realloc(buffers, capacity * sizeof *grown);
        if (!grown) {
            return -1;
        }
        buffers = grown;
        buffer_capacity = capacity;
    }
    buffers[buffer_count++] = b;
    return 0;
}

/* The buffer whose verdict address is @p verdict, or NULL. */
static buffer *by_verdict_address(uint64_t verdict)
{
    for (size_t i = 0; i < buffer_count; i++) {
        if (buffers[i].verdict == verdict) {
            return &buffers[i];
        }
    }
    return NULL;
}

static void forget(buffer *b)
{
    *b = buffers[--buffer_count];
}

/* ---- the verdict process ---------------------------------------------------------------- */

static int verdict_device = -1;
static size_t granularity;

int kit_shared_start(char *why, size_t why_size)
{
    static int started; /* 0 not yet, 1 ready, -1 failed */
    static char failure[200];
    if (started == 0) {
        started = -1;
        CUdevice device;
        CUcontext context;
        CUresult result = CUDA_SUCCESS;
        CUmemAllocationProp prop = allocation_properties(0);
        if (load_driver(failure, sizeof failure) == 0) {
            if ((result = driver.cuInit(0)) == CUDA_SUCCESS &&
                (result = driver.cuDeviceGet(&device, 0)) == CUDA_SUCCESS &&
                (result = driver.cuDevicePrimaryCtxRetain(&context, device)) == CUDA_SUCCESS &&
                (result = driver.cuCtxSetCurrent(context)) == CUDA_SUCCESS &&
                (result = driver.cuMemGetAllocationGranularity(
                     &granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)) == CUDA_SUCCESS) {
                verdict_device = (int)device;
                started = 1;
            } else {
                snprintf(failure, sizeof failure,
                         "the CUDA driver refused the grader's "
                         "context (CUresult %d)",
                         (int)result);
            }
        }
    }
    if (started < 0 && why) {
        snprintf(why, why_size, "%s", failure);
    }
    return started == 1 ? 0 : -1;
}

int kit_shared_alloc(size_t bytes, uint64_t *address, uint64_t *mapped, int *fd)
{
    *address = 0;
    *fd = -1;
    if (kit_shared_start(NULL, 0) != 0) {
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    uint64_t size = (bytes + granularity - 1) / granularity * granularity;
    if (size == 0) {
        size = granularity;
    }
    CUmemAllocationProp prop = allocation_properties(verdict_device);
    CUmemGenericAllocationHandle handle;
    CUresult result = driver.cuMemCreate(&handle, size, &prop, 0);
    if (result != CUDA_SUCCESS) {
        return as_error(result);
    }
    CUdeviceptr where = 0;
    int exported = -1;
    result = map_handle(handle, size, 0, verdict_device, &where);
    if (result == CUDA_SUCCESS) {
        result = driver.cuMemExportToShareableHandle(&exported, handle,
                                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        if (result == CUDA_SUCCESS &&
            remember((buffer){
                .address = where, .verdict = where, .bytes = size, .handle = handle}) != 0) {
            close(exported);
            result = CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (result != CUDA_SUCCESS) {
            driver.cuMemUnmap(where, size);
            driver.cuMemAddressFree(where, size);
        }
    }
    if (result != CUDA_SUCCESS) {
        driver.cuMemRelease(handle);
        return as_error(result);
    }
    *address = where;
    *mapped = size;
    *fd = exported;
    return 0;
}

int kit_shared_free(uint64_t address)
{
    buffer *b = by_verdict_address(address);
    if (!b) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    driver.cuMemUnmap(b->address, b->bytes);
    driver.cuMemAddressFree(b->address, b->bytes);
    CUresult result = driver.cuMemRelease(b->handle);
    forget(b);
    return as_error(result);
}

void kit_shared_free_all(void)
{
    while (buffer_count > 0) {
        kit_shared_free(buffers[buffer_count - 1].address);
    }
}

int kit_shared_mapped(uint64_t address, uint64_t *mapped)
{
    buffer *b = by_verdict_address(address);
    *mapped = b ? b->bytes : 0;
    return b != NULL;
}

int kit_shared_holds(uint64_t address, size_t bytes)
{
    for (size_t i = 0; i < buffer_count; i++) {
        const buffer *b = &buffers[i];
        if (address >= b->address && address - b->address <= b->bytes &&
            bytes <= b->bytes - (address - b->address)) {
            return 1;
        }
    }
    return 0;
}

/* Each copy and memset has ended when it returns: the executor's work that follows must see
 * it, and the verdict reads only what the executor's finished work left. */
int kit_shared_to_device(uint64_t dst, const void *src, size_t bytes)
{
    if (!bytes) {
        return 0;
    }
    /* From pageable memory the copy returns once the bytes are staged, before they reach the
     * GPU: the executor's kernels are in another context, not behind it on one stream. */
    CUresult result = driver.cuMemcpyHtoD((CUdeviceptr)dst, src, bytes);
    return as_error(result == CUDA_SUCCESS ? driver.cuCtxSynchronize() : result);
}

int kit_shared_pin_host(void *host, size_t bytes)
{
    return bytes ? as_error(driver.cuMemHostRegister(host, bytes, 0)) : 0;
}

int kit_shared_to_host(void *dst, uint64_t src, size_t bytes)
{
    return bytes ? as_error(driver.cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes)) : 0;
}

int kit_shared_on_device(uint64_t dst, uint64_t src, size_t bytes)
{
    if (!bytes) {
        return 0;
    }
    CUresult result = driver.cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, bytes);
    return as_error(result == CUDA_SUCCESS ? driver.cuCtxSynchronize() : result);
}

int kit_shared_memset(uint64_t dst, int value, size_t bytes)
{
    if (!bytes) {
        return 0;
    }
    CUresult result = driver.cuMemsetD8((CUdeviceptr)dst, (unsigned char)value, bytes);
    return as_error(result == CUDA_SUCCESS ? driver.cuCtxSynchronize() : result);
}

/* ---- the executor ------------------------------------------------------------------------ */

int kit_shared_import(int fd, uint64_t wanted, uint64_t bytes, int device, uint64_t *address)
{
    *address = 0;
    if (load_driver(NULL, 0) != 0) {
        close(fd);
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    CUmemGenericAllocationHandle handle;
    CUresult result = driver.cuMemImportFromShareableHandle(
        &handle, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (result != CUDA_SUCCESS) {
        return as_error(result);
    }
    CUdeviceptr where = 0;
    result = map_handle(handle, bytes, wanted, device, &where);
    driver.cuMemRelease(handle); /* the mapping keeps the memory */
    if (result != CUDA_SUCCESS) {
        return as_error(result);
    }
    if (remember((buffer){.address = where, .verdict = wanted, .bytes = bytes}) != 0) {
        driver.cuMemUnmap(where, bytes);
        driver.cuMemAddressFree(where, bytes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *address = where;
    return 0;
}

int kit_shared_unimport(uint64_t verdict_address)
{
    buffer *b = by_verdict_address(verdict_address);
    if (!b) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult result = driver.cuMemUnmap(b->address, b->bytes);
    driver.cuMemAddressFree(b->address, b->bytes);
    forget(b);
    return as_error(result);
}

uint64_t kit_shared_translate(uint64_t word)
{
    /* Inside a buffer first; then one past its end (an end pointer), which may also be where
     * the next buffer starts. */
    for (int end = 0; end <= 1; end++) {
        for (size_t i = 0; i < buffer_count; i++) {
            const buffer *b = &buffers[i];
            if (word >= b->verdict &&
                (end ? word - b->verdict == b->bytes : word - b->verdict < b->bytes)) {
                return b->address + (word - b->verdict);
            }
        }
    }
    return word;
}
