/*
 * sandbox_exec: sets limits, cleans the environment, drops to another user, then runs a
 * program in its place. The grader (grading/kitgrader/sandbox.py) puts it in front of every
 * command that compiles or runs a student's code:
 *
 *   sandbox_exec [--cpu S] [--as B] [--data B] [--fsize B] [--nproc N] [--nofile N]
 *                [--uid N --gid N] [--chdir DIR] [--setsid] [--no-new-privs]
 *                [--clearenv] [--keep-env NAME]... [--setenv NAME VALUE]...
 *                [--seccomp run|tool] -- PROGRAM ARGS...
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
 *   7. --seccomp PROFILE, the very last step: no new privileges (as --no-new-privs), then a
 *      seccomp filter that PROGRAM and everything it starts keep (see seccomp_filter());
 *   8. execve(PROGRAM), found on the new PATH as execvp() would.
 * Any failure: one line `sandbox_exec: ...` on stderr and exit status 125, before PROGRAM
 * runs, so the caller can tell "the sandbox did not start" from anything PROGRAM does.
 *
 * The seccomp profiles are deny lists (a denied call fails with EPERM unless said otherwise):
 *   run   the process that runs a student's code. Threads yes (clone with CLONE_THREAD);
 *         clone3 fails with ENOSYS, so the C library falls back to clone, whose flags a
 *         filter can read. No new process (fork, vfork, clone without CLONE_THREAD), no
 *         namespace flags on a clone, no execve/execveat (the process is killed: see below),
 *         no signal to any process but itself (kill, tkill, tgkill, rt_sigqueueinfo,
 *         rt_tgsigqueueinfo, pidfd_open: the target must be the pid this launcher has, which
 *         PROGRAM keeps, so abort() and raise() work; pidfd_send_signal never), no setsid or
 *         setpgid (it stays in the process group the grader kills), no socket but AF_UNIX
 *         (the CUDA driver's initialisation fails without one: cudaErrorOperatingSystem;
 *         bubblewrap's own network namespace and views leave it nothing to reach), no
 *         ptrace, process_vm_readv/writev, pidfd_getfd, kcmp, mount and the new mount API,
 *         umount2, pivot_root, chroot, unshare, setns, bpf, perf_event_open, io_uring,
 *         userfaultfd, keyctl, add_key, request_key, personality (but its query), modules,
 *         kexec, reboot, swapon/swapoff, acct.
 *   tool  a program that runs PROGRAM's student code itself (compute-sanitizer): the same,
 *         but fork, vfork, clone, exec, signals and setsid/setpgid are allowed (it starts its
 *         target and talks to it).
 * A call made through the x32 ABI, or for another architecture, kills the process.
 *
 * The launcher must exec PROGRAM under a filter that forbids exec. So it copies PROGRAM's
 * path into a page of its own at a random address (47 bits from getrandom, page-aligned,
 * MAP_FIXED_NOREPLACE), and the run profile allows execve only when its path argument is
 * that address (both 32-bit halves); any other execve or execveat kills the process
 * (SECCOMP_RET_KILL_PROCESS, not EPERM, so that guesses cannot be repeated). After the exec
 * the address space is new and the address is nowhere in it: PROGRAM cannot name it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* ---- seccomp -------------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#endif

#define MAX_FILTER 512
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define ARG_HI(n) (ARG_LO(n) + 4) /* little-endian: the high half comes second */
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define NO_SUCH_CALL (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
/* Flags that would give a new thread or process namespaces of its own. */
#define NAMESPACE_FLAGS                                                                            \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |  \
     CLONE_NEWNET)

struct filter {
    struct sock_filter code[MAX_FILTER];
    unsigned short length;
};

static void put(struct filter *f, struct sock_filter instruction)
{
    if (f->length >= MAX_FILTER) {
        fail("--seccomp: the filter is too long");
    }
    f->code[f->length++] = instruction;
}

/* The accumulator holds the call's number at every rule's start, and every rule's body ends
 * in a return, so a call that a rule does not match goes on to the next rule unchanged. */
static void rule_return(struct filter *f, long nr, unsigned int action)
{
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

/* Allowed when the low 32 bits of argument @p arg are @p value (a pid_t: the kernel reads no
 * more of it), else denied. */
static void rule_arg_is(struct filter *f, long nr, int arg, uint32_t value, unsigned int other)
{
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 4));
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, other));
}

/* clone: never with namespace flags; with @p thread_only, only with CLONE_THREAD (a thread of
 * this process). The kernel reads the low 32 bits of clone's flags. */
static void rule_clone(struct filter *f, int thread_only)
{
    put(f,
        (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, thread_only ? 5 : 4));
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACE_FLAGS,
                                        thread_only ? 2 : 1, 0));
    if (thread_only) {
        put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    }
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY));
}

/* execve: only with the path at @p secret (both halves of the pointer), else the process is
 * killed. */
static void rule_exec_secret(struct filter *f, uint64_t secret)
{
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 6));
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)secret, 0, 3));
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(0)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(secret >> 32), 0, 1));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
}

/* socket and socketpair: only AF_UNIX. */
static void rule_sockets(struct filter *f)
{
    rule_arg_is(f, SYS_socket, 0, AF_UNIX, DENY);
    rule_arg_is(f, SYS_socketpair, 0, AF_UNIX, DENY);
}

/* Denied in both profiles: what no sort needs, and what escapes or spies on a sandbox. */
static const long always_denied[] = {
    SYS_ptrace,
    SYS_process_vm_readv,
    SYS_process_vm_writev,
    SYS_kcmp,
    SYS_mount,
    SYS_umount2,
    SYS_pivot_root,
    SYS_chroot,
    SYS_unshare,
    SYS_setns,
    SYS_bpf,
    SYS_perf_event_open,
    SYS_userfaultfd,
    SYS_keyctl,
    SYS_add_key,
    SYS_request_key,
    SYS_init_module,
    SYS_finit_module,
    SYS_delete_module,
    SYS_kexec_load,
    SYS_reboot,
    SYS_swapon,
    SYS_swapoff,
    SYS_acct,
    SYS_pidfd_send_signal,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
#ifdef SYS_io_uring_setup
    SYS_io_uring_setup,
    SYS_io_uring_enter,
    SYS_io_uring_register,
#endif
#ifdef SYS_pidfd_getfd
    SYS_pidfd_getfd,
#endif
#ifdef SYS_process_madvise
    SYS_process_madvise,
#endif
#ifdef SYS_open_tree
    SYS_open_tree,
    SYS_move_mount,
    SYS_fsopen,
    SYS_fsconfig,
    SYS_fsmount,
    SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
#ifdef SYS_open_tree_attr
    SYS_open_tree_attr,
#endif
};

/* Denied in the run profile only: new processes and signals to them, sessions. */
static const long run_denied[] = {
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
    SYS_execveat, SYS_setsid, SYS_setpgid,
};

/* Signals: the target (argument 0) must be this process. */
static const long signal_calls[] = {
    SYS_kill, SYS_tkill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_pidfd_open};

static void seccomp_filter(struct filter *f, int run, uint64_t secret)
{
#ifndef SECCOMP_ARCH
    (void)f, (void)run, (void)secret;
    fail("--seccomp: not supported on this architecture");
#else
    f->length = 0;
    put(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                        offsetof(struct seccomp_data, arch)));
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    put(f,
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    /* The x32 ABI's numbers have bit 30 set: a second door to every call. */
    put(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    for (size_t i = 0; i < sizeof always_denied / sizeof always_denied[0]; i++) {
        rule_return(f, always_denied[i], DENY);
    }
    /* personality(0xffffffff) only asks. */
    rule_arg_is(f, SYS_personality, 0, 0xffffffffu, DENY);
#ifdef SYS_clone3
    rule_return(f, SYS_clone3, NO_SUCH_CALL); /* its flags are in memory a filter cannot read */
#endif
    rule_clone(f, run);
    rule_sockets(f);
    if (run) {
        for (size_t i = 0; i < sizeof run_denied / sizeof run_denied[0]; i++) {
            rule_return(f, run_denied[i],
                        run_denied[i] == SYS_execveat ? SECCOMP_RET_KILL_PROCESS : DENY);
        }
        rule_exec_secret(f, secret);
        uint32_t self = (uint32_t)getpid();
        for (size_t i = 0; i < sizeof signal_calls / sizeof signal_calls[0]; i++) {
            rule_arg_is(f, signal_calls[i], 0, self, DENY);
        }
    }
    put(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#endif
}

/* A copy of @p path at a random page-aligned address below 2^47 that nothing else uses. */
static char *secret_copy(const char *path)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t size = (strlen(path) + 1 + (size_t)page - 1) / (size_t)page * (size_t)page;
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
            fail("--seccomp: getrandom: %s", strerror(errno));
        }
        uint64_t address = r & ((UINT64_C(1) << 47) - 1) & ~(uint64_t)(page - 1);
        if (address < (UINT64_C(1) << 32) || address + size + page > (UINT64_C(1) << 47)) {
            continue; /* above 4 GiB, so the high half says something too; below the top */
        }
        void *want = (void *)(uintptr_t)address;
        char *got = mmap(want, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (got == MAP_FAILED) {
            continue;
        }
        if (got != want) { /* a kernel older than 4.17 took it as a hint */
            munmap(got, size);
            continue;
        }
        memcpy(got, path, strlen(path) + 1);
        if (mprotect(got, size, PROT_READ) != 0) {
            fail("--seccomp: mprotect: %s", strerror(errno));
        }
        return got;
    }
    fail("--seccomp: no free address for the program's path");
    return NULL;
}

/* PROGRAM as execvp() would find it on PATH: a name with a '/' as it is, else the first
 * executable regular file of that name in a folder of PATH. */
static char *find_program(const char *name)
{
    if (strchr(name, '/') != NULL) {
        return strdup(name);
    }
    const char *path = getenv("PATH");
    if (path == NULL || path[0] == '\0') {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    size_t name_length = strlen(name);
    for (const char *start = path;; start++) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        char *candidate = malloc(length + name_length + 3);
        if (candidate == NULL) {
            fail("out of memory");
        }
        snprintf(candidate, length + name_length + 3, "%.*s/%s", (int)length, length ? start : ".",
                 name);
        struct stat st;
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0) {
            return candidate;
        }
        free(candidate);
        if (end == NULL) {
            break;
        }
        start = end;
    }
    errno = ENOENT;
    return NULL;
}

/* ---- the command line ----------------------------------------------------------------------- */

#define LIMIT_COUNT 6

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

/* What the options ask for. Parsing only records it: the steps run later, in main's order. */
struct options {
    struct limit limits[LIMIT_COUNT];
    long long uid, gid; /* -1: not given */
    const char *chdir_to;
    int new_session, no_new_privs, clear_env;
    const char *profile; /* --seccomp: "run" or "tool" */
    struct setting keep[MAX_ENV], set[MAX_ENV];
    size_t keep_count, set_count;
    char **program; /* PROGRAM ARGS..., as execv wants them */
};

/* --setsid, --no-new-privs and --clearenv take no value; 0 for any other option. */
static int parse_flag(struct options *o, const char *option)
{
    if (strcmp(option, "--setsid") == 0) {
        o->new_session = 1;
    } else if (strcmp(option, "--no-new-privs") == 0) {
        o->no_new_privs = 1;
    } else if (strcmp(option, "--clearenv") == 0) {
        o->clear_env = 1;
    } else {
        return 0;
    }
    return 1;
}

static struct limit *find_limit(struct options *o, const char *option)
{
    for (size_t k = 0; k < LIMIT_COUNT; k++) {
        if (strcmp(option, o->limits[k].option) == 0) {
            return &o->limits[k];
        }
    }
    return NULL;
}

/* --uid or --gid: not root's (0), and below UINT_MAX, which is (uid_t)-1: no user's id. */
static void parse_id(struct options *o, const char *option, const char *value)
{
    unsigned long long id = number(option, value);
    if (id == 0 || id >= (unsigned long long)UINT_MAX) {
        fail("%s %s: must be a user other than root", option, value);
    }
    *(option[2] == 'u' ? &o->uid : &o->gid) = (long long)id;
}

static void parse_profile(struct options *o, const char *value)
{
    if (strcmp(value, "run") != 0 && strcmp(value, "tool") != 0) {
        fail("--seccomp %s: the profiles are run and tool", value);
    }
    o->profile = value;
}

/* --keep-env NAME, or --setenv NAME VALUE (@p values holds NAME, then VALUE). */
static void parse_env_item(struct options *o, const char *option, char *const *values)
{
    const char *name = values[0];
    int is_set = option[2] == 's';
    if ((is_set ? o->set_count : o->keep_count) >= MAX_ENV) {
        fail("%s: more than %d given", option, MAX_ENV);
    }
    if (name[0] == '\0' || strchr(name, '=') != NULL) {
        fail("%s: bad variable name '%s'", option, name);
    }
    if (is_set) {
        o->set[o->set_count++] = (struct setting){name, values[1]};
    } else {
        o->keep[o->keep_count++] = (struct setting){name, NULL};
    }
}

/* An option that takes a value; @p values are the words after it (two for --setenv). */
static void parse_valued_option(struct options *o, const char *option, char *const *values)
{
    const char *value = values[0];
    struct limit *limit = find_limit(o, option);
    if (limit != NULL) {
        limit->given = 1;
        limit->value = number(option, value);
    } else if (strcmp(option, "--uid") == 0 || strcmp(option, "--gid") == 0) {
        parse_id(o, option, value);
    } else if (strcmp(option, "--chdir") == 0) {
        o->chdir_to = value;
    } else if (strcmp(option, "--seccomp") == 0) {
        parse_profile(o, value);
    } else if (strcmp(option, "--keep-env") == 0 || strcmp(option, "--setenv") == 0) {
        parse_env_item(o, option, values);
    } else {
        fail("unknown option '%s' (usage: sandbox_exec [options] -- PROGRAM ARGS...)", option);
    }
}

static void parse_options(struct options *o, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *option = argv[i];
        if (parse_flag(o, option)) {
            continue;
        }
        int takes = strcmp(option, "--setenv") == 0 ? 2 : 1;
        if (i + takes >= argc) {
            fail("%s: missing value (usage: sandbox_exec [options] -- PROGRAM ARGS...)", option);
        }
        parse_valued_option(o, option, argv + i + 1);
        i += takes;
    }
    if (i + 1 >= argc) {
        fail("no program to run (usage: sandbox_exec [options] -- PROGRAM ARGS...)");
    }
    if ((o->uid < 0) != (o->gid < 0)) {
        fail("--uid and --gid go together");
    }
    o->program = argv + i + 1;
}

/* ---- the steps, one function each, in the order of the comment at the top ------------------ */

/* 1. Soft = hard, so the program cannot raise them back. */
static void set_limits(const struct options *o)
{
    for (size_t k = 0; k < LIMIT_COUNT; k++) {
        const struct limit *l = &o->limits[k];
        if (l->given) {
            rlim_t value = (rlim_t)l->value;
            struct rlimit limit = {value, value};
            if (setrlimit(l->resource, &limit) != 0) {
                fail("%s %llu: %s", l->option, l->value, strerror(errno));
            }
        }
    }
}

/* 2. Before the uid drop, so DIR need not be reachable by the new user. */
static void change_directory(const char *chdir_to)
{
    if (chdir_to != NULL && chdir(chdir_to) != 0) {
        fail("--chdir %s: %s", chdir_to, strerror(errno));
    }
}

/* 3. The grader usually starts it as a session leader already; setsid() would then fail. */
static void start_session(int new_session)
{
    if (new_session && getsid(0) != getpid() && setsid() < 0) {
        fail("--setsid: %s", strerror(errno));
    }
}

/* 4. Groups, then gid, then uid (setgid needs the privilege setuid gives up); then proof that
 * root's ids cannot be taken back. */
static void drop_to_user(long long uid, long long gid)
{
    if (uid < 0) {
        return;
    }
    if (setgroups(0, NULL) != 0) {
        fail("setgroups: %s (dropping to another user needs root)", strerror(errno));
    }
    if (setgid((gid_t)gid) != 0) {
        fail("setgid %lld: %s", gid, strerror(errno));
    }
    if (setuid((uid_t)uid) != 0) {
        fail("setuid %lld: %s%s", uid, strerror(errno),
             errno == EINVAL ? " (a uid this user namespace does not map: choose another "
                               "KIT_SANDBOX_UID_BASE)"
                             : "");
    }
    if (setuid(0) == 0 || setgid(0) == 0 || geteuid() != (uid_t)uid || getegid() != (gid_t)gid) {
        fail("root's ids could be taken back after dropping to %lld:%lld", uid, gid);
    }
}

/* 5. */
static void forbid_new_privileges(int no_new_privs)
{
    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fail("--no-new-privs: %s", strerror(errno));
    }
}

/* 6. The kept values are copied before --clearenv empties the environment they live in. */
static void set_environment(struct options *o)
{
    for (size_t k = 0; k < o->keep_count; k++) {
        const char *value = getenv(o->keep[k].name);
        o->keep[k].value = value == NULL ? NULL : strdup(value);
        if (value != NULL && o->keep[k].value == NULL) {
            fail("--keep-env %s: out of memory", o->keep[k].name);
        }
    }
    if (o->clear_env && clearenv() != 0) {
        fail("--clearenv failed");
    }
    for (size_t k = 0; k < o->keep_count; k++) {
        if (o->keep[k].value != NULL && setenv(o->keep[k].name, o->keep[k].value, 1) != 0) {
            fail("--keep-env %s: %s", o->keep[k].name, strerror(errno));
        }
    }
    for (size_t k = 0; k < o->set_count; k++) {
        if (setenv(o->set[k].name, o->set[k].value, 1) != 0) {
            fail("--setenv %s: %s", o->set[k].name, strerror(errno));
        }
    }
}

/* 7 and 8. The path is looked up before the filter goes in, and execve is given the secret
 * copy of it: the only path the run profile lets execve take (see the comment at the top). */
static void exec_under_seccomp(const char *profile, char **program)
{
    char *found = find_program(program[0]);
    if (found == NULL) {
        fail("%s: %s", program[0], strerror(errno));
    }
    char *secret = secret_copy(found);
    static struct filter filter;
    seccomp_filter(&filter, strcmp(profile, "run") == 0, (uint64_t)(uintptr_t)secret);
    struct sock_fprog prog = {.len = filter.length, .filter = filter.code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fail("--seccomp: no-new-privs: %s", strerror(errno));
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        fail("--seccomp %s: the filter could not be installed: %s", profile, strerror(errno));
    }
    execve(secret, program, environ);
    fail("%s: %s", found, strerror(errno));
}

/* 8 alone, without --seccomp. */
static void exec_program(const struct options *o)
{
    if (o->profile == NULL) {
        execvp(o->program[0], o->program);
        fail("%s: %s", o->program[0], strerror(errno));
    }
    exec_under_seccomp(o->profile, o->program);
}

int main(int argc, char **argv)
{
    struct options options = {
        .limits = {{"--cpu", RLIMIT_CPU, 0, 0},
                   {"--as", RLIMIT_AS, 0, 0},
                   {"--data", RLIMIT_DATA, 0, 0},
                   {"--fsize", RLIMIT_FSIZE, 0, 0},
                   {"--nproc", RLIMIT_NPROC, 0, 0},
                   {"--nofile", RLIMIT_NOFILE, 0, 0}},
        .uid = -1,
        .gid = -1,
    };
    parse_options(&options, argc, argv);
    set_limits(&options);
    change_directory(options.chdir_to);
    start_session(options.new_session);
    drop_to_user(options.uid, options.gid);
    forbid_new_privileges(options.no_new_privs);
    set_environment(&options);
    exec_program(&options);
    return EXIT_SANDBOX;
}
