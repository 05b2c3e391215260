/*
 * The verdict side of a graded test (see remote.h): the CUDA runtime calls the kit's tests
 * make, and the lab's API calls (grading/calls/api_NN_name.c), sent to the executor that runs the
 * student's code. Linked instead of the CUDA runtime into build/grading/verdict_NN_name and
 * timed_NN_name, which therefore hold no student code and no GPU code; on a GPU they hold the
 * test's buffers (grading/runtime/shared_memory.h), so its data never passes through the student's
 * process.
 *
 * Everything the executor answers is data from an untrusted process: sizes are checked
 * against what was asked, texts are cut short and made printable, and a process that dies or
 * talks nonsense fails the call (and the test) with a message that says what happened.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"
#include "remote_api.h"
#include "result_channel.h"
#include "shared_memory.h"
#include "timer.h"

static char **executor_command; /* argv of the executor, from after `--` */
static int sock = -1;
static pid_t executor_pid = -1;
static int executor_lost;        /* it died or broke the protocol: every later call fails at once */
static int executor_status = -1; /* its wait status, once reaped */
static double ready_cpu_ms = -1; /* the executor's CPU time when it said it was ready */
static double last_cpu_ms = -1;  /* the last test's, for its note */

/* Buffers the test freed, still mapped on both sides, for its next cudaMalloc: a test that
 * allocates per check would otherwise have the executor map a new buffer each time, CPU time
 * that is nobody's work but noise in the budget. They go at the end of the test
 * (grading/runtime/shared_memory.h). */
#define PARKED_MAX 32
static struct {
    uint64_t address, mapped;
} parked[PARKED_MAX];
static int parked_count;

/* ---- KIT_PROFILE=1: where this process's time went, printed at its end --------------- */

/* For instructors who want to know what a test's time is made of (docs/instructor.md,
 * "Grading time"): the executor's start (sandbox, CUDA context), the lab's calls, the other
 * requests, this process's own context and copies, and the rest (the test's host work). */
static struct {
    double started, executor_start, calls, requests, context, copies; /* ms (kit_host_ms) */
    unsigned executors, call_count;
} spent;

static void print_profile(void)
{
    struct rusage own;
    getrusage(RUSAGE_SELF, &own);
    double cpu = (double)own.ru_utime.tv_sec + 1e-6 * (double)own.ru_utime.tv_usec +
                 (double)own.ru_stime.tv_sec + 1e-6 * (double)own.ru_stime.tv_usec;
    fprintf(stderr,
            "kit profile: wall %.2f s, own CPU %.2f s; executor starts %u %.2f s; lab calls %u "
            "%.2f s; other requests %.2f s; verdict context %.2f s; verdict copies %.2f s\n",
            (kit_host_ms() - spent.started) / 1000, cpu, spent.executors,
            spent.executor_start / 1000, spent.call_count, spent.calls / 1000,
            spent.requests / 1000, spent.context / 1000, spent.copies / 1000);
}

__attribute__((constructor)) static void start_profile(void)
{
    const char *on = getenv("KIT_PROFILE");
    if (on && strcmp(on, "1") == 0) {
        spent.started = kit_host_ms();
        atexit(print_profile);
    }
}

/* ---- what the grader measured: the GPU (never the executor's word) ------------------- */

/* KIT_GPU_FACTS, from the grader's own probe (build/tools/gpu_probe --facts):
 *   "ready FREE_BYTES TOTAL_BYTES MAJOR MINOR SMS NAME..."  or  "none REASON..."
 * Without it this process knows of no GPU: GPU suites are skipped, never passed. */
static struct {
    int ready;
    unsigned long long free_bytes, total_bytes;
    int major, minor, sms;
    char name[256];
    char reason[200];
} gpu_facts = {.reason = "the grader gave this test no GPU facts"};

static void take_gpu_facts(void)
{
    const char *text = getenv("KIT_GPU_FACTS");
    int used = 0;
    if (text &&
        sscanf(text, "ready %llu %llu %d %d %d %n", &gpu_facts.free_bytes, &gpu_facts.total_bytes,
               &gpu_facts.major, &gpu_facts.minor, &gpu_facts.sms, &used) == 5 &&
        used > 0) {
        gpu_facts.ready = 1;
        snprintf(gpu_facts.name, sizeof gpu_facts.name, "%s", text + used);
    } else if (text && strncmp(text, "none ", 5) == 0) {
        snprintf(gpu_facts.reason, sizeof gpu_facts.reason, "%s", text + 5);
    }
    unsetenv("KIT_GPU_FACTS");
}

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
    take_gpu_facts();
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
            if (done == executor_pid) {
                executor_status = status;
            }
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
        reap(60000);
    }
}

/* The short name of a signal students look up (SIGSEGV), or "" for the rest. */
static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV, ";
    case SIGBUS:
        return "SIGBUS, ";
    case SIGFPE:
        return "SIGFPE, ";
    case SIGABRT:
        return "SIGABRT, ";
    case SIGILL:
        return "SIGILL, ";
    case SIGKILL:
        return "SIGKILL, ";
    case SIGXCPU:
        return "SIGXCPU, ";
    default:
        return "";
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
             "(it wrote something the grader did not ask for): stopped",
             what);
        shut_down();
    } else if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128)) {
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status) - 128;
        fail("the process running your code was killed by signal %d (%s%s) during %s: a "
             "crash in host code, such as a bad pointer, or killed for using too much memory or "
             "time",
             sig, signal_name(sig), strsignal(sig), what);
    } else {
        fail("the process running your code ended (exit status %d) during %s: does your code "
             "call exit(), or did CUDA_CHECK end it?",
             WEXITSTATUS(status), what);
    }
}

/* ---- the executor's CPU time, as the kernel accounts it ----------------------------- */

/* One process of /proc: its parent, and the CPU its reaped children used (clock ticks). */
typedef struct {
    pid_t pid, parent;
    unsigned long long children_ticks;
} proc_entry;

#define MAX_TREE 64 /* the launcher, bubblewrap (two), the sanitizer, the executor: a few */

static int read_proc_entry(pid_t pid, proc_entry *entry)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    /* After the command's name, which may hold anything, up to the last ')'. */
    const char *rest = strrchr(text, ')');
    unsigned long long utime, stime, cutime, cstime;
    int parent;
    if (!rest || sscanf(rest + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
                        &parent, &utime, &stime, &cutime, &cstime) != 5) {
        return -1;
    }
    entry->pid = pid;
    entry->parent = parent;
    entry->children_ticks = cutime + cstime;
    return 0;
}

/* @p root and every process below it, from /proc (root first); how many. */
static size_t process_tree(pid_t root, proc_entry *tree)
{
    size_t count = 0;
    if (read_proc_entry(root, &tree[0]) != 0) {
        return 0;
    }
    count = 1;
    DIR *dir = opendir("/proc");
    if (!dir) {
        return count;
    }
    for (int changed = 1; changed && count < MAX_TREE;) {
        changed = 0;
        rewinddir(dir);
        for (struct dirent *d; (d = readdir(dir)) != NULL && count < MAX_TREE;) {
            char *end = NULL;
            long pid = strtol(d->d_name, &end, 10);
            proc_entry entry;
            if (end == d->d_name || *end != '\0' || read_proc_entry((pid_t)pid, &entry) != 0) {
                continue;
            }
            int parent_in = 0, self_in = 0;
            for (size_t i = 0; i < count; i++) {
                parent_in |= tree[i].pid == entry.parent;
                self_in |= tree[i].pid == entry.pid;
            }
            if (parent_in && !self_in) {
                tree[count++] = entry;
                changed = 1;
            }
        }
    }
    closedir(dir);
    return count;
}

/*
 * The CPU time (ms) the kernel has accounted so far to @p root and every process below it
 * (the sandbox's launcher, bubblewrap, the executor: all their threads, and the children they
 * reaped): each process's CPU clock, read from outside with clock_getcpuclockid(). Nothing
 * of it comes from the student's process. -1 when it cannot be read.
 */
static double tree_cpu_ms(pid_t root)
{
    proc_entry tree[MAX_TREE];
    size_t count = process_tree(root, tree);
    long ticks_per_s = sysconf(_SC_CLK_TCK);
    double ms = 0;
    for (size_t i = 0; i < count; i++) {
        clockid_t clock;
        struct timespec t;
        if (clock_getcpuclockid(tree[i].pid, &clock) != 0 || clock_gettime(clock, &t) != 0) {
            return -1;
        }
        ms += t.tv_sec * 1e3 + t.tv_nsec / 1e6;
        ms += tree[i].children_ticks * 1e3 / (ticks_per_s > 0 ? ticks_per_s : 100);
    }
    return count ? ms : -1;
}

/* Whether a process of the tree below @p root has the NVIDIA driver's device files mapped,
 * as a process with a CUDA context has: 1 yes, 0 no, -1 when a process's maps are hidden. */
static int tree_maps_gpu(pid_t root)
{
    proc_entry tree[MAX_TREE];
    size_t count = process_tree(root, tree);
    int hidden = count == 0;
    for (size_t i = 0; i < count; i++) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%d/maps", (int)tree[i].pid);
        FILE *f = fopen(path, "r");
        if (!f) {
            hidden = 1;
            continue;
        }
        int mapped = 0;
        while (!mapped && fgets(line, sizeof line, f)) {
            mapped = strstr(line, " /dev/nvidia") != NULL;
        }
        fclose(f);
        if (mapped) {
            return 1;
        }
    }
    return hidden ? -1 : 0;
}

static int say_hello(void);
static int buffers_here(void);

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
    /* This process's own context (when it holds the test's buffers) is made while the
     * executor starts its own, not after: 0.2-1.2 s each when eight tests start at once. */
    buffers_here();
    static int registered;
    if (!registered) {
        atexit(shut_down);
        registered = 1;
    }
    executor_status = -1;
    spent.executors++;
    return say_hello();
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
/* Sends @p request with descriptor @p fd attached (SCM_RIGHTS): 0, or -1. */
static int send_with_descriptor(const kit_remote_request *request, int fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec part = {.iov_base = (void *)request, .iov_len = sizeof *request};
    struct msghdr message = {.msg_iov = &part,
                             .msg_iovlen = 1,
                             .msg_control = control,
                             .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t sent;
    do {
        sent = sendmsg(sock, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent <= 0) {
        return -1;
    }
    return send_all((const char *)request + sent, sizeof *request - (size_t)sent);
}

static int exchange_timed(kit_remote_request *request, int fd, const void *payload,
                          kit_remote_reply *reply, void *answer, size_t answer_max,
                          size_t *answer_len, const char *what)
{
    int sent = fd >= 0 ? send_with_descriptor(request, fd) : send_all(request, sizeof *request);
    if (sent != 0 || (request->payload && send_all(payload, request->payload) != 0) ||
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

static int exchange_fd(kit_remote_request *request, int fd, const void *payload,
                       kit_remote_reply *reply, void *answer, size_t answer_max, size_t *answer_len,
                       const char *what)
{
    memset(reply, 0, sizeof *reply);
    double began = kit_host_ms();
    if (executor_lost || (sock < 0 && start_executor() != 0)) {
        return -1;
    }
    double asked = kit_host_ms();
    spent.executor_start += asked - began;
    int result = exchange_timed(request, fd, payload, reply, answer, answer_max, answer_len, what);
    if (request->op == KIT_OP_CALL) {
        spent.calls += kit_host_ms() - asked;
        spent.call_count++;
    } else {
        spent.requests += kit_host_ms() - asked;
    }
    return result;
}

static int exchange(kit_remote_request *request, const void *payload, kit_remote_reply *reply,
                    void *answer, size_t answer_max, size_t *answer_len, const char *what)
{
    return exchange_fd(request, -1, payload, reply, answer, answer_max, answer_len, what);
}

/* The first exchange: the executor sets CUDA up and answers; from then on, the CPU time the
 * kernel accounts to it is the test's (ready_cpu_ms is where the count starts). */
static int say_hello(void)
{
    kit_remote_request request = {.op = KIT_OP_HELLO};
    kit_remote_reply reply;
    if (send_all(&request, sizeof request) != 0 || receive_all(&reply, sizeof reply) != 0 ||
        reply.payload != 0) {
        lose("the start of the process running your code");
        return -1;
    }
    ready_cpu_ms = tree_cpu_ms(executor_pid);
    return 0;
}

/* ---- after the test: what is measured from outside ------------------------------------ */

int kit_remote_end_test(int needs_gpu, int keep_executor, char *report, size_t report_size)
{
    report[0] = '\0';
    if (!executor_command) {
        return 0;
    }
    int alive = executor_pid > 0 && !executor_lost;
    int started = alive || executor_status != -1 || executor_lost;
    int gpu_seen = alive ? tree_maps_gpu(executor_pid) : -1;
    /* Read while it still runs, after its last answer: whatever produced an output the test
     * checked was done by then. (After it ends, the sandbox's processes are gone from /proc,
     * and not every layer of a sandbox reaps the one below it, so the rusage of the process
     * this one started does not always hold the executor's time.) */
    double end_cpu_ms = alive ? tree_cpu_ms(executor_pid) : -1;
    /* Kept only where the test's buffers lived in the executor (the grader's batches run so):
     * it freed them itself, and none of this process's mappings outlive it. */
    int keep = keep_executor && alive && end_cpu_ms >= 0 && !(needs_gpu && gpu_seen != 1) &&
               !buffers_here();
    if (!keep) {
        shut_down();
        kit_shared_free_all(); /* the executor that mapped them is gone */
        parked_count = 0;
    }
    last_cpu_ms = -1;
    char note[160];
    if (end_cpu_ms >= 0 && ready_cpu_ms >= 0) {
        last_cpu_ms = end_cpu_ms - ready_cpu_ms;
        if (last_cpu_ms < 0) {
            last_cpu_ms = 0;
        }
    }
    /* "cpu none": no executor ran; "cpu unknown": one ran and could not be measured. */
    if (last_cpu_ms >= 0) {
        snprintf(note, sizeof note, "cpu %.1f", last_cpu_ms);
    } else {
        snprintf(note, sizeof note, "cpu %s", started ? "unknown" : "none");
    }
    kit_result_channel_note(note);
    if (executor_status != -1) {
        snprintf(note, sizeof note, "executor %s %d",
                 WIFSIGNALED(executor_status) ? "signal" : "exit",
                 WIFSIGNALED(executor_status) ? WTERMSIG(executor_status)
                                              : WEXITSTATUS(executor_status));
        kit_result_channel_note(note);
    }
    int fail = 0;
    if (needs_gpu && alive && gpu_seen != 1) {
        snprintf(report, report_size, "%s",
                 gpu_seen == 0 ? "the process running your code never opened the GPU (no CUDA "
                                 "context): the sort must run on the GPU"
                               : "the grader could not see whether the process running your "
                                 "code opened the GPU (its memory map was hidden): not scored");
        fail = 1;
    }
    if (keep) {
        ready_cpu_ms = end_cpu_ms; /* the next test's CPU time counts from here */
        return fail;
    }
    /* The next test (a runner may run several) starts a fresh executor. */
    executor_lost = 0;
    executor_status = -1;
    ready_cpu_ms = -1;
    return fail;
}

double kit_remote_executor_cpu_ms(void)
{
    return executor_pid > 0 && !executor_lost ? tree_cpu_ms(executor_pid) : -1;
}

void kit_remote_kill(void)
{
    pid_t pid = executor_pid;
    if (pid > 0) {
        kill(pid, SIGKILL);
    }
}

/* A request of @p op with up to three arguments and no payload; the reply's status. */
static cudaError_t simple(kit_remote_op op, uint64_t a0, uint64_t a1, uint64_t a2, int64_t *value,
                          const char *what)
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

int64_t kit_remote_call(const char *name, uint64_t d2h_budget, const uint64_t *args, unsigned count,
                        const void *input, uint64_t input_bytes)
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
        fail("the process running your code does not have %s (is it defined extern \"C\"?)", what);
        return cudaErrorUnknown;
    }
    if (reply.value2 > d2h_budget) {
        fail("%s copied %llu bytes from the GPU to the host (this call may copy %llu): the "
             "sort must run on the GPU",
             what, (unsigned long long)reply.value2, (unsigned long long)d2h_budget);
        return cudaErrorNotPermitted;
    }
    return reply.value;
}

/* ---- the test's device memory: the verdict's own (grading/runtime/shared_memory.h) ----------- */

/*
 * Whether this process holds the test's buffers itself: on a GPU the grader's probe saw,
 * unless KIT_DATA_PLANE=executor asks for the older way, where every buffer lives in the
 * executor and its bytes travel over the socket (kept for machines whose driver cannot share
 * memory between processes; the grader's log says when it was used, and why).
 */
static int buffers_here(void)
{
    static int decided = -1;
    if (decided < 0) {
        const char *plane = getenv("KIT_DATA_PLANE");
        char why[200] = "KIT_DATA_PLANE=executor";
        double began = kit_host_ms();
        decided = gpu_facts.ready && !(plane && strcmp(plane, "executor") == 0) &&
                  kit_shared_start(why, sizeof why) == 0;
        spent.context += kit_host_ms() - began;
        if (!decided && gpu_facts.ready) {
            char note[240];
            snprintf(note, sizeof note, "plane executor: %s", why);
            kit_result_channel_note(note);
        }
    }
    return decided;
}

/* Waits for the executor's work (and takes its error, as a copy after a failed kernel would):
 * the verdict's copies see the GPU only after what the student's code launched is done. */
static cudaError_t executor_done(const char *what)
{
    return simple(KIT_OP_SYNCHRONIZE, 0, 0, 0, NULL, what);
}

static void unpark(int i)
{
    parked[i] = parked[--parked_count];
}

/* A parked buffer for @p bytes (not more than twice what it needs, plus 4 MiB), or -1. */
static int parked_for(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < parked_count; i++) {
        if (parked[i].mapped >= bytes && parked[i].mapped <= 2 * (uint64_t)bytes + (4u << 20) &&
            (best < 0 || parked[i].mapped < parked[best].mapped)) {
            best = i;
        }
    }
    return best;
}

static cudaError_t shared_malloc(void **pointer, size_t bytes)
{
    int reuse = parked_for(bytes);
    if (reuse >= 0) {
        *pointer = (void *)(uintptr_t)parked[reuse].address;
        unpark(reuse);
        return cudaSuccess;
    }
    uint64_t address = 0, mapped = 0;
    int fd = -1;
    cudaError_t err = (cudaError_t)kit_shared_alloc(bytes, &address, &mapped, &fd);
    if (err != cudaSuccess) {
        return err;
    }
    kit_remote_request request = {.op = KIT_OP_IMPORT, .args = {address, mapped}};
    kit_remote_reply reply;
    int sent = exchange_fd(&request, fd, NULL, &reply, NULL, 0, NULL, "cudaMalloc()");
    close(fd);
    err = sent != 0 ? cudaErrorUnknown : (cudaError_t)reply.status;
    if (err != cudaSuccess) {
        kit_shared_free(address);
        return err;
    }
    *pointer = (void *)(uintptr_t)address;
    return cudaSuccess;
}

/* Unmaps a buffer in the executor and frees it here. */
static cudaError_t release(uint64_t address)
{
    cudaError_t err = simple(KIT_OP_UNIMPORT, address, 0, 0, NULL, "cudaFree()");
    cudaError_t freed = (cudaError_t)kit_shared_free(address);
    return err != cudaSuccess ? err : freed;
}

static cudaError_t shared_free(void *pointer)
{
    uint64_t address = (uintptr_t)pointer, mapped = 0;
    if (!kit_shared_mapped(address, &mapped)) {
        return cudaErrorInvalidValue;
    }
    for (int i = 0; i < parked_count; i++) {
        if (parked[i].address == address) {
            return cudaErrorInvalidValue; /* freed twice */
        }
    }
    if (parked_count == PARKED_MAX) {
        cudaError_t err = release(parked[0].address);
        unpark(0);
        if (err != cudaSuccess) {
            return err;
        }
    }
    cudaError_t err = executor_done("cudaFree()"); /* cudaFree waits for the GPU too */
    parked[parked_count].address = address;
    parked[parked_count].mapped = mapped;
    parked_count++;
    return err;
}

static cudaError_t shared_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    uintptr_t to = (uintptr_t)dst, from = (uintptr_t)src;
    int ok = (kind != cudaMemcpyHostToDevice || kit_shared_holds(to, bytes)) &&
             (kind != cudaMemcpyDeviceToHost || kit_shared_holds(from, bytes)) &&
             (kind != cudaMemcpyDeviceToDevice ||
              (kit_shared_holds(to, bytes) && kit_shared_holds(from, bytes)));
    if (!ok) {
        return cudaErrorInvalidValue;
    }
    cudaError_t err = executor_done("cudaMemcpy()");
    if (err != cudaSuccess) {
        return err;
    }
    double began = kit_host_ms();
    switch (kind) {
    case cudaMemcpyHostToDevice:
        err = (cudaError_t)kit_shared_to_device(to, src, bytes);
        break;
    case cudaMemcpyDeviceToHost:
        err = (cudaError_t)kit_shared_to_host(dst, from, bytes);
        break;
    default:
        err = (cudaError_t)kit_shared_on_device(to, from, bytes);
    }
    spent.copies += kit_host_ms() - began;
    return err;
}

/* ---- the CUDA runtime, as the kit's tests use it ------------------------------------- */

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    *pointer = NULL;
    if (buffers_here()) {
        return shared_malloc(pointer, bytes);
    }
    int64_t value = 0;
    cudaError_t err = simple(KIT_OP_MALLOC, bytes, 0, 0, &value, "cudaMalloc()");
    *pointer = err == cudaSuccess ? (void *)(uintptr_t)value : NULL;
    return err;
}

cudaError_t cudaFree(void *pointer)
{
    if (!pointer) { /* nothing to free; and the GPU probe's cudaFree(0) is not the executor's */
        return gpu_facts.ready ? cudaSuccess : cudaErrorNoDevice;
    }
    if (buffers_here()) {
        return shared_free(pointer);
    }
    return simple(KIT_OP_FREE, (uintptr_t)pointer, 0, 0, NULL, "cudaFree()");
}

static cudaError_t copy_to_device(char *dst, const char *src, size_t bytes)
{
    for (size_t done = 0; done < bytes || bytes == 0;) {
        size_t piece = bytes - done < KIT_REMOTE_CHUNK ? bytes - done : KIT_REMOTE_CHUNK;
        kit_remote_request request = {
            .op = KIT_OP_TO_DEVICE, .args = {(uintptr_t)(dst + done)}, .payload = piece};
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
    if (buffers_here() && kind >= cudaMemcpyHostToDevice && kind <= cudaMemcpyDeviceToDevice) {
        return shared_copy(dst, src, bytes, kind);
    }
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
    if (buffers_here()) {
        cudaError_t err = kit_shared_holds((uintptr_t)pointer, bytes)
                              ? executor_done("cudaMemset()")
                              : cudaErrorInvalidValue;
        return err != cudaSuccess
                   ? err
                   : (cudaError_t)kit_shared_memset((uintptr_t)pointer, value, bytes);
    }
    return simple(KIT_OP_MEMSET, (uintptr_t)pointer, (uint64_t)value, bytes, NULL, "cudaMemset()");
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

/* The GPU's facts come from the grader's probe (take_gpu_facts()), not from the executor:
 * a process that answers for a GPU it does not use must not make a GPU suite run. */
cudaError_t cudaGetDeviceCount(int *count)
{
    *count = gpu_facts.ready ? 1 : 0;
    return gpu_facts.ready ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    memset(prop, 0, sizeof *prop);
    if (!gpu_facts.ready || device != 0) {
        return gpu_facts.ready ? cudaErrorInvalidDevice : cudaErrorNoDevice;
    }
    snprintf(prop->name, sizeof prop->name, "%s", gpu_facts.name);
    prop->major = gpu_facts.major;
    prop->minor = gpu_facts.minor;
    prop->multiProcessorCount = gpu_facts.sms;
    prop->totalGlobalMem = (size_t)gpu_facts.total_bytes;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = (size_t)gpu_facts.free_bytes;
    *total_bytes = (size_t)gpu_facts.total_bytes;
    return gpu_facts.ready ? cudaSuccess : cudaErrorNoDevice;
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
