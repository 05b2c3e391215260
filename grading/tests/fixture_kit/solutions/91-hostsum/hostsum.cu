/* Fixture lab 91's reference solution. */
#include "hostsum.h"

extern "C" long long hostsum_total(const int *values, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += values[i];
    }
    return total;
}

extern "C" int hostsum_max(const int *values, size_t n)
{
    int best = values[0];
    for (size_t i = 1; i < n; i++) {
        best = values[i] > best ? values[i] : best;
    }
    return best;
}
