/**
 * @file remote.h
 * @brief How the grader keeps a student's code out of the process that gives the verdict.
 *
 * When grading/grade runs a test, two processes take part:
 * - the **verdict** process: the kit's CUnit runner, the lab's suites, the verifier and the
 *   result channel, and no student code at all. Its calls of the lab's API and of the CUDA
 *   runtime go to stubs (grading/runtime/remote_client.c and the lab's
 *   grading/calls/api_NN_name.c) that send each call over a socket;
 * - the **executor**: the student's object, linked with a small dispatcher
 *   (grading/runtime/remote_executor.c), in the grader's sandbox. It is the only process that
 *   runs GPU code: it maps the test's buffers, runs the student's functions, and answers with
 *   data (return values), never with a verdict.
 * On a GPU the verdict process holds the test's buffers itself (grading/runtime/shared_memory.h)
 * and hands the executor a descriptor for each (KIT_OP_IMPORT); the copies in and out are its own.
 * Without one (or with KIT_DATA_PLANE=executor, as in sanitizer runs) the executor allocates
 * them and their bytes travel over the socket (KIT_OP_MALLOC, KIT_OP_TO_DEVICE, ...).
 * The verdict process checks what comes back itself, from a snapshot it took before the call.
 * Whatever the student's code does in its own process (exit, a constructor, longjmp, a forged
 * message), the worst it can do is to answer wrongly or not at all, and the test fails.
 *
 * The executor also counts the bytes the student's code copies from the device to the host
 * during each call (the copy functions are wrapped at link time), and the verdict side fails a
 * call whose count is over the lab's budget. That count comes from the student's process, so
 * it is feedback for honest mistakes; what decides is measured from outside (the CPU time the
 * kernel accounts to the executor, the GPU's facts from the grader's own probe).
 *
 * The protocol: a request is a ::kit_remote_request followed by `payload` bytes; the answer
 * is a ::kit_remote_reply followed by its `payload` bytes. Both ends are built from this
 * header by the same compiler for the same machine, so structs travel as they are.
 */
#ifndef KIT_REMOTE_H
#define KIT_REMOTE_H

#include <stdint.h>

/** The descriptor the executor talks on (the verdict process sets it up before exec). */
#define KIT_REMOTE_FD 3

/** Longest API function name a request carries. */
#define KIT_REMOTE_NAME_MAX 64

/** Most scalar arguments an API function may take. */
#define KIT_REMOTE_MAX_ARGS 8

/** Largest piece of a copy in one message (bigger copies go in several). */
#define KIT_REMOTE_CHUNK (64u << 20)

/** What a request asks for. */
typedef enum {
    KIT_OP_CALL = 1,      /**< run an API function: name, args; answer value and d2h bytes */
    KIT_OP_MALLOC,        /**< arg0 bytes; answer value = device pointer */
    KIT_OP_FREE,          /**< arg0 device pointer */
    KIT_OP_TO_DEVICE,     /**< arg0 device pointer; payload = the bytes to write there */
    KIT_OP_TO_HOST,       /**< arg0 device pointer, arg1 bytes; answer payload = the bytes */
    KIT_OP_ON_DEVICE,     /**< arg0 destination, arg1 source, arg2 bytes */
    KIT_OP_MEMSET,        /**< arg0 device pointer, arg1 value, arg2 bytes */
    KIT_OP_SYNCHRONIZE,   /**< cudaDeviceSynchronize() */
    KIT_OP_LAST_ERROR,    /**< arg0 = 1: cudaGetLastError(), 0: cudaPeekAtLastError() */
    KIT_OP_ERROR_TEXT,    /**< arg0 error, arg1 = 1 for the name, 0 for the description */
    KIT_OP_EVENT_CREATE,  /**< answer value = the event */
    KIT_OP_EVENT_DESTROY, /**< arg0 event */
    KIT_OP_EVENT_RECORD,  /**< arg0 event (on the default stream only) */
    KIT_OP_EVENT_SYNC,    /**< arg0 event */
    KIT_OP_EVENT_ELAPSED, /**< arg0 start, arg1 stop; answer value = milliseconds as float bits */
    KIT_OP_HELLO,         /**< the first request: set up CUDA, then answer (status only) */
    KIT_OP_IMPORT,        /**< map the verdict's buffer: arg0 its address there, arg1 bytes;
                               its descriptor comes with the request (SCM_RIGHTS); answer
                               value = the address here (grading/runtime/shared_memory.h) */
    KIT_OP_UNIMPORT,      /**< wait for the GPU, then unmap the buffer at arg0 (the verdict's) */
} kit_remote_op;

/** A request from the verdict process. */
typedef struct {
    uint32_t op;        /**< a ::kit_remote_op */
    uint32_t arg_count; /**< KIT_OP_CALL: how many of args are used */
    uint64_t args[KIT_REMOTE_MAX_ARGS];
    uint64_t payload;               /**< bytes that follow */
    char name[KIT_REMOTE_NAME_MAX]; /**< KIT_OP_CALL: the API function */
} kit_remote_request;

/** The executor's answer. */
typedef struct {
    int64_t status;   /**< a cudaError_t (KIT_OP_CALL: 0, or -1 for an unknown name) */
    int64_t value;    /**< what the operation returns */
    uint64_t value2;  /**< KIT_OP_CALL: bytes copied to the host during the call */
    uint64_t payload; /**< bytes that follow */
} kit_remote_reply;

/**
 * Gives the verdict side the executor's command (argv, NULL-terminated), taken from after
 * `--` on the command line; it starts at the first call. Returns 0, or -1 when this program
 * runs the lab's code in-process (the test binaries `make` builds for students). The first
 * call also takes the grader's GPU facts out of the environment; a later one (in a process
 * forked before any executor started: the timed driver's one per side) only names another
 * executor, with the same facts.
 */
int kit_remote_configure(char **command);

/** How the verdict side reports a failed call (the runner makes it a test failure). */
void kit_remote_failure(const char *message);

/**
 * Ends the test that just ran and measures, from outside the student's process, what that
 * process cannot be trusted to say (see remote_client.c): the CPU time the kernel accounted to
 * it since it said it was ready (or since the end of the test before, when it is kept), and,
 * for a GPU test, whether it opened the GPU at all. Sends both to the grader's result channel
 * as notes (`cpu MS`, `executor exit|signal N`); the grader sets the CPU time against the
 * reference solution's. Returns 1 and a message in @p report when the test must fail (a GPU
 * test whose process never opened the GPU), else 0 and an empty @p report. Without an
 * executor (a test binary that runs the lab's code in-process) it does nothing and returns 0.
 *
 * With @p keep_executor set and the test passed, the executor stays for the next test of the
 * same run (the grader's batches of short tests: one CUDA context for several tests, whose
 * creation the driver serializes across processes); its buffers are unmapped first. Otherwise
 * it is ended, and the next test starts a fresh one.
 */
int kit_remote_end_test(int needs_gpu, int keep_executor, char *report, size_t report_size);

/**
 * The CPU time, in ms, the kernel has accounted so far to the running executor and every
 * process of its sandbox (read from outside, as kit_remote_end_test() reads it); -1 when none
 * runs or it cannot be read. The timed driver takes the difference over a round of its runs.
 */
double kit_remote_executor_cpu_ms(void);

/**
 * Kills the executor at once, if one runs (SIGKILL; async-signal-safe, for a handler: the
 * timed driver's process for one side when the grader's limit for a round ran out). The
 * executor may run in a session of its own, where the kill of this process's group does not
 * reach it.
 */
void kit_remote_kill(void);

#endif
