/* Fixture lab 95 of the grader's own tests: a lab of two student files, its bonus TODO in a
 * file of its own (hostbonus_bonus.cu), as Labs 02-04 are. Host functions only. */
#ifndef FIXTURE_HOSTBONUS_H
#define FIXTURE_HOSTBONUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO 5.1 (hostbonus.cu): the sum of the n values. */
long long hostbonus_sum(const int *values, size_t n);

/* TODO 5.2, bonus (hostbonus_bonus.cu): the sum of the squares of the n values. */
long long hostbonus_sum_squares(const int *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
