/* Fixture lab 93's reference solution. */
#include "sandbox.h"

extern "C" size_t sandbox_count(const int *values, size_t n)
{
    (void)values;
    return n;
}
