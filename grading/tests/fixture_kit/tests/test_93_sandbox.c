/* Suites of fixture lab 93: host-only (no GPU). */
#include <stdlib.h>

#include "runner.h"
#include "sandbox.h"

static void test_count(void)
{
    int values[7] = {0};
    size_t got = sandbox_count(values, 7);
    if (got != 7) {
        KIT_FAIL("sandbox_count(n=7) should be 7, got %zu", got);
    }
}

void kit_register_suites(void)
{
    CU_pSuite s = kit_add_suite("3.1_count", 0);
    kit_add_test(s, "seven", test_count);
}
