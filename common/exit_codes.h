/**
 * @file exit_codes.h
 * @brief The exit codes every program of the kit uses (drivers, test runners, grader).
 */
#ifndef KIT_EXIT_CODES_H
#define KIT_EXIT_CODES_H

/** Everything ran and every check passed. */
#define KIT_EXIT_OK 0
/** The program ran, but a result was wrong (a sort that does not sort, a failed test). */
#define KIT_EXIT_WRONG 1
/** Bad command line: unknown option, a number that is not one, n too large. */
#define KIT_EXIT_USAGE 2
/** No usable NVIDIA GPU: no driver, or a driver and no device. */
#define KIT_EXIT_NO_GPU 3
/** A CUDA call failed while running (including a TODO not written yet). */
#define KIT_EXIT_CUDA 4

#endif
