/*
 * An executor's share of the GPU's memory while a class shares the GPU (grading/kitgrader/
 * sharing.py): the grader links the executor with `-Xlinker --wrap=cudaMalloc` (and cudaFree,
 * cudaDeviceSetLimit), so every allocation of the student's code comes through here. With
 * KIT_GPU_MEMORY_BUDGET_MIB set (the slot's share of the GPU, divided among the test processes
 * it runs at once), an allocation that would take this process past it fails as the GPU's own
 * would, with cudaErrorMemoryAllocation (and a line on stderr that says why): a submission that
 * reaches for more than its share fails its own test, however briefly it holds the memory,
 * instead of a classmate's. Without the variable (one submission on the GPU), nothing is
 * counted and every call goes straight through.
 *
 * What is counted: cudaMalloc'd bytes until their cudaFree, and the device heap that
 * cudaDeviceSetLimit(cudaLimitMallocHeapSize) reserves. (A __device__ array is part of the
 * module, held for the whole process: the grader's memory watch sees it.)
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

cudaError_t __real_cudaMalloc(void **pointer, size_t bytes);
cudaError_t __real_cudaFree(void *pointer);
cudaError_t __real_cudaDeviceSetLimit(enum cudaLimit limit, size_t value);

/* The allocations alive, by pointer; past TRACKED of them, the rest are counted until the
 * process ends (never freed here), which errs towards the budget. */
#define TRACKED 4096
static struct {
    void *pointer;
    size_t bytes;
} live[TRACKED];

static int budget_read;
static size_t budget; /* bytes; 0: no budget */
static size_t held;   /* bytes cudaMalloc'd and not freed, and the device heap */
static size_t heap;   /* the device heap's size, as last set */

static void read_budget(void)
{
    if (budget_read) {
        return;
    }
    budget_read = 1;
    const char *text = getenv("KIT_GPU_MEMORY_BUDGET_MIB");
    char *end = NULL;
    unsigned long long mib = text ? strtoull(text, &end, 10) : 0;
    if (text && end != text && *end == '\0' && mib > 0 && mib < (1ull << 40)) {
        budget = (size_t)(mib << 20);
    }
}

/* Whether @p more bytes fit in the budget; if not, says so on stderr and leaves CUDA's last
 * error what a failed allocation leaves (an impossible one, made for that). */
static int fits(size_t more, const char *what)
{
    read_budget();
    if (budget == 0 || (more <= budget && held <= budget - more)) {
        return 1;
    }
    fprintf(
        stderr,
        "grader: %s of %zu MiB refused: this process already holds %zu MiB, and may hold "
        "%zu MiB of the GPU's memory while a class shares the GPU (cudaErrorMemoryAllocation)\n",
        what, more >> 20, held >> 20, budget >> 20);
    void *none = NULL;
    __real_cudaMalloc(&none, SIZE_MAX); /* fails: cudaGetLastError() then says so */
    return 0;
}

cudaError_t __wrap_cudaMalloc(void **pointer, size_t bytes)
{
    if (!fits(bytes, "cudaMalloc")) {
        if (pointer) {
            *pointer = NULL;
        }
        return cudaErrorMemoryAllocation;
    }
    cudaError_t err = __real_cudaMalloc(pointer, bytes);
    if (err == cudaSuccess && budget && pointer && *pointer) {
        held += bytes;
        for (int i = 0; i < TRACKED; i++) {
            if (!live[i].pointer) {
                live[i].pointer = *pointer;
                live[i].bytes = bytes;
                break;
            }
        }
    }
    return err;
}

cudaError_t __wrap_cudaFree(void *pointer)
{
    cudaError_t err = __real_cudaFree(pointer);
    if (err == cudaSuccess && pointer) {
        for (int i = 0; i < TRACKED; i++) {
            if (live[i].pointer == pointer) {
                held -= live[i].bytes;
                live[i].pointer = NULL;
                break;
            }
        }
    }
    return err;
}

cudaError_t __wrap_cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    if (limit != cudaLimitMallocHeapSize) {
        return __real_cudaDeviceSetLimit(limit, value);
    }
    size_t others = held - heap; /* what the heap's new size adds to */
    read_budget();
    if (budget && value > heap && !fits(value - heap, "a device heap (cudaLimitMallocHeapSize)")) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t err = __real_cudaDeviceSetLimit(limit, value);
    if (err == cudaSuccess && budget) {
        heap = value;
        held = others + heap;
    }
    return err;
}
