/**
 * @file verify.h
 * @brief The verifier: is an output the sorted version of its input?
 *
 * Every check compares the output with a snapshot of the input taken before the code under
 * test ran (the code under test can change its input buffer, but never the snapshot):
 * - order: each key is <= the next (>= when descending);
 * - the same multiset: the output's fingerprint (kit_multiset_fingerprint()) is the
 *   snapshot's. Only when it is not is the snapshot sorted by the CPU reference sort, so that
 *   the message names the first place a lost, duplicated or invented key shows (a sort of
 *   every snapshot cost the grader about a third of its time on a GPU: docs/instructor.md);
 * - for pairs: each value still travels with its key (values are the keys' original
 *   indices, as kit_generate_pairs_u32() makes them), and no value is lost or doubled;
 * - stability, when asked: equal keys keep their values in increasing order.
 *
 * The verdict names the first bad index and the values seen there, in one line that a test
 * prints as its failure message.
 */
#ifndef KIT_VERIFY_H
#define KIT_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What is wrong, if anything. */
typedef enum {
    KIT_VERIFY_OK = 0,    /**< sorted, same keys (and values, stability) */
    KIT_VERIFY_ORDER,     /**< two neighbours out of order */
    KIT_VERIFY_MULTISET,  /**< a key lost, duplicated or changed */
    KIT_VERIFY_DETACHED,  /**< a value no longer with its key, or lost or duplicated */
    KIT_VERIFY_UNSTABLE,  /**< equal keys whose values changed order */
    KIT_VERIFY_NO_MEMORY, /**< the verifier itself ran out of host memory */
} kit_verify_status;

/** The verifier's answer. */
typedef struct {
    kit_verify_status status; /**< KIT_VERIFY_OK when all is well */
    size_t index;             /**< first bad index (for ORDER: the left of the two) */
    char message[256];        /**< one line: what, where, expected vs. got */
} kit_verdict;

/** Flags for the verifier. */
enum {
    KIT_VERIFY_DESCENDING = 1, /**< the output must be non-increasing */
    KIT_VERIFY_STABLE = 2,     /**< equal keys must keep their original order */
};

/**
 * The fingerprint of a multiset of keys: the sum, over the keys, of a keyed mix of each
 * (splitmix64's finalizer of @p secret + key, a bijection). The order of the keys does not
 * change it; a key changed, lost or duplicated does, but for a chance of about 2^-64 for a
 * @p secret the code under test cannot know.
 */
uint64_t kit_multiset_fingerprint(const uint32_t *keys, size_t n, uint64_t secret);
/** A random key for kit_multiset_fingerprint(), from /dev/urandom and the clock. */
uint64_t kit_fingerprint_secret(void);
/** Keys that are ordered as unsigned numbers (use keyflip.h to verify other types). */
kit_verdict kit_verify_u32(const uint32_t *snapshot, const uint32_t *output, size_t n, int flags);

/** Signed keys. */
kit_verdict kit_verify_i32(const int32_t *snapshot, const int32_t *output, size_t n, int flags);

/** Float keys in the kit's total order (keyflip.h); NaNs compared by their bits. */
kit_verdict kit_verify_f32(const float *snapshot, const float *output, size_t n, int flags);

/**
 * Key/value pairs whose input values are the original indices 0..n-1.
 * @param snapshot_keys the input keys, as they were before the code under test ran
 */
kit_verdict kit_verify_pairs_u32(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                 const uint32_t *out_values, size_t n, int flags);

/**
 * Key/value pairs in any order (a step of a sort, not yet sorted): the values are a
 * permutation of 0..n-1 and each carries its own key, snapshot_keys[value]. A failure is
 * ::KIT_VERIFY_DETACHED at the first index where a value is out of range, seen twice, or found
 * with another key than its own.
 */
kit_verdict kit_verify_attached_u32(const uint32_t *snapshot_keys, const uint32_t *out_keys,
                                    const uint32_t *out_values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
