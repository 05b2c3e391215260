/*
 * sandbox_exec: sets limits, cleans the environment, drops to another user, then runs a
 * program in its place. The grader (grading/kitgrader/sandbox.py) puts it in front of every
 * command that compiles or runs a student's code:
 *
 *   sandbox_exec [--cpu S] [--as B] [--data B] [--fsize B] [--nproc N] [--nofile N]
 *                [--uid N --gid N] [--chdir DIR] [--setsid] [--no-new-privs]
 *                [--clearenv] [--keep-env NAME]... [--setenv NAME VALUE]...
 *                -- PROGRAM ARGS...
 *
 * Why a C program: the grader starts processes from Python, and a Python preexec_fn runs in
 * a forked copy of a threaded interpreter, where anything but async-signal-safe calls can
 * deadlock. Here every step happens in a plain single-threaded process, and the steps are
 * the first words of an ordinary argv, so the caller needs no hook at all.
 *
 * In this order, whatever order the options come in:
 *   1. the rlimits (soft = hard, so the program cannot raise them back): --cpu seconds of
 *      CPU time, --as bytes of address space, --data bytes of data segment, --fsize bytes
 *      per file written, --nproc processes of the (new) user, --nofile open files;
 *   2. --chdir DIR (before the uid drop, so DIR need not be reachable by the new user when
 *      the program is bubblewrap, which changes directory again inside the sandbox);
 *   3. --setsid: a session of its own unless it already leads one (no terminal to inject
 *      keystrokes into);
 *   4. --uid/--gid (both or neither): setgroups(0, NULL), setgid, setuid; then it checks that
 *      neither root's uid nor root's gid can be taken back;
 *   5. --no-new-privs: no setuid or file-capability program can give privileges back;
 *   6. the environment: --keep-env names are read first, then --clearenv empties it, then
 *      the kept names and the --setenv pairs are set (--setenv wins);
 *   7. execvp(PROGRAM) with the new PATH.
 * Any failure: one line `sandbox_exec: ...` on stderr and exit status 125, before PROGRAM
 * runs, so the caller can tell "the sandbox did not start" from anything PROGRAM does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define EXIT_SANDBOX 125 /* the sandbox could not be set up; PROGRAM never ran */
#define MAX_ENV 64       /* --keep-env and --setenv items, each */

static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("sandbox_exec: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(EXIT_SANDBOX);
}

static unsigned long long number(const char *option, const char *text)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0) {
        fail("%s: '%s' is not a number", option, text);
    }
    return value;
}

struct limit {
    const char *option;
    int resource;
    int given;
    unsigned long long value;
};

struct setting {
    const char *name;
    const char *value;
};

int main(int argc, char **argv)
{
    struct limit limits[] = {
        {"--cpu", RLIMIT_CPU, 0, 0},     {"--as", RLIMIT_AS, 0, 0},
        {"--data", RLIMIT_DATA, 0, 0},   {"--fsize", RLIMIT_FSIZE, 0, 0},
        {"--nproc", RLIMIT_NPROC, 0, 0}, {"--nofile", RLIMIT_NOFILE, 0, 0},
    };
    const size_t limit_count = sizeof limits / sizeof limits[0];
    long long uid = -1, gid = -1;
    const char *chdir_to = NULL;
    int new_session = 0, no_new_privs = 0, clear_env = 0;
    struct setting keep[MAX_ENV], set[MAX_ENV];
    size_t keep_count = 0, set_count = 0;

    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *option = argv[i];
        int takes = strcmp(option, "--setenv") == 0 ? 2 : 1;
        if (strcmp(option, "--setsid") == 0) {
            new_session = 1;
            continue;
        }
        if (strcmp(option, "--no-new-privs") == 0) {
            no_new_privs = 1;
            continue;
        }
        if (strcmp(option, "--clearenv") == 0) {
            clear_env = 1;
            continue;
        }
        if (i + takes >= argc) {
            fail("%s: missing value (usage: sandbox_exec [options] -- PROGRAM ARGS...)", option);
        }
        const char *value = argv[i + 1];
        size_t k = 0;
        while (k < limit_count && strcmp(option, limits[k].option) != 0) {
            k++;
        }
        if (k < limit_count) {
            limits[k].given = 1;
            limits[k].value = number(option, value);
        } else if (strcmp(option, "--uid") == 0 || strcmp(option, "--gid") == 0) {
            unsigned long long id = number(option, value);
            if (id == 0 || id >= (unsigned long long)UINT_MAX) {
                fail("%s %s: must be a user other than root", option, value);
            }
            *(option[2] == 'u' ? &uid : &gid) = (long long)id;
        } else if (strcmp(option, "--chdir") == 0) {
            chdir_to = value;
        } else if (strcmp(option, "--keep-env") == 0 || strcmp(option, "--setenv") == 0) {
            int is_set = option[2] == 's';
            if ((is_set ? set_count : keep_count) >= MAX_ENV) {
                fail("%s: more than %d given", option, MAX_ENV);
            }
            if (value[0] == '\0' || strchr(value, '=') != NULL) {
                fail("%s: bad variable name '%s'", option, value);
            }
            if (is_set) {
                set[set_count++] = (struct setting){value, argv[i + 2]};
            } else {
                keep[keep_count++] = (struct setting){value, NULL};
            }
        } else {
            fail("unknown option '%s' (usage: sandbox_exec [options] -- PROGRAM ARGS...)", option);
        }
        i += takes;
    }
    if (i + 1 >= argc) {
        fail("no program to run (usage: sandbox_exec [options] -- PROGRAM ARGS...)");
    }
    if ((uid < 0) != (gid < 0)) {
        fail("--uid and --gid go together");
    }
    char **program = argv + i + 1;

    for (size_t k = 0; k < limit_count; k++) {
        if (limits[k].given) {
            rlim_t value = (rlim_t)limits[k].value;
            struct rlimit limit = {value, value};
            if (setrlimit(limits[k].resource, &limit) != 0) {
                fail("%s %llu: %s", limits[k].option, limits[k].value, strerror(errno));
            }
        }
    }
    if (chdir_to != NULL && chdir(chdir_to) != 0) {
        fail("--chdir %s: %s", chdir_to, strerror(errno));
    }
    /* The grader usually starts it as a session leader already; setsid() would then fail. */
    if (new_session && getsid(0) != getpid() && setsid() < 0) {
        fail("--setsid: %s", strerror(errno));
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0) {
            fail("setgroups: %s (dropping to another user needs root)", strerror(errno));
        }
        if (setgid((gid_t)gid) != 0) {
            fail("setgid %lld: %s", gid, strerror(errno));
        }
        if (setuid((uid_t)uid) != 0) {
            fail("setuid %lld: %s", uid, strerror(errno));
        }
        if (setuid(0) == 0 || setgid(0) == 0 || geteuid() != (uid_t)uid ||
            getegid() != (gid_t)gid) {
            fail("root's ids could be taken back after dropping to %lld:%lld", uid, gid);
        }
    }
    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fail("--no-new-privs: %s", strerror(errno));
    }
    for (size_t k = 0; k < keep_count; k++) {
        const char *value = getenv(keep[k].name);
        keep[k].value = value == NULL ? NULL : strdup(value);
        if (value != NULL && keep[k].value == NULL) {
            fail("--keep-env %s: out of memory", keep[k].name);
        }
    }
    if (clear_env && clearenv() != 0) {
        fail("--clearenv failed");
    }
    for (size_t k = 0; k < keep_count; k++) {
        if (keep[k].value != NULL && setenv(keep[k].name, keep[k].value, 1) != 0) {
            fail("--keep-env %s: %s", keep[k].name, strerror(errno));
        }
    }
    for (size_t k = 0; k < set_count; k++) {
        if (setenv(set[k].name, set[k].value, 1) != 0) {
            fail("--setenv %s: %s", set[k].name, strerror(errno));
        }
    }
    execvp(program[0], program);
    fail("%s: %s", program[0], strerror(errno));
    return EXIT_SANDBOX;
}
