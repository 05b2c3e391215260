/**
 * @file driver.h
 * @brief The labs' command-line driver: generate, sort on the GPU, time, check, trace, bench.
 *
 * Each lab's `NAME_main.c` describes its sorts in a ::kit_lab_driver and calls
 * kit_driver_main(). Options (also printed by `--help`):
 *
 * | option | meaning |
 * |---|---|
 * | `-n N` | number of keys (decimal or `2^K`) |
 * | `--dist NAME` | input distribution (datagen.h names) |
 * | `--seed S` | generator seed |
 * | `--reps R` | timed repetitions after one warm-up; the median is printed |
 * | `--algo NAME` | which of the lab's sorts runs |
 * | `--check` | verify the result against the input snapshot |
 * | `--trace` | small n only: print the array after every step |
 * | `--bench` | keys/s at several n beside CUB's radix and merge sorts and one CPU core's
 *   std::sort; with ::kit_driver_algo::pairs, CUB's radix sort of pairs too; with
 *   ::kit_driver_algo::bench_bytes, the copy-bandwidth floor too |
 * | `--csv FILE` | with `--bench`: also append one row per n to FILE (bench_csv.h) |
 *
 * Exit codes: exit_codes.h (0 ok, 1 wrong result, 2 bad arguments or n too large for the
 * GPU's memory, 3 no GPU, 4 CUDA error, including a TODO not written yet).
 */
#ifndef KIT_DRIVER_H
#define KIT_DRIVER_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most sorts one lab offers to the driver. */
#define KIT_DRIVER_MAX_ALGOS 8

/** What the 32 bits of a driver's keys are: how it generates and checks them. */
typedef enum {
    KIT_KEYS_U32 = 0, /**< unsigned keys (the default) */
    KIT_KEYS_I32,     /**< signed keys: kit_generate_i32(), kit_verify_i32() */
    KIT_KEYS_F32,     /**< float keys: kit_generate_f32(), kit_verify_f32() */
} kit_key_type;

/** One way the lab sorts. */
typedef struct {
    const char *name;                                    /**< `--algo` name */
    cudaError_t (*sort)(unsigned int *d_keys, size_t n); /**< sorts in place on the device */
    size_t max_n;                                        /**< largest n it takes; 0: any */
    const char *todo;                                    /**< the TODO that writes it, "1.2" */
    /**
     * Optional: the bytes of global memory one sort of n keys must read and write (from its
     * number of passes). --bench then divides them by the measured device-to-device copy
     * bandwidth: the time no sort with that many passes can beat, and how close it comes.
     */
    double (*bench_bytes)(size_t n);
    /**
     * What the keys are (0: unsigned). The sort still gets them as `unsigned int *` (their
     * bits); the driver generates and checks them as this type. --bench's CUB and std::sort
     * columns sort the same bits as unsigned keys.
     */
    kit_key_type key_type;
    /**
     * Nonzero: the sort carries a 32-bit value with each key (values of its own: the driver
     * still hands it the keys only). Such a sort moves twice the bytes of a sort of keys, so
     * --bench also measures CUB's radix sort of pairs (kit_baseline_cub_radix_pairs_ms()) and
     * prints the `CUBpairs` and `lab/CUBp` columns (`-` for a sort of keys, which does not
     * measure it) and the CSV's `cub_radix_pairs_ms`.
     */
    int pairs;
} kit_driver_algo;

/** What a lab tells the driver. */
typedef struct {
    const char *name;                            /**< program name, e.g. "oddeven" */
    const char *title;                           /**< one line for --help */
    kit_driver_algo algos[KIT_DRIVER_MAX_ALGOS]; /**< the first is the default */
    size_t default_n;                            /**< -n when not given */
    /** Runs the sort step by step, printing the host copy @p keys after every step. */
    cudaError_t (*trace)(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out);
    size_t trace_max_n;        /**< largest n --trace accepts */
    const size_t *bench_sizes; /**< --bench sizes, ending with 0 */
} kit_lab_driver;

/** A device buffer a driver keeps between runs: the values its `--algo pairs` sorts carry, or
 * the other half of a ping-pong. The untimed warm-up run allocates it, so the timed runs do
 * not; its contents do not change the time of a sort that compares keys only. */
typedef struct {
    unsigned int *keys; /**< the buffer (NULL until the first kit_driver_reserve()) */
    size_t capacity;    /**< how many keys it holds */
} kit_driver_scratch;

/** Makes @p scratch hold at least @p n keys (zeroed when it grows); returns the CUDA error of
 * a failed allocation. */
cudaError_t kit_driver_reserve(kit_driver_scratch *scratch, size_t n);

/** The median time in ms (*@p ms; -1 when the sort failed) of @p reps runs of @p sort, after
 * one untimed warm-up, each on a fresh copy of @p d_input in @p d_work (the copy outside the
 * timing), from a GPU event before the call to one after it returned. */
cudaError_t kit_time_sort(cudaError_t (*sort)(unsigned int *d_keys, size_t n),
                          const unsigned int *d_input, unsigned int *d_work, size_t n, int reps,
                          double *ms);

/** Parses the command line, runs, prints, and returns the exit code. */
int kit_driver_main(int argc, char **argv, const kit_lab_driver *lab);

/** Parses "123" or "2^K" into @p value; returns 0, or -1 if it is not a count. */
int kit_parse_count(const char *text, size_t *value);

#ifdef __cplusplus
}
#endif

#endif
