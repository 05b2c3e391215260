/*
 * Shared memory: each block's own instance of every __shared__ variable, allocated at its exact
 * size and poisoned when the block's first thread reaches the declaration, and its dynamic
 * shared memory (extern __shared__), checked against what a block may have.
 */
#include "launch_state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace kit_emu
{

/* What a block starts with in shared memory: never zeros, so code that reads what no thread
 * wrote gives wrong results at once. The same byte the tests fill blank device buffers with. */
static const unsigned char SHARED_POISON = 0xA5;

void *shared_alloc(size_t bytes, size_t align)
{
    void *p = NULL;
    if (align < 16) {
        align = 16;
    }
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0) {
        return NULL;
    }
    memset(p, SHARED_POISON, bytes);
    return p;
}

void *shared_var(const void *tag, size_t bytes, size_t align, const char *name, const char *file,
                 int line)
{
    preempt_guard guard;
    fiber *f = running_fiber("a __shared__ variable", file, line);
    block *b = f->blk;
    for (const shared_instance &s : b->shared) {
        if (s.tag == tag) {
            return s.address;
        }
    }
    if (b->shared_bytes - b->dynamic_bytes + bytes > device_shared_static()) {
        fault(cudaErrorLaunchOutOfResources, file, line,
              "__shared__ %s (%zu bytes) takes the block's static shared memory to %zu bytes, "
              "more than the %zu a kernel may declare",
              name, bytes, b->shared_bytes - b->dynamic_bytes + bytes, device_shared_static());
    }
    if (b->shared_bytes + bytes > device_shared_optin()) {
        fault(cudaErrorLaunchOutOfResources, file, line,
              "__shared__ %s (%zu bytes) takes the block's shared memory to %zu bytes, more than "
              "the %zu a block can have",
              name, bytes, b->shared_bytes + bytes, device_shared_optin());
    }
    void *p = shared_alloc(bytes, align);
    if (!p) {
        fault(cudaErrorMemoryAllocation, file, line, "no host memory for __shared__ %s", name);
    }
    b->shared.push_back(shared_instance{tag, p, bytes, name});
    b->shared_bytes += bytes;
    if (b->race) {
        race_track(p, bytes, true, name);
    }
    return p;
}

void *dynamic_shared(size_t align, const char *name, const char *file, int line)
{
    preempt_guard guard;
    fiber *f = running_fiber("extern __shared__", file, line);
    if (align > 16 && ((uintptr_t)f->blk->dynamic % align) != 0) {
        fault(cudaErrorMisalignedAddress, file, line,
              "extern __shared__ %s wants %zu-byte alignment; the emulation gives 16", name, align);
    }
    return f->blk->dynamic;
}

} // namespace kit_emu
