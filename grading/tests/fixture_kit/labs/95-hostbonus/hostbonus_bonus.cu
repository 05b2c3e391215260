/* Fixture lab 95's bonus file as the kit hands it out (a skeleton): a submission without
 * one, or whose copy does not compile, is graded with this copy. */
#include "hostbonus.h"

extern "C" long long hostbonus_sum_squares(const int *values, size_t n)
{
    (void)values;
    (void)n;
    return -1; /* TODO 5.2 */
}
