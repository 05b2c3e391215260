/* The Lab 04 driver: build/{solution,student}/bin/radix. Run it with --help.
 *
 * Besides the driver's usual options (common/driver.h), `--bench` without `--algo` runs the
 * whole benchmark of the handout in one go: the multi-block scan (and the single-pass scan of
 * TODO 4.5) against the device copy, the kit's CPU radix sort, and the tables of the u32 keys,
 * u32 pairs, i32 and f32 sorts and of the onesweep keys and pairs (TODO 4.6) beside CUB and
 * std::sort. `--bench --algo NAME` measures one sort only (split: the 32-pass
 * baseline of TODO 4.2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "cpu_sort.h"
#include "cuda_check.h"
#include "datagen.h"
#include "driver.h"
#include "exit_codes.h"
#include "gpu.h"
#include "radix.h"
#include "timer.h"

/* Weak: the grader's timed driver links this file without the baselines (common/baselines.cu). */
#pragma weak kit_baseline_describe_row

/* `--algo pairs` gives each key a value to carry, from a scratch buffer kept between runs
 * (allocated by the untimed warm-up run). */
static kit_driver_scratch scratch_values;

static cudaError_t sort_pairs_ascending(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return radix_sort_pairs(d_keys, n ? scratch_values.keys : NULL, n, 0);
}

static cudaError_t sort_keys_ascending(unsigned int *d_keys, size_t n)
{
    return radix_sort_keys(d_keys, n, 0);
}

static cudaError_t sort_i32_ascending(unsigned int *d_keys, size_t n)
{
    return radix_sort_i32((int *)d_keys, NULL, n, 0);
}

static cudaError_t sort_f32_ascending(unsigned int *d_keys, size_t n)
{
    return radix_sort_f32((float *)d_keys, NULL, n, 0);
}

static cudaError_t sort_onesweep_keys(unsigned int *d_keys, size_t n)
{
    return radix_sort_onesweep_keys(d_keys, n);
}

/* Onesweep pairs: the values from the same scratch buffer as --algo pairs. */
static cudaError_t sort_onesweep_pairs(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return radix_sort_onesweep_pairs(d_keys, n ? scratch_values.keys : NULL, n);
}

static cudaError_t sort_by_splits(unsigned int *d_keys, size_t n)
{
    return radix_sort_split(d_keys, NULL, n);
}

/* The passes of a full sort of uniform keys (every digit varies) and the bytes each moves:
 * the histograms read the keys; the scatter reads them and writes them (the table and its scan
 * are RADIX_DIGITS words per tile of RADIX_TILE keys: small, counted too). --bench's floor. */
static double bytes_keys(size_t n)
{
    /* The table: written, then scanned (read and written). */
    double table = 3.0 * 2 * RADIX_DIGITS * (double)kit_num_tiles(n, RADIX_TILE);
    return RADIX_PASSES * (3.0 * n + table) * sizeof(unsigned int) + n * sizeof(unsigned int);
}

/* Pairs: the scatter reads and writes the values too. */
static double bytes_pairs(size_t n)
{
    return bytes_keys(n) + RADIX_PASSES * 2.0 * n * sizeof(unsigned int);
}

/* Signed and float keys: one more read and write of the keys at each end, for the flips. */
static double bytes_flipped(size_t n)
{
    return bytes_keys(n) + 4.0 * n * sizeof(unsigned int);
}

/* Onesweep (TODO 4.6): one read of the keys for the histograms of all digits, then 4 passes
 * that each read and write the keys once; the look-back words (256 per tile of
 * RADIX_ONESWEEP_TILE keys, zeroed, written and read about twice per pass) counted too. */
static double bytes_onesweep_keys(size_t n)
{
    double tiles = (double)kit_num_tiles(n, RADIX_ONESWEEP_TILE);
    double status = 4.0 * RADIX_ONESWEEP_DIGITS * tiles * 4.0; /* words per pass: 4 touches */
    return (9.0 * n + status) * sizeof(unsigned int);
}

/* Onesweep pairs: each pass reads and writes the values too. */
static double bytes_onesweep_pairs(size_t n)
{
    return bytes_onesweep_keys(n) + 4 * 2.0 * n * sizeof(unsigned int);
}

/* The 32 splits: flags (read keys, write flags), their scan (about 3 passes over the flags),
 * the scatter (read keys and flags, write keys). */
static double bytes_splits(size_t n)
{
    return 32 * 8.0 * n * sizeof(unsigned int);
}

/* ---- --trace ------------------------------------------------------------------------------ */

/* The 32 bits of a key, most significant first, in digits of RADIX_BITS bits; the digit at
 * `shift` (a pass's) in [brackets], or none when shift is 32. */
static void print_binary(FILE *out, unsigned int key, unsigned int shift)
{
    for (int b = 31; b >= 0; b--) {
        unsigned digit_low = (unsigned)b / RADIX_BITS * RADIX_BITS;
        int top = (unsigned)b == digit_low + RADIX_BITS - 1;
        if (top && b != 31) {
            fputc(' ', out);
        }
        if (top && digit_low == shift) {
            fputc('[', out);
        }
        fputc('0' + ((key >> b) & 1u), out);
        if ((unsigned)b == digit_low && digit_low == shift) {
            fputc(']', out);
        }
    }
}

/* The seed's figure for one split, by bit 0: each key, its flag (the bit), ones_before (the
 * exclusive scan of the flags, from radix_scan on the GPU) and the place radix_split_place()
 * sends it to. */
static cudaError_t trace_split(const unsigned int *keys, size_t n, unsigned int *d_tmp,
                               unsigned int *flags, FILE *out)
{
    unsigned int *s = malloc(n * sizeof *s);
    if (!s) {
        return cudaErrorMemoryAllocation;
    }
    for (size_t i = 0; i < n; i++) {
        flags[i] = keys[i] & 1u;
    }
    cudaError_t err = cudaMemcpy(d_tmp, flags, n * sizeof *flags, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) {
        err = radix_scan(d_tmp, d_tmp, n);
    }
    if (err == cudaSuccess) {
        err = cudaMemcpy(s, d_tmp, n * sizeof *s, cudaMemcpyDeviceToHost);
    }
    if (err == cudaSuccess) {
        size_t ones = s[n - 1] + flags[n - 1], zeros = n - ones;
        fprintf(out,
                "split by bit 0 (TODO 4.2, the seed's figure): flag = the bit, ones_before = "
                "exclusive scan of the flags (radix_scan, TODO 4.1);\nzeros = %zu; key i goes to "
                "radix_split_place(i, flag, ones_before, zeros)\n%4s  %-39s %4s %11s %5s\n",
                zeros, "i", "key", "flag", "ones_before", "goes");
        for (size_t i = 0; i < n; i++) {
            fprintf(out, "%4zu  ", i);
            print_binary(out, keys[i], 32);
            fprintf(out, " %4u %11u %5zu\n", flags[i], s[i],
                    radix_split_place(i, flags[i], s[i], zeros));
        }
    } else if (err == cudaErrorNotSupported) {
        fprintf(out, "(the split's figure needs radix_scan, TODO 4.1)\n");
    }
    free(s);
    return err;
}

/* The keys after one pass, one per line, the pass's digit in brackets. */
static void print_keys(FILE *out, const unsigned int *keys, size_t n, unsigned int shift)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%4zu  ", i);
        print_binary(out, keys[i], shift);
        fprintf(out, "  %10u  digit %u\n", keys[i], radix_digit(keys[i], shift));
    }
}

/* --trace: the seed's split figure for bit 0, then every digit pass (radix_pass, TODO 4.3)
 * with the keys in binary after it; the sorted keys end in d_keys. Every pass is shown, even
 * one that the sort would skip (it says so). */
static cudaError_t trace_passes(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out)
{
    if (n == 0) {
        fprintf(out, "radix sort of n = 0 keys: nothing to do\n");
        return cudaSuccess;
    }
    unsigned int *flags = malloc(n * sizeof *flags);
    unsigned int *d_tmp = NULL;
    if (!flags) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t err = cudaMalloc((void **)&d_tmp, n * sizeof *d_tmp);
    if (err == cudaSuccess) {
        err = trace_split(keys, n, d_tmp, flags, out);
    }
    unsigned int all = 0xFFFFFFFFu, any = 0;
    for (size_t i = 0; i < n; i++) {
        all &= keys[i];
        any |= keys[i];
    }
    if (err == cudaSuccess || err == cudaErrorNotSupported) {
        fprintf(out,
                "\nradix sort of n = %zu keys, %u-bit digits, least significant first; each "
                "block is the keys after one pass\n(radix_pass, TODO 4.3), its digit in "
                "[brackets]\ninput:\n",
                n, (unsigned)RADIX_BITS);
        print_keys(out, keys, n, 32);
        err = cudaSuccess;
    }
    unsigned int *from = d_keys, *to = d_tmp;
    for (unsigned shift = 0; shift < 32u && err == cudaSuccess; shift += RADIX_BITS) {
        err = radix_pass(from, NULL, to, NULL, n, shift);
        if (err == cudaSuccess) {
            err = cudaMemcpy(keys, to, n * sizeof *keys, cudaMemcpyDeviceToHost);
        }
        if (err == cudaSuccess) {
            fprintf(out, "after the pass of bits %u..%u%s:\n", shift, shift + RADIX_BITS - 1,
                    radix_digit(all ^ any, shift) == 0
                        ? " (the same digit in every key: radix_sort_counted skips it)"
                        : "");
            print_keys(out, keys, n, shift);
        }
        unsigned int *t = from;
        from = to;
        to = t;
    }
    if (err == cudaSuccess && from != d_keys) {
        err = cudaMemcpy(d_keys, from, n * sizeof *d_keys, cudaMemcpyDeviceToDevice);
    }
    if (err == cudaErrorNotSupported) {
        fprintf(stderr, "radix: --trace runs radix_scan (TODO 4.1) and radix_pass (TODO 4.3)\n");
    }
    cudaFree(d_tmp);
    free(flags);
    return err;
}

/* ---- --bench: the scan and the CPU radix sort --------------------------------------------- */

static const size_t bench_sizes[] = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 26, 0};

/* Median ms of `reps` runs of radix_scan (in place) on n words; *copy_ms the same for a
 * device-to-device copy of them, *lookback_ms for radix_scan_lookback (TODO 4.5, a bonus: -1
 * when it is not written yet). */
static cudaError_t time_scan(size_t n, int reps, double *scan_ms, double *copy_ms,
                             double *lookback_ms)
{
    unsigned int *d_a = NULL, *d_b = NULL;
    kit_gpu_timer timer;
    double *scan_t = calloc((size_t)reps, sizeof *scan_t),
           *copy_t = calloc((size_t)reps, sizeof *copy_t),
           *lookback_t = calloc((size_t)reps, sizeof *lookback_t);
    int lookback = 1; /* written */
    if (!scan_t || !copy_t || !lookback_t) {
        free(scan_t);
        free(copy_t);
        free(lookback_t);
        return cudaErrorMemoryAllocation;
    }
    CUDA_TRY(kit_gpu_timer_create(&timer));
    CUDA_TRY(cudaMalloc((void **)&d_a, n * sizeof *d_a));
    CUDA_TRY(cudaMalloc((void **)&d_b, n * sizeof *d_b));
    CUDA_TRY(cudaMemset(d_a, 1, n * sizeof *d_a));
    for (int r = -1; r < reps; r++) {
        float t = 0;
        CUDA_TRY(kit_gpu_timer_start(&timer));
        CUDA_TRY(radix_scan(d_a, d_b, n));
        CUDA_TRY(kit_gpu_timer_stop(&timer, &t));
        if (r >= 0) {
            scan_t[r] = t;
        }
        CUDA_TRY(kit_gpu_timer_start(&timer));
        CUDA_TRY(cudaMemcpy(d_b, d_a, n * sizeof *d_a, cudaMemcpyDeviceToDevice));
        CUDA_TRY(kit_gpu_timer_stop(&timer, &t));
        if (r >= 0) {
            copy_t[r] = t;
        }
        if (lookback) {
            CUDA_TRY(kit_gpu_timer_start(&timer));
            cudaError_t err = radix_scan_lookback(d_a, d_b, n);
            CUDA_TRY(kit_gpu_timer_stop(&timer, &t));
            if (err == cudaErrorNotSupported) {
                lookback = 0; /* the bonus is not written: no column */
            } else if (err != cudaSuccess) {
                return err;
            }
            if (r >= 0) {
                lookback_t[r] = t;
            }
        }
    }
    *scan_ms = kit_median(scan_t, (size_t)reps);
    *copy_ms = kit_median(copy_t, (size_t)reps);
    *lookback_ms = lookback ? kit_median(lookback_t, (size_t)reps) : -1.0;
    free(scan_t);
    free(copy_t);
    free(lookback_t);
    kit_gpu_timer_destroy(&timer);
    CUDA_TRY(cudaFree(d_a));
    CUDA_TRY(cudaFree(d_b));
    return cudaSuccess;
}

/* The scan against the copy, and the kit's CPU radix sort, at the bench sizes. */
static int bench_scan_and_cpu(int reps, uint64_t seed)
{
    char reason[256];
    if (kit_gpu_probe(reason, sizeof reason) != KIT_GPU_READY) {
        fprintf(stderr, "radix: needs an NVIDIA GPU: %s\n", reason);
        return KIT_EXIT_NO_GPU;
    }
    /* First, so that where there are no baselines (the CPU emulation: make emulate-driver) the
     * driver says so at once, not after the benchmark's sorts of 2^26 keys. */
    kit_bench_row probe = {0};
    if (kit_baseline_describe_row) {
        CUDA_CHECK(kit_baseline_describe_row(&probe));
    }
    printf("radix --bench on %s\n", reason);
    printf("multi-block scan (radix_scan, in place, including its scratch allocation) against a "
           "device-to-device copy of the same words;\nGB/s count bytes read + written: the "
           "scan's own 2 x 4n (what it must move), and the 3 x 4n its three kernels move;\n"
           "look-back: the single-pass scan (radix_scan_lookback, TODO 4.5, a bonus; into "
           "another buffer, with its workspace),\nwhich moves 2 x 4n; lb/cp: its GB/s over the "
           "copy's (- when it is not written)\n");
    printf("%10s %10s %10s %10s %10s %10s %8s %8s %10s %10s %8s\n", "n", "scan ms", "copy ms",
           "scan GB/s", "kern GB/s", "copy GB/s", "scan/cp", "kern/cp", "lb ms", "lb GB/s",
           "lb/cp");
    for (const size_t *size = bench_sizes; *size; size++) {
        size_t n = *size;
        double scan_ms = 0, copy_ms = 0, lookback_ms = -1;
        cudaError_t err = time_scan(n, reps, &scan_ms, &copy_ms, &lookback_ms);
        if (err != cudaSuccess) {
            fprintf(stderr, "radix: the scan bench failed: %s%s\n", cudaGetErrorName(err),
                    err == cudaErrorNotSupported ? " (TODO 4.1 is not written yet)" : "");
            return KIT_EXIT_CUDA;
        }
        double bytes = 2.0 * n * sizeof(unsigned int);
        double scan_gbps = bytes / (scan_ms * 1e6), copy_gbps = bytes / (copy_ms * 1e6);
        printf("%10zu %10.3f %10.3f %10.0f %10.0f %10.0f %7.2fx %7.2fx", n, scan_ms, copy_ms,
               scan_gbps, 1.5 * scan_gbps, copy_gbps, scan_gbps / copy_gbps,
               1.5 * scan_gbps / copy_gbps);
        if (lookback_ms > 0) {
            double lookback_gbps = bytes / (lookback_ms * 1e6);
            printf(" %10.3f %10.0f %7.2fx\n", lookback_ms, lookback_gbps,
                   lookback_gbps / copy_gbps);
        } else {
            printf(" %10s %10s %8s\n", "-", "-", "-");
        }
    }
    printf("\nthe kit's CPU LSD radix sort (common/cpu_sort.c, 8-bit digits), one core, uniform "
           "keys\n%10s %10s %10s\n",
           "n", "ms", "Mk/s");
    for (const size_t *size = bench_sizes; *size; size++) {
        size_t n = *size;
        unsigned int *input = malloc(n * sizeof *input), *work = malloc(n * sizeof *work);
        if (!input || !work) {
            free(input);
            free(work);
            fprintf(stderr, "radix: out of host memory for n = %zu\n", n);
            return KIT_EXIT_USAGE;
        }
        kit_generate_u32(input, n, KIT_DIST_UNIFORM, seed);
        int runs = n > ((size_t)1 << 22) ? 1 : 3;
        double times[3] = {0, 0, 0};
        for (int r = 0; r < runs; r++) {
            memcpy(work, input, n * sizeof *work);
            double start = kit_host_ms();
            kit_cpu_radix_sort_u32(work, n);
            times[r] = kit_host_ms() - start;
        }
        double ms = kit_median(times, (size_t)runs);
        printf("%10zu %10.1f %10.1f\n", n, ms, n / (ms * 1e3));
        free(input);
        free(work);
    }
    printf("\n");
    fflush(stdout);
    return KIT_EXIT_OK;
}

/* A plain decimal number (not kit_parse_count(): the grader's timed driver links this file
 * without common/driver.o); 0 on success. */
static int parse_number(const char *text, size_t *value)
{
    char *end = NULL;
    if (!text || text[0] < '0' || text[0] > '9') {
        return -1;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') {
        return -1;
    }
    *value = (size_t)v;
    return 0;
}

/* Whether `option` is on the command line; *value gets the word after it (or NULL). */
static int has_option(int argc, char **argv, const char *option, const char **value)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], option) == 0) {
            if (value) {
                *value = i + 1 < argc ? argv[i + 1] : NULL;
            }
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const kit_lab_driver lab = {
        .name = "radix",
        .title = "Lab 04, radix sort built on scan",
        .algos = {{"keys", sort_keys_ascending, 0, "4.1-4.4", bytes_keys, KIT_KEYS_U32},
                  {"pairs", sort_pairs_ascending, 0, "4.1-4.4", bytes_pairs, KIT_KEYS_U32,
                   .pairs = 1},
                  {"i32", sort_i32_ascending, 0, "4.1-4.4", bytes_flipped, KIT_KEYS_I32},
                  {"f32", sort_f32_ascending, 0, "4.1-4.4", bytes_flipped, KIT_KEYS_F32},
                  {"split", sort_by_splits, 0, "4.1-4.2", bytes_splits, KIT_KEYS_U32},
                  {"onesweep", sort_onesweep_keys, 0, "4.6", bytes_onesweep_keys, KIT_KEYS_U32},
                  {"onesweep_pairs", sort_onesweep_pairs, 0, "4.6", bytes_onesweep_pairs,
                   KIT_KEYS_U32, .pairs = 1}},
        .default_n = 4096,
        .trace = trace_passes,
        .trace_max_n = 32,
        .bench_sizes = bench_sizes,
    };
    if (!has_option(argc, argv, "--bench", NULL) || has_option(argc, argv, "--algo", NULL) ||
        has_option(argc, argv, "--help", NULL) || has_option(argc, argv, "-h", NULL)) {
        return kit_driver_main(argc, argv, &lab);
    }
    /* The whole benchmark: the scan and the CPU, then one table per key type. */
    const char *reps_text = NULL, *seed_text = NULL;
    size_t reps = 5, seed = 1;
    if (has_option(argc, argv, "--reps", &reps_text) &&
        (parse_number(reps_text, &reps) != 0 || reps < 1 || reps > 1000)) {
        fprintf(stderr, "radix: --reps wants a number from 1 to 1000 (see --help)\n");
        return KIT_EXIT_USAGE;
    }
    if (has_option(argc, argv, "--seed", &seed_text) && parse_number(seed_text, &seed) != 0) {
        fprintf(stderr, "radix: --seed wants a non-negative number (see --help)\n");
        return KIT_EXIT_USAGE;
    }
    int status = bench_scan_and_cpu((int)reps, seed);
    /* The last two are TODO 4.6, a bonus: their failure (not written yet) is not the run's. */
    const char *algos[] = {"keys", "pairs", "i32", "f32", "onesweep", "onesweep_pairs"};
    const size_t graded = 4;
    char **args = malloc(((size_t)argc + 3) * sizeof *args);
    if (!args) {
        return KIT_EXIT_USAGE;
    }
    for (size_t a = 0; a < sizeof algos / sizeof algos[0] && status == KIT_EXIT_OK; a++) {
        args[0] = argv[0];
        args[1] = (char *)"--algo";
        args[2] = (char *)algos[a];
        for (int i = 1; i < argc; i++) {
            args[i + 2] = argv[i];
        }
        args[argc + 2] = NULL;
        int algo_status = kit_driver_main(argc + 2, args, &lab);
        if (a < graded) {
            status = algo_status;
        }
        printf("\n");
    }
    free(args);
    return status;
}
