/*
 * grading/timed_driver.c: what the grader times a lab's sort with (its speed points).
 *
 * A lab's driver is its NAME_main.o, which describes the lab's sorts (--algo) and calls
 * kit_driver_main(). The grader links NAME_main.o with this object placed before libkit.a, so
 * this kit_driver_main() is the one called (common/driver.c's is never pulled in): the lab's
 * own list of sorts is used, but the result goes to the grader's result channel, not to
 * stdout, where the student's code could print a time of its own.
 *
 * usage: PROGRAM [-n N] [--algo NAME] [--reps R] [--dist NAME] [--seed S] [-- EXECUTOR...]
 *   The grader links this with the lab's driver and the remote stubs (tests/remote.h), so
 *   the lab's code runs in EXECUTOR, a process of its own, and the clock stays here.
 *   N is decimal or 2^K. One untimed warm-up run, then R timed runs, each on an input of its
 *   own (seeds S, S + 1, ...: the same for the student and the reference); a run's time is
 *   the host's clock from the call to the end of the copy of its result back to the host
 *   (so work left running on any stream, or left for the copy to do, is counted). Every run's
 *   output is checked: sorted, and the same keys by a fingerprint keyed with a secret of this
 *   process (the lab's code, in another process, never sees it), so neither a sorted copy kept
 *   from an earlier call nor a fast wrong answer on the runs it guesses unchecked can be timed.
 *   A run that fails that check is compared key by key with its input for the message (a
 *   full comparison of every run would cost a CPU sort of n keys each time, for nothing the
 *   fingerprint does not already catch).
 *
 * Result channel: with KIT_RESULT_FD and KIT_RESULT_TOKEN set (both are read and removed from
 * the environment first thing), one line is written to that descriptor at the end:
 *   TOKEN ok MEDIAN_MS MIN_MS CPU_MS sorted and checked; CPU_MS: the CPU time the kernel
 *                                    accounted to the lab's process over all runs (-1: not
 *                                    measured), read from outside that process
 *   TOKEN wrong MESSAGE              the result is not the sorted input
 *   TOKEN error MESSAGE              a CUDA error, bad arguments, no memory
 * Exit codes: exit_codes.h (0 ok, 1 wrong, 2 bad arguments, 3 no GPU, 4 CUDA error).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datagen.h"
#include "driver.h"
#include "exit_codes.h"
#include "gpu.h"
#include "remote.h"
#include "result_channel.h"
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
    printf("timed_driver: %s %s\n", word, text);
    fflush(stdout);
    char result[700];
    snprintf(result, sizeof result, "%s %s", word, text);
    kit_result_channel_send(result);
    return status;
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

/* A secret for the fingerprints: random, never sent to the executor. */
static uint64_t fingerprint_secret(void)
{
    uint64_t secret = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &secret, sizeof secret) != (ssize_t)sizeof secret) {
            secret = 0;
        }
        close(fd);
    }
    return secret ^ (uint64_t)(kit_host_ms() * 1e6) ^ 0x9e3779b97f4a7c15ull;
}

/* splitmix64's finalizer: a bijection that spreads every input bit over the output. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The multiset's fingerprint: order does not change it, a key changed or lost does. */
static uint64_t fingerprint(const unsigned int *keys, size_t n, uint64_t secret)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += mix64(secret + keys[i]);
    }
    return sum;
}

/* Whether @p result is @p input sorted: ascending, with the same fingerprint. */
static int sorted_same_keys(const unsigned int *result, size_t n, uint64_t expected,
                            uint64_t secret)
{
    for (size_t i = 1; i < n; i++) {
        if (result[i - 1] > result[i]) {
            return 0;
        }
    }
    return fingerprint(result, n, secret) == expected;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int kit_driver_main(int argc, char **argv, const kit_lab_driver *lab)
{
    kit_result_channel_take();
    size_t n = lab->default_n, reps = 5, seed = 1;
    kit_dist dist = KIT_DIST_UNIFORM;
    const kit_driver_algo *algo = &lab->algos[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = value != NULL;
        if (ok && strcmp(arg, "--") == 0) {
            kit_remote_configure(argv + i + 1); /* the rest runs the lab's code */
            break;
        } else if (ok && strcmp(arg, "-n") == 0) {
            ok = parse_count(value, &n) == 0;
        } else if (ok && strcmp(arg, "--reps") == 0) {
            ok = parse_count(value, &reps) == 0 && reps >= 1 && reps <= 1000;
        } else if (ok && strcmp(arg, "--seed") == 0) {
            ok = parse_count(value, &seed) == 0;
        } else if (ok && strcmp(arg, "--dist") == 0) {
            ok = kit_dist_parse(value, &dist) == 0;
        } else if (ok && strcmp(arg, "--algo") == 0) {
            algo = NULL;
            for (int a = 0; a < KIT_DRIVER_MAX_ALGOS && lab->algos[a].name; a++) {
                if (strcmp(lab->algos[a].name, value) == 0) {
                    algo = &lab->algos[a];
                }
            }
            ok = algo != NULL;
        } else {
            ok = 0;
        }
        if (!ok) {
            return finish(KIT_EXIT_USAGE, "error", "bad argument '%s %s' (%s's timed driver)",
                          arg, value ? value : "", lab->name);
        }
        i++;
    }
    if (algo->max_n && n > algo->max_n) {
        return finish(KIT_EXIT_USAGE, "error", "--algo %s sorts at most %zu keys, not %zu",
                      algo->name, algo->max_n, n);
    }
    char reason[256];
    if (kit_gpu_probe(reason, sizeof reason) != KIT_GPU_READY) {
        return finish(KIT_EXIT_NO_GPU, "error", "no usable GPU: %s", reason);
    }

    size_t bytes = (n ? n : 1) * sizeof(unsigned int);
    unsigned int *snapshot = malloc(bytes), *result = malloc(bytes);
    double *times = malloc(reps * sizeof *times);
    unsigned int *d_work = NULL;
    if (!snapshot || !result || !times) {
        return finish(KIT_EXIT_USAGE, "error", "out of host memory for n = %zu", n);
    }
    uint64_t secret = fingerprint_secret();
    cudaError_t err = cudaMalloc((void **)&d_work, bytes);
    if (err != cudaSuccess) {
        return finish(KIT_EXIT_CUDA, "error", "setting up n = %zu: %s", n, cudaGetErrorName(err));
    }
    size_t run_seed = seed;
    for (long r = -1; r < (long)reps; r++) {
        run_seed = seed + (size_t)(r + 1); /* each run an input of its own */
        kit_generate_u32(snapshot, n, dist, run_seed);
        uint64_t expected = fingerprint(snapshot, n, secret);
        err = cudaMemcpy(d_work, snapshot, n * sizeof *snapshot, cudaMemcpyHostToDevice);
        if (err == cudaSuccess) {
            err = cudaDeviceSynchronize();
        }
        if (err != cudaSuccess) {
            return finish(KIT_EXIT_CUDA, "error", "copying the input: %s", cudaGetErrorName(err));
        }
        /* The clock runs over everything that produces the checked output: the call, any
         * work it left running, and the copy back (work deferred to that copy is timed). */
        double start = kit_host_ms();
        err = algo->sort(d_work, n);
        cudaError_t sync = cudaDeviceSynchronize();
        if (err == cudaSuccess) {
            err = sync;
        }
        if (err != cudaSuccess) {
            return finish(KIT_EXIT_CUDA, "error", "the %s sort failed: %s (%s)", algo->name,
                          cudaGetErrorName(err), cudaGetErrorString(err));
        }
        err = cudaMemcpy(result, d_work, n * sizeof *result, cudaMemcpyDeviceToHost);
        double ms = kit_host_ms() - start;
        if (err != cudaSuccess) {
            return finish(KIT_EXIT_CUDA, "error", "copying the result back: %s",
                          cudaGetErrorName(err));
        }
        if (r >= 0) {
            times[r] = ms;
        }
        if (!sorted_same_keys(result, n, expected, secret)) {
            kit_verdict v = kit_verify_u32(snapshot, result, n, 0);
            return finish(KIT_EXIT_WRONG, "wrong", "--algo %s -n %zu --dist %s --seed %zu: %s",
                          algo->name, n, kit_dist_name(dist), run_seed,
                          v.status != KIT_VERIFY_OK ? v.message : "not the input sorted");
        }
    }
    qsort(times, reps, sizeof *times, compare_doubles);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    cudaFree(d_work);
    free(snapshot);
    free(result);
    /* Measured from outside the lab's process: its CPU time over every run (the grader sets
     * it against the reference's), and that it opened the GPU at all. */
    char measured[512];
    if (kit_remote_end_test(1, 0, measured, sizeof measured)) {
        free(times);
        return finish(KIT_EXIT_WRONG, "wrong", "%s", measured);
    }
    int status = finish(KIT_EXIT_OK, "ok", "%.6f %.6f %.3f", median, times[0],
                        kit_remote_cpu_ms());
    free(times);
    return status;
}
