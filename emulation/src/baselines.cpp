/*
 * The drivers' baselines (common/baselines.h: CUB's sorts, the device copy, std::sort), for a
 * lab's driver built on the emulation (make emulate-driver): CUB is not emulated, and the
 * emulation measures no speed, so each says so once and answers cudaErrorNotSupported; the
 * driver's --bench then stops with that error. Sorting, --check and --trace need none of them.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "baselines.h"

static cudaError_t not_here(const char *what)
{
    static bool said = false;
    if (!said) {
        fprintf(stderr,
                "emulation: %s needs a GPU (the emulation has no CUB and measures no speed): "
                "run --bench where make grade runs\n",
                what);
        said = true;
    }
    return cudaErrorNotSupported;
}

extern "C" {

cudaError_t kit_baseline_cub_radix_ms(const unsigned int *, size_t, int, double *ms)
{
    *ms = 0;
    return not_here("the benchmark's CUB radix sort");
}

cudaError_t kit_baseline_cub_radix_pairs_ms(const unsigned int *, size_t, int, double *ms)
{
    *ms = 0;
    return not_here("the benchmark's CUB radix sort of pairs");
}

cudaError_t kit_baseline_cub_merge_ms(const unsigned int *, size_t, int, double *ms)
{
    *ms = 0;
    return not_here("the benchmark's CUB merge sort");
}

int kit_baseline_std_sort_ms(const unsigned int *, size_t, int, double *ms)
{
    *ms = 0;
    not_here("the benchmark's std::sort");
    return -1;
}

cudaError_t kit_baseline_copy_gbps(size_t, int, double *gbps)
{
    *gbps = 0;
    return not_here("the benchmark's device copy");
}

cudaError_t kit_baseline_describe_row(kit_bench_row *row)
{
    memset(row, 0, sizeof *row);
    return not_here("a benchmark row");
}
}
