/* The Lab 03 driver: build/{solution,student}/bin/bitonic. Run it with --help. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "bitonic.h"
#include "cuda_check.h"
#include "driver.h"

/* The driver sorts keys; `--algo pairs` (and multistride-pairs) gives each key a value to
 * carry, from a scratch buffer kept between runs (allocated by the untimed warm-up run). Their
 * contents do not change the time: bitonic sort compares keys only. */
static kit_driver_scratch scratch_values;

static cudaError_t sort_pairs_ascending(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return bitonic_sort_pairs(d_keys, n ? scratch_values.keys : NULL, n, 0);
}

static cudaError_t sort_keys_ascending(unsigned int *d_keys, size_t n)
{
    return bitonic_sort_keys(d_keys, n, 0);
}

/* The bonus (TODO 3.5): the same two sorts with multistride passes. */
static cudaError_t multistride_pairs_ascending(unsigned int *d_keys, size_t n)
{
    CUDA_TRY(kit_driver_reserve(&scratch_values, n));
    return bitonic_sort_multistride_pairs(d_keys, n ? scratch_values.keys : NULL, n, 0);
}

static cudaError_t multistride_keys_ascending(unsigned int *d_keys, size_t n)
{
    return bitonic_sort_multistride_keys(d_keys, n, 0);
}

/* Prints one row of the trace: the keys, in runs of `size` ('+' ascending, '-' descending). */
static void print_row(FILE *out, const char *label, const unsigned int *keys, size_t padded,
                      size_t size)
{
    fprintf(out, "%-20s", label);
    for (size_t i = 0; i < padded; i++) {
        if (size > 0 && i % size == 0) {
            fprintf(out, "%s[%c", i ? "] " : "",
                    bitonic_descending_at(i, size, padded, 0) ? '-' : '+');
        }
        if (keys[i] == UINT_MAX) {
            fprintf(out, " MAX");
        } else {
            fprintf(out, " %u", keys[i]);
        }
    }
    fprintf(out, "%s\n", size > 0 ? "]" : "");
}

/* The trace on the GPU: a device copy of the padded keys, every step of the network, and
 * the first n keys back into d_keys. *d_padded is freed by the caller. */
static cudaError_t trace_on_device(unsigned int **d_padded, unsigned int *padded_keys,
                                   size_t padded, unsigned int *d_keys, size_t n, FILE *out)
{
    CUDA_TRY(cudaMalloc((void **)d_padded, padded * sizeof **d_padded));
    CUDA_TRY(
        cudaMemcpy(*d_padded, padded_keys, padded * sizeof *padded_keys, cudaMemcpyHostToDevice));
    for (size_t size = 2; size <= padded; size *= 2) {
        for (size_t stride = size / 2; stride > 0; stride /= 2) {
            CUDA_TRY(bitonic_merge_global(*d_padded, NULL, padded, size, stride, 0));
            CUDA_TRY(cudaMemcpy(padded_keys, *d_padded, padded * sizeof *padded_keys,
                                cudaMemcpyDeviceToHost));
            char label[64];
            snprintf(label, sizeof label, "size %zu, stride %zu", size, stride);
            print_row(out, label, padded_keys, padded, size);
        }
    }
    /* Ascending, so the padding (UINT_MAX) is at the end: the first n keys are the result. */
    CUDA_TRY(cudaMemcpy(d_keys, *d_padded, n * sizeof *d_keys, cudaMemcpyDeviceToDevice));
    return cudaSuccess;
}

/* --trace: pads to a power of two, runs every (size, stride) step of the network as one
 * bitonic_merge_global() launch (TODO 3.2, which takes any stride), and prints the array
 * after each; then leaves the first n keys, sorted, in d_keys. */
static cudaError_t trace_network(unsigned int *d_keys, unsigned int *keys, size_t n, FILE *out)
{
    if (n == 0) {
        fprintf(out, "bitonic network of n = 0 keys: nothing to do\n");
        return cudaSuccess;
    }
    size_t padded = bitonic_padded_length(n);
    unsigned int *padded_keys = malloc(padded * sizeof *padded_keys);
    if (!padded_keys) {
        return cudaErrorMemoryAllocation;
    }
    for (size_t i = 0; i < padded; i++) {
        padded_keys[i] = i < n ? keys[i] : UINT_MAX;
    }
    fprintf(out,
            "bitonic network of n = %zu keys, padded to %zu with UINT_MAX; each row is the "
            "array after one step.\n[+ ...] is a run that this stage sorts ascending, [- ...] "
            "one it sorts descending; UINT_MAX prints as MAX.\n",
            n, padded);
    print_row(out, "input", padded_keys, padded, 0);
    unsigned int *d_padded = NULL;
    cudaError_t err = trace_on_device(&d_padded, padded_keys, padded, d_keys, n, out);
    if (err == cudaErrorNotSupported) {
        fprintf(stderr, "bitonic: --trace runs bitonic_merge_global(), TODO 3.2\n");
    }
    free(padded_keys);
    CUDA_TRY(cudaFree(d_padded));
    return err;
}

/* Global-memory passes of the network on n keys: the tile sort, then for each larger stage
 * its global steps (strides of a tile or more) and one shared merge. */
static double global_passes(size_t n)
{
    size_t m = bitonic_padded_length(n), stages = 0;
    while (((size_t)BITONIC_TILE << stages) < m) {
        stages++;
    }
    return 1.0 + stages * (stages + 1) / 2.0 + stages;
}

/* Each pass reads and writes every key (and value): --bench's bandwidth floor. */
static double bytes_keys(size_t n)
{
    return global_passes(n) * 2.0 * sizeof(unsigned int) * bitonic_padded_length(n);
}

static double bytes_pairs(size_t n)
{
    return 2.0 * bytes_keys(n);
}

/* The multistride sort's passes (TODO 3.5): one tile pass; then for each larger stage, its
 * strides of a tile or more in passes of up to 4, and one tile pass. */
static double multistride_passes(size_t n)
{
    size_t m = bitonic_padded_length(n), stages = 0;
    while (((size_t)BITONIC_MS_TILE << stages) < m) {
        stages++;
    }
    double passes = 1.0;
    for (size_t s = 1; s <= stages; s++) { /* stage s has s strides of a tile or more */
        passes += (double)((s + 3) / 4) + 1.0;
    }
    return passes;
}

static double bytes_multistride_keys(size_t n)
{
    return multistride_passes(n) * 2.0 * sizeof(unsigned int) * bitonic_padded_length(n);
}

static double bytes_multistride_pairs(size_t n)
{
    return 2.0 * bytes_multistride_keys(n);
}

static const size_t bench_sizes[] = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 26, 0};

int main(int argc, char **argv)
{
    const kit_lab_driver lab = {
        .name = "bitonic",
        .title = "Lab 03, bitonic sort of key/value pairs",
        .algos = {{"pairs", sort_pairs_ascending, 0, "3.1-3.4", bytes_pairs, .pairs = 1},
                  {"keys", sort_keys_ascending, 0, "3.1-3.4", bytes_keys},
                  {"multistride-pairs", multistride_pairs_ascending, 0, "3.5",
                   bytes_multistride_pairs, .pairs = 1},
                  {"multistride-keys", multistride_keys_ascending, 0, "3.5",
                   bytes_multistride_keys}},
        .default_n = 4096,
        .trace = trace_network,
        .trace_max_n = 32,
        .bench_sizes = bench_sizes,
    };
    return kit_driver_main(argc, argv, &lab);
}
