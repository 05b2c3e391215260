/* Fixture lab 95's reference solution, the graded file. */
#include "hostbonus.h"

extern "C" long long hostbonus_sum(const int *values, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += values[i];
    }
    return total;
}
