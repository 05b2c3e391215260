/*
 * Fibers for the kit's CPU emulation: one per emulated GPU thread, all on one OS thread. A
 * fiber runs until it switches back to the scheduler (a barrier, a poll, its end); only the
 * scheduler resumes fibers. The emulation also drops fibers without resuming them (a deadlock,
 * a divergent barrier, a fault, a watchdog that stopped a spin), so a fiber is a bare context
 * on a stack of the pool, with nothing to unwind.
 *
 * Two back ends, chosen when building (emulation/README.md says why the first is the default):
 * Boost.Context's fcontext (KIT_EMU_FIBER_BOOST: a switch is a few instructions) or POSIX
 * ucontext (every glibc has it; each switch is a system call that saves the signal mask).
 * Under AddressSanitizer each switch is announced to it (__sanitizer_*_switch_fiber).
 */
#ifndef KIT_EMU_FIBER_H
#define KIT_EMU_FIBER_H

#include <stddef.h>

#if KIT_EMU_FIBER_BOOST
#include <boost/context/detail/fcontext.hpp>
#else
#include <ucontext.h>
#endif

namespace kit_emu
{

/** A fiber's stack: [base, base + size), with a guard page below base. */
struct fiber_stack {
    char *base;
    size_t size;
};

/** A stack from the pool (mapped once, reused); a fiber that overflows it hits the guard page. */
fiber_stack stack_get();

/** Gives a stack back: @p finished when its fiber returned (its frames are gone), else it was
 * dropped in the middle of its kernel. */
void stack_put(fiber_stack stack, bool finished);

typedef void (*fiber_entry)(void *arg);

struct fiber_ctx {
#if KIT_EMU_FIBER_BOOST
    boost::context::detail::fcontext_t context;
#else
    ucontext_t context;
#endif
    fiber_stack stack;
    fiber_entry entry;
    void *arg;
    bool started;
    void *asan_fake_stack;
};

/** Prepares @p f to run entry(arg) on f->stack when first resumed. entry must end with
 * fiber_exit(). */
void fiber_make(fiber_ctx *f, fiber_entry entry, void *arg);

/** From the scheduler: runs @p f until it yields or exits. */
void fiber_resume(fiber_ctx *f);

/** From inside @p f: back to the scheduler; returns when the scheduler resumes @p f. */
void fiber_yield(fiber_ctx *f);

/** From inside @p f: back to the scheduler for good; never returns. (Not declared noreturn:
 * AddressSanitizer would then clear the whole stack's shadow, and ask the kernel for the
 * signal stack, before every call: most of the time of a launch of short threads.) */
void fiber_exit(fiber_ctx *f);

/** A signal handler is about to jump out of the running fiber, back to the scheduler's stack
 * (fiber_escaping, in the handler), and has (fiber_escaped, after the jump): what
 * AddressSanitizer must be told; the fiber is never resumed. */
void fiber_escaping();
void fiber_escaped();

/** "boost.context (fcontext)" or "ucontext". */
const char *fiber_backend();

} // namespace kit_emu

#endif
