/* Fixture lab 92's reference solution. */
#include "hostcount.h"

extern "C" size_t hostcount_zeros(const int *values, size_t n)
{
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        zeros += values[i] == 0;
    }
    return zeros;
}
