/*
 * The verdict side of a graded test (see remote.h): the CUDA runtime calls the kit's tests
 * make, and the lab's API calls (tests/api_NN_name.c), sent to the executor that runs the
 * student's code. Linked instead of the CUDA runtime into build/grading/verdict_NN_name and
 * timed_NN_name, which therefore hold no student code and no GPU code.
 *
 * Everything the executor answers is data from an untrusted process: sizes are checked
 * against what was asked, texts are cut short and made printable, and a process that dies or
 * talks nonsense fails the call (and the test) with a message that says what happened.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"
#include "remote_api.h"

static char **executor_command; /* argv of the executor, from after `--` */
static int sock = -1;
static pid_t executor_pid = -1;
static int executor_lost; /* it died or broke the protocol: every later call fails at once */

/* Reported as a test failure by the runner (its strong definition); printed otherwise. */
__attribute__((weak)) void kit_remote_failure(const char *message)
{
    fprintf(stderr, "%s\n", message);
}

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    kit_remote_failure(message);
}

int kit_remote_configure(char **command)
{
    executor_command = command && command[0] ? command : NULL;
    return executor_command ? 0 : -1;
}

/* ---- the executor process ------------------------------------------------------------ */

/* Waits up to @p ms for the executor to end; its wait status, or -1 if it is still there. */
static int reap(int ms)
{
    for (int waited = 0; executor_pid > 0; waited += 10) {
        int status;
        pid_t done = waitpid(executor_pid, &status, WNOHANG);
        if (done == executor_pid || (done < 0 && errno == ECHILD)) {
            int ended = done == executor_pid ? status : 0;
            executor_pid = -1;
            return ended;
        }
        if (waited >= ms) {
            return -1;
        }
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    return -1;
}

static void shut_down(void)
{
    if (sock >= 0) {
        close(sock); /* the executor reads end-of-file and exits */
        sock = -1;
    }
    /* Long enough for compute-sanitizer, when it runs the executor, to write its report. */
    if (executor_pid > 0 && reap(20000) < 0) {
        kill(executor_pid, SIGKILL);
        waitpid(executor_pid, NULL, 0);
        executor_pid = -1;
    }
}

/* The short name of a signal students look up (SIGSEGV), or "" for the rest. */
static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, ";
    case SIGBUS: return "SIGBUS, ";
    case SIGFPE: return "SIGFPE, ";
    case SIGABRT: return "SIGABRT, ";
    case SIGILL: return "SIGILL, ";
    case SIGKILL: return "SIGKILL, ";
    case SIGXCPU: return "SIGXCPU, ";
    default: return "";
    }
}

/* The executor died or broke the protocol during @p what: say how, once. */
static void lose(const char *what)
{
    if (executor_lost) {
        return;
    }
    executor_lost = 1;
    if (sock >= 0) {
        close(sock);
        sock = -1;
    }
    int status = reap(3000);
    if (status < 0) {
        fail("the process running your code stopped answering properly during %s "
             "(it wrote something the grader did not ask for): stopped", what);
        shut_down();
    } else if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128)) {
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status) - 128;
        fail("the process running your code was killed by signal %d (%s%s) during %s: a "
             "crash in host code, such as a bad pointer, or killed for using too much memory or "
             "time", sig, signal_name(sig), strsignal(sig), what);
    } else {
        fail("the process running your code ended (exit status %d) during %s: does your code "
             "call exit(), or did CUDA_CHECK end it?", WEXITSTATUS(status), what);
    }
}

static int start_executor(void)
{
    if (!executor_command) {
        fail("this program runs the lab's code in a process of its own: give that process's "
             "command after '--' (grading/grade does)");
        executor_lost = 1;
        return -1;
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        fail("cannot make a socket for the lab's process: %s", strerror(errno));
        executor_lost = 1;
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    executor_pid = fork();
    if (executor_pid < 0) {
        fail("cannot start the lab's process: %s", strerror(errno));
        executor_lost = 1;
        return -1;
    }
    if (executor_pid == 0) {
        /* The child keeps stdout and stderr (the test's output) and the socket as fd 3;
         * nothing else of this process, the grader's result channel least of all. */
        if (pair[1] == KIT_REMOTE_FD) {
            int copy = dup(pair[1]);
            pair[1] = copy;
        }
        if (dup2(pair[1], KIT_REMOTE_FD) < 0) {
            _exit(127);
        }
        close_range(KIT_REMOTE_FD + 1, ~0u, 0);
        signal(SIGPIPE, SIG_DFL);
        execvp(executor_command[0], executor_command);
        fprintf(stderr, "cannot run %s: %s\n", executor_command[0], strerror(errno));
        _exit(127);
    }
    close(pair[1]);
    sock = pair[0];
    atexit(shut_down);
    return 0;
}

/* ---- one exchange ------------------------------------------------------------------- */

static int send_all(const void *data, size_t bytes)
{
    const char *p = data;
    while (bytes > 0) {
        ssize_t sent = send(sock, p, bytes, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) {
            continue;
        }
        if (sent <= 0) {
            return -1;
        }
        p += sent;
        bytes -= (size_t)sent;
    }
    return 0;
}

static int receive_all(void *data, size_t bytes)
{
    char *p = data;
    while (bytes > 0) {
        ssize_t got = recv(sock, p, bytes, 0);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return -1;
        }
        p += got;
        bytes -= (size_t)got;
    }
    return 0;
}

/*
 * Sends @p request (and @p payload), receives the reply and at most @p answer_max bytes of
 * payload into @p answer (exactly @p answer_max unless @p answer_len is given). Returns 0, or
 * -1 when the executor is gone (reported once, as a failure of @p what).
 */
static int exchange(kit_remote_request *request, const void *payload, kit_remote_reply *reply,
                    void *answer, size_t answer_max, size_t *answer_len, const char *what)
{
    memset(reply, 0, sizeof *reply);
    if (executor_lost || (sock < 0 && start_executor() != 0)) {
        return -1;
    }
    if (send_all(request, sizeof *request) != 0 ||
        (request->payload && send_all(payload, request->payload) != 0) ||
        receive_all(reply, sizeof *reply) != 0) {
        lose(what);
        return -1;
    }
    int size_ok = answer_len ? reply->payload <= answer_max : reply->payload == answer_max;
    if (!size_ok && !(reply->status != 0 && reply->payload == 0)) {
        lose(what);
        return -1;
    }
    if (reply->payload && receive_all(answer, reply->payload) != 0) {
        lose(what);
        return -1;
    }
    if (answer_len) {
        *answer_len = reply->payload;
    }
    return 0;
}

/* A request of @p op with up to three arguments and no payload; the reply's status. */
static cudaError_t simple(kit_remote_op op, uint64_t a0, uint64_t a1, uint64_t a2,
                          int64_t *value, const char *what)
{
    kit_remote_request request = {.op = op, .args = {a0, a1, a2}};
    kit_remote_reply reply;
    if (exchange(&request, NULL, &reply, NULL, 0, NULL, what) != 0) {
        return cudaErrorUnknown;
    }
    if (value) {
        *value = reply.value;
    }
    return (cudaError_t)reply.status;
}

int64_t kit_remote_call(const char *name, uint64_t d2h_budget, const uint64_t *args,
                        unsigned count, const void *input, uint64_t input_bytes)
{
    kit_remote_request request = {.op = KIT_OP_CALL, .arg_count = count, .payload = input_bytes};
    memcpy(request.args, args, count * sizeof *args);
    snprintf(request.name, sizeof request.name, "%s", name);
    char what[96];
    snprintf(what, sizeof what, "%s()", name);
    kit_remote_reply reply;
    if (exchange(&request, input, &reply, NULL, 0, NULL, what) != 0) {
        return cudaErrorUnknown;
    }
    if (reply.status != 0) {
        fail("the process running your code does not have %s (is it defined extern \"C\"?)",
             what);
        return cudaErrorUnknown;
    }
    if (reply.value2 > d2h_budget) {
        fail("%s copied %llu bytes from the GPU to the host (this call may copy %llu): the "
             "sort must run on the GPU", what, (unsigned long long)reply.value2,
             (unsigned long long)d2h_budget);
        return cudaErrorNotPermitted;
    }
    return reply.value;
}

/* ---- the CUDA runtime, as the kit's tests use it ------------------------------------- */

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    int64_t value = 0;
    cudaError_t err = simple(KIT_OP_MALLOC, bytes, 0, 0, &value, "cudaMalloc()");
    *pointer = err == cudaSuccess ? (void *)(uintptr_t)value : NULL;
    return err;
}

cudaError_t cudaFree(void *pointer)
{
    return simple(KIT_OP_FREE, (uintptr_t)pointer, 0, 0, NULL, "cudaFree()");
}

static cudaError_t copy_to_device(char *dst, const char *src, size_t bytes)
{
    for (size_t done = 0; done < bytes || bytes == 0;) {
        size_t piece = bytes - done < KIT_REMOTE_CHUNK ? bytes - done : KIT_REMOTE_CHUNK;
        kit_remote_request request = {.op = KIT_OP_TO_DEVICE, .args = {(uintptr_t)(dst + done)},
                                      .payload = piece};
        kit_remote_reply reply;
        if (exchange(&request, src + done, &reply, NULL, 0, NULL, "cudaMemcpy()") != 0) {
            return cudaErrorUnknown;
        }
        if (reply.status != cudaSuccess || bytes == 0) {
            return (cudaError_t)reply.status;
        }
        done += piece;
    }
    return cudaSuccess;
}

static cudaError_t copy_to_host(char *dst, const char *src, size_t bytes)
{
    for (size_t done = 0; done < bytes;) {
        size_t piece = bytes - done < KIT_REMOTE_CHUNK ? bytes - done : KIT_REMOTE_CHUNK;
        kit_remote_request request = {.op = KIT_OP_TO_HOST,
                                      .args = {(uintptr_t)(src + done), piece}};
        kit_remote_reply reply;
        if (exchange(&request, NULL, &reply, dst + done, piece, NULL, "cudaMemcpy()") != 0) {
            return cudaErrorUnknown;
        }
        if (reply.status != cudaSuccess) {
            return (cudaError_t)reply.status;
        }
        done += piece;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return copy_to_device(dst, src, bytes);
    case cudaMemcpyDeviceToHost:
        return copy_to_host(dst, src, bytes);
    case cudaMemcpyDeviceToDevice:
        return simple(KIT_OP_ON_DEVICE, (uintptr_t)dst, (uintptr_t)src, bytes, NULL,
                      "cudaMemcpy()");
    case cudaMemcpyHostToHost:
        memmove(dst, src, bytes);
        return cudaSuccess;
    default: /* the two address spaces are apart here: the direction must be said */
        return cudaErrorInvalidMemcpyDirection;
    }
}

cudaError_t cudaMemset(void *pointer, int value, size_t bytes)
{
    return simple(KIT_OP_MEMSET, (uintptr_t)pointer, (uint64_t)value, bytes, NULL,
                  "cudaMemset()");
}

cudaError_t cudaDeviceSynchronize(void)
{
    return simple(KIT_OP_SYNCHRONIZE, 0, 0, 0, NULL, "cudaDeviceSynchronize()");
}

cudaError_t cudaGetLastError(void)
{
    return simple(KIT_OP_LAST_ERROR, 1, 0, 0, NULL, "cudaGetLastError()");
}

cudaError_t cudaPeekAtLastError(void)
{
    return simple(KIT_OP_LAST_ERROR, 0, 0, 0, NULL, "cudaPeekAtLastError()");
}

/* Texts are asked for once per error and kept: the runtime's functions return pointers that
 * stay valid. Cut short and made printable: they come from the student's process. */
#define TEXT_CODES 1024
#define TEXT_MAX 160
static char texts[2][TEXT_CODES][TEXT_MAX];

static const char *error_text(cudaError_t err, int want_name)
{
    static char other[TEXT_MAX];
    char *text = (unsigned)err < TEXT_CODES ? texts[want_name][err] : other;
    if (text[0] && text != other) {
        return text;
    }
    kit_remote_request request = {.op = KIT_OP_ERROR_TEXT, .args = {(uint64_t)err, want_name}};
    kit_remote_reply reply;
    size_t len = 0;
    char answer[TEXT_MAX];
    if (exchange(&request, NULL, &reply, answer, TEXT_MAX - 1, &len, "cudaGetErrorString()") ||
        len == 0) {
        snprintf(other, sizeof other, "%s %d", want_name ? "cudaError" : "CUDA error", (int)err);
        return other;
    }
    for (size_t i = 0; i < len; i++) {
        text[i] = answer[i] >= 0x20 && answer[i] < 0x7f ? answer[i] : '?';
    }
    text[len] = '\0';
    return text;
}

const char *cudaGetErrorName(cudaError_t err)
{
    return error_text(err, 1);
}

const char *cudaGetErrorString(cudaError_t err)
{
    return error_text(err, 0);
}

cudaError_t cudaGetDeviceCount(int *count)
{
    int64_t value = 0;
    cudaError_t err = simple(KIT_OP_DEVICE_COUNT, 0, 0, 0, &value, "cudaGetDeviceCount()");
    *count = err == cudaSuccess ? (int)value : 0;
    return executor_lost ? cudaErrorNoDevice : err;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    kit_remote_request request = {.op = KIT_OP_DEVICE_PROPS, .args = {(uint64_t)device}};
    kit_remote_reply reply;
    memset(prop, 0, sizeof *prop);
    if (exchange(&request, NULL, &reply, prop, sizeof *prop, NULL, "cudaGetDeviceProperties()")) {
        return cudaErrorUnknown;
    }
    prop->name[sizeof prop->name - 1] = '\0';
    return (cudaError_t)reply.status;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    kit_remote_request request = {.op = KIT_OP_MEM_INFO};
    kit_remote_reply reply;
    if (exchange(&request, NULL, &reply, NULL, 0, NULL, "cudaMemGetInfo()") != 0) {
        return cudaErrorUnknown;
    }
    *free_bytes = (size_t)reply.value;
    *total_bytes = (size_t)reply.value2;
    return (cudaError_t)reply.status;
}

/* Events, for the kit's GPU timer (common/timer.c). */
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    int64_t value = 0;
    cudaError_t err = simple(KIT_OP_EVENT_CREATE, 0, 0, 0, &value, "cudaEventCreate()");
    *event = (cudaEvent_t)(uintptr_t)value;
    return err;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    return simple(KIT_OP_EVENT_DESTROY, (uintptr_t)event, 0, 0, NULL, "cudaEventDestroy()");
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (stream != 0) {
        return cudaErrorInvalidResourceHandle; /* the kit records on the default stream */
    }
    return simple(KIT_OP_EVENT_RECORD, (uintptr_t)event, 0, 0, NULL, "cudaEventRecord()");
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return simple(KIT_OP_EVENT_SYNC, (uintptr_t)event, 0, 0, NULL, "cudaEventSynchronize()");
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    int64_t value = 0;
    cudaError_t err = simple(KIT_OP_EVENT_ELAPSED, (uintptr_t)start, (uintptr_t)stop, 0, &value,
                             "cudaEventElapsedTime()");
    uint32_t bits = (uint32_t)value;
    memcpy(ms, &bits, sizeof *ms);
    return err;
}
