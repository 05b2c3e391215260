/* Fixture lab 94 of the grader's own tests: a GPU suite (which a machine without a GPU must
 * never pass, whatever the student's process answers) and a host suite (whose CPU time the
 * grader measures from outside). Every suite is a bonus, so the other fixtures' maxima stay. */
#ifndef FIXTURE_DEVCOUNT_H
#define FIXTURE_DEVCOUNT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO 4.1: on the GPU, how many of the n values at d_values are 0, into *d_count. */
cudaError_t devcount_zeros(const int *d_values, size_t n, unsigned long long *d_count);

/* TODO 4.2: on the host, how many of the n values are 0. */
size_t devcount_zeros_host(const int *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
