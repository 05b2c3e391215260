/*
 * Device variables of the kit's CPU emulation (emulation/README.md): `__device__` and
 * `__constant__` variables at file scope, which cu2cpp.py registers (their address, size and
 * name), and the runtime calls that reach them by symbol: cudaMemcpyToSymbol,
 * cudaMemcpyFromSymbol (and their Async forms), cudaGetSymbolAddress and cudaGetSymbolSize.
 *
 * In the emulation such a variable is an ordinary global of the program. Registered, it counts as
 * device memory: a copy to or from it (through the symbol calls, or cudaMemcpy with the address
 * cudaGetSymbolAddress gave) is checked against its size, as a copy into an allocation is, and a
 * symbol that is not a registered variable is cudaErrorInvalidSymbol, as on a GPU.
 */
#include "internal.h"

#include <stdio.h>

#include <map>

namespace kit_emu
{

struct symbol_info {
    size_t bytes;
    const char *name;
};

/* start -> what it is; a function-local static, as registrations run before main. */
static std::map<const char *, symbol_info> &symbols()
{
    static std::map<const char *, symbol_info> table;
    return table;
}

void register_symbol(const void *address, size_t bytes, const char *name)
{
    symbols()[static_cast<const char *>(address)] = symbol_info{bytes, name};
    race_track(address, bytes, false, name);
}

bool symbol_range(const void *p, size_t bytes)
{
    const char *c = static_cast<const char *>(p);
    auto it = symbols().upper_bound(c);
    if (it == symbols().begin()) {
        return false;
    }
    --it;
    return c >= it->first && c + bytes <= it->first + it->second.bytes &&
           (bytes > 0 || c < it->first + it->second.bytes);
}

/* The registered variable that starts at @p symbol, or NULL (after a message naming @p call). */
static const symbol_info *find_symbol(const void *symbol, const char *call)
{
    auto it = symbols().find(static_cast<const char *>(symbol));
    if (it == symbols().end()) {
        fprintf(stderr,
                "emulation: %s(%p): not a __device__ or __constant__ variable of the program "
                "(pass the variable itself, as in %s(my_table, ...))\n",
                call, symbol, call);
        return NULL;
    }
    return &it->second;
}

/* The bytes [offset, offset + count) of @p symbol, or NULL when they are not all inside it
 * (@p err says why: not a variable, or past its end). */
static char *symbol_bytes(const void *symbol, size_t count, size_t offset, const char *call,
                          cudaError_t *err)
{
    const symbol_info *s = find_symbol(symbol, call);
    *err = s ? cudaErrorInvalidValue : cudaErrorInvalidSymbol;
    if (!s) {
        return NULL;
    }
    if (offset > s->bytes || count > s->bytes - offset) {
        fprintf(stderr,
                "emulation: %s(%s, %zu bytes at offset %zu): past the end of %s, which has %zu "
                "bytes\n",
                call, s->name, count, offset, s->name, s->bytes);
        return NULL;
    }
    return const_cast<char *>(static_cast<const char *>(symbol)) + offset;
}

static cudaError_t symbol_error(cudaError_t err)
{
    cudaError_t sticky = sticky_error();
    if (sticky != cudaSuccess) {
        return sticky;
    }
    if (err != cudaSuccess) {
        set_last_error(err);
    }
    return err;
}

/* The four symbol copies: into the symbol (@p to_symbol) from @p buffer, or out of it into
 * @p buffer; a copy of @p kind the direction allows, then cudaMemcpy or cudaMemcpyAsync. */
static cudaError_t symbol_copy(bool to_symbol, const void *symbol, void *buffer, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
                               bool async)
{
    enum cudaMemcpyKind host_side = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != host_side && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
        return symbol_error(cudaErrorInvalidMemcpyDirection);
    }
    cudaError_t err;
    char *bytes = symbol_bytes(symbol, count, offset,
                               to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol", &err);
    if (!bytes) {
        return symbol_error(err);
    }
    void *dst = to_symbol ? (void *)bytes : buffer;
    const void *src = to_symbol ? (const void *)buffer : bytes;
    return async ? cudaMemcpyAsync(dst, src, count, kind, stream)
                 : cudaMemcpy(dst, src, count, kind);
}

} // namespace kit_emu

using namespace kit_emu;

extern "C" {

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    return symbol_copy(true, symbol, const_cast<void *>(src), count, offset, kind, stream, true);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    KIT_EMU_HOST_CALL;
    return symbol_copy(true, symbol, const_cast<void *>(src), count, offset, kind, NULL, false);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    KIT_EMU_HOST_CALL;
    return symbol_copy(false, symbol, dst, count, offset, kind, stream, true);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    KIT_EMU_HOST_CALL;
    return symbol_copy(false, symbol, dst, count, offset, kind, NULL, false);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    KIT_EMU_HOST_CALL;
    if (!devPtr) {
        return symbol_error(cudaErrorInvalidValue);
    }
    if (!find_symbol(symbol, "cudaGetSymbolAddress")) {
        return symbol_error(cudaErrorInvalidSymbol);
    }
    *devPtr = const_cast<void *>(symbol);
    return symbol_error(cudaSuccess);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    KIT_EMU_HOST_CALL;
    if (!size) {
        return symbol_error(cudaErrorInvalidValue);
    }
    const symbol_info *s = find_symbol(symbol, "cudaGetSymbolSize");
    if (!s) {
        return symbol_error(cudaErrorInvalidSymbol);
    }
    *size = s->bytes;
    return symbol_error(cudaSuccess);
}

} /* extern "C" */
