/* The Lab 02 driver: build/{solution,student}/bin/mergesort. Run it with --help. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "driver.h"
#include "mergesort.h"

/* `--algo streams`, the bonus TODO 2.5 (labs/02-mergesort/mergesort_streams.c, linked into this
 * driver by lab.mk): it sorts host memory, pinned, over streams, so it is a mode of its own, not
 * one of the device sorts below. The grader links this file into its timed driver without it
 * (no pinned memory or streams there): a weak reference is NULL there. */
int mergesort_streams_main(int argc, char **argv);
#pragma weak mergesort_streams_main

/* Scratch buffers kept between runs (allocated by the untimed warm-up run): the values of
 * `--algo pairs`, and the other half of the ping-pong of `--algo thread` and `--algo path`.
 * Their contents do not change the time: merge sort compares keys only. */
static kit_driver_scratch scratch_values, scratch_keys;

static cudaError_t sort_pairs(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return mergesort_sort_pairs(d_keys, n ? scratch_values.keys : NULL, n);
}

static cudaError_t sort_keys(unsigned int *d_keys, size_t n)
{
    return mergesort_sort_keys(d_keys, n);
}

/* The bonus TODO 2.6: the same sort with its merges in registers, keys only and pairs. */
static cudaError_t sort_keys_reg(unsigned int *d_keys, size_t n)
{
    return mergesort_sort_keys_reg(d_keys, n);
}

static cudaError_t sort_pairs_reg(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return mergesort_sort_pairs_reg(d_keys, n ? scratch_values.keys : NULL, n);
}

/* A tier's pass, as the API gives it. */
typedef cudaError_t (*pass_fn)(const unsigned int *, const unsigned int *, unsigned int *,
                               unsigned int *, size_t, size_t);

/* A whole sort by one tier alone: passes of width 1, 2, 4, ... between d_keys and the
 * scratch buffer, the result copied back when it ends in the scratch buffer. */
static cudaError_t sort_by_passes(unsigned int *d_keys, size_t n, pass_fn pass)
{
    CUDA_TRY(kit_driver_reserve(&scratch_keys, n));
    unsigned int *src = d_keys, *dst = scratch_keys.keys;
    for (size_t width = 1; width < n; width *= 2) {
        CUDA_TRY(pass(src, NULL, dst, NULL, n, width));
        unsigned int *t = src;
        src = dst;
        dst = t;
    }
    if (src != d_keys) {
        CUDA_TRY(cudaMemcpy(d_keys, src, n * sizeof *d_keys, cudaMemcpyDeviceToDevice));
    }
    return cudaSuccess;
}

static cudaError_t sort_thread_tier(unsigned int *d_keys, size_t n)
{
    return sort_by_passes(d_keys, n, mergesort_pass_thread);
}

static cudaError_t sort_path_tier(unsigned int *d_keys, size_t n)
{
    return sort_by_passes(d_keys, n, mergesort_pass_merge_path);
}

/* Prints one row of the trace: key(input position) in runs of `width`. */
static void print_runs(FILE *out, const char *label, const unsigned int *keys,
                       const unsigned int *values, size_t n, size_t width)
{
    fprintf(out, "%-16s", label);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s", i % width == 0 ? (i ? " ] [" : "[") : "");
        if (keys[i] == UINT_MAX) {
            fprintf(out, " MAX(%u)", values[i]);
        } else {
            fprintf(out, " %u(%u)", keys[i], values[i]);
        }
    }
    fprintf(out, "%s\n", n ? " ]" : "");
}

/* The merge path of the last pass, from mergesort_co_rank (TODO 2.3) on the host: for every
 * output index k, how many keys the first k outputs take from each run. */
static void print_merge_path(FILE *out, const unsigned int *keys, size_t n, size_t mid)
{
    fprintf(out,
            "merge path of the last pass (left run: %zu keys, right run: %zu), from "
            "mergesort_co_rank():\n",
            mid, n - mid);
    for (size_t k = 0; k <= n; k++) {
        size_t i = mergesort_co_rank(keys, n, mid, k);
        if (i == (size_t)-1) {
            fprintf(out, "  mergesort_co_rank() is not written yet (TODO 2.3)\n");
            return;
        }
        fprintf(out, "  k=%-3zu takes %2zu from the left, %2zu from the right", k, i, k - i);
        if (k < n) {
            size_t next = mergesort_co_rank(keys, n, mid, k + 1);
            fprintf(out, "; output %zu comes from the %s", k, next > i ? "left" : "right");
        }
        fprintf(out, "\n");
    }
}

/* The trace on the GPU: passes of width 1, 2, 4, ... by mergesort_pass_thread (TODO 2.1),
 * keys with their input positions as values, each pass printed. */
static cudaError_t trace_on_device(unsigned int *d_buffers[4], unsigned int *keys,
                                   unsigned int *values, size_t n, unsigned int *d_keys, FILE *out)
{
    for (int b = 0; b < 4; b++) {
        CUDA_TRY(cudaMalloc((void **)&d_buffers[b], n * sizeof *keys));
    }
    CUDA_TRY(cudaMemcpy(d_buffers[0], keys, n * sizeof *keys, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d_buffers[1], values, n * sizeof *values, cudaMemcpyHostToDevice));
    int src = 0;
    for (size_t width = 1; width < n; width *= 2) {
        if (2 * width >= n) {
            print_merge_path(out, keys, n, width); /* keys: the input of this last pass */
        }
        int dst = 2 - src;
        CUDA_TRY(mergesort_pass_thread(d_buffers[src], d_buffers[src + 1], d_buffers[dst],
                                       d_buffers[dst + 1], n, width));
        CUDA_TRY(cudaMemcpy(keys, d_buffers[dst], n * sizeof *keys, cudaMemcpyDeviceToHost));
        CUDA_TRY(
            cudaMemcpy(values, d_buffers[dst + 1], n * sizeof *values, cudaMemcpyDeviceToHost));
        char label[32];
        snprintf(label, sizeof label, "width %zu", width);
        print_runs(out, label, keys, values, n, 2 * width);
        src = dst;
    }
    CUDA_TRY(cudaMemcpy(d_keys, d_buffers[src], n * sizeof *d_keys, cudaMemcpyDeviceToDevice));
    return cudaSuccess;
}

/* --trace: the passes of one thread per merge, printed after each; then the merge path of
 * the last pass; then leaves the sorted keys in d_keys. */
static cudaError_t trace_passes(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out)
{
    if (n == 0) {
        fprintf(out, "merge sort of n = 0 keys: nothing to do\n");
        return cudaSuccess;
    }
    unsigned int *values = malloc(n * sizeof *values);
    if (!values) {
        return cudaErrorMemoryAllocation;
    }
    for (size_t i = 0; i < n; i++) {
        values[i] = (unsigned int)i;
    }
    fprintf(out,
            "merge sort of n = %zu keys by mergesort_pass_thread (TODO 2.1); each row is the "
            "array after one pass,\nin its sorted runs; key(p) is a key and its position in the "
            "input: equal keys must keep p increasing.\n",
            n);
    print_runs(out, "input", keys, values, n, 1);
    unsigned int *d_buffers[4] = {NULL, NULL, NULL, NULL};
    cudaError_t err = trace_on_device(d_buffers, keys, values, n, d_keys, out);
    if (err == cudaErrorNotSupported) {
        fprintf(stderr, "mergesort: --trace runs mergesort_pass_thread(), TODO 2.1\n");
    }
    for (int b = 0; b < 4; b++) {
        cudaFree(d_buffers[b]);
    }
    free(values);
    return err;
}

/* Global-memory passes of a sort of n keys in tiles of `tile`: the tiles, then one pass per
 * width from the tile up (the tiles are written where the last pass must end: no copy back).
 * Each pass reads and writes every key (and value): --bench's bandwidth floor. */
static double pass_bytes(size_t n, size_t tile, int with_values)
{
    double passes = 1;
    for (size_t width = tile; width < n; width *= 2) {
        passes++;
    }
    return passes * 2.0 * sizeof(unsigned int) * n * (with_values ? 2 : 1);
}

static double bytes_keys(size_t n)
{
    return pass_bytes(n, MERGESORT_TILE, 0);
}

static double bytes_pairs(size_t n)
{
    return pass_bytes(n, MERGESORT_TILE, 1);
}

/* TODO 2.6: its tiles are MERGESORT_REG_TILE keys. */
static double bytes_keys_reg(size_t n)
{
    return pass_bytes(n, MERGESORT_REG_TILE, 0);
}

static double bytes_pairs_reg(size_t n)
{
    return pass_bytes(n, MERGESORT_REG_TILE, 1);
}

/* One tier alone: log2(n) passes, each reading and writing every key, plus the copy back. */
static double bytes_by_passes(size_t n)
{
    double passes = 0;
    for (size_t width = 1; width < n; width *= 2) {
        passes++;
    }
    return (passes + (int)passes % 2) * 2.0 * sizeof(unsigned int) * n;
}

static const size_t bench_sizes[] = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 26, 0};

/* Whether the command line asks for `--algo streams`, and whether for --help. */
static int wants_streams(int argc, char **argv, int *help)
{
    int streams = 0;
    *help = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = 1;
        } else if (strcmp(argv[i], "--algo") == 0 && i + 1 < argc &&
                   strcmp(argv[i + 1], "streams") == 0) {
            streams = 1;
        }
    }
    return streams;
}

int main(int argc, char **argv)
{
    int help = 0;
    if (wants_streams(argc, argv, &help)) {
        if (!mergesort_streams_main) {
            fprintf(stderr, "mergesort: --algo streams is not part of this build\n");
            return KIT_EXIT_USAGE;
        }
        return mergesort_streams_main(argc, argv);
    }
    const kit_lab_driver lab = {
        .name = "mergesort",
        .title = "Lab 02, stable merge sort in three tiers",
        .algos = {{"keys", sort_keys, 0, "2.1-2.4", bytes_keys},
                  {"pairs", sort_pairs, 0, "2.1-2.4", bytes_pairs, .pairs = 1},
                  {"thread", sort_thread_tier, (size_t)1 << 22, "2.1", bytes_by_passes},
                  {"path", sort_path_tier, 0, "2.3", bytes_by_passes},
                  {"reg-keys", sort_keys_reg, 0, "2.6", bytes_keys_reg},
                  {"reg-pairs", sort_pairs_reg, 0, "2.6", bytes_pairs_reg, .pairs = 1}},
        .default_n = 4096,
        .trace = trace_passes,
        .trace_max_n = 32,
        .bench_sizes = bench_sizes,
    };
    if (help && mergesort_streams_main) { /* the driver's --help below exits */
        printf("mergesort --algo streams: the bonus TODO 2.5, a host array sorted in chunks over "
               "CUDA streams\n(its options: mergesort --algo streams --help)\n\n");
    }
    return kit_driver_main(argc, argv, &lab);
}
