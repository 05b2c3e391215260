/* Fixture lab 93 of the grader's own tests: a lab whose rubric allows files, processes and
 * sockets, so that a hostile submission can try at run time what the sandbox must stop. */
#ifndef FIXTURE_SANDBOX_H
#define FIXTURE_SANDBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TODO 3.1: how many values there are (n). */
size_t sandbox_count(const int *values, size_t n);

#ifdef __cplusplus
}
#endif

#endif
