/**
 * @file runner.h
 * @brief The kit's CUnit test runner: what a suite file uses.
 *
 * Each test binary is this runner plus one suite file that defines kit_register_suites().
 * The runner lists tests (`-l`), runs one suite (`-s SUITE`) or one test (`-t SUITE/TEST`),
 * writes JUnit XML (`-x FILE`), and skips GPU suites, with the reason, on a machine without
 * a usable GPU. It prints `N passed, N failed, N skipped`; its exit code is 0 when every
 * test ran and passed, 1 when a test failed, 2 for bad options, and 3 when nothing failed but
 * tests were skipped for lack of a GPU (a last line says so: skipped is not passed).
 *
 * The grader's result channel: when KIT_RESULT_FD and KIT_RESULT_TOKEN are set, the runner
 * takes both out of its environment first thing, and at the very end writes one line,
 * `TOKEN PASSED FAILED SKIPPED`, to that descriptor. grading/grade scores a test from that
 * line and the exit status only, never from what the test printed.
 */
#ifndef KIT_RUNNER_H
#define KIT_RUNNER_H

#include <CUnit/CUnit.h>

/** Defined by each suite file: adds its suites with kit_add_suite() and kit_add_test(). */
void kit_register_suites(void);

/**
 * Defined by a lab's hidden suite file, tests/hidden/test_NN_name_hidden.c, when the
 * instructor's kit has one: more suites, linked into the lab's test binaries and the grader's,
 * and never in the student package (make handout leaves tests/hidden/ out).
 */
void kit_register_hidden_suites(void);

/** Adds a suite; @p needs_gpu suites are skipped (with the reason) when no GPU is usable. */
CU_pSuite kit_add_suite(const char *name, int needs_gpu);

/** Adds a test to a suite; exits with an error if CUnit cannot (out of memory, duplicate). */
void kit_add_test(CU_pSuite suite, const char *name, CU_TestFunc test);

/**
 * Adds a test that is also cheap enough to run under compute-sanitizer (racecheck slows a
 * kernel a hundredfold or more). `-l` marks it `[sanitize]`; `make gpu-check` and the
 * grader's `--sanitize` run these.
 */
void kit_add_sanitized_test(CU_pSuite suite, const char *name, CU_TestFunc test);

/** What a test is also fit for, beside a run on a GPU: see kit_add_marked_test(). */
enum {
    KIT_TEST_SANITIZE = 1, /**< `[sanitize]`: small enough for compute-sanitizer */
    KIT_TEST_EMULATE = 2   /**< `[emulate]`: small enough for the CPU emulation (emulation/),
                                and reaching every kernel and TODO of its suite */
};

/**
 * Adds a test with marks (::KIT_TEST_SANITIZE, ::KIT_TEST_EMULATE, or both), which `-l` shows
 * as `[sanitize]` and `[emulate]`. `make emulate` runs the `[emulate]` tests of each lab built
 * against the CPU emulation, once in each thread order.
 */
void kit_add_marked_test(CU_pSuite suite, const char *name, CU_TestFunc test, int marks);

/** Records a failure with a formatted message (printf-style), at the caller's file and line. */
void kit_fail_at(const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/** Records a failure with a formatted message: the message is what the student reads. */
#define KIT_FAIL(...) kit_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/**
 * Marks the current test as not run, with the reason (printf-style): it counts as skipped,
 * never as passed, and the grader scores it as not passed. For a test that cannot run on
 * this machine (a GPU with too little memory); the decision must rest on facts the test's
 * own process measured, never on an answer of the lab's code.
 */
void kit_skip_test(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
