/*
 * The executor of a graded test (see remote.h): the student's object plus this dispatcher,
 * run by the grader in its sandbox. It reads requests on descriptor KIT_REMOTE_FD, does them
 * with the real CUDA runtime, and answers with data. It holds no test, no verdict, no
 * expected output and no way to the grader's result channel.
 *
 * The grader links it with `-Xlinker --wrap=cudaMemcpy` (and the other copies to the host),
 * so every such copy the student's code makes comes through the __wrap_ functions below,
 * which count the bytes that reach host memory during a call of the lab's API.
 */
#define _GNU_SOURCE
#define KIT_REMOTE_EXECUTOR
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote.h"
#include "remote_api.h"
#include "shared_memory.h"

/* ---- the lab's functions, registered by grading/calls/api_NN_name.c -------------------------- */

#define MAX_FUNCTIONS 64
static struct {
    const char *name;
    unsigned arg_count;
    kit_remote_thunk thunk;
} functions[MAX_FUNCTIONS];
static int function_count;

void kit_remote_register(const char *name, unsigned arg_count, kit_remote_thunk thunk)
{
    if (function_count < MAX_FUNCTIONS) {
        functions[function_count].name = name;
        functions[function_count].arg_count = arg_count;
        functions[function_count].thunk = thunk;
        function_count++;
    }
}

/* ---- copies to the host, counted while the student's code runs -------------------------- */

static int counting;
static uint64_t copied_to_host;

cudaError_t __real_cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t __real_cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset,
                                        enum cudaMemcpyKind kind);

/* Device memory by what CUDA knows of the pointer, not by the kind the caller claims. */
static int on_device(const void *pointer)
{
    struct cudaPointerAttributes attributes;
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
        cudaGetLastError(); /* not a CUDA pointer: host memory; clear the error */
        return 0;
    }
    return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

static void count_copy(void *dst, int from_device, size_t bytes)
{
    if (counting && from_device && !on_device(dst)) {
        copied_to_host += bytes;
    }
}

cudaError_t __wrap_cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    count_copy(dst, counting && on_device(src), bytes);
    return __real_cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    count_copy(dst, counting && on_device(src), bytes);
    return __real_cudaMemcpyAsync(dst, src, bytes, kind, stream);
}

cudaError_t __wrap_cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset,
                                        enum cudaMemcpyKind kind)
{
    count_copy(dst, 1, bytes);
    return __real_cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}

/* ---- the socket ------------------------------------------------------------------------ */

static void read_all(void *data, size_t bytes)
{
    char *p = data;
    while (bytes > 0) {
        ssize_t got = read(KIT_REMOTE_FD, p, bytes);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            exit(0); /* the verdict process is done (or gone) */
        }
        p += got;
        bytes -= (size_t)got;
    }
}

/* The next request, and the descriptor that came with it (-1 when none did): only
 * KIT_OP_IMPORT carries one, a buffer of the verdict process to map. */
static void read_request(kit_remote_request *request, int *fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec part = {.iov_base = request, .iov_len = sizeof *request};
    struct msghdr message = {.msg_iov = &part,
                             .msg_iovlen = 1,
                             .msg_control = control,
                             .msg_controllen = sizeof control};
    ssize_t got;
    do {
        got = recvmsg(KIT_REMOTE_FD, &message, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        exit(0); /* the verdict process is done (or gone) */
    }
    *fd = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int))) {
            memcpy(fd, CMSG_DATA(c), sizeof *fd);
        }
    }
    read_all((char *)request + got, sizeof *request - (size_t)got);
}

static void write_all(const void *data, size_t bytes)
{
    const char *p = data;
    while (bytes > 0) {
        ssize_t put = write(KIT_REMOTE_FD, p, bytes);
        if (put < 0 && errno == EINTR) {
            continue;
        }
        if (put <= 0) {
            exit(0);
        }
        p += put;
        bytes -= (size_t)put;
    }
}

static void answer(cudaError_t status, int64_t value, uint64_t value2, const void *payload,
                   uint64_t bytes)
{
    kit_remote_reply reply = {.status = status,
                              .value = value,
                              .value2 = value2,
                              .payload = status == cudaSuccess ? bytes : 0};
    fflush(stdout); /* what the student's code printed comes before what follows */
    write_all(&reply, sizeof reply);
    if (reply.payload) {
        write_all(payload, reply.payload);
    }
}

/* When the test's buffers live here (KIT_DATA_PLANE=executor, or no driver on the verdict
 * side: see remote.h), every payload passes through one buffer of KIT_REMOTE_CHUNK bytes,
 * made when CUDA is set up (before the test's CPU time starts) and pinned where CUDA allows:
 * a copy to or from the GPU is then the copy engine's work, not a staging copy on the host. */
static void *staging;

static void *staging_buffer(void)
{
    if (!staging && cudaMallocHost(&staging, KIT_REMOTE_CHUNK) != cudaSuccess) {
        cudaGetLastError();
        staging = malloc(KIT_REMOTE_CHUNK);
    }
    if (!staging) {
        fprintf(stderr, "executor: out of host memory\n");
        exit(2);
    }
    return staging;
}

/* The request's payload, in the staging buffer (NULL when there is none). */
static void *read_payload(const kit_remote_request *request)
{
    if (request->payload == 0) {
        return NULL;
    }
    if (request->payload > KIT_REMOTE_CHUNK) {
        fprintf(stderr, "executor: a request of %llu bytes is more than the protocol allows\n",
                (unsigned long long)request->payload);
        exit(2);
    }
    void *data = staging_buffer();
    read_all(data, request->payload);
    return data;
}

/* Input data leaves no copy in this process once it is on the device. */
static void forget(void *data, uint64_t bytes)
{
    if (data) {
        memset(data, 0, bytes);
    }
}

/* ---- the requests ---------------------------------------------------------------------- */

static void call(const kit_remote_request *request)
{
    void *input = read_payload(request);
    for (int i = 0; i < function_count; i++) {
        if (strncmp(functions[i].name, request->name, KIT_REMOTE_NAME_MAX) == 0 &&
            functions[i].arg_count == request->arg_count) {
            uint64_t args[KIT_REMOTE_MAX_ARGS];
            for (unsigned a = 0; a < KIT_REMOTE_MAX_ARGS; a++) {
                args[a] = kit_shared_translate(request->args[a]); /* the verdict's buffers */
            }
            copied_to_host = 0;
            counting = 1;
            int64_t value = functions[i].thunk(args, input);
            counting = 0;
            forget(input, request->payload);
            answer(cudaSuccess, value, copied_to_host, NULL, 0);
            return;
        }
    }
    forget(input, request->payload);
    answer((cudaError_t)-1, 0, 0, NULL, 0);
}

static void to_host(const kit_remote_request *request)
{
    size_t bytes = request->args[1];
    if (bytes > KIT_REMOTE_CHUNK) {
        answer(cudaErrorInvalidValue, 0, 0, NULL, 0);
        return;
    }
    void *data = staging_buffer();
    cudaError_t err =
        cudaMemcpy(data, (const void *)(uintptr_t)request->args[0], bytes, cudaMemcpyDeviceToHost);
    answer(err, 0, 0, data, bytes);
    forget(data, bytes);
}

static void error_text(const kit_remote_request *request)
{
    cudaError_t err = (cudaError_t)request->args[0];
    const char *text = request->args[1] ? cudaGetErrorName(err) : cudaGetErrorString(err);
    size_t len = strnlen(text, 159);
    answer(cudaSuccess, 0, 0, text, len);
}

static void event_elapsed(const kit_remote_request *request)
{
    float ms = 0;
    cudaError_t err = cudaEventElapsedTime(&ms, (cudaEvent_t)(uintptr_t)request->args[0],
                                           (cudaEvent_t)(uintptr_t)request->args[1]);
    uint32_t bits;
    memcpy(&bits, &ms, sizeof bits);
    answer(err, bits, 0, NULL, 0);
}

/*
 * The first request. The verdict side reads this process's CPU time (from the kernel, not
 * from here) once this answer arrives, and counts only what is used after it against the
 * test's budget; so the context is made now, and the fixed cost of CUDA's start counts for
 * nobody. Blocking synchronisation: a thread that waits for the GPU sleeps instead of
 * spinning, so an honest sort's CPU time is the launches and the copies, not the kernels'
 * running time.
 */
static cudaError_t set_up_cuda(void)
{
    cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync); /* fails only if a context exists */
    cudaGetLastError();
    cudaError_t err = cudaFree(0);
    staging_buffer();
    return err;
}

/* Maps a buffer of the verdict process (grading/runtime/shared_memory.h) into this context. */
static void import(const kit_remote_request *r, int fd)
{
    int device = 0;
    uint64_t address = 0;
    cudaError_t err = fd < 0 ? cudaErrorInvalidValue : cudaGetDevice(&device);
    if (err == cudaSuccess) {
        err = (cudaError_t)kit_shared_import(fd, r->args[0], r->args[1], device, &address);
    } else if (fd >= 0) {
        close(fd);
    }
    answer(err, (int64_t)address, 0, NULL, 0);
}

/* Unmaps one, once the GPU is done with it (as cudaFree waits). */
static void unimport(const kit_remote_request *r)
{
    cudaError_t err = cudaDeviceSynchronize();
    cudaError_t unmapped = (cudaError_t)kit_shared_unimport(r->args[0]);
    answer(err != cudaSuccess ? err : unmapped, 0, 0, NULL, 0);
}

static void serve(const kit_remote_request *r, int fd)
{
    void *p0 = (void *)(uintptr_t)r->args[0];
    void *pointer = NULL;
    cudaEvent_t event = NULL;
    cudaError_t err;
    switch (r->op) {
    case KIT_OP_CALL:
        call(r);
        return;
    case KIT_OP_MALLOC:
        err = cudaMalloc(&pointer, r->args[0]);
        answer(err, (int64_t)(uintptr_t)pointer, 0, NULL, 0);
        return;
    case KIT_OP_FREE:
        answer(cudaFree(p0), 0, 0, NULL, 0);
        return;
    case KIT_OP_TO_DEVICE: {
        void *data = read_payload(r);
        err = cudaMemcpy(p0, data, r->payload, cudaMemcpyHostToDevice);
        forget(data, r->payload);
        answer(err, 0, 0, NULL, 0);
        return;
    }
    case KIT_OP_TO_HOST:
        to_host(r);
        return;
    case KIT_OP_ON_DEVICE:
        err = cudaMemcpy(p0, (void *)(uintptr_t)r->args[1], r->args[2], cudaMemcpyDeviceToDevice);
        answer(err, 0, 0, NULL, 0);
        return;
    case KIT_OP_MEMSET:
        answer(cudaMemset(p0, (int)r->args[1], r->args[2]), 0, 0, NULL, 0);
        return;
    case KIT_OP_SYNCHRONIZE:
        answer(cudaDeviceSynchronize(), 0, 0, NULL, 0);
        return;
    case KIT_OP_LAST_ERROR:
        answer(r->args[0] ? cudaGetLastError() : cudaPeekAtLastError(), 0, 0, NULL, 0);
        return;
    case KIT_OP_ERROR_TEXT:
        error_text(r);
        return;
    case KIT_OP_EVENT_CREATE:
        err = cudaEventCreate(&event);
        answer(err, (int64_t)(uintptr_t)event, 0, NULL, 0);
        return;
    case KIT_OP_EVENT_DESTROY:
        answer(cudaEventDestroy((cudaEvent_t)p0), 0, 0, NULL, 0);
        return;
    case KIT_OP_EVENT_RECORD:
        answer(cudaEventRecord((cudaEvent_t)p0, 0), 0, 0, NULL, 0);
        return;
    case KIT_OP_EVENT_SYNC:
        answer(cudaEventSynchronize((cudaEvent_t)p0), 0, 0, NULL, 0);
        return;
    case KIT_OP_EVENT_ELAPSED:
        event_elapsed(r);
        return;
    case KIT_OP_HELLO:
        answer(set_up_cuda(), 0, 0, NULL, 0);
        return;
    case KIT_OP_IMPORT:
        import(r, fd);
        return;
    case KIT_OP_UNIMPORT:
        unimport(r);
        return;
    default:
        forget(read_payload(r), r->payload);
        answer(cudaErrorInvalidValue, 0, 0, NULL, 0);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* the student's printf lines reach the log in order */
    signal(SIGPIPE, SIG_IGN);
    for (;;) {
        kit_remote_request request;
        int fd;
        read_request(&request, &fd);
        request.name[KIT_REMOTE_NAME_MAX - 1] = '\0';
        if (fd >= 0 && request.op != KIT_OP_IMPORT) {
            close(fd);
            fd = -1;
        }
        serve(&request, fd);
    }
}
