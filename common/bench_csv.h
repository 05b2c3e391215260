/**
 * @file bench_csv.h
 * @brief The rows `--bench --csv FILE` appends: one per size measured, in one run, so that
 *        a lab's throughput can be set beside CUB's and the CPU's (and plotted) later.
 *
 * Columns, in order (kit_bench_csv_header() writes them): device, driver (CUDA driver
 * version, e.g. 13000), commit (`KIT_COMMIT` from the environment, else "unknown"), lab,
 * tier (the driver's --algo), n, distribution, ms (the lab's median), gkeys_s,
 * cub_radix_ms, cub_merge_ms, std_sort_ms, floor_ms (empty when the tier has no floor),
 * cub_radix_pairs_ms (CUB's radix sort of the same keys each with a 32-bit value, measured
 * only for a tier that sorts pairs, ::kit_driver_algo::pairs; empty for the others).
 * Thrust has no column: `thrust::sort` of unsigned keys is CUB's radix sort.
 *
 * A new column goes at the end of the row, so that a reader that takes columns by position
 * keeps working. Files written before cub_radix_pairs_ms have the first 13 columns only
 * (tools/bench_report.py reads both); kit_bench_csv_open() refuses to append to a file whose
 * header is not this one, rather than mix rows of two shapes in one file.
 */
#ifndef KIT_BENCH_CSV_H
#define KIT_BENCH_CSV_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One measured size: what kit_bench_csv_row() writes. Times in ms; floor_ms < 0 and
 * cub_radix_pairs_ms <= 0: not measured, the field is left empty. */
typedef struct {
    const char *device;        /**< the GPU's name */
    const char *commit;        /**< the kit's commit */
    const char *lab;           /**< the lab's driver name, e.g. "radix" */
    const char *tier;          /**< the driver's --algo */
    const char *distribution;  /**< the input's distribution */
    int driver;                /**< cudaDriverGetVersion(), e.g. 13000 */
    size_t n;                  /**< keys sorted */
    double ms;                 /**< the lab's median time */
    double cub_radix_ms;       /**< CUB's radix sort of the same keys */
    double cub_merge_ms;       /**< CUB's merge sort of the same keys */
    double std_sort_ms;        /**< std::sort on one CPU core */
    double floor_ms;           /**< the tier's floor at the copy bandwidth; < 0: none */
    double cub_radix_pairs_ms; /**< CUB's radix sort of pairs; <= 0 (as a zeroed row): none */
} kit_bench_row;

/** Writes the header line. Returns 0, or -1 when the write failed. */
int kit_bench_csv_header(FILE *out);

/** Opens @p path (`--csv FILE`) to append rows to, writing the header first when the file is
 * empty. A file that is not empty must start with that header (a file of an older kit, or
 * not of these rows, is refused). Returns the file, or NULL after a message on stderr that
 * starts with @p who. */
FILE *kit_bench_csv_open(const char *path, const char *who);

/** Writes @p row as one line; text fields are quoted when they hold a comma, a quote or a
 * line break (quotes doubled, line breaks replaced by spaces). Returns 0, or -1. */
int kit_bench_csv_row(FILE *out, const kit_bench_row *row);

#ifdef __cplusplus
}
#endif

#endif
