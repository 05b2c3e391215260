/* The Lab 05 driver: build/{solution,student}/bin/quicksort. Run it with --help.
 *
 * `--algo cdp` (the default) is quicksort_sort(), the tree of grids; `--algo loop` is the
 * host-launched loop; `--algo simple` is TODO 5.1. `--trace` (n <= 32) prints every level of
 * the recursion with its pivots. `--bench` is this lab's own: every version beside CUB and
 * one CPU core, on uniform, sorted and all-equal keys; with `--csv FILE` it also appends the
 * uniform keys' rows to FILE (common/bench_csv.h), as the other labs' --bench does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "bench_csv.h"
#include "cuda_check.h"
#include "datagen.h"
#include "driver.h"
#include "exit_codes.h"
#include "gpu.h"
#include "quicksort.h"
#include "timer.h"
#include "verify.h"

/* The grader links this file into its timed driver without the baselines (CUB is not in its
 * build): weak references are NULL there, and only --bench, which it never runs, calls them. */
#pragma weak kit_baseline_cub_radix_ms
#pragma weak kit_baseline_cub_merge_ms
#pragma weak kit_baseline_std_sort_ms
#pragma weak kit_baseline_describe_row

/* The seed article's algorithm, run correctly (solutions/05-quicksort/seed_quicksort.cu,
 * linked into this driver by lab.mk in the instructor's kit): a baseline of --bench only.
 * It stays out of the student package, since its CUDA 12 fixes are TODO 5.1's lesson. */
cudaError_t quicksort_seed_baseline(unsigned int *d_keys, size_t n);
#pragma weak quicksort_seed_baseline

static cudaError_t sort_cdp(unsigned int *d_keys, size_t n)
{
    return quicksort_sort(d_keys, n, 0);
}

/* The pending-launch limit of --algo simple, given here rather than asked of 5.4's
 * pending_launches_for() (0 would), so that TODO 5.1 runs from the driver before 5.4 is
 * written: 2^20, what 5.4 gives a tree of 2^24 keys, and more than smaller trees launch. */
#define SIMPLE_PENDING_LAUNCHES ((size_t)1 << 20)

static cudaError_t sort_simple(unsigned int *d_keys, size_t n)
{
    return quicksort_simple(d_keys, n, SIMPLE_PENDING_LAUNCHES);
}

/* ---- --trace: the recursion level by level, with TODO 5.2's partition and 5.3's pivot ---- */

typedef struct {
    size_t lo, len;
} trace_segment;

static void print_keys(FILE *out, const char *label, const unsigned int *keys, size_t n)
{
    fprintf(out, "%-10s", label);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, " %u", keys[i]);
    }
    fprintf(out, "\n");
}

/* One level: every segment of 2 keys or more partitioned from d_src into d_dst (which starts
 * as a copy of d_src, so the keys already in place stay); the next level's segments. */
static cudaError_t trace_level(unsigned int *d_src, unsigned int *d_dst, size_t n,
                               const trace_segment *level, size_t count, trace_segment *next,
                               size_t *next_count, unsigned int *d_pivot,
                               unsigned long long *d_counts, FILE *out)
{
    CUDA_TRY(cudaMemcpy(d_dst, d_src, n * sizeof *d_dst, cudaMemcpyDeviceToDevice));
    *next_count = 0;
    for (size_t s = 0; s < count; s++) {
        trace_segment seg = level[s];
        unsigned int pivot = 0;
        unsigned long long counts[2] = {0, 0};
        CUDA_TRY(quicksort_choose_pivot(d_src + seg.lo, seg.len, d_pivot));
        CUDA_TRY(cudaMemcpy(&pivot, d_pivot, sizeof pivot, cudaMemcpyDeviceToHost));
        CUDA_TRY(quicksort_partition(d_src + seg.lo, d_dst + seg.lo, seg.len, pivot, d_counts));
        CUDA_TRY(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
        size_t less = (size_t)counts[0], greater = (size_t)counts[1];
        fprintf(out, "  keys [%zu, %zu): pivot %u -> %zu less, %zu equal, %zu greater\n", seg.lo,
                seg.lo + seg.len, pivot, less, seg.len - less - greater, greater);
        if (less >= 2) {
            next[(*next_count)++] = (trace_segment){seg.lo, less};
        }
        if (greater >= 2) {
            next[(*next_count)++] = (trace_segment){seg.lo + seg.len - greater, greater};
        }
    }
    return cudaSuccess;
}

/* The trace's device buffers, freed by the caller. */
typedef struct {
    unsigned int *other, *pivot;
    unsigned long long *counts;
} trace_buffers;

static cudaError_t trace_levels(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out,
                                trace_buffers *b, trace_segment *level, trace_segment *next)
{
    CUDA_TRY(cudaMalloc((void **)&b->other, n * sizeof *b->other));
    CUDA_TRY(cudaMalloc((void **)&b->pivot, sizeof *b->pivot));
    CUDA_TRY(cudaMalloc((void **)&b->counts, 2 * sizeof *b->counts));
    unsigned int *src = d_keys, *dst = b->other;
    size_t count = 1;
    level[0] = (trace_segment){0, n};
    for (int depth = 0; count > 0; depth++) {
        fprintf(out, "level %d (%zu segment%s):\n", depth, count, count == 1 ? "" : "s");
        size_t next_count = 0;
        CUDA_TRY(
            trace_level(src, dst, n, level, count, next, &next_count, b->pivot, b->counts, out));
        CUDA_TRY(cudaMemcpy(keys, dst, n * sizeof *keys, cudaMemcpyDeviceToHost));
        char label[32];
        snprintf(label, sizeof label, "after %d", depth);
        print_keys(out, label, keys, n);
        memcpy(level, next, next_count * sizeof *next);
        count = next_count;
        unsigned int *t = src;
        src = dst;
        dst = t;
    }
    if (src != d_keys) {
        CUDA_TRY(cudaMemcpy(d_keys, src, n * sizeof *d_keys, cudaMemcpyDeviceToDevice));
    }
    return cudaSuccess;
}

/* --trace: quicksort's recursion without the small-segment cutoff, one level per row: each
 * segment's pivot (5.3) and the sizes of its three parts (5.2), then the array. */
static cudaError_t trace_quicksort(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out)
{
    fprintf(out,
            "quicksort of n = %zu keys, level by level: each segment of 2 keys or more is "
            "partitioned around its pivot (the ninther, TODO 5.3) by quicksort_partition "
            "(TODO 5.2); its less and greater parts are the next level's segments.\n",
            n);
    print_keys(out, "input", keys, n);
    if (n < 2) {
        return cudaSuccess;
    }
    trace_buffers b = {NULL, NULL, NULL};
    trace_segment *level = malloc(n * sizeof *level), *next = malloc(n * sizeof *next);
    cudaError_t err = level && next ? trace_levels(d_keys, keys, n, out, &b, level, next)
                                    : cudaErrorMemoryAllocation;
    if (err == cudaErrorNotSupported) {
        fprintf(stderr, "quicksort: --trace runs quicksort_choose_pivot() (TODO 5.3) and "
                        "quicksort_partition() (TODO 5.2)\n");
    }
    free(level);
    free(next);
    cudaFree(b.other);
    cudaFree(b.pivot);
    cudaFree(b.counts);
    return err;
}

/* ---- --bench --------------------------------------------------------------------------- */

/* Each sort is timed by kit_time_sort (driver.h) from the event before the call to the one
 * after it returned: the call waits for its whole tree, so this is the sort, not its launch. */

/* Prints one cell: Mkeys/s, or why there is none. */
static void print_rate(size_t n, double ms, cudaError_t err)
{
    if (err == cudaErrorNotSupported) {
        printf(" %10s", "TODO");
    } else if (err != cudaSuccess) {
        printf(" %10s", "error");
    } else if (ms < 0) {
        printf(" %10s", "-");
    } else {
        printf(" %10.1f", n / (ms * 1e3));
    }
}

/* The CSV rows of one size of uniform keys (the Performance page's charts are of uniform
 * keys; the other distributions stay in the printed table): one per version measured. */
static int write_csv_rows(FILE *csv, kit_bench_row *row, const char *const tiers[],
                          const double ms[], int count)
{
    for (int t = 0; t < count; t++) {
        if (ms[t] > 0) {
            row->tier = tiers[t];
            row->ms = ms[t];
            if (kit_bench_csv_row(csv, row) != 0 || fflush(csv) != 0) {
                fprintf(stderr, "quicksort: --csv: a row could not be written\n");
                return -1;
            }
        }
    }
    return 0;
}

static int run_bench(int reps, const char *csv_path)
{
    const size_t sizes[] = {(size_t)1 << 20, (size_t)1 << 24};
    const kit_dist dists[] = {KIT_DIST_UNIFORM, KIT_DIST_SORTED, KIT_DIST_ALL_EQUAL};
    char reason[256];
    if (kit_gpu_probe(reason, sizeof reason) != KIT_GPU_READY) {
        fprintf(stderr, "quicksort: needs an NVIDIA GPU: %s\n", reason);
        return KIT_EXIT_NO_GPU;
    }
    FILE *csv = NULL;
    kit_bench_row row = {0};
    if (csv_path && !kit_baseline_describe_row) {
        fprintf(stderr, "quicksort: --csv needs the baselines (common/baselines.cu)\n");
        return KIT_EXIT_USAGE;
    }
    /* First, so that where there are no baselines (the CPU emulation: make emulate-driver) the
     * driver says so at once, not after minutes of the lab's own sorts. */
    if (kit_baseline_describe_row) {
        CUDA_CHECK(kit_baseline_describe_row(&row));
    }
    if (csv_path) {
        if (!(csv = kit_bench_csv_open(csv_path, "quicksort"))) {
            return KIT_EXIT_USAGE;
        }
        row.lab = "quicksort";
        row.distribution = kit_dist_name(KIT_DIST_UNIFORM);
        row.floor_ms = -1;
    }
    printf("quicksort --bench on %s: Mkeys/s, median of %d runs after a warm-up; GPU times "
           "exclude transfers and include the wait for the whole tree\n",
           reason, reps);
    printf("%10s %-10s %10s %10s %10s %10s %10s %10s %10s %9s %9s\n", "n", "dist", "seed",
           "5.1simple", "cdp", "hostloop", "CUBradix", "CUBmerge", "std::sort", "cdp/loop",
           "seed/cdp");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        unsigned int *keys = malloc(n * sizeof *keys);
        unsigned int *d_input = NULL, *d_work = NULL;
        if (!keys) {
            fprintf(stderr, "quicksort: out of host memory for n = %zu\n", n);
            return KIT_EXIT_USAGE;
        }
        CUDA_CHECK(cudaMalloc((void **)&d_input, n * sizeof *keys));
        CUDA_CHECK(cudaMalloc((void **)&d_work, n * sizeof *keys));
        for (size_t k = 0; k < sizeof dists / sizeof dists[0]; k++) {
            kit_generate_u32(keys, n, dists[k], 1);
            CUDA_CHECK(cudaMemcpy(d_input, keys, n * sizeof *keys, cudaMemcpyHostToDevice));
            double seed_ms = -1, simple_ms = -1, cdp_ms = -1, loop_ms = -1, radix_ms = -1,
                   merge_ms = -1, cpu_ms = -1;
            cudaError_t seed_err = cudaSuccess, simple_err = cudaSuccess, cdp_err, loop_err;
            /* One thread per segment: seconds at 2^24, so only at 2^20. */
            if (n <= ((size_t)1 << 20)) {
                if (quicksort_seed_baseline) {
                    seed_err =
                        kit_time_sort(quicksort_seed_baseline, d_input, d_work, n, 1, &seed_ms);
                }
                simple_err = kit_time_sort(sort_simple, d_input, d_work, n, 1, &simple_ms);
            }
            cdp_err = kit_time_sort(sort_cdp, d_input, d_work, n, reps, &cdp_ms);
            loop_err = kit_time_sort(quicksort_sort_host_loop, d_input, d_work, n, reps, &loop_ms);
            if (kit_baseline_cub_radix_ms) {
                CUDA_CHECK(kit_baseline_cub_radix_ms(d_input, n, reps, &radix_ms));
                CUDA_CHECK(kit_baseline_cub_merge_ms(d_input, n, reps, &merge_ms));
                kit_baseline_std_sort_ms(keys, n, 1, &cpu_ms);
            }
            printf("%10zu %-10s", n, kit_dist_name(dists[k]));
            print_rate(n, seed_ms, seed_err);
            print_rate(n, simple_ms, simple_err);
            print_rate(n, cdp_ms, cdp_err);
            print_rate(n, loop_ms, loop_err);
            print_rate(n, radix_ms, cudaSuccess);
            print_rate(n, merge_ms, cudaSuccess);
            print_rate(n, cpu_ms, cudaSuccess);
            if (cdp_err == cudaSuccess && loop_err == cudaSuccess && loop_ms > 0) {
                printf(" %8.2fx", cdp_ms / loop_ms);
            } else {
                printf(" %9s", "-");
            }
            if (seed_err == cudaSuccess && cdp_err == cudaSuccess && seed_ms > 0 && cdp_ms > 0) {
                printf(" %8.0fx\n", seed_ms / cdp_ms);
            } else {
                printf(" %9s\n", "-");
            }
            fflush(stdout);
            if (csv && dists[k] == KIT_DIST_UNIFORM && radix_ms > 0) {
                const char *const tiers[] = {"simple", "cdp", "loop"};
                const double ms[] = {simple_err == cudaSuccess ? simple_ms : -1,
                                     cdp_err == cudaSuccess ? cdp_ms : -1,
                                     loop_err == cudaSuccess ? loop_ms : -1};
                row.n = n;
                row.cub_radix_ms = radix_ms;
                row.cub_merge_ms = merge_ms;
                row.std_sort_ms = cpu_ms;
                if (write_csv_rows(csv, &row, tiers, ms, 3) != 0) {
                    fclose(csv);
                    return KIT_EXIT_USAGE;
                }
            }
        }
        CUDA_CHECK(cudaFree(d_input));
        CUDA_CHECK(cudaFree(d_work));
        free(keys);
    }
    printf("(seed: the seed article's algorithm run correctly, one run; cdp/loop: time ratio, "
           "below 1 means the tree of grids beats the host's loop; seed/cdp: how many times "
           "faster the CDP sort is than the seed's; TODO: not written yet)\n");
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "quicksort: --csv %s: closing it failed\n", csv_path);
        return KIT_EXIT_USAGE;
    }
    return KIT_EXIT_OK;
}

static const size_t bench_sizes[] = {(size_t)1 << 20, (size_t)1 << 24, 0};

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0) {
            /* Not kit_parse_count(): the grader's timed driver links this file without
             * common/driver.o. */
            long reps = 5;
            const char *csv_path = NULL;
            for (int j = 1; j + 1 < argc; j++) {
                if (strcmp(argv[j], "--csv") == 0) {
                    csv_path = argv[j + 1];
                }
                char *end = NULL;
                if (strcmp(argv[j], "--reps") == 0 &&
                    ((reps = strtol(argv[j + 1], &end, 10)) < 1 || reps > 16 || *end != '\0')) {
                    fprintf(stderr, "quicksort: --bench takes --reps 1 to 16\n");
                    return KIT_EXIT_USAGE;
                }
                if (strcmp(argv[j], "--algo") == 0 && strcmp(argv[j + 1], "cdp") != 0) {
                    /* make gpu-check asks once per --algo: one table has them all */
                    printf("quicksort --bench times every version in one table: see --bench "
                           "--algo cdp (or no --algo)\n");
                    return KIT_EXIT_OK;
                }
            }
            return run_bench((int)reps, csv_path);
        }
    }
    const kit_lab_driver lab = {
        .name = "quicksort",
        .title = "Lab 05, quicksort with dynamic parallelism (--bench: every version, "
                 "uniform, sorted and all-equal keys)",
        .algos = {{"cdp", sort_cdp, 0, "5.2-5.4", NULL},
                  {"loop", quicksort_sort_host_loop, 0, "5.2-5.4", NULL},
                  {"simple", sort_simple, 0, "5.1", NULL}},
        .default_n = 100000,
        .trace = trace_quicksort,
        .trace_max_n = 32,
        .bench_sizes = bench_sizes,
    };
    return kit_driver_main(argc, argv, &lab);
}
