/* Seeded data generators; see datagen.h. */
#include "datagen.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sort.h"
#include "keyflip.h"

static const char *const dist_names[KIT_DIST_COUNT] = {
    "uniform",  "sorted",        "reversed",   "all-equal", "few-unique",
    "zero-one", "nearly-sorted", "organ-pipe", "extremes",
};

const char *kit_dist_name(kit_dist dist)
{
    return (unsigned)dist < KIT_DIST_COUNT ? dist_names[dist] : "unknown";
}

int kit_dist_parse(const char *name, kit_dist *dist)
{
    for (int d = 0; d < KIT_DIST_COUNT; d++) {
        if (strcmp(name, dist_names[d]) == 0) {
            *dist = (kit_dist)d;
            return 0;
        }
    }
    return -1;
}

void kit_rng_seed(kit_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t kit_rng_next(kit_rng *rng)
{
    /* splitmix64: a 64-bit counter passed through a strong bit mixer. */
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t kit_rng_below(kit_rng *rng, uint64_t bound)
{
    return kit_rng_next(rng) % bound; /* the bias is negligible for test data */
}

/* Every key type is generated in its "ordered bits" (keyflip.h), where unsigned order is
 * the key's order; one generator then serves all types. A type brings how to draw one
 * ordinary key, its extremes, and its zero and one. */
typedef struct {
    uint32_t (*draw)(kit_rng *rng);
    const uint32_t *extremes;
    size_t extreme_count;
    uint32_t zero, one;
} key_type;

static uint32_t draw_u32(kit_rng *rng);

static void generate_ordered(uint32_t *bits, size_t n, kit_dist dist, uint64_t seed,
                             const key_type *type)
{
    kit_rng rng;
    kit_rng_seed(&rng, seed * 0x100000001B3ull + (uint64_t)dist);
    switch (dist) {
    case KIT_DIST_ALL_EQUAL: {
        uint32_t key = type->draw(&rng);
        for (size_t i = 0; i < n; i++) {
            bits[i] = key;
        }
        return;
    }
    case KIT_DIST_FEW_UNIQUE: {
        uint32_t pool[8];
        for (int k = 0; k < 8; k++) {
            pool[k] = type->draw(&rng);
        }
        for (size_t i = 0; i < n; i++) {
            bits[i] = pool[kit_rng_below(&rng, 8)];
        }
        return;
    }
    case KIT_DIST_ZERO_ONE:
        for (size_t i = 0; i < n; i++) {
            bits[i] = (kit_rng_next(&rng) & 1) ? type->one : type->zero;
        }
        return;
    case KIT_DIST_EXTREMES:
        for (size_t i = 0; i < n; i++) {
            uint64_t r = kit_rng_below(&rng, 4 * type->extreme_count);
            bits[i] = r < 3 * type->extreme_count ? type->extremes[r % type->extreme_count]
                                                  : type->draw(&rng);
        }
        return;
    default:
        break;
    }
    if (type->draw == draw_u32) { /* the same keys, drawn without a call through a pointer */
        for (size_t i = 0; i < n; i++) {
            bits[i] = (uint32_t)(kit_rng_next(&rng) >> 32);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            bits[i] = type->draw(&rng);
        }
    }
    if (dist == KIT_DIST_UNIFORM || n < 2) {
        return;
    }
    kit_cpu_radix_sort_u32(bits, n); /* ordered bits sort as unsigned */
    if (dist == KIT_DIST_REVERSED) {
        for (size_t i = 0, j = n - 1; i < j; i++, j--) {
            uint32_t t = bits[i];
            bits[i] = bits[j];
            bits[j] = t;
        }
    } else if (dist == KIT_DIST_NEARLY_SORTED) {
        size_t swaps = n / 100 + 1;
        for (size_t s = 0; s < swaps; s++) {
            size_t i = kit_rng_below(&rng, n);
            size_t j = kit_rng_below(&rng, n);
            uint32_t t = bits[i];
            bits[i] = bits[j];
            bits[j] = t;
        }
    } else if (dist == KIT_DIST_ORGAN_PIPE) {
        /* Even ranks rise to the middle, odd ranks fall after it. */
        uint32_t *sorted = malloc(n * sizeof *sorted);
        if (!sorted) {
            return; /* keep the sorted input rather than fail: still a valid test input */
        }
        memcpy(sorted, bits, n * sizeof *bits);
        size_t rising = (n + 1) / 2;
        for (size_t i = 0; i < rising; i++) {
            bits[i] = sorted[2 * i];
        }
        for (size_t i = rising; i < n; i++) {
            bits[i] = sorted[2 * (n - 1 - i) + 1];
        }
        free(sorted);
    }
}

static uint32_t draw_u32(kit_rng *rng)
{
    return (uint32_t)(kit_rng_next(rng) >> 32);
}

static uint32_t draw_f32(kit_rng *rng)
{
    /* Ordinary floats over many magnitudes and both signs: mantissa * 2^(-20..20). */
    uint64_t r = kit_rng_next(rng);
    float mantissa = (float)(r & 0xFFFFFF) / (float)0x1000000;
    int exponent = (int)((r >> 24) % 41) - 20;
    float value = ldexpf(mantissa, exponent);
    return kit_flip_f32((r >> 40) & 1 ? -value : value);
}

void kit_generate_u32(uint32_t *keys, size_t n, kit_dist dist, uint64_t seed)
{
    static const uint32_t extremes[] = {0u, 0xFFFFFFFFu, 1u, 0xFFFFFFFEu};
    const key_type type = {draw_u32, extremes, 4, 0u, 1u};
    generate_ordered(keys, n, dist, seed, &type);
}

void kit_generate_i32(int32_t *keys, size_t n, kit_dist dist, uint64_t seed)
{
    const uint32_t extremes[] = {kit_flip_i32(INT32_MIN), kit_flip_i32(INT32_MAX), kit_flip_i32(-1),
                                 kit_flip_i32(0)};
    const key_type type = {draw_u32, extremes, 4, kit_flip_i32(0), kit_flip_i32(1)};
    uint32_t *bits = (uint32_t *)keys;
    generate_ordered(bits, n, dist, seed, &type);
    for (size_t i = 0; i < n; i++) {
        keys[i] = kit_unflip_i32(bits[i]);
    }
}

void kit_generate_f32(float *keys, size_t n, kit_dist dist, uint64_t seed)
{
    const uint32_t extremes[] = {
        kit_flip_f32(-0.0f),     kit_flip_f32(0.0f),     kit_flip_f32(INFINITY),
        kit_flip_f32(-INFINITY), kit_flip_f32(NAN),      kit_flip_f32(-NAN),
        kit_flip_f32(FLT_MAX),   kit_flip_f32(-FLT_MAX), kit_flip_f32(FLT_TRUE_MIN),
    };
    const key_type type = {draw_f32, extremes, sizeof extremes / sizeof extremes[0],
                           kit_flip_f32(0.0f), kit_flip_f32(1.0f)};
    generate_ordered((uint32_t *)keys, n, dist, seed, &type);
    for (size_t i = 0; i < n; i++) {
        uint32_t bits; /* read the stored bits through memcpy: no float/int aliasing */
        memcpy(&bits, &keys[i], sizeof bits);
        keys[i] = kit_unflip_f32(bits);
    }
}

void kit_generate_pairs_u32(uint32_t *keys, uint32_t *values, size_t n, kit_dist dist,
                            uint64_t seed)
{
    kit_generate_u32(keys, n, dist, seed);
    for (size_t i = 0; i < n; i++) {
        values[i] = (uint32_t)i;
    }
}
