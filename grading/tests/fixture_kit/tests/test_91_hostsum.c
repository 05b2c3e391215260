/* Suites of fixture lab 91: host-only (no GPU), one per TODO, like a real lab's. */
#include <stdlib.h>

#include "hostsum.h"
#include "runner.h"

static void fill(int *values, size_t n, int start)
{
    for (size_t i = 0; i < n; i++) {
        values[i] = start + (int)((i * 7919) % 1000);
    }
}

static long long expected_total(const int *values, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += values[i];
    }
    return total;
}

static int expected_max(const int *values, size_t n)
{
    int best = values[0];
    for (size_t i = 1; i < n; i++) {
        best = values[i] > best ? values[i] : best;
    }
    return best;
}

static void check_total(size_t n, int start)
{
    int *values = malloc(n * sizeof *values);
    fill(values, n, start);
    long long got = hostsum_total(values, n), want = expected_total(values, n);
    if (got != want) {
        KIT_FAIL("hostsum_total(n=%zu, start=%d) should be %lld, got %lld", n, start, want, got);
    }
    free(values);
}

static void check_max(size_t n, int start)
{
    int *values = malloc(n * sizeof *values);
    fill(values, n, start);
    int got = hostsum_max(values, n), want = expected_max(values, n);
    if (got != want) {
        KIT_FAIL("hostsum_max(n=%zu, start=%d) should be %d, got %d", n, start, want, got);
    }
    free(values);
}

static void test_total_small(void)
{
    check_total(10, 1);
}

static void test_total_large(void)
{
    check_total(100000, 1);
}

static void test_max_positive(void)
{
    check_max(1000, 5);
}

static void test_max_negative(void)
{
    check_max(1000, -5000);
}

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("1.1_total", 0);
    kit_add_sanitized_test(s, "small", test_total_small);
    kit_add_test(s, "large", test_total_large);
    s = kit_add_suite("1.2_max", 0);
    kit_add_test(s, "positive", test_max_positive);
    kit_add_test(s, "negative", test_max_negative);
}
