/* Fixture lab 95's reference solution, the bonus file. */
#include "hostbonus.h"

extern "C" long long hostbonus_sum_squares(const int *values, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += (long long)values[i] * values[i];
    }
    return total;
}
