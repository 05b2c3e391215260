/* Suites of fixture lab 95: host-only, the graded TODO (5.1) and the bonus (5.2), whose
 * functions live in the lab's two student files. */
#include <stdlib.h>

#include "hostbonus.h"
#include "runner.h"

static int *filled(size_t n, int start)
{
    int *values = malloc(n * sizeof *values);
    for (size_t i = 0; i < n; i++) {
        values[i] = start + (int)((i * 7919) % 1000);
    }
    return values;
}

static void check_sum(size_t n, int start)
{
    int *values = filled(n, start);
    long long want = 0;
    for (size_t i = 0; i < n; i++) {
        want += values[i];
    }
    long long got = hostbonus_sum(values, n);
    if (got != want) {
        KIT_FAIL("hostbonus_sum(n=%zu, start=%d) should be %lld, got %lld", n, start, want, got);
    }
    free(values);
}

static void check_squares(size_t n, int start)
{
    int *values = filled(n, start);
    long long want = 0;
    for (size_t i = 0; i < n; i++) {
        want += (long long)values[i] * values[i];
    }
    long long got = hostbonus_sum_squares(values, n);
    if (got != want) {
        KIT_FAIL("hostbonus_sum_squares(n=%zu, start=%d) should be %lld, got %lld", n, start, want,
                 got);
    }
    free(values);
}

static void test_sum_small(void)
{
    check_sum(10, 1);
}

static void test_sum_negative(void)
{
    check_sum(1000, -700);
}

static void test_squares_small(void)
{
    check_squares(10, 1);
}

static void test_squares_negative(void)
{
    check_squares(1000, -700);
}

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("5.1_sum", 0);
    kit_add_test(s, "small", test_sum_small);
    kit_add_test(s, "negative", test_sum_negative);
    s = kit_add_suite("5.2_squares", 0);
    kit_add_test(s, "small", test_squares_small);
    kit_add_test(s, "negative", test_squares_negative);
}
