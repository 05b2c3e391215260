/*
 * An emulated program built before its source last changed says so and stops, instead of
 * testing the code of before (a student who edits a lab file and runs
 * build/emulate/student/test_NN_name by hand, without make emulate, which rebuilds it).
 */
#include "internal.h"
#include "platform.h"

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
    std::string self = program_path();
    /* (a source that is not there, or a program that cannot be found: nothing said) */
    if (!source || self.empty() || stat(source, &file) != 0 || stat(self.c_str(), &program) != 0) {
        return;
    }
    /* A file dated in the future (a clock that differs from the machine's, as a folder
     * shared with another system may have) cannot be judged: every build would be older. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (later(modified(file), modified(program)) && !later(modified(file), now)) {
        fprintf(stderr,
                "emulation: %s changed after this program was built from it, so it would test "
                "your code as it was before: run make emulate again (it rebuilds what changed)\n",
                source);
        exit(2);
    }
}

} // namespace kit_emu
