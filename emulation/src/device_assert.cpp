/*
 * assert() in device code (emulation/README.md): on a GPU a failed assertion prints its message
 * and stops the kernel with cudaErrorAssert, a sticky error the host's next call returns. The C
 * library's assert() ends the whole process instead, so the emulation defines the function that
 * glibc's assert() calls: in a kernel it is the launch's fault, with the thread and the line; in
 * host code it prints and aborts as the C library does.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__GLIBC__)
extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line,
                              const char *function) noexcept
{
    if (kit_emu::current_thread) {
        kit_emu::fault(cudaErrorAssert, file, (int)line, "%s: assertion '%s' failed", function,
                       assertion);
    }
    fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
    fflush(stderr);
    abort();
}
#endif
