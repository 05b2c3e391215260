/*
 * Signals: the watchdog, the preemption of a thread that never waits, and invalid accesses in
 * a kernel (SIGALRM, SIGSEGV, SIGBUS, AddressSanitizer's death); the clock they and clock64()
 * read; and the place in the program's code (file, line, function) that a report names.
 */
#include "launch_state.h"

#include "platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#if defined(__linux__)
#include <link.h>
#elif defined(__APPLE__)
#include <mach-o/dyld.h>
#include <mach-o/getsect.h>
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#if defined(__APPLE__)
#include <sys/ucontext.h> /* (<ucontext.h> wants _XOPEN_SOURCE there: only the type is read) */
#else
#include <ucontext.h>
#endif
#include <unistd.h>

#include <string>

#include "fiber.h"

#if KIT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace kit_emu
{

/* What a preempted thread was doing, for reports. */
const char PREEMPTED[] = "a loop that never waits";

volatile sig_atomic_t watchdog_fired = 0;

static long long nanoseconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The process's CPU time: the watchdog's clock, so that a machine busy with other work (a class
 * graded beside, make check's other lane) makes no launch look stuck; a thread that spins or
 * loops burns CPU, and is still stopped. */
static long long cpu_now()
{
    return nanoseconds(CLOCK_PROCESS_CPUTIME_ID);
}

long long clock64_now()
{
    return nanoseconds(CLOCK_MONOTONIC);
}

/* ---- signals: the watchdog, preemption and invalid accesses -----------------------------------
 * While a launch runs, SIGALRM comes every millisecond (every quarter of one once a thread of the
 * launch has been preempted: each tick costs the program a little, a preemption waits a tick or
 * two). Once the launch has used more CPU time than KIT_EMU_TIMEOUT seconds it is the watchdog: the
 * running thread is stopped where it is and reported with its line. Before that it is the
 * preemption: a thread that has run a whole tick without waiting (a spin on a volatile flag, a long
 * loop) is switched out, as if it had polled, so that the threads it may wait for (another block's,
 * in a look-back) can run. A thread is preempted only where that is safe: on its own stack, in the
 * program's own code (never inside the C library, the C++ library or AddressSanitizer, which may
 * hold locks), and never inside the emulation's own code, which holds the thread's no_preempt count
 * while it changes the scheduler's state (kit_emu::preempt_guard; in the paths every wait or atomic
 * goes through, a plain count). Device-side code added to the runtime must do the same. */

static const long TICK_US = 1000, FAST_TICK_US = 250;
static volatile long tick_us = 0; /* the tick now, 0 when none */
/* When the watchdog fires (cpu_now() nanoseconds), 0 when no launch runs, and the launch's
 * threads_ended when it was set. */
static volatile long long watchdog_deadline = 0;
static volatile unsigned long long watchdog_threads_ended = 0;
/* The host thread that runs the launch: a tick the kernel delivers to another thread of the
 * program (SIGALRM is the process's) is passed on to it. */
static pthread_t launch_thread;
static volatile sig_atomic_t have_launch_thread = 0;
/* The program's own machine code: where a thread may be preempted. */
static uintptr_t program_text_start = 0, program_text_end = 0;

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define KIT_EMU_CAN_PREEMPT 1
static int find_program_text(struct dl_phdr_info *info, size_t, void *)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            program_text_start = info->dlpi_addr + ph.p_vaddr;
            program_text_end = program_text_start + ph.p_memsz;
        }
    }
    return 1; /* the first object is the program */
}
#elif defined(__APPLE__) && (defined(__x86_64__) || defined(__aarch64__))
#define KIT_EMU_CAN_PREEMPT 1
/* The program's own text: the main image's __TEXT segment (image 0 is the program). */
static void find_program_text_darwin()
{
    unsigned long size = 0;
    const uint8_t *start =
        getsegmentdata((const struct mach_header_64 *)_dyld_get_image_header(0), "__TEXT", &size);
    program_text_start = (uintptr_t)start;
    program_text_end = start ? (uintptr_t)start + size : 0;
}
#else
#define KIT_EMU_CAN_PREEMPT 0
#endif

/* The code address of an interrupted thread, its stack and frame pointers. */
struct interrupted {
    uintptr_t pc, sp, fp;
};

static bool interrupted_at(void *context, interrupted *at)
{
    if (!context) {
        return false;
    }
#if defined(__linux__) && defined(__x86_64__)
    const greg_t *regs = ((ucontext_t *)context)->uc_mcontext.gregs;
    at->pc = (uintptr_t)regs[REG_RIP];
    at->sp = (uintptr_t)regs[REG_RSP];
    at->fp = (uintptr_t)regs[REG_RBP];
    return true;
#elif defined(__linux__) && defined(__aarch64__)
    const mcontext_t &m = ((ucontext_t *)context)->uc_mcontext;
    at->pc = (uintptr_t)m.pc;
    at->sp = (uintptr_t)m.sp;
    at->fp = (uintptr_t)m.regs[29];
    return true;
#elif defined(__APPLE__) && defined(__x86_64__)
    const auto &ss = ((ucontext_t *)context)->uc_mcontext->__ss;
    at->pc = (uintptr_t)ss.__rip;
    at->sp = (uintptr_t)ss.__rsp;
    at->fp = (uintptr_t)ss.__rbp;
    return true;
#elif defined(__APPLE__) && defined(__aarch64__)
    const auto &ss = ((ucontext_t *)context)->uc_mcontext->__ss;
    at->pc = (uintptr_t)__darwin_arm_thread_state64_get_pc(ss);
    at->sp = (uintptr_t)__darwin_arm_thread_state64_get_sp(ss);
    at->fp = (uintptr_t)__darwin_arm_thread_state64_get_fp(ss);
    return true;
#else
    return false;
#endif
}

/* @p pcs gets the code address and the callers' return addresses along the frame pointers (the
 * emulation's builds keep them), as long as they stay on @p f's stack; returns how many. Not
 * checked by AddressSanitizer: a frame pointer of code that does not keep one may point into a
 * frame's redzone, which is read here as a word like any other. */
__attribute__((no_sanitize_address)) static int walk_frames(const fiber *f, const interrupted &at,
                                                            void **pcs, int room)
{
    int depth = 0;
    pcs[depth++] = (void *)at.pc;
#if defined(__x86_64__) || defined(__aarch64__)
    const char *low = f->ctx.stack.base;
    const char *high = low + f->ctx.stack.size;
    const uintptr_t *frame = (const uintptr_t *)at.fp;
    while (depth < room && (const char *)frame >= low && (const char *)(frame + 2) <= high &&
           frame[1] != 0) {
        pcs[depth++] = (void *)(frame[1] - 1);
        if ((const uintptr_t *)frame[0] <= frame) {
            break;
        }
        frame = (const uintptr_t *)frame[0];
    }
#endif
    return depth;
}

static void set_tick(long us)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    t.it_value.tv_usec = us;
    t.it_interval.tv_usec = us;
    tick_us = us;
    setitimer(ITIMER_REAL, &t, NULL);
}

/* Whether @p pc is in one of the functions instrumented code calls for each access
 * (internal.h's KIT_EMU_HOOK): a later tick finds the thread in its own code. */
static bool in_hooks(uintptr_t pc)
{
#if defined(__ELF__)
    return __start_kit_emu_hooks && pc >= (uintptr_t)__start_kit_emu_hooks &&
           pc < (uintptr_t)__stop_kit_emu_hooks;
#else
    (void)pc;
    return false;
#endif
}

/* Whether the signal that brought @p context interrupted fiber @p f where it may be switched
 * out or escaped from: on its own stack, in the program's own code, outside the emulation's
 * (no_preempt; a switch half done, which AddressSanitizer must see finished). */
static bool safe_to_interrupt(const fiber *f, void *context, interrupted *at)
{
    return !f->ts.no_preempt && interrupted_at(context, at) &&
           at->sp >= (uintptr_t)f->ctx.stack.base &&
           at->sp < (uintptr_t)f->ctx.stack.base + f->ctx.stack.size &&
           at->pc >= program_text_start && at->pc < program_text_end && !in_hooks(at->pc);
}

/* A tick before the deadline: preempts the running thread if it has run a whole tick and may be
 * switched out where it is. Runs on the thread's own stack (SIGALRM has no alternate stack), so
 * that its frame, with the registers the kernel saved, waits there until the thread runs again. */
static void preempt(void *context)
{
    launch_state *l = active;
    if (!KIT_EMU_CAN_PREEMPT || !settings.preempt || !l || !l->running || !l->escape_armed) {
        return;
    }
    fiber *f = l->running;
    if (l->resumes != l->resumes_seen) { /* it started within this tick */
        l->resumes_seen = l->resumes;
        return;
    }
    interrupted at;
    if (!safe_to_interrupt(f, context, &at)) {
        return;
    }
    f->preempt_depth = walk_frames(f, at, f->preempt_pcs, 8);
    f->wait_what = PREEMPTED;
    if (tick_us == TICK_US) {
        set_tick(FAST_TICK_US); /* threads spin in this launch: preempt them sooner */
    }
    l->preemptions++;
    l->progress++; /* a thread that computes, or spins: the watchdog bounds both */
    int saved_errno = errno;
    f->ts.no_preempt++;
    fiber_yield(&f->ctx);
    f->ts.no_preempt--;
    errno = saved_errno;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    if (sig == SIGALRM) {
        if (have_launch_thread && !pthread_equal(pthread_self(), launch_thread)) {
            pthread_kill(launch_thread, SIGALRM);
            return;
        }
        if (watchdog_deadline == 0) {
            return; /* a tick after the launch, or after the watchdog fired */
        }
        long long now = cpu_now();
        if (now < watchdog_deadline) {
            preempt(context);
            return;
        }
        if (active && active->threads_ended != watchdog_threads_ended) {
            /* Slow, not stuck: a thread of the launch ended since the deadline was set. The
             * watchdog stops a launch in which none has for KIT_EMU_TIMEOUT seconds. */
            watchdog_threads_ended = active->threads_ended;
            watchdog_deadline = now + (long long)(settings.timeout_s * 1e9);
            preempt(context);
            return;
        }
        interrupted at;
        if (KIT_EMU_CAN_PREEMPT && active && active->running && active->escape_armed &&
            !safe_to_interrupt(active->running, context, &at)) {
            return; /* in the C library or the emulation's own code: at a later tick */
        }
        watchdog_deadline = 0;
        if (!(active && active->running && active->escape_armed)) {
            watchdog_fired = 1; /* the scheduler reports it after the round */
            return;
        }
    }
    if (active && active->running && active->escape_armed) {
        active->escape_reason = sig == SIGALRM ? ESCAPE_TIMEOUT : ESCAPE_SEGV;
        active->fault_address = info ? info->si_addr : NULL;
        interrupted at;
        active->fault_depth = 0;
        if (interrupted_at(context, &at)) {
            active->fault_depth = walk_frames(active->running, at, active->fault_pcs, 16);
        }
        fiber_escaping();
        siglongjmp(active->escape, 1);
    }
    /* An invalid access outside a kernel: the usual death. */
    signal(sig, SIG_DFL);
    raise(sig);
}

#if KIT_EMU_ASAN
/* AddressSanitizer stops the program at an invalid access, after its report (with the line):
 * this adds which GPU thread it was. */
static void on_asan_death()
{
    if (active && active->running) {
        report(active, "%s made the invalid memory access that AddressSanitizer reports above",
               thread_name(active->running).c_str());
    }
}
#endif

void install_signals()
{
    static bool done = false;
    if (done) {
        return;
    }
    done = true;
#if KIT_EMU_ASAN
    __asan_set_death_callback(on_asan_death);
#endif
    /* The handlers run on a stack of their own: a fiber that overflowed its stack has none. One
     * the thread has already (AddressSanitizer gives each thread one, and frees it when the
     * thread ends: a program's first launch may come from a thread of its own) is kept. */
    static char alternate[64 * 1024];
    stack_t ss, now;
    if (sigaltstack(NULL, &now) != 0 || (now.ss_flags & SS_DISABLE)) {
        ss.ss_sp = alternate;
        ss.ss_size = sizeof alternate;
        ss.ss_flags = 0;
        sigaltstack(&ss, NULL);
    }
#if KIT_EMU_CAN_PREEMPT && defined(__linux__)
    dl_iterate_phdr(find_program_text, NULL);
#elif KIT_EMU_CAN_PREEMPT && defined(__APPLE__)
    find_program_text_darwin();
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    /* The tick on the running thread's own stack (preempt() says why), not deferred while its
     * handler waits there; calls it interrupts (a pipe read of addr2line) go on. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
#if !KIT_EMU_ASAN
    /* Under AddressSanitizer its own report (with the line) is better. */
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
#endif
}

/* Starts the tick with the watchdog @p seconds away, or stops it (0). */
void watchdog(double seconds)
{
    watchdog_fired = 0;
    if (seconds > 0) {
        watchdog_threads_ended = active ? active->threads_ended : 0;
        launch_thread = pthread_self();
        have_launch_thread = 1;
        watchdog_deadline = cpu_now() + (long long)(seconds * 1e9);
        set_tick(TICK_US);
    } else {
        watchdog_deadline = 0;
        have_launch_thread = 0;
        set_tick(0);
    }
}

std::string program_path()
{
#if KIT_EMU_LINUX
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length > 0) {
        return std::string(exe, (size_t)length);
    }
#endif
    /* the object that holds this function: the program, which the runtime is linked into */
    Dl_info self;
    if (dladdr((void *)&program_path, &self) && self.dli_fname && self.dli_fname[0]) {
        return self.dli_fname;
    }
    return "";
}

/* " at file:line (in function)": the first place in the student's or the kit's code (not the
 * emulation's, not the C++ library's) among @p pcs, a code address and its callers, found with
 * addr2line when it is here; else " at 0xADDRESS". Only on the way to reporting a fault. */
std::string code_place(void *const *pcs, int depth)
{
    char text[1200];
    snprintf(text, sizeof text, " at %p", depth > 0 ? pcs[0] : NULL);
    Dl_info self;
    std::string exe = program_path();
    if (depth == 0 || !dladdr((void *)&code_place, &self) || exe.empty() ||
        exe.find('\'') != std::string::npos) {
        return text;
    }
    std::string command = "addr2line -a -f -C -i -e '" + exe + "'";
    int asked = 0;
    for (int i = 0; i < depth; i++) {
        Dl_info info;
        if (dladdr(pcs[i], &info) && info.dli_fbase == self.dli_fbase) { /* the program's */
            char offset[32];
            snprintf(offset, sizeof offset, " 0x%lx",
                     (unsigned long)((char *)pcs[i] - (char *)self.dli_fbase));
            command += offset;
            asked++;
        }
    }
    if (!asked) {
        return text;
    }
    FILE *p = popen((command + " 2>/dev/null").c_str(), "r");
    if (!p) {
        return text;
    }
    char cwd[512];
    size_t cwd_length = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    char line[1024], function[1024] = "";
    bool found = false, function_next = false;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0x", 2) == 0) { /* a new address: its function comes next */
            function_next = true;
            continue;
        }
        if (function_next) {
            snprintf(function, sizeof function, "%s", line);
            function_next = false;
            continue;
        }
        function_next = true; /* a place; an inlined caller's function may follow */
        char *extra = strstr(line, " (discriminator");
        if (extra) {
            *extra = '\0';
        }
        size_t length = strlen(line);
        bool no_line = length >= 2 && strcmp(line + length - 2, ":?") == 0;
        bool runtime = strstr(line, "/emulation/src/") || strstr(line, "/emulation/include/") ||
                       strncmp(line, "emulation/src/", 14) == 0 ||
                       strncmp(line, "emulation/include/", 18) == 0;
        if (found || no_line || strncmp(line, "??", 2) == 0 || strncmp(line, "/usr/", 5) == 0 ||
            strncmp(line, "./", 2) == 0 || runtime) {
            continue;
        }
        const char *shown = line;
        if (cwd_length && strncmp(line, cwd, cwd_length) == 0 && line[cwd_length] == '/') {
            shown = line + cwd_length + 1; /* as the compiler named it */
        }
        snprintf(text, sizeof text, " at %s (in %s)", shown, function);
        found = true;
    }
    pclose(p);
    return text;
}

std::string code_place_of(const void *pc)
{
    void *pcs[1] = {const_cast<void *>(pc)};
    return code_place(pcs, 1);
}

} // namespace kit_emu

/* Device code's clock64() and clock(): nanoseconds of the monotonic clock (cudaDeviceProp's
 * clockRate says 1 GHz), counted for compare mode. clock() is C's own outside a launch: this
 * definition comes before the C library's in the program, and hands host code's calls to it. */
long long clock64(void)
{
    if (kit_emu::current_thread && kit_emu::active) {
        kit_emu::active->clock_reads++;
    }
    return kit_emu::clock64_now();
}

extern "C" clock_t clock(void)
{
    if (kit_emu::current_thread && kit_emu::active) {
        return (clock_t)clock64();
    }
    static clock_t (*c_library_clock)(void) = (clock_t(*)(void))dlsym(RTLD_NEXT, "clock");
    return c_library_clock ? c_library_clock() : (clock_t)-1;
}
