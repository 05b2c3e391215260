/* The suite of fixture lab 92: host-only (no GPU). */
#include "hostcount.h"
#include "runner.h"

static void test_zeros_some(void)
{
    const int values[] = {0, 1, 0, 2, 0};
    size_t got = hostcount_zeros(values, 5);
    if (got != 3) {
        KIT_FAIL("hostcount_zeros({0,1,0,2,0}) should be 3, got %zu", got);
    }
}

static void test_zeros_none(void)
{
    const int values[] = {1, 2, 3};
    size_t got = hostcount_zeros(values, 3);
    if (got != 0) {
        KIT_FAIL("hostcount_zeros({1,2,3}) should be 0, got %zu", got);
    }
}

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("2.1_zeros", 0);
    kit_add_sanitized_test(s, "some", test_zeros_some);
    kit_add_test(s, "none", test_zeros_none);
}
