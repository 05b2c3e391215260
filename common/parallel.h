/**
 * @file parallel.h
 * @brief Host work on many keys spread over a few threads: the CPU radix sort and the
 *        verifier, on the inputs of 2^20 keys and more that the tests prepare and check.
 *
 * A test process's own host work (making inputs, checking outputs) was half of a grading's
 * test time on an H100 host (docs/instructor.md, "Grading time"), single-threaded while most
 * of the host's cores stood idle. The work is cut into shares of consecutive items; each share
 * runs on a thread of its own (the first on the calling thread), and the call returns when
 * all are done. Nothing here is for student code: the executor's process never calls it.
 */
#ifndef KIT_PARALLEL_H
#define KIT_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most threads one piece of work is spread over: a grading runs several tests at once. */
#define KIT_PARALLEL_MAX 4
/** Below this many items one thread does it all: a thread's start costs more than it saves. */
#define KIT_PARALLEL_MIN_ITEMS ((size_t)1 << 18)

/** How many shares to cut @p items into: 1 below ::KIT_PARALLEL_MIN_ITEMS, else the CPUs this
 *  process may run on, at most ::KIT_PARALLEL_MAX. */
size_t kit_parallel_shares(size_t items);

/** Items [from, to) of share @p share when @p items are cut into @p shares. */
size_t kit_share_begin(size_t items, size_t share, size_t shares);

/** Runs @p work on each of @p count argument blocks (@p size bytes apart from @p args), the
 *  first on this thread and each other one on a thread of its own, and returns when all are
 *  done. A thread that cannot start has its block done on this thread. */
void kit_parallel_run(void (*work)(void *block), void *args, size_t size, size_t count);

#ifdef __cplusplus
}
#endif

#endif
