/* `mergesort --algo streams`: the driver of the bonus TODO 2.5, mergesort_sort_host_streams().
 *
 * The sort takes an array of host memory, so this mode is not one of the driver's device
 * sorts (common/driver.c): it allocates the host array itself, **pinned** (cudaMallocHost),
 * because only pinned memory lets a copy overlap a kernel, and a lab file may not allocate
 * it. It is linked into the lab's driver only (labs/02-mergesort/lab.mk); mergesort_main.c
 * refers to it weakly, so the grader's timed driver, which links mergesort_main.o without it
 * and has no streams or pinned memory, still links. The bonus is not graded: this is where it
 * is measured.
 *
 *     mergesort --algo streams [-n N] [--chunk C] [--streams K] [--reps R] [--dist D]
 *               [--seed S] [--check] [--bench]
 *
 * Without --bench: sorts n keys R times (after a warm-up) with K streams, prints the median.
 * With --bench: for n = 2^24 and 2^26 (or the -n given), the times of the copies alone (the
 * n keys to the GPU and back, one after the other), of the sort alone on the device
 * (mergesort_sort_keys), and of mergesort_sort_host_streams() with 1 stream and with K; every
 * result is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "datagen.h"
#include "driver.h"
#include "exit_codes.h"
#include "gpu.h"
#include "kit_tiles.h"
#include "mergesort.h"
#include "timer.h"
#include "verify.h"

/** Entry point of the mode, called by mergesort_main.c's main(). */
int mergesort_streams_main(int argc, char **argv);

/** The command line of the mode. */
typedef struct {
    size_t n, chunk; /* chunk 0: n / 16, rounded up to whole tiles */
    int streams, reps, check, bench, n_given;
    kit_dist dist;
    uint64_t seed;
} streams_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mergesort --algo streams [-n N] [--chunk C] [--streams K] [--reps R]\n"
            "                 [--dist NAME] [--seed S] [--check] [--bench]\n"
            "Sorts an array of pinned host memory with mergesort_sort_host_streams() (TODO 2.5,\n"
            "a bonus): chunks copied in and sorted over K streams, merged on the GPU, copied "
            "back.\n"
            "  -n N         number of keys, decimal or 2^K (default 2^24)\n"
            "  --chunk C    keys per chunk (default n/16, rounded up to a multiple of %u)\n"
            "  --streams K  streams, 1..%d (default 4)\n"
            "  --reps R     timed runs after one warm-up; the median is printed (default 5)\n"
            "  --dist NAME  input distribution (default uniform)\n"
            "  --seed S     seed of the input (default 1)\n"
            "  --check      verify the result (--bench always does)\n"
            "  --bench      n = 2^24 and 2^26 (or -n): the copies alone, the sort alone on the\n"
            "               device, and the host sort with 1 stream and with K\n",
            MERGESORT_TILE, MERGESORT_MAX_STREAMS);
}

static int bad_usage(const char *what, const char *value)
{
    fprintf(stderr, "mergesort: %s '%s'\n", what, value);
    usage(stderr);
    return KIT_EXIT_USAGE;
}

static int parse_options(int argc, char **argv, streams_options *opt)
{
    opt->n = (size_t)1 << 24;
    opt->chunk = 0;
    opt->streams = 4;
    opt->reps = 5;
    opt->check = opt->bench = opt->n_given = 0;
    opt->dist = KIT_DIST_UNIFORM;
    opt->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            exit(KIT_EXIT_OK);
        } else if (strcmp(arg, "--check") == 0) {
            opt->check = 1;
        } else if (strcmp(arg, "--bench") == 0) {
            opt->bench = 1;
        } else if (i + 1 >= argc) {
            return bad_usage("unknown option or missing value:", arg);
        } else {
            const char *value = argv[++i];
            size_t number = 0;
            int is_count = kit_parse_count(value, &number) == 0;
            if (strcmp(arg, "--algo") == 0) {
                if (strcmp(value, "streams") != 0) {
                    return bad_usage("this mode is --algo streams, not", value);
                }
            } else if (strcmp(arg, "-n") == 0 && is_count) {
                opt->n = number;
                opt->n_given = 1;
            } else if (strcmp(arg, "--chunk") == 0 && is_count && number > 0) {
                opt->chunk = number;
            } else if (strcmp(arg, "--streams") == 0 && is_count && number >= 1 &&
                       number <= MERGESORT_MAX_STREAMS) {
                opt->streams = (int)number;
            } else if (strcmp(arg, "--reps") == 0 && is_count && number >= 1 && number <= 1000) {
                opt->reps = (int)number;
            } else if (strcmp(arg, "--seed") == 0 && is_count) {
                opt->seed = (uint64_t)number;
            } else if (strcmp(arg, "--dist") == 0) {
                if (kit_dist_parse(value, &opt->dist) != 0) {
                    return bad_usage("unknown --dist", value);
                }
            } else {
                char what[64];
                snprintf(what, sizeof what, "bad value for %s:", arg);
                return bad_usage(what, value);
            }
        }
    }
    return KIT_EXIT_OK;
}

/** The chunk used for n keys: the one asked for, else n / 16 rounded up to whole tiles. */
static size_t chunk_for(const streams_options *opt, size_t n)
{
    if (opt->chunk) {
        return opt->chunk;
    }
    size_t tiles = kit_num_tiles(n / 16, MERGESORT_TILE);
    return (tiles ? tiles : 1) * MERGESORT_TILE;
}

/** Reports an error of the lab's function and returns the exit code for it. */
static int lab_error(cudaError_t err)
{
    if (err == cudaErrorNotSupported) {
        fprintf(stderr, "mergesort: mergesort_sort_host_streams() is not written yet (TODO 2.5, "
                        "a bonus)\n");
    } else {
        fprintf(stderr, "mergesort: mergesort_sort_host_streams() failed: %s (%s)\n",
                cudaGetErrorName(err), cudaGetErrorString(err));
    }
    return KIT_EXIT_CUDA;
}

/**
 * Times mergesort_sort_host_streams() on @p pinned (n keys), refilled from @p snapshot before
 * every run (untimed): one warm-up, then @p reps runs, the median in @p ms. On the host's
 * clock: the function returns when the keys are back. The last result stays in @p pinned.
 */
static cudaError_t time_host_sort(unsigned int *pinned, const unsigned int *snapshot, size_t n,
                                  size_t chunk, int streams, int reps, double *ms)
{
    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t err = cudaSuccess;
    for (int r = -1; r < reps && err == cudaSuccess; r++) {
        memcpy(pinned, snapshot, n * sizeof *pinned);
        double start = kit_host_ms();
        err = mergesort_sort_host_streams(pinned, n, chunk, streams);
        if (r >= 0) {
            times[r] = kit_host_ms() - start;
        }
    }
    *ms = err == cudaSuccess ? kit_median(times, (size_t)reps) : 0;
    free(times);
    return err;
}

/** Checks @p result against @p snapshot; prints what is wrong. Returns 1 when sorted. */
static int check_result(const unsigned int *snapshot, const unsigned int *result, size_t n,
                        const char *what)
{
    kit_verdict v = kit_verify_u32(snapshot, result, n, 0);
    if (v.status != KIT_VERIFY_OK) {
        printf("  check (%s): WRONG: %s\n", what, v.message);
        return 0;
    }
    return 1;
}

/**
 * The median time of the copies alone: n keys from pinned memory to the device, then back,
 * one after the other on one stream, as the 1-stream sort makes them.
 */
static double time_copies(unsigned int *pinned, unsigned int *d_keys, size_t n, int reps)
{
    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) {
        fprintf(stderr, "mergesort: out of host memory\n");
        exit(KIT_EXIT_USAGE);
    }
    for (int r = -1; r < reps; r++) {
        double start = kit_host_ms();
        CUDA_CHECK(cudaMemcpy(d_keys, pinned, n * sizeof *pinned, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(pinned, d_keys, n * sizeof *pinned, cudaMemcpyDeviceToHost));
        if (r >= 0) {
            times[r] = kit_host_ms() - start;
        }
    }
    double ms = kit_median(times, (size_t)reps);
    free(times);
    return ms;
}

/** The median time of mergesort_sort_keys() on n keys already on the device. */
static double time_device_sort(const unsigned int *snapshot, unsigned int *d_keys, size_t n,
                               int reps)
{
    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) {
        fprintf(stderr, "mergesort: out of host memory\n");
        exit(KIT_EXIT_USAGE);
    }
    kit_gpu_timer timer;
    CUDA_CHECK(kit_gpu_timer_create(&timer));
    for (int r = -1; r < reps; r++) {
        CUDA_CHECK(cudaMemcpy(d_keys, snapshot, n * sizeof *snapshot, cudaMemcpyHostToDevice));
        float ms = 0;
        CUDA_CHECK(kit_gpu_timer_start(&timer));
        cudaError_t err = mergesort_sort_keys(d_keys, n);
        if (err != cudaSuccess) {
            fprintf(stderr, "mergesort: mergesort_sort_keys() failed (TODO 2.4): %s\n",
                    cudaGetErrorName(err));
            exit(KIT_EXIT_CUDA);
        }
        CUDA_CHECK(kit_gpu_timer_stop(&timer, &ms));
        if (r >= 0) {
            times[r] = ms;
        }
    }
    kit_gpu_timer_destroy(&timer);
    double ms = kit_median(times, (size_t)reps);
    free(times);
    return ms;
}

/** One row of --bench for n keys. Returns an exit code. */
static int bench_row(const streams_options *opt, size_t n)
{
    size_t chunk = chunk_for(opt, n);
    unsigned int *snapshot = malloc(n * sizeof *snapshot), *pinned = NULL, *d_keys = NULL;
    if (!snapshot) {
        fprintf(stderr, "mergesort: n = %zu is too large for the host's memory\n", n);
        return KIT_EXIT_USAGE;
    }
    kit_generate_u32(snapshot, n, opt->dist, opt->seed);
    CUDA_CHECK(cudaMallocHost((void **)&pinned, n * sizeof *pinned));
    CUDA_CHECK(cudaMalloc((void **)&d_keys, n * sizeof *d_keys));
    memcpy(pinned, snapshot, n * sizeof *pinned);
    double copies_ms = time_copies(pinned, d_keys, n, opt->reps);
    double sort_ms = time_device_sort(snapshot, d_keys, n, opt->reps);
    CUDA_CHECK(cudaFree(d_keys));

    double one_ms = 0, many_ms = 0;
    int status = KIT_EXIT_OK;
    cudaError_t err = time_host_sort(pinned, snapshot, n, chunk, 1, opt->reps, &one_ms);
    if (err == cudaSuccess && !check_result(snapshot, pinned, n, "1 stream")) {
        status = KIT_EXIT_WRONG;
    }
    if (err == cudaSuccess && status == KIT_EXIT_OK) {
        err = time_host_sort(pinned, snapshot, n, chunk, opt->streams, opt->reps, &many_ms);
        if (err == cudaSuccess && !check_result(snapshot, pinned, n, "K streams")) {
            status = KIT_EXIT_WRONG;
        }
    }
    if (err != cudaSuccess) {
        status = lab_error(err);
    } else if (status == KIT_EXIT_OK) {
        printf("%10zu %9zu %12.3f %11.3f %11.3f %11.3f %9.3f (%4.1f%%)\n", n, chunk, copies_ms,
               sort_ms, one_ms, many_ms, one_ms - many_ms,
               one_ms > 0 ? 100.0 * (one_ms - many_ms) / one_ms : 0.0);
    }
    CUDA_CHECK(cudaFreeHost(pinned));
    free(snapshot);
    return status;
}

static int run_bench(const streams_options *opt, const char *device)
{
    printf("mergesort --bench --algo streams: mergesort_sort_host_streams() (TODO 2.5) on %s\n"
           "pinned host memory, dist=%s seed=%llu, median of %d runs, times in ms; K = %d\n"
           "copies: the n keys in and out, no sort; sort: mergesort_sort_keys() on the device "
           "alone\n",
           device, kit_dist_name(opt->dist), (unsigned long long)opt->seed, opt->reps,
           opt->streams);
    printf("%10s %9s %12s %11s %11s %11s %17s\n", "n", "chunk", "copies", "sort", "1 stream",
           "K streams", "saved by K");
    const size_t sizes[] = {(size_t)1 << 24, (size_t)1 << 26};
    size_t count = opt->n_given ? 1 : 2;
    for (size_t s = 0; s < count; s++) {
        int status = bench_row(opt, opt->n_given ? opt->n : sizes[s]);
        if (status != KIT_EXIT_OK) {
            return status;
        }
    }
    printf("The streams can hide at most the smaller of the copies and the sort: 1 stream takes "
           "about copies + sort,\nK streams at best about max(copies, sort) plus the last "
           "chunk's sort and the merges.\n");
    return KIT_EXIT_OK;
}

int mergesort_streams_main(int argc, char **argv)
{
    streams_options opt;
    int status = parse_options(argc, argv, &opt);
    if (status != KIT_EXIT_OK) {
        return status;
    }
    char device[256];
    if (kit_gpu_probe(device, sizeof device) != KIT_GPU_READY) {
        fprintf(stderr, "mergesort: needs an NVIDIA GPU: %s\n", device);
        return KIT_EXIT_NO_GPU;
    }
    if (opt.bench) {
        return run_bench(&opt, device);
    }
    size_t n = opt.n, chunk = chunk_for(&opt, n);
    unsigned int *snapshot = malloc((n ? n : 1) * sizeof *snapshot), *pinned = NULL;
    if (!snapshot) {
        fprintf(stderr, "mergesort: n = %zu is too large for the host's memory\n", n);
        return KIT_EXIT_USAGE;
    }
    kit_generate_u32(snapshot, n, opt.dist, opt.seed);
    CUDA_CHECK(cudaMallocHost((void **)&pinned, (n ? n : 1) * sizeof *pinned));
    printf("mergesort: n=%zu dist=%s seed=%llu algo=streams chunk=%zu streams=%d on %s\n", n,
           kit_dist_name(opt.dist), (unsigned long long)opt.seed, chunk, opt.streams, device);
    double ms = 0;
    cudaError_t err = time_host_sort(pinned, snapshot, n, chunk, opt.streams, opt.reps, &ms);
    if (err != cudaSuccess) {
        status = lab_error(err);
    } else {
        printf("  sort of host memory, copies included: %.3f ms (median of %d), %.1f Mkeys/s\n", ms,
               opt.reps, ms > 0 ? n / (ms * 1e3) : 0.0);
        if (!opt.check) {
            printf("  check: not asked (add --check)\n");
        } else if (check_result(snapshot, pinned, n, "result")) {
            printf("  check: OK (sorted, same keys)\n");
        } else {
            status = KIT_EXIT_WRONG;
        }
    }
    CUDA_CHECK(cudaFreeHost(pinned));
    free(snapshot);
    return status;
}
