/*
 * The registry of the program's kernels: each `__global__` function's name and line for
 * messages, its trampoline from `void **args` (cudaLaunchKernel, cudaLaunchCooperativeKernel),
 * and its attributes (cudaFuncSetAttribute).
 */
#include "internal.h"

#include <string.h>

#include <unordered_map>

namespace kit_emu
{

static std::unordered_map<const void *, kernel_info> &registry()
{
    static std::unordered_map<const void *, kernel_info> kernels;
    return kernels;
}

void register_kernel(const void *func, const char *name, const char *file, int line,
                     invoke_args_fn invoke)
{
    registry()[func] = kernel_info{func, name, file, line, invoke, (int)device_shared_static()};
}

const char TEMPLATE_INSTANCE[] = "(an instance of a kernel template)";

void name_kernel(const void *func, const char *name, const char *file, int line)
{
    kernel_info *k = find_kernel(func);
    if (k && k->name == TEMPLATE_INSTANCE) {
        k->name = name;
        k->file = file;
        k->line = line;
    }
}

bool kernel_known(const void *func)
{
    return registry().count(func) != 0;
}

kernel_info *find_kernel(const void *func)
{
    auto it = registry().find(func);
    return it == registry().end() ? NULL : &it->second;
}

kernel_info *find_kernel_named(const char *name)
{
    kernel_info *k = NULL;
    for (auto &entry : registry()) {
        if (strcmp(entry.second.name, name) == 0) {
            k = &entry.second;
        }
    }
    return k;
}

} // namespace kit_emu
