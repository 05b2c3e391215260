/**
 * @file shared_memory.h
 * @brief Device memory the verdict process owns and the executor only maps
 *        (grading/runtime/remote.h).
 *
 * When grading/grade runs a GPU test, the verdict process allocates every buffer the test
 * asks for (cudaMalloc in a test is kit_shared_alloc() here) with the CUDA driver's virtual
 * memory API in a context of its own, fills it and reads it back itself, and hands the
 * executor one file descriptor per buffer (over the socket, as SCM_RIGHTS) to map into the
 * student's context. The test's data then never passes through the student's process: the
 * CPU time the kernel accounts to that process is its own work (launches, and whatever it
 * does on the host), and the bytes the verdict checks are read from the GPU by the verdict.
 *
 * The driver is loaded with dlopen(), so the programs that use this start on a machine
 * without one (CI); kit_shared_start() says why it cannot be used. Errors are returned as
 * numbers of cudaError_t (the driver's CUresult numbers agree with them where it matters:
 * success, invalid value, out of memory, and the 7xx errors of a broken context).
 */
#ifndef KIT_SHARED_MEMORY_H
#define KIT_SHARED_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* ---- the verdict process: owns the memory ------------------------------------------------ */

/** Loads the driver and makes the verdict's context on device 0 (the slot's GPU, as
 *  CUDA_VISIBLE_DEVICES names it). 0, or -1 with the reason in @p why. Done once. */
int kit_shared_start(char *why, size_t why_size);

/** A new buffer of at least @p bytes at @p address (@p mapped bytes mapped there), and a
 *  descriptor the executor maps it with (the caller closes it once sent). */
int kit_shared_alloc(size_t bytes, uint64_t *address, uint64_t *mapped, int *fd);

/** Frees the buffer that starts at @p address (the executor has unmapped it first). */
int kit_shared_free(uint64_t address);

/** Frees every buffer: the executor that mapped them is gone (the end of a test). */
void kit_shared_free_all(void);

/** Whether a buffer starts at @p address, and how many bytes are mapped there. */
int kit_shared_mapped(uint64_t address, uint64_t *mapped);

/** Whether [@p address, @p address + @p bytes) lies inside one buffer of this process. */
int kit_shared_holds(uint64_t address, size_t bytes);

/** Page-locks @p bytes of host memory at @p host (kit_shared_start() first), so that copies
 *  from the GPU into it run at one steady speed: the timed driver's result buffer, whose
 *  pageable copy back varied by a tenth from one process to the next. */
int kit_shared_pin_host(void *host, size_t bytes);

/** Copies and memset, on this process's memory (the executor's work must be done first). */
int kit_shared_to_device(uint64_t dst, const void *src, size_t bytes);
int kit_shared_to_host(void *dst, uint64_t src, size_t bytes);
int kit_shared_on_device(uint64_t dst, uint64_t src, size_t bytes);
int kit_shared_memset(uint64_t dst, int value, size_t bytes);

/* ---- the executor: maps it ---------------------------------------------------------------- */

/** Maps the buffer behind @p fd (@p bytes long, at @p wanted in the verdict process) into the
 *  current context of CUDA device @p device; its address here in @p address. Closes @p fd. */
int kit_shared_import(int fd, uint64_t wanted, uint64_t bytes, int device, uint64_t *address);

/** Unmaps the buffer that starts at @p verdict_address in the verdict process. */
int kit_shared_unimport(uint64_t verdict_address);

/** @p word, when it points into a mapped buffer (by the verdict's address), as the same place
 *  here; any other word as it is. The lab's calls pass the verdict's pointers. */
uint64_t kit_shared_translate(uint64_t word);

#endif
