/*
 * An emulated program built before its source last changed says so and stops, instead of
 * testing the code of before (a student who edits a lab file and runs
 * build/emulate/student/test_NN_name by hand, without make emulate, which rebuilds it).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

namespace kit_emu
{

static bool later(const struct timespec &a, const struct timespec &b)
{
    return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

void check_fresh(const char *source)
{
    struct stat file, program;
    /* (a source that is not there, or no /proc: nothing to compare, nothing said) */
    if (!source || stat(source, &file) != 0 || stat("/proc/self/exe", &program) != 0) {
        return;
    }
    /* A file dated in the future (a clock that differs from the machine's, as a folder
     * shared with another system may have) cannot be judged: every build would be older. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (later(file.st_mtim, program.st_mtim) && !later(file.st_mtim, now)) {
        fprintf(stderr,
                "emulation: %s changed after this program was built from it, so it would test "
                "your code as it was before: run make emulate again (it rebuilds what changed)\n",
                source);
        exit(2);
    }
}

} // namespace kit_emu
