/* The Lab 01 driver: build/{solution,student}/bin/oddeven. Run it with --help. */
#include <stdio.h>

#include "cuda_check.h"
#include "driver.h"
#include "oddeven.h"

static cudaError_t sort_in_one_block(unsigned int *d_keys, size_t n)
{
    return oddeven_sort_block_batch(d_keys, n, 1);
}

/* Prints one row of the brick wall: the keys, with the pairs of `phase` in brackets. */
static void print_row(FILE *out, const char *label, const unsigned int *keys, size_t n, int phase)
{
    fprintf(out, "%-16s", label);
    for (size_t i = 0; i < n; i++) {
        int opens = phase >= 0 && i + 1 < n && (i % 2) == (size_t)(phase & 1);
        int closes = phase >= 0 && i > 0 && ((i - 1) % 2) == (size_t)(phase & 1);
        fprintf(out, "%s%u%s", opens ? " [" : (closes ? " " : "  "), keys[i], closes ? "]" : "");
    }
    fputc('\n', out);
}

/* --trace: runs the phases one at a time and prints the array after each. */
static cudaError_t trace_phases(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out)
{
    print_row(out, "input", keys, n, -1);
    for (unsigned phase = 0; phase < n; phase++) {
        CUDA_TRY(oddeven_phase(d_keys, n, phase));
        CUDA_TRY(cudaMemcpy(keys, d_keys, n * sizeof *keys, cudaMemcpyDeviceToHost));
        char label[32];
        snprintf(label, sizeof label, "phase %u (%s)", phase, phase % 2 ? "odd" : "even");
        print_row(out, label, keys, n, (int)phase);
    }
    return cudaSuccess;
}

static const size_t bench_sizes[] = {1024, 4096, 16384, 65536, 0};

int main(int argc, char **argv)
{
    const kit_lab_driver lab = {
        .name = "oddeven",
        .title = "Lab 01, odd-even transposition sort",
        .algos = {{"global", oddeven_sort, 0, "1.1/1.2"},
                  {"block", sort_in_one_block, ODDEVEN_BLOCK_MAX_N, "1.3"},
                  {"cooperative", oddeven_sort_cooperative, 0, "1.4"}},
        .default_n = 4096,
        .trace = trace_phases,
        .trace_max_n = 64,
        .bench_sizes = bench_sizes,
    };
    return kit_driver_main(argc, argv, &lab);
}
