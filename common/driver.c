/* The labs' command-line driver; see driver.h. */
#include "driver.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "bench_csv.h"
#include "cuda_check.h"
#include "datagen.h"
#include "exit_codes.h"
#include "gpu.h"
#include "timer.h"
#include "verify.h"

typedef struct {
    size_t n;
    kit_dist dist;
    uint64_t seed;
    int reps;
    int check, trace, bench;
    const char *csv; /* --csv FILE: --bench also appends its rows there */
    const kit_driver_algo *algo;
} options;

int kit_parse_count(const char *text, size_t *value)
{
    char *end = NULL;
    if (!isdigit((unsigned char)text[0])) {
        return -1; /* rejects "-5", "+5", " 5", "" */
    }
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0) {
        return -1;
    }
    if (end[0] == '^' && v == 2) {
        const char *exp_text = end + 1;
        if (!isdigit((unsigned char)exp_text[0])) {
            return -1;
        }
        unsigned long long k = strtoull(exp_text, &end, 10);
        if (errno != 0 || k >= 8 * sizeof(size_t)) {
            return -1;
        }
        v = 1ull << k;
    }
    if (*end != '\0') {
        return -1;
    }
    *value = (size_t)v;
    return 0;
}

static void usage(const kit_lab_driver *lab, FILE *out)
{
    fprintf(out, "%s: %s\n", lab->name, lab->title);
    fprintf(out,
            "usage: %s [-n N] [--dist NAME] [--seed S] [--reps R] [--algo NAME] [--check]\n"
            "       [--trace] [--bench [--csv FILE]] [--help]\n"
            "  -n N         number of keys, decimal or 2^K (default %zu)\n"
            "  --dist NAME  input:",
            lab->name, lab->default_n);
    for (int d = 0; d < KIT_DIST_COUNT; d++) {
        fprintf(out, " %s", kit_dist_name((kit_dist)d));
    }
    fprintf(out, " (default uniform)\n"
                 "  --seed S     generator seed (default 1)\n"
                 "  --reps R     timed runs after one warm-up; the median is shown (default 5)\n"
                 "  --algo NAME  which sort:");
    for (int a = 0; a < KIT_DRIVER_MAX_ALGOS && lab->algos[a].name; a++) {
        fprintf(out, " %s", lab->algos[a].name);
        if (lab->algos[a].max_n) {
            fprintf(out, " (n <= %zu)", lab->algos[a].max_n);
        }
    }
    fprintf(out,
            " (default %s)\n"
            "  --check      verify the result against a snapshot of the input\n"
            "  --trace      print the array after every step (n <= %zu)\n"
            "  --bench      keys/s at several n beside CUB's radix and merge sorts and std::sort\n"
            "               (and, for a sort of pairs, CUB's radix sort of pairs)\n"
            "  --csv FILE   with --bench: also append one row per n to FILE (a header first\n"
            "               when FILE is empty); columns: common/bench_csv.h\n"
            "exit codes: 0 ok, 1 wrong result, 2 bad arguments, 3 no GPU, 4 CUDA error\n",
            lab->algos[0].name, lab->trace_max_n);
}

/* The keys of the algo's type, as their bits. */
static void generate_keys(const kit_driver_algo *algo, unsigned int *keys, size_t n, kit_dist dist,
                          uint64_t seed)
{
    if (algo->key_type == KIT_KEYS_I32) {
        kit_generate_i32((int32_t *)keys, n, dist, seed);
    } else if (algo->key_type == KIT_KEYS_F32) {
        kit_generate_f32((float *)keys, n, dist, seed);
    } else {
        kit_generate_u32(keys, n, dist, seed);
    }
}

/* Checks the keys as the algo's type. */
static kit_verdict verify_keys(const kit_driver_algo *algo, const unsigned int *snapshot,
                               const unsigned int *result, size_t n)
{
    if (algo->key_type == KIT_KEYS_I32) {
        return kit_verify_i32((const int32_t *)snapshot, (const int32_t *)result, n, 0);
    }
    if (algo->key_type == KIT_KEYS_F32) {
        return kit_verify_f32((const float *)snapshot, (const float *)result, n, 0);
    }
    return kit_verify_u32(snapshot, result, n, 0);
}

static int bad_usage(const kit_lab_driver *lab, const char *what, const char *value)
{
    fprintf(stderr, "%s: %s '%s' (see --help)\n", lab->name, what, value);
    return KIT_EXIT_USAGE;
}

static int parse_options(int argc, char **argv, const kit_lab_driver *lab, options *opt)
{
    opt->n = lab->default_n;
    opt->dist = KIT_DIST_UNIFORM;
    opt->seed = 1;
    opt->reps = 5;
    opt->algo = &lab->algos[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = strcmp(arg, "-n") == 0 || strcmp(arg, "--dist") == 0 ||
                          strcmp(arg, "--seed") == 0 || strcmp(arg, "--reps") == 0 ||
                          strcmp(arg, "--algo") == 0 || strcmp(arg, "--csv") == 0;
        if (takes_value && !value) {
            return bad_usage(lab, "missing value after", arg);
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(lab, stdout);
            exit(KIT_EXIT_OK);
        } else if (strcmp(arg, "-n") == 0) {
            if (kit_parse_count(value, &opt->n) != 0) {
                return bad_usage(lab, "-n wants a count of keys (like 1000 or 2^20), not", value);
            }
        } else if (strcmp(arg, "--dist") == 0) {
            if (kit_dist_parse(value, &opt->dist) != 0) {
                return bad_usage(lab, "unknown distribution", value);
            }
        } else if (strcmp(arg, "--seed") == 0) {
            size_t seed;
            if (kit_parse_count(value, &seed) != 0) {
                return bad_usage(lab, "--seed wants a non-negative number, not", value);
            }
            opt->seed = seed;
        } else if (strcmp(arg, "--reps") == 0) {
            size_t reps;
            if (kit_parse_count(value, &reps) != 0 || reps < 1 || reps > 1000) {
                return bad_usage(lab, "--reps wants a number from 1 to 1000, not", value);
            }
            opt->reps = (int)reps;
        } else if (strcmp(arg, "--algo") == 0) {
            opt->algo = NULL;
            for (int a = 0; a < KIT_DRIVER_MAX_ALGOS && lab->algos[a].name; a++) {
                if (strcmp(lab->algos[a].name, value) == 0) {
                    opt->algo = &lab->algos[a];
                }
            }
            if (!opt->algo) {
                return bad_usage(lab, "unknown --algo", value);
            }
        } else if (strcmp(arg, "--csv") == 0) {
            opt->csv = value;
        } else if (strcmp(arg, "--check") == 0) {
            opt->check = 1;
            continue;
        } else if (strcmp(arg, "--trace") == 0) {
            opt->trace = 1;
            continue;
        } else if (strcmp(arg, "--bench") == 0) {
            opt->bench = 1;
            continue;
        } else {
            return bad_usage(lab, "unknown option", arg);
        }
        i++; /* the option's value */
    }
    if (opt->csv && !opt->bench) {
        return bad_usage(
            lab, "--csv writes the rows of --bench; without --bench it has none:", opt->csv);
    }
    if (!opt->bench && opt->algo->max_n && opt->n > opt->algo->max_n) {
        fprintf(stderr, "%s: --algo %s sorts at most %zu keys; -n %zu is too large\n", lab->name,
                opt->algo->name, opt->algo->max_n, opt->n);
        return KIT_EXIT_USAGE;
    }
    if (opt->trace && (!lab->trace || opt->n > lab->trace_max_n)) {
        fprintf(stderr, "%s: --trace needs n <= %zu (got %zu)\n", lab->name, lab->trace_max_n,
                opt->n);
        return KIT_EXIT_USAGE;
    }
    return KIT_EXIT_OK;
}

/* An error from the lab's own code: say which TODO when it is the skeleton's stub. */
static int lab_error(const kit_lab_driver *lab, const kit_driver_algo *algo, cudaError_t err)
{
    if (err == cudaErrorNotSupported) {
        fprintf(stderr,
                "%s: the %s sort returned cudaErrorNotSupported: TODO %s is not written yet\n",
                lab->name, algo->name, algo->todo);
    } else {
        fprintf(stderr, "%s: the %s sort failed: %s (%s)\n", lab->name, algo->name,
                cudaGetErrorName(err), cudaGetErrorString(err));
    }
    return KIT_EXIT_CUDA;
}

/* Needs `buffers` device arrays of n keys: refuse politely when the GPU has less free. */
static int fits_on_gpu(const kit_lab_driver *lab, size_t n, int buffers)
{
    size_t free_bytes = kit_gpu_free_bytes();
    if (n > SIZE_MAX / sizeof(unsigned int) / (size_t)buffers ||
        n * sizeof(unsigned int) * buffers > free_bytes) {
        fprintf(stderr, "%s: n = %zu is too large: it needs %d x %zu bytes, the GPU has %zu free\n",
                lab->name, n, buffers, n * sizeof(unsigned int), free_bytes);
        return 0;
    }
    return 1;
}

static int run_bench(const kit_lab_driver *lab, const options *opt)
{
    FILE *csv = NULL;
    kit_bench_row row = {0};
    /* First, so that where there are no baselines (the CPU emulation: make emulate-driver) the
     * driver says so at once, not after the lab's own sorts. */
    CUDA_CHECK(kit_baseline_describe_row(&row));
    if (opt->csv) {
        if (!(csv = kit_bench_csv_open(opt->csv, lab->name))) {
            return KIT_EXIT_USAGE;
        }
        row.lab = lab->name;
        row.tier = opt->algo->name;
        row.distribution = kit_dist_name(KIT_DIST_UNIFORM);
    }
    double copy_gbps = 0;
    if (opt->algo->bench_bytes) {
        CUDA_CHECK(kit_baseline_copy_gbps((size_t)1 << 28, opt->reps, &copy_gbps));
        printf("device-to-device copy: %.0f GB/s (bytes read + written, 256 MiB)\n", copy_gbps);
    }
    printf("%s --bench --algo %s: uniform keys, median of %d runs; GPU times exclude transfers\n",
           lab->name, opt->algo->name, opt->reps);
    printf("%10s %10s %10s %10s %10s %10s %10s %8s %8s %8s", "n", "lab ms", "lab Mk/s", "CUBradix",
           "CUBpairs", "CUBmerge", "std::sort", "lab/CUB", "lab/CUBp", "lab/CPU");
    if (opt->algo->bench_bytes) {
        printf(" %10s %8s", "floor ms", "floor%");
    }
    printf("\n");
    size_t previous_n = 0;
    for (const size_t *size = lab->bench_sizes; *size; size++) {
        /* A sort limited to max_n keys is measured at its limit instead of larger sizes. */
        size_t n = opt->algo->max_n && *size > opt->algo->max_n ? opt->algo->max_n : *size;
        if (n == previous_n) {
            continue;
        }
        previous_n = n;
        /* The input and CUB's buffers beside it: keys in and out, its temporary (one more
         * array); for pairs, values in and out, a temporary twice as large, and the lab's own
         * values (kept between its runs). */
        if (!fits_on_gpu(lab, n, opt->algo->pairs ? 8 : 4)) {
            return KIT_EXIT_USAGE;
        }
        unsigned int *keys = malloc(n * sizeof *keys);
        if (!keys) {
            fprintf(stderr, "%s: out of host memory for n = %zu\n", lab->name, n);
            return KIT_EXIT_USAGE;
        }
        generate_keys(opt->algo, keys, n, KIT_DIST_UNIFORM, opt->seed);
        unsigned int *d_input = NULL, *d_work = NULL;
        CUDA_CHECK(cudaMalloc((void **)&d_input, n * sizeof *keys));
        CUDA_CHECK(cudaMalloc((void **)&d_work, n * sizeof *keys));
        CUDA_CHECK(cudaMemcpy(d_input, keys, n * sizeof *keys, cudaMemcpyHostToDevice));
        double lab_ms = 0, radix_ms = 0, pairs_ms = 0, merge_ms = 0, cpu_ms = 0;
        cudaError_t err = kit_time_sort(opt->algo->sort, d_input, d_work, n, opt->reps, &lab_ms);
        if (err != cudaSuccess) {
            return lab_error(lab, opt->algo, err);
        }
        CUDA_CHECK(cudaFree(d_work)); /* room for CUB's buffers */
        CUDA_CHECK(kit_baseline_cub_radix_ms(d_input, n, opt->reps, &radix_ms));
        if (opt->algo->pairs) { /* the fair baseline of a sort that moves values too */
            CUDA_CHECK(kit_baseline_cub_radix_pairs_ms(d_input, n, opt->reps, &pairs_ms));
        }
        CUDA_CHECK(kit_baseline_cub_merge_ms(d_input, n, opt->reps, &merge_ms));
        /* One CPU core is slow: fewer runs at large n (its time is still a median). */
        kit_baseline_std_sort_ms(keys, n, n > (1u << 22) ? 1 : 3, &cpu_ms);
        char pairs_rate[16] = "-", pairs_ratio[16] = "-";
        if (opt->algo->pairs) {
            snprintf(pairs_rate, sizeof pairs_rate, "%.1f", n / (pairs_ms * 1e3));
            snprintf(pairs_ratio, sizeof pairs_ratio, "%.2fx", lab_ms / pairs_ms);
        }
        printf("%10zu %10.3f %10.1f %10.1f %10s %10.1f %10.1f %7.2fx %8s %7.2fx", n, lab_ms,
               n / (lab_ms * 1e3), n / (radix_ms * 1e3), pairs_rate, n / (merge_ms * 1e3),
               n / (cpu_ms * 1e3), lab_ms / radix_ms, pairs_ratio, lab_ms / cpu_ms);
        row.floor_ms = -1;
        if (opt->algo->bench_bytes) {
            row.floor_ms = opt->algo->bench_bytes(n) / (copy_gbps * 1e6);
            printf(" %10.3f %7.0f%%", row.floor_ms, 100.0 * row.floor_ms / lab_ms);
        }
        printf("\n");
        fflush(stdout);
        if (csv) {
            row.n = n;
            row.ms = lab_ms;
            row.cub_radix_ms = radix_ms;
            row.cub_radix_pairs_ms = pairs_ms; /* 0 for a sort of keys: an empty field */
            row.cub_merge_ms = merge_ms;
            row.std_sort_ms = cpu_ms;
            if (kit_bench_csv_row(csv, &row) != 0 || fflush(csv) != 0) {
                fprintf(stderr, "%s: --csv %s: a row could not be written\n", lab->name, opt->csv);
                fclose(csv);
                return KIT_EXIT_USAGE;
            }
        }
        CUDA_CHECK(cudaFree(d_input));
        free(keys);
    }
    printf("(Mk/s: millions of keys per second; lab/CUB (radix) and lab/CPU are time ratios,\n"
           " below 1 means the lab is faster");
    if (opt->algo->pairs) {
        printf("; CUBpairs, lab/CUBp: CUB's radix sort of pairs (32-bit\n"
               " values), the baseline of a sort that carries values");
    }
    if (opt->algo->bench_bytes) {
        printf("; floor: the bytes the lab's passes must move at the copy\n"
               " bandwidth, floor%%: that floor over the lab's time");
    }
    printf(")\n");
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "%s: --csv %s: closing it failed\n", lab->name, opt->csv);
        return KIT_EXIT_USAGE;
    }
    return KIT_EXIT_OK;
}

int kit_driver_main(int argc, char **argv, const kit_lab_driver *lab)
{
    options opt;
    memset(&opt, 0, sizeof opt);
    int status = parse_options(argc, argv, lab, &opt);
    if (status != KIT_EXIT_OK) {
        return status;
    }
    char reason[256];
    if (kit_gpu_probe(reason, sizeof reason) != KIT_GPU_READY) {
        fprintf(stderr, "%s: needs an NVIDIA GPU: %s\n", lab->name, reason);
        return KIT_EXIT_NO_GPU;
    }
    if (opt.bench) {
        return run_bench(lab, &opt);
    }
    size_t n = opt.n;
    if (!fits_on_gpu(lab, n, 2)) {
        return KIT_EXIT_USAGE;
    }
    size_t bytes = (n ? n : 1) * sizeof(unsigned int);
    unsigned int *snapshot = malloc(bytes), *result = malloc(bytes);
    if (!snapshot || !result) {
        fprintf(stderr, "%s: n = %zu is too large for the host's memory\n", lab->name, n);
        return KIT_EXIT_USAGE;
    }
    generate_keys(opt.algo, snapshot, n, opt.dist, opt.seed);
    printf("%s: n=%zu dist=%s seed=%llu algo=%s on %s\n", lab->name, n, kit_dist_name(opt.dist),
           (unsigned long long)opt.seed, opt.algo->name, reason);

    unsigned int *d_input = NULL, *d_work = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_input, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_work, bytes));
    kit_gpu_timer timer;
    CUDA_CHECK(kit_gpu_timer_create(&timer));
    float h2d_ms = 0, d2h_ms = 0;
    CUDA_CHECK(kit_gpu_timer_start(&timer));
    CUDA_CHECK(cudaMemcpy(d_input, snapshot, n * sizeof *snapshot, cudaMemcpyHostToDevice));
    CUDA_CHECK(kit_gpu_timer_stop(&timer, &h2d_ms));

    if (opt.trace) {
        memcpy(result, snapshot, n * sizeof *result);
        CUDA_CHECK(cudaMemcpy(d_work, d_input, n * sizeof *d_work, cudaMemcpyDeviceToDevice));
        cudaError_t err = lab->trace(d_work, result, n, stdout);
        if (err != cudaSuccess) {
            return lab_error(lab, opt.algo, err);
        }
    } else {
        double ms = 0;
        cudaError_t err = kit_time_sort(opt.algo->sort, d_input, d_work, n, opt.reps, &ms);
        if (err != cudaSuccess) {
            return lab_error(lab, opt.algo, err);
        }
        printf("  sort: %.3f ms (median of %d), %.1f Mkeys/s\n", ms, opt.reps,
               ms > 0 ? n / (ms * 1e3) : 0.0);
    }
    CUDA_CHECK(kit_gpu_timer_start(&timer));
    CUDA_CHECK(cudaMemcpy(result, d_work, n * sizeof *result, cudaMemcpyDeviceToHost));
    CUDA_CHECK(kit_gpu_timer_stop(&timer, &d2h_ms));
    printf("  transfers (not in the sort time): to GPU %.3f ms, back %.3f ms\n", h2d_ms, d2h_ms);

    status = KIT_EXIT_OK;
    if (opt.check) {
        kit_verdict v = verify_keys(opt.algo, snapshot, result, n);
        if (v.status == KIT_VERIFY_OK) {
            printf("  check: OK (sorted, same keys)\n");
        } else {
            printf("  check: WRONG: %s\n", v.message);
            status = KIT_EXIT_WRONG;
        }
    } else {
        printf("  check: not asked (add --check)\n");
    }
    kit_gpu_timer_destroy(&timer);
    CUDA_CHECK(cudaFree(d_input));
    CUDA_CHECK(cudaFree(d_work));
    free(snapshot);
    free(result);
    return status;
}
