/* The kit's CUnit test runner; see runner.h. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <CUnit/TestRun.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_codes.h"
#include "gpu.h"
#include "remote.h"
#include "result_channel.h"
#include "timer.h"

#define MAX_SUITES 64

/* Most tests one run takes by name (-t). */
#define MAX_BATCH 64

/* Which suites need a GPU: CUnit has no field for it. */
static CU_pSuite gpu_suites[MAX_SUITES];
static int gpu_suite_count;

/* Which tests are cheap enough for compute-sanitizer, or for the CPU emulation, and which
 * marks each has (KIT_TEST_SANITIZE, KIT_TEST_EMULATE). */
#define MAX_MARKED 128
static CU_pTest marked_tests[MAX_MARKED];
static int test_marks[MAX_MARKED];
static int marked_count;

/* Results, counted by the run handlers (CUnit's own counts miss skipped suites). */
static unsigned passed, failed, skipped;
static char skip_reason[256]; /* set by kit_skip_test() during the current test */
static double test_started_ms;
static FILE *junit;

/* A batch: several -t in one run (the grader's short tests, sharing one executor). Each test
 * is announced on the result channel when it starts (`start ID`: the grader's time limit is
 * per test, counted from there) and reported when it ends (`done ID pass|fail|skip MS`). */
static int batch;
static int last_test_passed;

/* The grader's result channel: a pipe the grader owns and a fresh token per run. The runner
 * takes both from its environment first thing (so nothing run later finds them there) and
 * writes one line `<token> <passed> <failed> <skipped>` at the very end. The grader scores a
 * test only from that line and the exit status, never from what the process printed. */
static void write_result_line(unsigned n_passed, unsigned n_failed, unsigned n_skipped)
{
    char result[64];
    snprintf(result, sizeof result, "%u %u %u", n_passed, n_failed, n_skipped);
    kit_result_channel_send(result);
}

static int is_gpu_suite(CU_pSuite suite)
{
    for (int i = 0; i < gpu_suite_count; i++) {
        if (gpu_suites[i] == suite) {
            return 1;
        }
    }
    return 0;
}

CU_pSuite kit_add_suite(const char *name, int needs_gpu)
{
    CU_pSuite suite = CU_add_suite(name, NULL, NULL);
    if (!suite || (needs_gpu && gpu_suite_count == MAX_SUITES)) {
        fprintf(stderr, "runner: cannot add suite %s: %s\n", name, CU_get_error_msg());
        exit(KIT_EXIT_USAGE);
    }
    if (needs_gpu) {
        gpu_suites[gpu_suite_count++] = suite;
    }
    return suite;
}

void kit_add_test(CU_pSuite suite, const char *name, CU_TestFunc test)
{
    if (!CU_add_test(suite, name, test)) {
        fprintf(stderr, "runner: cannot add test %s/%s: %s\n", suite->pName, name,
                CU_get_error_msg());
        exit(KIT_EXIT_USAGE);
    }
}

void kit_add_marked_test(CU_pSuite suite, const char *name, CU_TestFunc test, int marks)
{
    kit_add_test(suite, name, test);
    if (marked_count == MAX_MARKED) {
        fprintf(stderr, "runner: more than %d marked tests (MAX_MARKED)\n", MAX_MARKED);
        exit(KIT_EXIT_USAGE);
    }
    marked_tests[marked_count] = CU_get_test(suite, name);
    test_marks[marked_count++] = marks;
}

void kit_add_sanitized_test(CU_pSuite suite, const char *name, CU_TestFunc test)
{
    kit_add_marked_test(suite, name, test, KIT_TEST_SANITIZE);
}

static int marks_of(CU_pTest test)
{
    for (int i = 0; i < marked_count; i++) {
        if (marked_tests[i] == test) {
            return test_marks[i];
        }
    }
    return 0;
}

void kit_fail_at(const char *file, int line, const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    /* CUnit copies the condition text into its failure record. */
    CU_assertImplementation(CU_FALSE, (unsigned)line, message, file, "", CU_FALSE);
}

void kit_skip_test(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(skip_reason, sizeof skip_reason, format, args);
    va_end(args);
    if (!skip_reason[0]) {
        snprintf(skip_reason, sizeof skip_reason, "skipped");
    }
}

/* ---- hidden suites ---------------------------------------------------------------------- */

/* A lab's hidden suites (tests/hidden/test_NN_name_hidden.c, kept out of the student package)
 * define this; without that file there are none. */
__attribute__((weak)) void kit_register_hidden_suites(void) {}

/* ---- the lab's code in a process of its own (grading/runtime/remote.h) ----------------------- */

/* A test binary that holds the lab's code itself (what make builds) has no executor; the
 * grader's verdict binaries link grading/runtime/remote_client.c, whose definitions win. */
__attribute__((weak)) int kit_remote_configure(char **command)
{
    (void)command;
    return -1;
}

__attribute__((weak)) int kit_remote_end_test(int needs_gpu, int keep_executor, char *report,
                                              size_t report_size)
{
    (void)needs_gpu;
    (void)keep_executor;
    if (report_size) {
        report[0] = '\0';
    }
    return 0;
}

/* A call of the lab's API that failed on the executor's side fails the test that made it. */
void kit_remote_failure(const char *message)
{
    if (CU_get_current_test()) {
        kit_fail_at("(grader)", 0, "%s", message);
    } else {
        fprintf(stderr, "%s\n", message);
    }
}

/* ---- JUnit XML, written from the run handlers (CUnit 2.1-3's own writer is broken) ----- */

static void xml_escaped(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*text, out);
        }
    }
}

/* ---- run handlers ----------------------------------------------------------------------- */

/* `ID` is SUITE/TEST, cut to fit a note. */
static void note_test(const char *what, const CU_pSuite suite, const CU_pTest test,
                      const char *rest)
{
    char note[400];
    if (snprintf(note, sizeof note, "%s %s/%s%s", what, suite->pName, test->pName, rest) >= 0) {
        kit_result_channel_note(note);
    }
}

static void on_test_start(const CU_pTest test, const CU_pSuite suite)
{
    skip_reason[0] = '\0';
    if (batch) {
        note_test("start", suite, test, "");
    }
    test_started_ms = kit_host_ms();
}

/* The first failure, as the grader shows it: on the result channel, which only this process
 * writes (what the student's code prints shares stdout and proves nothing). */
static void note_failure(const CU_pSuite suite, const CU_pTest test, const char *where,
                         unsigned line, const char *message)
{
    char note[400]; /* longer messages are cut: the channel takes short lines */
    if (snprintf(note, sizeof note, "fail %s/%s %s:%u: %s", suite->pName, test->pName, where, line,
                 message) >= 0) {
        kit_result_channel_note(note);
    }
}

/* One test's outcome, as on_test_complete() found it. */
struct outcome {
    CU_pSuite suite;
    CU_pTest test;
    CU_pFailureRecord failures; /* CUnit's, of the test's own checks */
    const char *measured;       /* the grader's reason when measured_failure */
    int measured_failure;       /* failed by what only the outside can measure */
    int failing, skipping;
    double ms;
};

/* For the student: the verdict line, then each failure or the reason it did not run. */
static void print_outcome(const struct outcome *o)
{
    printf("%s %s/%s (%.0f ms)\n",
           o->failing    ? "FAIL"
           : o->skipping ? "SKIPPED"
                         : "PASS",
           o->suite->pName, o->test->pName, o->ms);
    for (CU_pFailureRecord f = o->failures; f; f = f->pNext) {
        printf("    %s:%u: %s\n", f->strFileName ? f->strFileName : "?", f->uiLineNumber,
               f->strCondition ? f->strCondition : "");
    }
    if (o->measured_failure) {
        printf("    (grader):0: %s\n", o->measured);
    }
    if (o->skipping) {
        printf("    not run: %s\n", skip_reason);
    }
    fflush(stdout);
}

/* For the grader: the first failure, or why the test was skipped, on the result channel. */
static void note_outcome(const struct outcome *o)
{
    const CU_pFailureRecord failures = o->failures;
    if (failures) {
        note_failure(o->suite, o->test, failures->strFileName ? failures->strFileName : "?",
                     failures->uiLineNumber, failures->strCondition ? failures->strCondition : "");
    } else if (o->measured_failure) {
        note_failure(o->suite, o->test, "(grader)", 0, o->measured);
    } else if (o->skipping) {
        char note[400];
        if (snprintf(note, sizeof note, "skip %s/%s %s", o->suite->pName, o->test->pName,
                     skip_reason) >= 0) {
            kit_result_channel_note(note);
        }
    }
}

static void write_junit_testcase(const struct outcome *o)
{
    fprintf(junit, "  <testcase classname=\"");
    xml_escaped(junit, o->suite->pName);
    fprintf(junit, "\" name=\"");
    xml_escaped(junit, o->test->pName);
    fprintf(junit, "\" time=\"%.3f\">", o->ms / 1e3);
    if (o->failing) {
        fprintf(junit, "<failure message=\"");
        xml_escaped(junit, o->failures && o->failures->strCondition ? o->failures->strCondition
                                                                    : o->measured);
        fprintf(junit, "\"/>");
    } else if (o->skipping) {
        fprintf(junit, "<skipped message=\"");
        xml_escaped(junit, skip_reason);
        fprintf(junit, "\"/>");
    }
    fprintf(junit, "</testcase>\n");
}

static void on_test_complete(const CU_pTest test, const CU_pSuite suite,
                             const CU_pFailureRecord failures)
{
    double ms = kit_host_ms() - test_started_ms;
    /* What only the outside can tell: the executor's CPU time, whether it used the GPU. */
    char measured[512];
    int keep = batch && failures == NULL && !skip_reason[0];
    int measured_failure =
        kit_remote_end_test(is_gpu_suite(suite), keep, measured, sizeof measured);
    int failing = failures != NULL || measured_failure;
    int skipping = !failing && skip_reason[0];
    struct outcome outcome = {.suite = suite,
                              .test = test,
                              .failures = failures,
                              .measured = measured,
                              .measured_failure = measured_failure,
                              .failing = failing,
                              .skipping = skipping,
                              .ms = ms};
    last_test_passed = !failing && !skipping;
    print_outcome(&outcome);
    note_outcome(&outcome);
    if (failing) {
        failed++;
    } else if (skipping) {
        skipped++;
    } else {
        passed++;
    }
    if (batch) {
        char rest[64];
        snprintf(rest, sizeof rest, " %s %.0f", failing ? "fail" : skipping ? "skip" : "pass", ms);
        note_test("done", suite, test, rest);
    }
    if (junit) {
        write_junit_testcase(&outcome);
    }
}

static void on_suite_init_failure(const CU_pSuite suite)
{
    printf("FAIL %s: suite setup failed\n", suite->pName);
    failed++;
}

/* ---- options ---------------------------------------------------------------------------- */

static void usage(const char *program, FILE *out)
{
    fprintf(
        out,
        "usage: %s [-l] [-s SUITE] [-t SUITE/TEST]... [-x FILE] [-h]\n"
        "  -l             list the tests, one SUITE/TEST a line, marked [gpu] (needs a GPU),\n"
        "                 [sanitize] (small enough for compute-sanitizer) and [emulate] (run\n"
        "                 by make emulate, on the CPU emulation)\n"
        "  -s SUITE       run only this suite\n"
        "  -t SUITE/TEST  run only this test; given several times, run those tests in that\n"
        "                 order and stop after the first that does not pass (the grader's\n"
        "                 batches: one process, and one executor while they pass)\n"
        "  -x FILE        also write the results as JUnit XML to FILE\n"
        "  -h             this help\n"
        "  -- COMMAND...  (the grader's verdict binaries) run the lab's code in COMMAND\n"
        "Without a usable GPU, GPU suites print 'SKIPPED <suite>: <reason>'.\n"
        "Then 'N passed, N failed, N skipped'. Exit code: 0 every test ran and passed, 1 a test\n"
        "failed, 2 bad options or unknown suite/test, 3 no failure but tests skipped for lack\n"
        "of a GPU (said on the last line).\n"
        "With KIT_RESULT_FD and KIT_RESULT_TOKEN set (by grading/grade), the same counts\n"
        "also go to that descriptor as 'TOKEN PASSED FAILED SKIPPED'.\n",
        program);
}

static void list_tests(void)
{
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            int marks = marks_of(t);
            printf("%s/%s%s%s%s\n", s->pName, t->pName, is_gpu_suite(s) ? " [gpu]" : "",
                   (marks & KIT_TEST_SANITIZE) ? " [sanitize]" : "",
                   (marks & KIT_TEST_EMULATE) ? " [emulate]" : "");
        }
    }
}

static int count_active_tests(CU_pSuite suite)
{
    int count = 0;
    for (CU_pTest t = suite->pTest; t; t = t->pNext) {
        count++;
    }
    return count;
}

/* SUITE/TEST to its suite and test; prints why not and returns -1. */
static int find_test(const char *program, const char *id, CU_pSuite *suite, CU_pTest *test)
{
    char suite_name[256];
    const char *slash = strchr(id, '/');
    size_t len = slash ? (size_t)(slash - id) : 0;
    if (!slash || len >= sizeof suite_name) {
        fprintf(stderr, "%s: -t wants SUITE/TEST, got '%s'\n", program, id);
        return -1;
    }
    memcpy(suite_name, id, len);
    suite_name[len] = '\0';
    *suite = CU_get_suite(suite_name);
    if (!*suite) {
        fprintf(stderr, "%s: no suite '%s' (see -l)\n", program, suite_name);
        return -1;
    }
    *test = CU_get_test(*suite, slash + 1);
    if (!*test) {
        fprintf(stderr, "%s: no test '%s' (see -l)\n", program, id);
        return -1;
    }
    return 0;
}

/* ---- main, step by step ----------------------------------------------------------------- */

/* What a step returns when the run goes on; anything else is the exit code (all are >= 0). */
#define GO_ON (-1)

struct run_options {
    const char *only_suite, *xml_path;
    const char *only_tests[MAX_BATCH];
    int test_count, list;
};

/* What to run: one suite (-s), the tests named (-t), or everything (neither). */
struct selection {
    CU_pSuite suite;
    CU_pSuite test_suites[MAX_BATCH];
    CU_pTest tests[MAX_BATCH];
    int test_count;
};

static int parse_options(int argc, char **argv, struct run_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(arg, "-l") == 0) {
            o->list = 1;
        } else if (strcmp(arg, "-s") == 0 && has_value) {
            o->only_suite = argv[++i];
        } else if (strcmp(arg, "-t") == 0 && has_value) {
            if (o->test_count == MAX_BATCH) {
                fprintf(stderr, "%s: at most %d -t options\n", argv[0], MAX_BATCH);
                return KIT_EXIT_USAGE;
            }
            o->only_tests[o->test_count++] = argv[++i];
        } else if (strcmp(arg, "-x") == 0 && has_value) {
            o->xml_path = argv[++i];
        } else if (strcmp(arg, "--") == 0 && i + 1 < argc) {
            if (kit_remote_configure(argv + i + 1) != 0) {
                fprintf(stderr,
                        "%s: this test binary runs the lab's code itself; '--' takes "
                        "no command\n",
                        argv[0]);
                return KIT_EXIT_USAGE;
            }
            break;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(argv[0], stdout);
            return KIT_EXIT_OK;
        } else {
            fprintf(stderr, "%s: bad option '%s'\n", argv[0], arg);
            usage(argv[0], stderr);
            return KIT_EXIT_USAGE;
        }
    }
    return GO_ON;
}

static int register_tests(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "runner: CUnit: %s\n", CU_get_error_msg());
        return KIT_EXIT_USAGE;
    }
    kit_register_suites();
    kit_register_hidden_suites();
    return GO_ON;
}

static int select_tests(const char *program, const struct run_options *o, struct selection *run)
{
    if (o->only_suite && o->test_count) {
        fprintf(stderr, "%s: -s and -t do not go together\n", program);
        return KIT_EXIT_USAGE;
    }
    if (o->only_suite) {
        run->suite = CU_get_suite(o->only_suite);
        if (!run->suite) {
            fprintf(stderr, "%s: no suite '%s' (see -l)\n", program, o->only_suite);
            return KIT_EXIT_USAGE;
        }
    }
    for (int k = 0; k < o->test_count; k++) {
        if (find_test(program, o->only_tests[k], &run->test_suites[k], &run->tests[k]) != 0) {
            return KIT_EXIT_USAGE;
        }
    }
    run->test_count = o->test_count;
    batch = run->test_count > 1;
    return GO_ON;
}

/* GPU suites on a machine without a usable GPU: inactive, and said so. Their tests count as
 * skipped here, since CUnit's handlers never see an inactive suite's tests. */
static void skip_gpu_suites_without_gpu(const struct selection *run)
{
    char reason[256];
    int gpu_ready = 1;
    if (gpu_suite_count > 0) {
        gpu_ready = kit_gpu_probe(reason, sizeof reason) == KIT_GPU_READY;
        if (gpu_ready) {
            printf("GPU: %s\n", reason);
        }
    }
    CU_set_fail_on_inactive(CU_FALSE);
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
        int named = 0;
        for (int k = 0; k < run->test_count; k++) {
            named += run->test_suites[k] == s;
        }
        int wanted = run->test_count ? named > 0 : !run->suite || s == run->suite;
        if (wanted && is_gpu_suite(s) && !gpu_ready) {
            CU_set_suite_active(s, CU_FALSE);
            printf("SKIPPED %s: %s\n", s->pName, reason);
            skipped += run->test_count ? (unsigned)named : (unsigned)count_active_tests(s);
        }
    }
}

static int open_junit(const char *xml_path, const char *program)
{
    if (!xml_path) {
        return GO_ON;
    }
    junit = fopen(xml_path, "w");
    if (!junit) {
        perror(xml_path);
        return KIT_EXIT_USAGE;
    }
    fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"%s\">\n",
            program);
    return GO_ON;
}

static void run_selected(const struct selection *run)
{
    CU_set_test_start_handler(on_test_start);
    CU_set_test_complete_handler(on_test_complete);
    CU_set_suite_init_failure_handler(on_suite_init_failure);
    if (run->test_count) {
        for (int k = 0; k < run->test_count; k++) {
            last_test_passed = 0;
            CU_run_test(run->test_suites[k], run->tests[k]);
            if (batch && !last_test_passed) {
                break; /* the grader runs the rest again, each failure in a process of its own */
            }
        }
    } else if (run->suite) {
        CU_run_suite(run->suite);
    } else {
        CU_run_all_tests();
    }
}

/* The counts on stdout and on the result channel, and the exit code they make. */
static int finish(void)
{
    /* Read CUnit's own count too, before the registry goes: a failure our handlers did not
     * see (a suite's setup, say) must still fail the run. */
    unsigned cunit_failed = CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    if (junit) {
        fprintf(junit, "</testsuite>\n");
        fclose(junit);
    }
    printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
    write_result_line(passed, failed > cunit_failed ? failed : cunit_failed, skipped);
    if (failed || cunit_failed) {
        fflush(stdout);
        return KIT_EXIT_WRONG;
    }
    if (skipped) {
        /* Skipped is not passed: a run that could not test the GPU code must not read as a
         * success (exit 0) to a student or a script. */
        printf("%u test%s not run: skipped (no usable GPU, or see above) (exit code %d)\n", skipped,
               skipped == 1 ? "" : "s", KIT_EXIT_NO_GPU);
        fflush(stdout);
        return KIT_EXIT_NO_GPU;
    }
    fflush(stdout);
    return KIT_EXIT_OK;
}

int main(int argc, char **argv)
{
    kit_result_channel_take();
    struct run_options options = {0};
    int status = parse_options(argc, argv, &options);
    if (status != GO_ON) {
        return status;
    }
    status = register_tests();
    if (status != GO_ON) {
        return status;
    }
    if (options.list) {
        list_tests();
        CU_cleanup_registry();
        return KIT_EXIT_OK;
    }
    struct selection run = {0};
    status = select_tests(argv[0], &options, &run);
    if (status != GO_ON) {
        return status;
    }
    skip_gpu_suites_without_gpu(&run);
    status = open_junit(options.xml_path, argv[0]);
    if (status != GO_ON) {
        return status;
    }
    run_selected(&run);
    return finish();
}
