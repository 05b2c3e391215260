/**
 * @file kit_tiles.h
 * @brief The two counts of the kit's vocabulary of tiles (common/kit_device.cuh says it): the
 *        number of tiles of n keys, and the keys of one tile.
 *
 * A header of its own, for C as well as CUDA: a kernel, a launcher, a test on the CPU and a
 * lab's driver must count tiles the same way, and C files cannot include kit_device.cuh.
 * Every function is `static inline` and KIT_HOST_DEVICE (host_device.h).
 */
#ifndef KIT_TILES_H
#define KIT_TILES_H

#include <stddef.h>

#include "host_device.h"

/**
 * The number of tiles of @p tile keys that @p n keys make: whole tiles, and one partial tile
 * for what is left (0 for n = 0). With a grid of one block per tile, the grid's size.
 */
KIT_HOST_DEVICE static inline size_t kit_num_tiles(size_t n, size_t tile)
{
    return (n + tile - 1) / tile;
}

/**
 * The keys of this tile: of @p n keys in tiles of @p tile keys, the tile that starts at key
 * @p base (tile t starts at `t * tile`, base < n) holds @p tile keys, or fewer if it is the
 * last. A kernel of one block per tile has its base already: it passes it.
 */
KIT_HOST_DEVICE static inline unsigned kit_tile_keys(size_t n, size_t base, unsigned tile)
{
    size_t left = n - base;
    return left < tile ? (unsigned)left : tile;
}

#endif
