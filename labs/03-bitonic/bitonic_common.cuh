/**
 * @file bitonic_common.cuh
 * @brief Lab 03's given declarations that both of your files use: the padded sort of TODO 3.4
 * and the type of the runs sort it takes.
 *
 * Included by bitonic_given.cuh and bitonic_bonus_given.cuh, and nowhere else. It holds
 * declarations only: sort_padded() is defined once, in bitonic_given.cuh, and
 * bitonic_bonus_given.cuh calls that definition (the two student files are compiled as one
 * translation unit, bitonic.cu first). Read it, do not edit it.
 */
#pragma once

#include <stddef.h>

#include "bitonic.h"

/**
 * A sort of every run of @p run keys of @p n (n a multiple of run, run a power of two):
 * `sort_runs` of bitonic.cu (TODO 3.4) or ::multistride_sort_runs of bitonic_bonus.cu
 * (TODO 3.5). The padded sort takes one, so both sorts share the padding.
 */
typedef cudaError_t (*runs_sort_fn)(unsigned int *d_keys, unsigned int *d_values, size_t n,
                                    size_t run, int descending);

/**
 * Given, in bitonic_given.cuh: sorts @p count arrays of @p n keys (and values; n not a power of
 * two) through padded buffers that it allocates and frees, the runs sorted by @p sort_runs_of.
 * Its steps are TODO 3.4's (`sort_through_padding` of bitonic.cu); the bonus sort uses them too.
 */
cudaError_t sort_padded(unsigned int *d_keys, unsigned int *d_values, size_t n, size_t count,
                        int descending, runs_sort_fn sort_runs_of);
