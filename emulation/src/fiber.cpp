/* Fibers of the kit's CPU emulation; see fiber.h. */
#include "fiber.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "asan.h"

#if KIT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace kit_emu
{

/* ---- stacks ---------------------------------------------------------------------------------- */

/* Stacks to reuse: those whose fiber returned, and those of dropped fibers, whose frames
 * AddressSanitizer still holds poisoned. */
static std::vector<fiber_stack> stack_pool, dropped_stacks;

/* A fiber that returned leaves only its first frames (the trampoline's, which never return)
 * at the top of its stack; under AddressSanitizer these many bytes are cleared for the next. */
static const size_t TOP_FRAMES = 16 * 1024;

static size_t stack_bytes()
{
    static size_t bytes = 0;
    if (!bytes) {
        /* Kernels keep little on the stack; AddressSanitizer's redzones take more. Only the
         * pages a fiber touches cost memory (the mapping reserves none). */
        size_t kib = KIT_EMU_ASAN ? 512 : 256;
        const char *env = getenv("KIT_EMU_STACK_KB");
        if (env && atol(env) >= 16) {
            kib = (size_t)atol(env);
        }
        bytes = kib * 1024;
    }
    return bytes;
}

fiber_stack stack_get()
{
    if (!stack_pool.empty()) {
        fiber_stack s = stack_pool.back();
        stack_pool.pop_back();
#if KIT_EMU_ASAN
        __asan_unpoison_memory_region(s.base + s.size - TOP_FRAMES, TOP_FRAMES);
#endif
        return s;
    }
    if (!dropped_stacks.empty()) {
        fiber_stack s = dropped_stacks.back();
        dropped_stacks.pop_back();
#if KIT_EMU_ASAN
        /* Its fiber stopped inside frames whose redzones are poisoned. */
        __asan_unpoison_memory_region(s.base, s.size);
#endif
        return s;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = stack_bytes();
    void *p = mmap(NULL, bytes + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "emulation: cannot map a fiber's stack (%zu KiB): out of memory\n",
                bytes / 1024);
        abort();
    }
    mprotect(p, page, PROT_NONE); /* the guard page: an overflow faults */
    return fiber_stack{(char *)p + page, bytes};
}

void stack_put(fiber_stack stack, bool finished)
{
    (finished ? stack_pool : dropped_stacks).push_back(stack);
}

/* ---- AddressSanitizer's view of the switches ------------------------------------------------- */

#if KIT_EMU_ASAN
static const void *main_bottom;
static size_t main_size;
static void *main_fake_stack;
static void to_fiber(fiber_ctx *f)
{
    __sanitizer_start_switch_fiber(&main_fake_stack, f->stack.base, f->stack.size);
}
static void back_in_main()
{
    __sanitizer_finish_switch_fiber(main_fake_stack, NULL, NULL);
}
static void in_fiber(fiber_ctx *f)
{
    __sanitizer_finish_switch_fiber(f->asan_fake_stack, &main_bottom, &main_size);
}
static void to_main(fiber_ctx *f, bool for_good)
{
    __sanitizer_start_switch_fiber(for_good ? NULL : &f->asan_fake_stack, main_bottom, main_size);
}
void fiber_escaping()
{
    __sanitizer_start_switch_fiber(NULL, main_bottom, main_size);
}
void fiber_escaped()
{
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
}
#else
static void to_fiber(fiber_ctx *) {}
static void back_in_main() {}
static void in_fiber(fiber_ctx *) {}
static void to_main(fiber_ctx *, bool) {}
void fiber_escaping() {}
void fiber_escaped() {}
#endif

/* ---- the two back ends ----------------------------------------------------------------------- */

#if KIT_EMU_FIBER_BOOST
namespace bc = boost::context::detail;

/* The scheduler's context, as the last switch into a fiber left it. */
static bc::fcontext_t scheduler_context;

static void trampoline(bc::transfer_t t)
{
    scheduler_context = t.fctx;
    fiber_ctx *f = static_cast<fiber_ctx *>(t.data);
    in_fiber(f);
    f->entry(f->arg);
    abort(); /* entry ends with fiber_exit() */
}

void fiber_make(fiber_ctx *f, fiber_entry entry, void *arg)
{
    f->entry = entry;
    f->arg = arg;
    f->started = false;
    f->asan_fake_stack = NULL;
    f->context = bc::make_fcontext(f->stack.base + f->stack.size, f->stack.size, trampoline);
}

void fiber_resume(fiber_ctx *f)
{
    to_fiber(f);
    bc::transfer_t t = bc::jump_fcontext(f->context, f);
    f->context = t.fctx;
    back_in_main();
}

void fiber_yield(fiber_ctx *f)
{
    to_main(f, false);
    bc::transfer_t t = bc::jump_fcontext(scheduler_context, NULL);
    scheduler_context = t.fctx;
    in_fiber(f);
}

void fiber_exit(fiber_ctx *f)
{
    to_main(f, true);
    bc::jump_fcontext(scheduler_context, NULL);
    abort();
}

const char *fiber_backend()
{
    return "Boost.Context fcontext";
}

#else
static ucontext_t scheduler_context;

static void trampoline(unsigned high, unsigned low)
{
    fiber_ctx *f = (fiber_ctx *)(((unsigned long)high << 32) | low);
    in_fiber(f);
    f->entry(f->arg);
    abort();
}

void fiber_make(fiber_ctx *f, fiber_entry entry, void *arg)
{
    f->entry = entry;
    f->arg = arg;
    f->started = false;
    f->asan_fake_stack = NULL;
    getcontext(&f->context);
    f->context.uc_stack.ss_sp = f->stack.base;
    f->context.uc_stack.ss_size = f->stack.size;
    f->context.uc_link = NULL;
    unsigned long p = (unsigned long)f;
    makecontext(&f->context, (void (*)(void))trampoline, 2, (unsigned)(p >> 32), (unsigned)p);
}

void fiber_resume(fiber_ctx *f)
{
    to_fiber(f);
    swapcontext(&scheduler_context, &f->context);
    back_in_main();
}

void fiber_yield(fiber_ctx *f)
{
    to_main(f, false);
    swapcontext(&f->context, &scheduler_context);
    in_fiber(f);
}

void fiber_exit(fiber_ctx *f)
{
    to_main(f, true);
    setcontext(&scheduler_context);
    abort();
}

const char *fiber_backend()
{
    return "POSIX ucontext";
}
#endif

} // namespace kit_emu
