/* Fixture lab 92 of the grader's own tests: it has no rubric, so it gets the default one. */
#ifndef FIXTURE_HOSTCOUNT_H
#define FIXTURE_HOSTCOUNT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO 2.1: how many of the n values are 0. */
size_t hostcount_zeros(const int *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
