/**
 * @file radix_common.cuh
 * @brief Lab 04's given declarations that both of your files use: the block's shape and the
 *        buffer cache of the lab's API.
 *
 * Included by radix_given.cuh (for radix.cu) and radix_bonus_given.cuh (for radix_bonus.cu),
 * and nowhere else; read it, do not edit it (the grader uses its own copy). It holds only
 * macros and declarations, so both files can include it: everything defined once is defined
 * in one of the two given headers. The block size ::KIT_BLOCK_THREADS and kit_blocks_for() come
 * from common/kit_device.cuh.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cuda_check.h"
#include "kit_device.cuh"
#include "radix.h"

/** Items each thread holds in a block scan or a tile (::RADIX_SCAN_TILE, ::RADIX_TILE). */
#define RADIX_ITEMS_PER_THREAD 4u

/** Warps per block. */
#define WARPS (KIT_BLOCK_THREADS / 32u)

/** Every lane of a warp, for the shuffles. */
#define FULL_MASK 0xFFFFFFFFu

#if RADIX_TILE != KIT_BLOCK_THREADS * RADIX_ITEMS_PER_THREAD ||                                    \
    RADIX_SCAN_TILE != KIT_BLOCK_THREADS * RADIX_ITEMS_PER_THREAD
#error "a tile and a scan block are KIT_BLOCK_THREADS * RADIX_ITEMS_PER_THREAD items"
#endif

/**
 * The lab's temporary device memory, kept from one API call to the next (kit_device.cuh):
 * a cudaMalloc costs time, and a sort is timed with its calls, so only the first call (or one
 * that needs more room) allocates, as a program that calls CUB keeps its temp storage. One
 * cache for the whole lab, defined in radix_given.cuh (radix.cu's object) and used by the
 * bonus's API functions too (radix_bonus_given.cuh), so the bonus sorts reuse the graded
 * sorts' block instead of holding a second one.
 */
extern kit_buffer_cache radix_cache;
