/*
 * grading/runtime/timed_driver.c: what the grader times a lab's sort with (its speed points).
 *
 * A lab's driver is its NAME_main.o, which describes the lab's sorts (--algo) and calls
 * kit_driver_main(). The grader links NAME_main.o with this object placed before libkit.a, so
 * this kit_driver_main() is the one called (common/driver.c's is never pulled in): the lab's
 * own list of sorts is used, but the result goes to the grader's result channel, not to
 * stdout, where the student's code could print a time of its own.
 *
 * usage: PROGRAM [-n N] [--algo NAME] [--reps R] [--dist NAME] [--seed S] [--rounds K]
 *                [--round-limit SECONDS] [--pin-cpu CPU|here] --reference-words W --
 *                REFERENCE... STUDENT...
 *   The grader links this with the lab's driver and the remote stubs (grading/runtime/remote.h),
 *   so the lab's code runs in an executor, a process of its own, and the clock stays here. Two
 *   executors take part: the reference solution's (the W words after `--` are its command)
 *   and the student's (the rest). N is decimal or 2^K.
 *
 * One process times both sides, on the same inputs, so that each input is made once and each
 * side's executor starts once (its sandbox, its CUDA context, its kernels loaded, its
 * warm-up):
 * - The inputs: one for an untimed warm-up, then R for each of the K rounds, from seeds
 *   S, S + 1, ..., S + K * R, generated here with a fingerprint of each, keyed with a secret
 *   of this process (the lab's code, in another process, never sees it). Round k of either
 *   side sorts the inputs 1 + (k - 1) * R ... k * R: every round gets fresh inputs, the same
 *   for both sides, so nothing a side keeps from one round (a result kept by a fingerprint
 *   of its input) can serve a later one.
 * - Each side is driven by a process of its own, forked from this one before anything here
 *   touched CUDA: it has the lab driver's state to itself (NAME_main.c keeps scratch buffers
 *   between calls, and a buffer belongs to one executor) and its own buffers, which only its
 *   executor maps. It answers this process one line per request.
 * - Round k is R timed runs of each side, one on each of the round's inputs, alternating
 *   between the sides run by run (below). A run's time is the host's clock from the call to the
 *   end of the copy of its result back to the host (so work left running on any stream, or left
 *   for the copy to do, is counted). Every run's output is checked: sorted, and the same keys by
 * the fingerprint, so neither a sorted copy kept from an earlier call nor a fast wrong answer on
 * the runs it guesses unchecked can be timed. A run that fails that check is compared key by key
 * with its input for the message (a full comparison of every run would cost a CPU sort of n keys
 * each time, for nothing the fingerprint does not already catch). The round's CPU time is what the
 * kernel accounted to the side's executor (every process of its sandbox) over its timed runs, read
 * from outside that process.
 * - The order: both executors start and run their warm-up, one after the other, before
 *   anything is timed; then the runs alternate, reference, student, student, reference,
 *   reference, ..., so that both sides sample the same spells of the machine (the GPU's
 *   clocks, the CPU that launches: on an H100 a launch-bound sort's time moved by a fifth,
 *   and the CDP quicksort's by a third, from one tenth of a second to the next, and an order
 *   that timed all of one side's rounds together gave an identical file up to 1.36x). The
 *   side that is not being timed is idle: its last request ended with the GPU synchronized,
 *   and its process (no threads: the allowlist) waits for the next request, so the student's
 *   code never runs while the reference is timed.
 * - Each side has --round-limit seconds for its start-up and warm-up, and as much for its
 *   runs of each round; a side out of time has its process and its executor killed, and the
 *   run ends there.
 * - --pin-cpu puts this process, and so every process it starts (both sides and their
 *   executors), on one CPU (`here`: the one it runs on): a launch-bound sort runs at the pace
 *   of the CPU that launches, and two executors on two CPUs (another core's clock, another
 *   NUMA node's path to the GPU) measured an identical file up to a third apart.
 *
 * Result channel: with KIT_RESULT_FD and KIT_RESULT_TOKEN set (both are read and removed from
 * the environment first thing), notes as the run goes, then one line at the end:
 *   TOKEN note run SIDE K              SIDE's turn in round K began (K = warm-up, end: its
 *                                      executor's start, its end)
 *   TOKEN note round SIDE K MEDIAN_MS MIN_MS CPU_MS SECONDS MEAN_MS
 *                                      round K of SIDE sorted and checked: the median, least
 *                                      and mean of its runs' times; CPU_MS as above (-1: not
 *                                      measured), SECONDS the round's wall time here
 *   TOKEN ok                           every round of both sides ran
 *   TOKEN failed SIDE WORD TEXT        SIDE (reference or student) could not be timed: WORD is
 *                                      wrong (not the input sorted, or an executor that never
 *                                      opened the GPU), error (a CUDA error, bad arguments, no
 *                                      GPU: those are put on the reference, which is then not
 *                                      counted), timeout (no answer within the round limit),
 *                                      crashed (TEXT: the signal that ended SIDE's process)
 * Exit codes: exit_codes.h (0 ok, 1 wrong, 2 bad arguments, 3 no GPU, 4 any other failure).
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "datagen.h"
#include "driver.h"
#include "exit_codes.h"
#include "gpu.h"
#include "remote.h"
#include "result_channel.h"
#include "shared_memory.h"
#include "timer.h"
#include "verify.h"

/* Prints the result for people, sends it to the grader, and returns @p status. */
static int finish(int status, const char *word, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int finish(int status, const char *word, const char *format, ...)
{
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    for (char *c = text; *c; c++) {
        if (*c == '\n' || *c == '\r') {
            *c = ' ';
        }
    }
    char result[700];
    snprintf(result, sizeof result, "%s%s%s", word, text[0] ? " " : "", text);
    printf("timed_driver: %s\n", result);
    fflush(stdout);
    kit_result_channel_send(result);
    return status;
}

/* A note for the grader (see the top of this file), also printed for people. */
static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *format, ...)
{
    char text[400];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    printf("timed_driver: %s\n", text);
    fflush(stdout);
    kit_result_channel_note(text);
}

/* "123" or "2^K"; 0 on success. (Not kit_parse_count: that would pull common/driver.o in.) */
static int parse_count(const char *text, size_t *value)
{
    char *end = NULL;
    if (!text || text[0] < '0' || text[0] > '9') {
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == 0 && end[0] == '^' && v == 2 && end[1] >= '0' && end[1] <= '9') {
        unsigned long long k = strtoull(end + 1, &end, 10);
        if (k >= 8 * sizeof(size_t)) {
            return -1;
        }
        v = 1ull << k;
    }
    if (errno != 0 || *end != '\0') {
        return -1;
    }
    *value = (size_t)v;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the run's options and inputs ------------------------------------------------------ */

typedef struct {
    size_t n, reps, seed, rounds;
    double round_limit_s; /* 0: no limit */
    int pin_cpu;          /* -2: not pinned; -1: the CPU it starts on */
    kit_dist dist;
    const kit_driver_algo *algo;
} options;

/* The inputs, made once by this process before it asks for a round, in memory its forks
 * share (MAP_SHARED): generated while the reference's executor starts. */
typedef struct {
    size_t n, runs;     /* runs: the warm-up's input, then one per timed run of each round */
    uint64_t secret;    /* the fingerprints' key: it never leaves the kit's processes */
    uint64_t *expected; /* each input's fingerprint */
    unsigned int *keys; /* input r is keys + r * n */
} inputs;

static int map_inputs(inputs *in, size_t n, size_t runs)
{
    size_t slot = n ? n : 1;
    if (slot > (SIZE_MAX / sizeof(unsigned int) - 4096) / runs / 2) {
        return -1;
    }
    size_t bytes = runs * sizeof(uint64_t) + runs * slot * sizeof(unsigned int);
    void *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        return -1;
    }
    in->n = n;
    in->runs = runs;
    in->secret = kit_fingerprint_secret(); /* never sent to the executor */
    in->expected = memory;
    in->keys = (unsigned int *)(in->expected + runs);
    return 0;
}

/* ---- work spread over the CPUs the timed run is not pinned to ------------------------------- */

/* The CPUs this process had before --pin-cpu narrowed it to one (pin()), less that one. */
static cpu_set_t unpinned;
static int unpinned_known;

/* Most threads a piece of host work is spread over. */
#define HELPERS 8

/* How many threads to spread @p items pieces of work over. */
static size_t helper_count(size_t items)
{
    size_t count = unpinned_known ? (size_t)CPU_COUNT(&unpinned) : 1;
    count = count < HELPERS ? count : HELPERS;
    count = count < items ? count : items;
    return count ? count : 1;
}

/* Runs @p work on each of @p count argument blocks (@p size bytes apart from @p args), each
 * in a thread on the unpinned CPUs, and waits for them all. Host work between timed runs (the
 * inputs, the check of each result) thus leaves the pinned CPU to the two sides' processes and
 * their executors: there, the 37 inputs of 2^24 keys of a lab's speed run took 2-4 s, beside
 * both executors' start. A thread that cannot start has its block done here. */
static void on_unpinned_cpus(void *(*work)(void *), void *args, size_t size, size_t count)
{
    pthread_t threads[HELPERS];
    int started[HELPERS] = {0};
    pthread_attr_t attr;
    int attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok && unpinned_known) {
        pthread_attr_setaffinity_np(&attr, sizeof unpinned, &unpinned);
    }
    for (size_t t = 0; t < count && t < HELPERS; t++) {
        started[t] =
            attr_ok && pthread_create(&threads[t], &attr, work, (char *)args + t * size) == 0;
    }
    for (size_t t = 0; t < count && t < HELPERS; t++) {
        if (started[t]) {
            pthread_join(threads[t], NULL);
        } else {
            work((char *)args + t * size);
        }
    }
    if (attr_ok) {
        pthread_attr_destroy(&attr);
    }
}

/* One thread's share of a result's check: keys [from, to), each >= the one before it (the
 * key before `from` included), and their part of the fingerprint. */
typedef struct {
    const unsigned int *keys;
    size_t from, to;
    uint64_t secret, sum;
    int sorted;
} check_share;

static void *check_some(void *arg)
{
    check_share *c = arg;
    c->sorted = 1;
    for (size_t i = c->from ? c->from : 1; i < c->to; i++) {
        if (c->keys[i - 1] > c->keys[i]) {
            c->sorted = 0;
            return NULL;
        }
    }
    c->sum = kit_multiset_fingerprint(c->keys + c->from, c->to - c->from, c->secret);
    return NULL;
}

/* Whether @p result is @p input sorted: ascending, with the same fingerprint (the sum of its
 * shares' parts). */
static int sorted_same_keys(const unsigned int *result, size_t n, uint64_t expected,
                            uint64_t secret)
{
    check_share shares[HELPERS];
    size_t count = helper_count(n / 65536 + 1);
    for (size_t t = 0; t < count; t++) {
        shares[t] = (check_share){result, n * t / count, n * (t + 1) / count, secret, 0, 0};
    }
    on_unpinned_cpus(check_some, shares, sizeof shares[0], count);
    uint64_t sum = 0;
    for (size_t t = 0; t < count; t++) {
        if (!shares[t].sorted) {
            return 0;
        }
        sum += shares[t].sum;
    }
    return sum == expected;
}

/* One thread's share of the inputs: first, first + step, ... */
typedef struct {
    inputs *in;
    const options *o;
    size_t first, step;
} generator;

static void *generate_some(void *arg)
{
    const generator *g = arg;
    for (size_t r = g->first; r < g->in->runs; r += g->step) {
        unsigned int *keys = g->in->keys + r * g->in->n;
        kit_generate_u32(keys, g->in->n, g->o->dist, g->o->seed + r);
        g->in->expected[r] = kit_multiset_fingerprint(keys, g->in->n, g->in->secret);
    }
    return NULL;
}

/* Every input and its fingerprint, made on the unpinned CPUs; nothing is timed yet. */
static void generate_inputs(inputs *in, const options *o)
{
    generator shares[HELPERS];
    size_t count = helper_count(in->runs);
    for (size_t t = 0; t < count; t++) {
        shares[t] = (generator){in, o, t, count};
    }
    on_unpinned_cpus(generate_some, shares, sizeof shares[0], count);
}

/* ---- one side, in a process of its own --------------------------------------------------- */

/* What the process of one side holds besides the inputs. */
typedef struct {
    const options *o;
    const inputs *in;
    unsigned int *d_work, *result; /* the buffer the sort runs on; its copy back */
    char setup_error[300];         /* why there is no d_work, when there is none */
    int warmed;
    unsigned checks; /* results checked, and the time it took (KIT_PROFILE=1) */
    double check_ms;
} side_state;

/* One run on input @p r: 0 and its time in @p ms, or -1 and the answer in @p answer. */
static int sort_once(side_state *st, size_t r, double *ms, char *answer, size_t size)
{
    const options *o = st->o;
    const inputs *in = st->in;
    const unsigned int *snapshot = in->keys + r * in->n;
    size_t n = in->n;
    cudaError_t err =
        cudaMemcpy(st->d_work, snapshot, n * sizeof *snapshot, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize();
    }
    if (err != cudaSuccess) {
        snprintf(answer, size, "error copying the input: %s", cudaGetErrorName(err));
        return -1;
    }
    /* The clock runs over everything that produces the checked output: the call, any work it
     * left running, and the copy back (work deferred to that copy is timed). */
    double start = kit_host_ms();
    err = o->algo->sort(st->d_work, n);
    cudaError_t sync = cudaDeviceSynchronize();
    if (err == cudaSuccess) {
        err = sync;
    }
    if (err != cudaSuccess) {
        snprintf(answer, size, "error the %s sort failed: %s (%s)", o->algo->name,
                 cudaGetErrorName(err), cudaGetErrorString(err));
        return -1;
    }
    err = cudaMemcpy(st->result, st->d_work, n * sizeof *st->result, cudaMemcpyDeviceToHost);
    *ms = kit_host_ms() - start;
    if (err != cudaSuccess) {
        snprintf(answer, size, "error copying the result back: %s", cudaGetErrorName(err));
        return -1;
    }
    double check_start = kit_host_ms();
    int right = sorted_same_keys(st->result, n, in->expected[r], in->secret);
    st->checks++;
    st->check_ms += kit_host_ms() - check_start;
    if (!right) {
        kit_verdict v = kit_verify_u32(snapshot, st->result, n, 0);
        snprintf(answer, size, "wrong --algo %s -n %zu --dist %s --seed %zu: %s", o->algo->name, n,
                 kit_dist_name(o->dist), o->seed + r,
                 v.status != KIT_VERIFY_OK ? v.message : "not the input sorted");
        return -1;
    }
    return 0;
}

/* The untimed warm-up run (input 0), once: 0, or -1 with why not in @p answer. */
static int warm_up(side_state *st, char *answer, size_t size)
{
    double ms;
    if (st->setup_error[0]) {
        snprintf(answer, size, "error %s", st->setup_error);
        return -1;
    }
    if (!st->warmed) {
        if (sort_once(st, 0, &ms, answer, size) != 0) {
            return -1;
        }
        st->warmed = 1;
    }
    return 0;
}

/* Run @p rep (0, 1, ...) of round @p round (1, 2, ...), on input 1 + (round - 1) * reps + rep:
 * "ok MS CPU_MS" (CPU_MS: the executor's CPU time over the run, measured from outside), or
 * why not, in @p answer. */
static void timed_run(side_state *st, size_t round, size_t rep, char *answer, size_t size)
{
    double ms;
    if (warm_up(st, answer, size) != 0) {
        return;
    }
    double cpu_before = kit_remote_executor_cpu_ms();
    if (sort_once(st, 1 + (round - 1) * st->o->reps + rep, &ms, answer, size) != 0) {
        return;
    }
    double cpu_after = kit_remote_executor_cpu_ms();
    double cpu = cpu_before >= 0 && cpu_after >= 0 ? cpu_after - cpu_before : -1;
    snprintf(answer, size, "ok %.6f %.3f", ms, cpu);
}

/* One line to the process that asked (it reads lines: the text's own line breaks go). */
static void reply(int fd, const char *text)
{
    char line[800];
    snprintf(line, sizeof line, "%s", text);
    for (char *c = line; *c; c++) {
        if (*c == '\n' || *c == '\r') {
            *c = ' ';
        }
    }
    dprintf(fd, "%s\n", line);
}

/* Out of time (this process is stuck waiting for its executor): the executor goes at once,
 * wherever it runs, and so does this process. */
static void stop_now(int sig)
{
    (void)sig;
    kit_remote_kill();
    _exit(KIT_EXIT_CUDA);
}

/* The process of one side: starts its executor (@p command) and answers each request on
 * @p fd: 'w' its warm-up run, 't' and two bytes K and R run R of round K, 'e' (or the end of
 * the socket) the end of its executor, measured as at the end of a test (did it open the GPU
 * at all? asked of the student's alone, @p check_gpu: the reference's is the kit's own), then
 * it exits. */
static void run_side(char **command, int fd, const options *o, const inputs *in, int check_gpu)
    __attribute__((noreturn));

static void run_side(char **command, int fd, const options *o, const inputs *in, int check_gpu)
{
    kit_result_channel_drop(); /* only the process that asks answers the grader */
    signal(SIGTERM, stop_now);
    kit_remote_configure(command);
    side_state st = {.o = o, .in = in};
    size_t bytes = (in->n ? in->n : 1) * sizeof(unsigned int);
    st.result = malloc(bytes);
    /* The first call starts the executor: its start-up runs while the asking process makes
     * the inputs. */
    cudaError_t err =
        st.result ? cudaMalloc((void **)&st.d_work, bytes) : cudaErrorMemoryAllocation;
    if (err != cudaSuccess) {
        snprintf(st.setup_error, sizeof st.setup_error, "setting up n = %zu: %s", in->n,
                 cudaGetErrorName(err));
    } else if (kit_shared_holds((uintptr_t)st.d_work, bytes)) {
        /* Page-locked, the timed copy back runs at one speed in every process (pageable, it
         * varied by a tenth between the two sides' processes); pageable if that fails. */
        kit_shared_pin_host(st.result, bytes);
    }
    for (;;) {
        char request = 0;
        ssize_t got;
        do {
            got = read(fd, &request, 1);
        } while (got < 0 && errno == EINTR);
        if (got != 1 || request == 'e') {
            char report[512], answer[600];
            int wrong = kit_remote_end_test(check_gpu, 0, report, sizeof report);
            snprintf(answer, sizeof answer, "%s%s", wrong ? "wrong " : "ok", wrong ? report : "");
            if (got == 1) {
                reply(fd, answer);
            }
            const char *profile = getenv("KIT_PROFILE");
            if (profile && strcmp(profile, "1") == 0) {
                fprintf(stderr, "kit profile: a side's %u result checks took %.2f s\n", st.checks,
                        st.check_ms / 1000);
            }
            exit(0);
        }
        char answer[800];
        if (request == 'w') {
            if (warm_up(&st, answer, sizeof answer) == 0) {
                snprintf(answer, sizeof answer, "ok");
            }
            reply(fd, answer);
            continue;
        }
        unsigned char which[2] = {0, 0}; /* the round, the run in it */
        size_t have = 0;
        while (have < 2 && ((got = read(fd, which + have, 2 - have)) > 0 || errno == EINTR)) {
            have += got > 0 ? (size_t)got : 0;
        }
        if (request != 't' || have != 2 || which[0] < 1 || which[0] > o->rounds ||
            which[1] >= o->reps) {
            snprintf(answer, sizeof answer, "error run %u of round %u asked of %zu x %zu", which[1],
                     which[0], o->rounds, o->reps);
        } else {
            timed_run(&st, which[0], which[1], answer, sizeof answer);
        }
        reply(fd, answer);
    }
}

/* ---- this process: asks each side for its rounds ----------------------------------------- */

typedef struct {
    const char *name; /* "reference" or "student", as the grader reads it */
    char **command;   /* its executor's argv, NULL-terminated */
    pid_t pid;        /* its process, -1 when there is none */
    int fd;           /* this end of the socket to it */
} side;

enum { REFERENCE, STUDENT, SIDES };

static side sides[SIDES] = {{"reference", NULL, -1, -1}, {"student", NULL, -1, -1}};

/* The first failure: "SIDE WORD TEXT", and the exit status it gives. */
static char failure[700];
static int failure_status;

static int side_failed(const side *s, int status, const char *word, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static int side_failed(const side *s, int status, const char *word, const char *format, ...)
{
    if (!failure[0]) {
        char text[600];
        va_list args;
        va_start(args, format);
        vsnprintf(text, sizeof text, format, args);
        va_end(args);
        snprintf(failure, sizeof failure, "%s %s %s", s->name, word, text);
        failure_status = status;
    }
    return -1;
}

static int start_side(side *s, const options *o, const inputs *in)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        return side_failed(s, KIT_EXIT_CUDA, "error", "no socket for its process: %s",
                           strerror(errno));
    }
    fflush(stdout);
    fflush(stderr);
    s->pid = fork();
    if (s->pid < 0) {
        close(pair[0]);
        close(pair[1]);
        return side_failed(s, KIT_EXIT_CUDA, "error", "cannot start its process: %s",
                           strerror(errno));
    }
    if (s->pid == 0) {
        for (int i = 0; i < SIDES; i++) {
            if (sides[i].fd >= 0) {
                close(sides[i].fd); /* the other side's socket is this process's alone */
            }
        }
        close(pair[0]);
        run_side(s->command, pair[1], o, in, s == &sides[STUDENT]);
    }
    close(pair[1]);
    s->fd = pair[0];
    return 0;
}

/* Waits up to @p ms for side @p s's process to end, then kills it; its wait status. */
static int reap_side(side *s, int ms)
{
    int status = 0;
    for (int waited = 0;; waited += 10) {
        pid_t done = waitpid(s->pid, &status, WNOHANG);
        if (done == s->pid || (done < 0 && errno != EINTR)) {
            break;
        }
        if (waited >= ms) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &status, 0);
            break;
        }
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    s->pid = -1;
    close(s->fd);
    s->fd = -1;
    return status;
}

/* Sends @p request to side @p s and waits, within @p limit_s (0: no limit), for its one-line
 * answer: 0 with the line in @p answer, or -1 when the side failed (side_failed()). */
static int ask(side *s, char request, size_t round, size_t rep, double limit_s, char *answer,
               size_t size)
{
    /* A timed run's request names it: 't', its round (its inputs) and its place in it. */
    char message[3] = {request, (char)round, (char)rep};
    size_t length = request == 't' ? 3 : 1;
    if (send(s->fd, message, length, MSG_NOSIGNAL) != (ssize_t)length) {
        answer[0] = '\0'; /* it has ended: what it ended with is read below */
    }
    size_t len = 0;
    double deadline = kit_host_ms() + limit_s * 1e3;
    for (;;) {
        int wait_ms = -1;
        if (limit_s > 0) {
            double left = deadline - kit_host_ms();
            wait_ms = left > 0 ? (int)left + 1 : 0;
        }
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        int ready = poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready == 0) {
            kill(s->pid, SIGTERM); /* stop_now(): its executor too */
            reap_side(s, 5000);
            return side_failed(s, KIT_EXIT_CUDA, "timeout", "%g", limit_s);
        }
        ssize_t got = ready > 0 ? read(s->fd, answer + len, size - 1 - len) : -1;
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            int status = reap_side(s, 5000);
            if (WIFSIGNALED(status)) {
                return side_failed(s, KIT_EXIT_CUDA, "crashed", "%d", WTERMSIG(status));
            }
            return side_failed(s, KIT_EXIT_CUDA, "error",
                               "its timed run ended (exit %d) without an answer",
                               WEXITSTATUS(status));
        }
        len += (size_t)got;
        answer[len] = '\0';
        char *end = strchr(answer, '\n');
        if (end) {
            *end = '\0';
            return 0;
        }
        if (len == size - 1) {
            return side_failed(s, KIT_EXIT_CUDA, "error", "its answer is too long");
        }
    }
}

/* A failed answer of side @p s: -1, its failure noted (side_failed()). */
static int answer_failed(side *s, char *answer)
{
    char *text = strchr(answer, ' ');
    if (strncmp(answer, "wrong ", 6) == 0) {
        return side_failed(s, KIT_EXIT_WRONG, "wrong", "%s", text + 1);
    }
    return side_failed(s, KIT_EXIT_CUDA, "error", "%s",
                       strncmp(answer, "error ", 6) == 0 ? text + 1 : answer);
}

/* Round @p k of both sides, one timed run at a time, alternating (reference, student,
 * student, reference, ...), then each side's round noted: 0, or -1 when one failed. A round's
 * time limit holds for each side's runs together. */
static int run_round(size_t k, const options *o)
{
    static double times[SIDES][256];
    static int noted = -1;
    double cpu[SIDES] = {0, 0}, spent[SIDES] = {0, 0};
    for (size_t r = 0; r < o->reps; r++) {
        for (int turn = 0; turn < SIDES; turn++) {
            /* Runs 0, 1, 2, ... of the whole timed run go R S, S R, R S, ...: who goes first
             * alternates, so neither side always runs right after the other. */
            int first = ((k - 1) * o->reps + r) % 2 == 0 ? REFERENCE : STUDENT;
            int who = turn == 0 ? first : SIDES - 1 - first;
            side *s = &sides[who];
            char answer[800];
            if (who != noted) { /* whose run it is, should the timed run be killed */
                say("run %s %zu", s->name, k);
                noted = who;
            }
            double start = kit_host_ms(), left = o->round_limit_s - spent[who] / 1e3;
            if (ask(s, 't', k, r, o->round_limit_s > 0 ? (left > 0 ? left : 1e-3) : 0, answer,
                    sizeof answer) != 0) {
                return -1;
            }
            spent[who] += kit_host_ms() - start;
            double ms, used;
            if (sscanf(answer, "ok %lf %lf", &ms, &used) != 2) {
                return answer_failed(s, answer);
            }
            times[who][r] = ms;
            cpu[who] = cpu[who] < 0 || used < 0 ? -1 : cpu[who] + used;
        }
    }
    for (int who = 0; who < SIDES; who++) {
        qsort(times[who], o->reps, sizeof times[who][0], compare_doubles);
        size_t n = o->reps;
        double median = n % 2 ? times[who][n / 2] : (times[who][n / 2 - 1] + times[who][n / 2]) / 2;
        double sum = 0;
        for (size_t r = 0; r < n; r++) {
            sum += times[who][r];
        }
        say("round %s %zu %.6f %.6f %.3f %.2f %.6f", sides[who].name, k, median, times[who][0],
            cpu[who], spent[who] / 1e3, sum / n);
    }
    return 0;
}

/* Side @p s's executor started and its warm-up run done: 0, or -1 when it failed. */
static int warm_side(side *s, const options *o)
{
    char answer[800];
    say("run %s warm-up", s->name);
    if (ask(s, 'w', 0, 0, o->round_limit_s, answer, sizeof answer) != 0) {
        return -1;
    }
    return strcmp(answer, "ok") == 0 ? 0 : answer_failed(s, answer);
}

/* Ends side @p s's executor and process: 0, or -1 when it failed (never opened the GPU). */
static int end_side(side *s, const options *o)
{
    char answer[800];
    say("run %s end", s->name);
    if (ask(s, 'e', 0, 0, o->round_limit_s, answer, sizeof answer) != 0) {
        return -1;
    }
    reap_side(s, 5000);
    if (strcmp(answer, "ok") == 0) {
        return 0;
    }
    return side_failed(s, KIT_EXIT_WRONG, "wrong", "%s",
                       strncmp(answer, "wrong ", 6) == 0 ? answer + 6 : answer);
}

/* The options before `--`; 0, or -1 with the message in @p why. */
static int parse_options(int argc, char **argv, const kit_lab_driver *lab, options *o,
                         size_t *reference_words, int *rest, char *why, size_t why_size)
{
    *o = (options){.n = lab->default_n,
                   .reps = 5,
                   .seed = 1,
                   .rounds = 2,
                   .pin_cpu = -2,
                   .dist = KIT_DIST_UNIFORM,
                   .algo = &lab->algos[0]};
    *reference_words = 0;
    *rest = argc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = value != NULL;
        if (ok && strcmp(arg, "--") == 0) {
            *rest = i + 1; /* the executors' commands */
            break;
        } else if (ok && strcmp(arg, "-n") == 0) {
            ok = parse_count(value, &o->n) == 0;
        } else if (ok && strcmp(arg, "--reps") == 0) {
            ok = parse_count(value, &o->reps) == 0 && o->reps >= 1 && o->reps <= 255;
        } else if (ok && strcmp(arg, "--seed") == 0) {
            ok = parse_count(value, &o->seed) == 0;
        } else if (ok && strcmp(arg, "--rounds") == 0) {
            ok = parse_count(value, &o->rounds) == 0 && o->rounds >= 1 && o->rounds <= 100;
        } else if (ok && strcmp(arg, "--reference-words") == 0) {
            ok = parse_count(value, reference_words) == 0 && *reference_words >= 1;
        } else if (ok && strcmp(arg, "--round-limit") == 0) {
            char *end = NULL;
            o->round_limit_s = strtod(value, &end);
            ok = end != value && *end == '\0' && o->round_limit_s > 0 && o->round_limit_s < 1e6;
        } else if (ok && strcmp(arg, "--pin-cpu") == 0) {
            size_t cpu = 0;
            ok = strcmp(value, "here") == 0 || (parse_count(value, &cpu) == 0 && cpu < CPU_SETSIZE);
            o->pin_cpu = strcmp(value, "here") == 0 ? -1 : (int)cpu;
        } else if (ok && strcmp(arg, "--dist") == 0) {
            ok = kit_dist_parse(value, &o->dist) == 0;
        } else if (ok && strcmp(arg, "--algo") == 0) {
            o->algo = NULL;
            for (int a = 0; a < KIT_DRIVER_MAX_ALGOS && lab->algos[a].name; a++) {
                if (strcmp(lab->algos[a].name, value) == 0) {
                    o->algo = &lab->algos[a];
                }
            }
            ok = o->algo != NULL;
        } else {
            ok = 0;
        }
        if (!ok) {
            snprintf(why, why_size, "bad argument '%s %s' (%s's timed driver)", arg,
                     value ? value : "", lab->name);
            return -1;
        }
        i++;
    }
    if (*reference_words == 0 || *rest + (int)*reference_words >= argc) {
        snprintf(why, why_size,
                 "needs --reference-words W -- REFERENCE... STUDENT... (%s's timed driver)",
                 lab->name);
        return -1;
    }
    if (o->algo->max_n && o->n > o->algo->max_n) {
        snprintf(why, why_size, "--algo %s sorts at most %zu keys, not %zu", o->algo->name,
                 o->algo->max_n, o->n);
        return -1;
    }
    return 0;
}

/* --pin-cpu: this process (and what it starts) on one CPU; 0, or -1 with the reason. */
static int pin(int cpu, char *why, size_t why_size)
{
    unpinned_known = sched_getaffinity(0, sizeof unpinned, &unpinned) == 0;
    if (cpu == -2) {
        return 0;
    }
    if (cpu == -1) {
        cpu = sched_getcpu();
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0) {
        CPU_SET(cpu, &set);
    }
    if (cpu < 0 || sched_setaffinity(0, sizeof set, &set) != 0) {
        snprintf(why, why_size, "cannot pin the timed run to CPU %d: %s", cpu, strerror(errno));
        return -1;
    }
    if (unpinned_known && CPU_COUNT(&unpinned) > 1) {
        CPU_CLR(cpu, &unpinned); /* the inputs are made beside it (generate_inputs) */
    }
    return 0;
}

int kit_driver_main(int argc, char **argv, const kit_lab_driver *lab)
{
    kit_result_channel_take();
    options o;
    size_t reference_words;
    int rest;
    char why[256];
    /* A failure before any round is put on the reference: speed is then not counted. */
    if (parse_options(argc, argv, lab, &o, &reference_words, &rest, why, sizeof why) != 0) {
        return finish(KIT_EXIT_USAGE, "failed", "reference error %s", why);
    }
    /* The reference's command, NULL-terminated apart from the student's that follows it. */
    char **reference_command = calloc(reference_words + 1, sizeof *reference_command);
    if (!reference_command) {
        return finish(KIT_EXIT_USAGE, "failed", "reference error out of host memory");
    }
    memcpy(reference_command, argv + rest, reference_words * sizeof *reference_command);
    sides[REFERENCE].command = reference_command;
    sides[STUDENT].command = argv + rest + reference_words;
    if (pin(o.pin_cpu, why, sizeof why) != 0) {
        return finish(KIT_EXIT_USAGE, "failed", "reference error %s", why);
    }
    kit_remote_configure(NULL); /* the grader's GPU facts; each side names its executor */
    if (kit_gpu_probe(why, sizeof why) != KIT_GPU_READY) {
        return finish(KIT_EXIT_NO_GPU, "failed", "reference error no usable GPU: %s", why);
    }
    inputs in;
    size_t runs = 1 + o.reps * o.rounds;
    if (map_inputs(&in, o.n, runs) != 0) {
        return finish(KIT_EXIT_USAGE, "failed",
                      "reference error out of host memory for n = %zu and %zu runs", o.n, runs);
    }
    side *reference = &sides[REFERENCE], *student = &sides[STUDENT];
    int ok = start_side(reference, &o, &in) == 0 && start_side(student, &o, &in) == 0;
    if (ok) {
        generate_inputs(&in, &o); /* while the executors start */
    }
    /* Both started and warmed up, one after the other, before any round is timed; then the
     * rounds, their runs alternating between the sides (run_round). */
    ok = ok && warm_side(reference, &o) == 0 && warm_side(student, &o) == 0;
    for (size_t k = 1; ok && k <= o.rounds; k++) {
        ok = run_round(k, &o) == 0;
    }
    ok = ok && end_side(student, &o) == 0 && end_side(reference, &o) == 0;
    for (int i = 0; i < SIDES; i++) {
        if (sides[i].pid > 0) { /* after a failure: the other side is not needed any more */
            kill(sides[i].pid, SIGTERM);
            reap_side(&sides[i], 5000);
        }
    }
    if (!ok) {
        return finish(failure_status, "failed", "%s", failure);
    }
    return finish(KIT_EXIT_OK, "ok", "%s", "");
}
