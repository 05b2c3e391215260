/**
 * @file datagen.h
 * @brief Seeded, reproducible test data: every distribution the kit tests with.
 *
 * The same (distribution, n, seed) gives the same array on every machine, so a failure
 * message that prints them is enough to reproduce it (`-n`, `--dist`, `--seed` of a driver).
 */
#ifndef KIT_DATAGEN_H
#define KIT_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The input distributions every lab is tested on (docs/instructor.md, the test binaries). */
typedef enum {
    KIT_DIST_UNIFORM = 0,   /**< independent uniform keys over the whole range */
    KIT_DIST_SORTED,        /**< already ascending (uniform keys, then sorted) */
    KIT_DIST_REVERSED,      /**< strictly descending where the range allows */
    KIT_DIST_ALL_EQUAL,     /**< one key repeated n times */
    KIT_DIST_FEW_UNIQUE,    /**< 8 distinct keys, shuffled */
    KIT_DIST_ZERO_ONE,      /**< only 0 and 1 (for floats 0.0 and 1.0) */
    KIT_DIST_NEARLY_SORTED, /**< ascending, then about 1% of random swaps */
    KIT_DIST_ORGAN_PIPE,    /**< ascending to the middle, then descending */
    KIT_DIST_EXTREMES,      /**< the type's extremes mixed with a few ordinary keys */
    KIT_DIST_COUNT          /**< number of distributions */
} kit_dist;

/** The distribution's name as the drivers' `--dist` option spells it. */
const char *kit_dist_name(kit_dist dist);

/** Parses a name of ::kit_dist_name; returns 0 on success, -1 for an unknown name. */
int kit_dist_parse(const char *name, kit_dist *dist);

/** The kit's pseudo-random generator (splitmix64): small, fast, the same everywhere. */
typedef struct {
    uint64_t state; /**< advanced by every draw */
} kit_rng;

/** Seeds a generator. */
void kit_rng_seed(kit_rng *rng, uint64_t seed);
/** Next 64 random bits. */
uint64_t kit_rng_next(kit_rng *rng);
/** A uniform number in [0, bound) (bound > 0). */
uint64_t kit_rng_below(kit_rng *rng, uint64_t bound);

/** Fills @p keys with @p n unsigned keys of @p dist (extremes: 0 and UINT_MAX). */
void kit_generate_u32(uint32_t *keys, size_t n, kit_dist dist, uint64_t seed);

/** Fills @p keys with signed keys (extremes: INT_MIN, INT_MAX, -1, 0). */
void kit_generate_i32(int32_t *keys, size_t n, kit_dist dist, uint64_t seed);

/** Fills @p keys with floats (extremes: -0.0, +0.0, ±inf, ±NaN, ±FLT_MAX, denormals). */
void kit_generate_f32(float *keys, size_t n, kit_dist dist, uint64_t seed);

/** Unsigned keys of @p dist, and values that are each key's original index (0..n-1). */
void kit_generate_pairs_u32(uint32_t *keys, uint32_t *values, size_t n, kit_dist dist,
                            uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
