/* Fixture lab 91 of the grader's own tests: host functions, graded like a real lab. */
#ifndef FIXTURE_HOSTSUM_H
#define FIXTURE_HOSTSUM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO 1.1: the sum of the n values. */
long long hostsum_total(const int *values, size_t n);

/* TODO 1.2: the largest of the n values (n >= 1). */
int hostsum_max(const int *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
