/*
 * The race detector of the kit's CPU emulation (emulation/README.md, "Races"): a shadow of device
 * and shared memory that records, for each 4-byte word, who last wrote it and who read it since,
 * and in which barrier interval. Two accesses to a word by different threads, at least one a
 * write and not both atomics, that nothing orders are a data race, whatever order the emulation
 * ran them in:
 *
 *  - threads of one block are ordered by __syncthreads (each release starts a new interval of
 *    the block) and, within a warp, by the warp-level functions both took part in after the
 *    first access; a grid.sync() orders every thread of the grid;
 *  - in one interval, a read of a word another thread wrote, or a write of a word another thread
 *    read or wrote, is a race of the block: a lost update (`s_count++` without an atomic), a
 *    missing __syncthreads or __syncwarp, a read of a neighbour's slot before it is written;
 *  - threads of different blocks meet through memory only with atomics, volatile flags and
 *    fences, which the shadow does not see as such (a volatile access is an ordinary one here).
 *    So between blocks only what those cannot make right is reported: two plain writes of
 *    different values to one word (a lost update between blocks, or two blocks writing one
 *    output), and an 8-byte read of a word whose halves another block wrote in two stores with
 *    no fence between them (a status and its value published in two halves: a GPU may show the
 *    reader one half new and the other old);
 *  - a read of shared memory that no thread of the block has written (its value is whatever the
 *    GPU left there).
 * Two writes of the same value are not a race (`found = 1` from several threads), and are only
 * reported when the values differ, checked at the end of the scheduler's round.
 *
 * How the accesses are seen: a .cu file is compiled with AddressSanitizer told to call a function
 * for every load and store (`--param asan-instrumentation-with-call-threshold=0`) instead of
 * checking inline. Those functions (__asan_load4, __asan_store8, ...) are defined here: each
 * looks the address up in the shadow (two loads of a page table, and nothing more for memory
 * that is neither device nor shared memory), then calls AddressSanitizer's own, which checks
 * the bounds. Why not ThreadSanitizer and its fiber API, which the issue suggested: it cannot be
 * combined with AddressSanitizer, which finds the out-of-bounds accesses; its happens-before
 * clocks grow with the number of threads (a launch has thousands of fibers), and it would see
 * volatile look-backs between blocks as races where CUDA's fences make them right. The shadow
 * here is exact for what a block does and deterministic: the same report in every thread order.
 * Without AddressSanitizer (EMU_SANITIZE=) nothing calls these functions: no race detection.
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iterator>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace kit_emu
{

/* ---- the shadow ------------------------------------------------------------------------------ */

enum : uint8_t {
    TRACKED = 1,   /* device or shared memory */
    SHARED = 2,    /* shared memory: a read before any write is reported */
    WRITTEN = 4,   /* some thread wrote it (since the block began, for shared memory) */
    W_ATOMIC = 8,  /* the last write was an atomic's */
    LAST_READ = 32 /* the last access was a read (else a write, or none) */
};
static const uint16_t NONE = 0xFFFF; /* no second reader */

/* One access, as the shadow keeps it: who (the block's run and the thread's rank), when (the
 * block's barrier interval, the grid epoch, the warp's generation of warp-level functions) and
 * where (the code). Epochs and block runs are numbered by one counter of the run, so an equal
 * interval means the same block in the same interval. */
struct access_record {
    uint32_t epoch, block, grid, warp;
    uint16_t rank;
    uint8_t bytes;                 /* which bytes of the word (a mask of 4 bits) */
    uint8_t atomic;                /* an atomic's access */
    uint16_t fences, block_fences; /* (writes) the thread's and the block's fences then */
    uint32_t store;                /* (writes) the thread's store number */
    const void *pc;
};

/* One 4-byte word. */
struct word_shadow {
    access_record w;     /* the last write */
    access_record r, r2; /* in the interval r.epoch: the last read, and one before it that
                            nothing orders before it (r2.rank NONE: none) */
    uint32_t value;      /* the word as the last access left it: a change since is a store
                            the compiler folded into a load's instruction (`count++`), made
                            by whoever accessed it last */
    uint8_t flags;
};

/* A page table of 4 KiB pages: the top level by bits 28-47 of the address, the second by bits
 * 12-27; a page's shadow exists while tracked memory lies in it. */
static const int PAGE_BITS = 12, MID_BITS = 16, TOP_BITS = 20;
static const uintptr_t WORDS_PER_PAGE = (uintptr_t)1 << (PAGE_BITS - 2);
struct shadow_page {
    size_t tracked_bytes;
    word_shadow words[WORDS_PER_PAGE];
};
static shadow_page **table[(size_t)1 << TOP_BITS];

/* The shadow's own accesses are not checked by AddressSanitizer (it is the emulation's memory,
 * and they are most of what a checked access costs). */
#define KIT_EMU_UNCHECKED __attribute__((no_sanitize_address))

/* The shadow of the page that holds @p address, or NULL: no tracked memory lies in it. */
KIT_EMU_UNCHECKED static inline shadow_page *page_of(uintptr_t address)
{
    shadow_page **mid =
        table[(address >> (PAGE_BITS + MID_BITS)) & (((uintptr_t)1 << TOP_BITS) - 1)];
    return mid ? mid[(address >> PAGE_BITS) & (((uintptr_t)1 << MID_BITS) - 1)] : NULL;
}

KIT_EMU_UNCHECKED static inline word_shadow *shadow_of(uintptr_t address)
{
    shadow_page *page = page_of(address);
    if (!page) {
        return NULL;
    }
    word_shadow *w = &page->words[(address >> 2) & (WORDS_PER_PAGE - 1)];
    return (w->flags & TRACKED) ? w : NULL;
}

static shadow_page *&page_slot(uintptr_t address)
{
    shadow_page **&mid =
        table[(address >> (PAGE_BITS + MID_BITS)) & (((uintptr_t)1 << TOP_BITS) - 1)];
    if (!mid) {
        mid = static_cast<shadow_page **>(calloc((size_t)1 << MID_BITS, sizeof *mid));
        if (!mid) {
            fprintf(stderr, "emulation: no memory for the race detector's shadow\n");
            abort();
        }
    }
    return mid[(address >> PAGE_BITS) & (((uintptr_t)1 << MID_BITS) - 1)];
}

/* What each tracked region is, for reports. */
struct region {
    size_t bytes;
    const char *name; /* a __shared__ or __device__ variable's name, or NULL: an allocation */
    bool shared;
};
static std::map<uintptr_t, region> &regions()
{
    static std::map<uintptr_t, region> all;
    return all;
}

/* Whether memory is watched at all (KIT_EMU_RACECHECK=0: not). */
static bool enabled()
{
    read_settings();
    return settings.racecheck != 0;
}

/* Whether the blocks of this run are checked: by default in the forward order only (one order
 * finds every race the shadow can see), not in compare mode, which reruns each launch. */
static bool checked_now()
{
    return settings.racecheck == 1 ||
           (settings.racecheck == 2 && thread_order.kind == ORDER_FORWARD && !thread_order.compare);
}

/* Marks [p, p + bytes) tracked (or not), word by word. */
/* Shadow pages whose memory is no longer watched, every word cleared, for the next: a block's
 * shared variables are watched from its start to its end, and a page made for each block each
 * time (calloc and free of 128 KiB) cost more than the block's threads. */
static std::vector<shadow_page *> spare_pages;

static shadow_page *new_page()
{
    if (!spare_pages.empty()) {
        shadow_page *page = spare_pages.back();
        spare_pages.pop_back();
        return page;
    }
    shadow_page *page = static_cast<shadow_page *>(calloc(1, sizeof *page));
    if (!page) {
        fprintf(stderr, "emulation: no memory for the race detector's shadow\n");
        abort();
    }
    return page;
}

static void mark(uintptr_t start, size_t bytes, bool track, bool shared)
{
    uintptr_t first = start & ~(uintptr_t)3, end = start + bytes;
    for (uintptr_t a = first; a < end;) {
        shadow_page *&page = page_slot(a);
        uintptr_t page_end = (a | (((uintptr_t)1 << PAGE_BITS) - 1)) + 1;
        uintptr_t stop = end < page_end ? end : page_end;
        if (track && !page) {
            page = new_page();
        }
        if (page) {
            for (uintptr_t w = a; w < stop; w += 4) {
                word_shadow &s = page->words[(w >> 2) & (WORDS_PER_PAGE - 1)];
                memset(&s, 0, sizeof s);
                s.flags = track ? (uint8_t)(TRACKED | (shared ? SHARED : 0)) : 0;
            }
            size_t span = (size_t)(stop - a);
            if (track) {
                page->tracked_bytes += span;
            } else {
                page->tracked_bytes -= span < page->tracked_bytes ? span : page->tracked_bytes;
                if (page->tracked_bytes == 0) {
                    spare_pages.push_back(page);
                    page = NULL;
                }
            }
        }
        a = stop;
    }
}

void race_track(const void *p, size_t bytes, bool shared, const char *name)
{
    if (!enabled() || !p || bytes == 0) {
        return;
    }
    regions()[(uintptr_t)p] = region{bytes, name, shared};
    mark((uintptr_t)p, bytes, true, shared);
}

void race_untrack(const void *p)
{
    auto it = regions().find((uintptr_t)p);
    if (it == regions().end()) {
        return;
    }
    mark((uintptr_t)p, it->second.bytes, false, false);
    regions().erase(it);
}

/* "__shared__ s_count[3]" or "a cudaMalloc'd buffer of 4096 bytes, element 12" */
static std::string what_is(uintptr_t address, size_t size)
{
    auto it = regions().upper_bound(address);
    if (it == regions().begin()) {
        return "device memory";
    }
    --it;
    char text[300];
    size_t offset = (size_t)(address - it->first);
    if (it->second.name) {
        size_t element = size ? offset / size : offset;
        snprintf(text, sizeof text, "%s%s, byte %zu (element %zu of %zu bytes)",
                 it->second.shared ? "__shared__ " : "", it->second.name, offset, element, size);
    } else {
        snprintf(text, sizeof text,
                 "a cudaMalloc'd buffer of %zu bytes at %p, byte %zu (element %zu of %zu bytes)",
                 it->second.bytes, (void *)it->first, offset, size ? offset / size : offset, size);
    }
    return text;
}

/* ---- intervals ------------------------------------------------------------------------------- */

/* One block's record, which its threads' thread_state::race_block points at. */
struct race_block_t {
    uint32_t epoch;                  /* the interval now */
    uint32_t fences;                 /* fences its threads made */
    uint32_t block;                  /* this run of the block (a number of the counter) */
    std::vector<uint32_t> warp_gen;  /* per warp: warp-level functions completed */
    std::vector<uint32_t> warp_seen; /* per thread: the last of its warp it took part in */
};

static uint32_t counter = 0;    /* intervals, blocks and grid epochs are numbered from it */
static uint32_t grid_epoch = 0; /* the launch, or the part of it since the last grid.sync() */

/* Two writes by different threads in one interval (or by two blocks): reported at the end of
 * the round if the second changed the value. */
struct pending_write {
    uintptr_t address;
    uint32_t before;
    std::string message;
};
static std::vector<pending_write> pending;

/* The variables a note of a read of unwritten shared memory named in this grid (once each). */
static std::vector<std::string> noted_unwritten;

/* The fences each block of the grid made (by its number), kept after it ends: a block that
 * fenced after a write released it (then an atomic tells another block, which may then write
 * there: the "last block" of a reduction). */
static std::unordered_map<uint32_t, uint32_t> block_fences;

void race_grid_begins()
{
    grid_epoch = ++counter;
    pending.clear();
    block_fences.clear();
    if (!thread_order.compare || thread_order.kind == ORDER_FORWARD) {
        noted_unwritten.clear(); /* (compare mode: once for the launch's three runs) */
    }
}

void race_fence()
{
    thread_state *t = current_thread;
    if (!t) {
        return;
    }
    t->race_fences++;
    if (t->race_block) {
        race_block_t *b = static_cast<race_block_t *>(t->race_block);
        block_fences[b->block] = ++b->fences;
    }
}

/* Records of blocks that ended, for the next blocks (a block starts at every few threads of a
 * launch: no allocation each time). */
static std::vector<race_block_t *> spare_blocks;

void *race_block_begins(unsigned threads)
{
    if (!enabled() || !checked_now()) {
        return NULL;
    }
    race_block_t *b;
    if (spare_blocks.empty()) {
        b = new race_block_t();
    } else {
        b = spare_blocks.back();
        spare_blocks.pop_back();
    }
    b->block = ++counter;
    b->epoch = ++counter;
    b->fences = 0;
    b->warp_gen.assign((threads + 31) / 32, 0);
    b->warp_seen.assign(threads, 0);
    return b;
}

void race_block_ends(void *record)
{
    if (record) {
        spare_blocks.push_back(static_cast<race_block_t *>(record));
    }
}

void race_barrier(void *record)
{
    if (record) {
        static_cast<race_block_t *>(record)->epoch = ++counter;
    }
}

void race_grid_synced()
{
    grid_epoch = ++counter;
}

void race_warp_synced(void *record, unsigned warp, unsigned mask)
{
    race_block_t *b = static_cast<race_block_t *>(record);
    if (!b) {
        return;
    }
    uint32_t gen = ++b->warp_gen[warp];
    for (unsigned m = mask; m; m &= m - 1u) {
        b->warp_seen[warp * 32u + (unsigned)__builtin_ctz(m)] = gen;
    }
}

std::string race_round_ends()
{
    std::string found;
    for (const pending_write &p : pending) {
        uint32_t now;
        memcpy(&now, (const void *)p.address, sizeof now);
        if (now != p.before && found.empty()) {
            found = p.message;
        }
    }
    pending.clear();
    return found;
}

/* ---- the accesses ---------------------------------------------------------------------------- */

/* Whether access @p a, earlier in the same interval of block @p b, is ordered before an access
 * by the thread of rank @p rank now: it is the same thread, or both took part in a warp-level
 * function of their warp since @p a (not necessarily the same one: an approximation that errs
 * toward no report). */
KIT_EMU_UNCHECKED static inline bool ordered(const race_block_t *b, const access_record &a,
                                             unsigned rank)
{
    return a.rank == rank || (a.rank / 32u == rank / 32u && b->warp_seen[a.rank] > a.warp &&
                              b->warp_seen[rank] > a.warp);
}

static std::string place(const void *pc)
{
    return code_place_of(pc);
}

static std::string thread_text(const thread_state *t, unsigned rank)
{
    char text[64];
    unsigned x = rank % t->block_dim.x, y = rank / t->block_dim.x % t->block_dim.y,
             z = rank / (t->block_dim.x * t->block_dim.y);
    snprintf(text, sizeof text, "thread (%u,%u,%u)", x, y, z);
    return text;
}

static const char *const RACE_HELP =
    "Nothing orders these accesses: on a GPU their order, and the result, change from run to "
    "run. Separate them with __syncthreads() (or __syncwarp() within a warp), or make both "
    "atomics";

/* Two accesses of one block in one interval, @p first before @p second, one a write. */
[[noreturn]] __attribute__((noinline, cold)) static void
conflict(const thread_state *t, const char *kind, uintptr_t address, size_t size,
         const access_record &first, bool first_write, const access_record &second,
         bool second_write)
{
    std::string a = place(first.pc), b = place(second.pc);
    race_fault("data race on %s: %s, by two threads of the block in one barrier interval: %s "
               "%s it%s, then %s %s it%s. %s",
               what_is(address, size).c_str(), kind, thread_text(t, first.rank).c_str(),
               first_write ? "wrote" : "read", a.c_str(), thread_text(t, second.rank).c_str(),
               second_write ? "wrote" : "read", b.c_str(), RACE_HELP);
}

[[noreturn]] __attribute__((noinline, cold)) static void
torn(uintptr_t address, const void *pc, const access_record &low, const access_record &high)
{
    std::string here = place(pc), first = place(low.pc), second = place(high.pc);
    race_fault("an 8-byte read of %s%s, whose two halves another block wrote in two stores "
               "(one%s, the other%s) with no fence between them: a GPU may show this read one "
               "half new and the other old. Publish the word with one 64-bit store (or atomic)",
               what_is(address, 8).c_str(), here.c_str(), first.c_str(), second.c_str());
}

/* Two writes nothing orders: a race if the later one changed the value (checked at the end of
 * the round, when it has been made; @p before is the word before it). */
__attribute__((noinline, cold)) static void write_pair(uintptr_t word, uint32_t before,
                                                       const access_record &first,
                                                       const access_record &second,
                                                       bool other_block)
{
    if (pending.size() > 64) {
        return;
    }
    std::string a = place(first.pc), b = place(second.pc);
    char message[2048];
    snprintf(message, sizeof message,
             "data race on %s: two writes of different values by %s, in an order a GPU "
             "chooses: one%s, the other%s. %s",
             what_is(word, 4).c_str(),
             other_block ? "threads of two blocks in one launch (blocks are not ordered: a lost "
                           "update, or two blocks writing one place)"
                         : "two threads of a block in one barrier interval",
             a.c_str(), b.c_str(),
             other_block ? "Combine the blocks' values with an atomic, or give each block its "
                           "own place"
                         : RACE_HELP);
    pending.push_back(pending_write{word, before, message});
}

/* Whether the block that made write @p w has fenced since: its write is then released to
 * whoever an atomic tells (threadfence-and-count), and another block's write is not a race. */
__attribute__((noinline)) static bool released(const access_record &w)
{
    auto it = block_fences.find(w.block);
    return it != block_fences.end() && (uint16_t)it->second != w.block_fences;
}

/* A write @p a (atomic or not) of word @p w at @p word: checked against the reads and the write
 * before it, then recorded. An atomic write races with no read: a plain read of a word others
 * update with atomics is the programming guide's own idiom (the first read of an atomicCAS
 * loop). */
KIT_EMU_UNCHECKED static void write_word(const thread_state *t, const race_block_t *b,
                                         word_shadow *w, uintptr_t word, size_t size,
                                         const access_record &a, bool atomic)
{
    if (w->r.epoch == a.epoch && !atomic) {
        if ((w->r.bytes & a.bytes) && !ordered(b, w->r, a.rank)) {
            conflict(t, "a write after a read", word, size, w->r, false, a, true);
        }
        if (w->r2.rank != NONE && (w->r2.bytes & a.bytes) && !ordered(b, w->r2, a.rank)) {
            conflict(t, "a write after a read", word, size, w->r2, false, a, true);
        }
    }
    if (!atomic && !(w->flags & W_ATOMIC) && (w->flags & WRITTEN) && (w->w.bytes & a.bytes)) {
        if (w->w.epoch == a.epoch && !ordered(b, w->w, a.rank)) {
            write_pair(word, w->value, w->w, a, false);
        } else if (w->w.grid == a.grid && w->w.block != a.block && !released(w->w)) {
            write_pair(word, w->value, w->w, a, true);
        }
    }
    w->w = a;
    w->flags = (uint8_t)((w->flags & ~(W_ATOMIC | LAST_READ)) | WRITTEN | (atomic ? W_ATOMIC : 0));
}

/* A read of shared memory no thread of the block wrote: undefined on a GPU, and harmless when
 * the value is never used (NVIDIA's shfl_scan reads slots of a partial last warp it never fills),
 * so a note, once a variable and grid (not once a block), and the launch goes on. */
__attribute__((noinline, cold)) static void unwritten_shared(uintptr_t address, size_t size,
                                                             const void *pc)
{
    /* Each block has its own instance of a variable: one note per variable (by its name). */
    auto it = regions().upper_bound(address);
    const region *r = it == regions().begin() ? NULL : &std::prev(it)->second;
    std::string variable = r && r->name ? r->name : "dynamic shared memory";
    for (const std::string &noted : noted_unwritten) {
        if (noted == variable) {
            return;
        }
    }
    noted_unwritten.push_back(variable);
    std::string here = place(pc);
    race_note("read of %s%s, which no thread of the block has written: on a GPU it holds "
              "whatever was there before (harmless only if the value is never used: write it, "
              "or __syncthreads() after the writes, before reading it)",
              what_is(address, size).c_str(), here.c_str());
}

/* A read @p a of word @p w (at @p address in it): checked against the write before it, then
 * recorded. */
KIT_EMU_UNCHECKED static void read_word(const thread_state *t, const race_block_t *b,
                                        word_shadow *w, uintptr_t address, uintptr_t word,
                                        size_t size, const access_record &a)
{
    if ((w->flags & (SHARED | WRITTEN)) == SHARED) {
        unwritten_shared(address, size, a.pc);
    }
    if (w->w.epoch == a.epoch && (w->w.bytes & a.bytes) && !(w->flags & W_ATOMIC) &&
        !ordered(b, w->w, a.rank)) {
        conflict(t, "a read after a write", word, size, w->w, true, a, false);
    }
    /* The reads a later write must come after: the last, and one that nothing orders before it
     * (two threads that read at once), each with its own bytes; a read ordered before a later
     * one is before whatever comes after that one. */
    access_record read = a;
    if (w->r.epoch != a.epoch) {
        w->r2.rank = NONE;
    } else if (w->r.rank == a.rank) {
        read.bytes = (uint8_t)(read.bytes | w->r.bytes);
    } else if (!ordered(b, w->r, a.rank)) {
        w->r2 = w->r;
    } else if (w->r2.rank != NONE && ordered(b, w->r2, a.rank)) {
        w->r2.rank = NONE;
    }
    w->r = read;
    w->flags |= LAST_READ;
}

/* The stores of its own the running thread may have made since its last reads of one word
 * each (see thread_state::race_last_read): recorded as the thread's writes, now. A read whose
 * word has not changed is kept for later (the next load of `s[i] += s[j]` comes before its
 * store), unless the thread is about to wait (@p waits: its stores are made). */
KIT_EMU_UNCHECKED static void flush_last_reads(thread_state *t, race_block_t *b, bool waits)
{
    for (int i = 0; i < 2; i++) {
        uintptr_t word = t->race_last_read[i];
        word_shadow *w = word ? shadow_of(word) : NULL;
        if (!w) {
            t->race_last_read[i] = 0;
            continue;
        }
        uint32_t now;
        memcpy(&now, (const void *)word, sizeof now);
        if (now == t->race_last_value[i]) {
            if (waits) {
                t->race_last_read[i] = 0;
            }
            continue;
        }
        t->race_last_read[i] = 0;
        if (now == w->value || !(w->flags & LAST_READ) || w->r.rank != t->race_rank) {
            continue; /* seen already, written since (a write seen: another thread's), or
                         read by another thread since */
        }
        access_record a = w->r;
        a.store = 0;
        a.bytes = t->race_last_bytes[i];
        a.pc = t->race_last_pc[i];
        write_word(t, b, w, word, 4, a, t->race_last_atomic[i] != 0);
        w->value = now;
    }
}

void race_flush()
{
    thread_state *t = current_thread;
    if (t && t->race_block && (t->race_last_read[0] || t->race_last_read[1])) {
        t->no_preempt++;
        flush_last_reads(t, static_cast<race_block_t *>(t->race_block), true);
        t->no_preempt--;
    }
}

/* One access of @p size bytes at @p address by the running thread, from code at @p pc: no other
 * thread may run while it reads the word and records it (the scheduler's preemption would let a
 * write slip between the two), so the thread holds its no_preempt count. */
KIT_EMU_UNCHECKED static void record_access(thread_state *t, uintptr_t address, size_t size,
                                            bool write, const void *pc);

KIT_EMU_UNCHECKED static void access(uintptr_t address, size_t size, bool write, const void *pc)
{
    thread_state *t = current_thread;
    if (!t || !t->race_block || size == 0) {
        return;
    }
    /* Most accesses are to the stack and the heap, where no page is tracked: nothing to record.
     * (A store of the thread's own folded into an earlier read waits for its next tracked
     * access, barrier or warp function; if another thread's access comes first, that access
     * sees the change and takes it for the reader's.) */
    if (!page_of(address) && !page_of(address + size - 1)) {
        return;
    }
    t->no_preempt++;
    record_access(t, address, size, write, pc);
    t->no_preempt--;
}

KIT_EMU_UNCHECKED static void record_access(thread_state *t, uintptr_t address, size_t size,
                                            bool write, const void *pc)
{
    race_block_t *b = static_cast<race_block_t *>(t->race_block);
    bool atomic = t->race_atomic != 0;
    if (write) {
        t->race_stores++;
    }
    access_record a;
    a.epoch = b->epoch;
    a.block = b->block;
    a.grid = grid_epoch;
    a.warp = b->warp_gen[t->race_rank / 32u];
    a.rank = (uint16_t)t->race_rank;
    a.bytes = 0;
    a.atomic = atomic;
    a.fences = (uint16_t)t->race_fences;
    a.block_fences = (uint16_t)b->fences;
    a.store = t->race_stores;
    a.pc = pc;
    if (t->race_last_read[0] || t->race_last_read[1]) {
        flush_last_reads(t, b, false);
    }
    uintptr_t end = address + size;
    word_shadow *previous = NULL;
    for (uintptr_t word = address & ~(uintptr_t)3; word < end; word += 4) {
        word_shadow *w = shadow_of(word);
        if (!w) {
            previous = NULL;
            continue;
        }
        unsigned lo = word < address ? (unsigned)(address - word) : 0u;
        unsigned hi = word + 4 > end ? (unsigned)(end - word) : 4u;
        uint8_t bytes = (uint8_t)(((1u << hi) - 1u) & ~((1u << lo) - 1u));
        uint32_t now;
        memcpy(&now, (const void *)word, sizeof now);
        if (now != w->value && (w->flags & LAST_READ) && w->r.grid == a.grid) {
            /* A store no call reported (the compiler made `count++` one instruction, checked
             * once as a load): the last reader's, in its interval. (A change since an earlier
             * grid is the host's copy, or that grid's own.) */
            access_record unseen = w->r;
            unseen.store = 0;
            write_word(t, b, w, word, size, unseen, unseen.atomic != 0);
        }
        w->value = now; /* (a change after a write: that write's own store) */
        a.bytes = bytes;
        if (write) {
            write_word(t, b, w, word, size, a, atomic);
        } else {
            /* 8 bytes whose halves another block wrote in two stores with no fence between */
            if (size == 8 && previous && word == (address & ~(uintptr_t)3) + 4 &&
                w->w.grid == a.grid && previous->w.grid == a.grid && w->w.block != a.block &&
                previous->w.block != a.block && !((w->flags | previous->flags) & W_ATOMIC) &&
                w->w.store != 0 && previous->w.store != 0 &&
                (w->w.block != previous->w.block || w->w.rank != previous->w.rank ||
                 (w->w.store != previous->w.store && w->w.fences == previous->w.fences))) {
                torn(address, pc, previous->w, w->w);
            }
            read_word(t, b, w, address, word, size, a);
            if (size <= 4 && hi - lo == size) { /* one word: a store folded into it shows later */
                t->race_last_read[1] = t->race_last_read[0];
                t->race_last_value[1] = t->race_last_value[0];
                t->race_last_bytes[1] = t->race_last_bytes[0];
                t->race_last_atomic[1] = t->race_last_atomic[0];
                t->race_last_pc[1] = t->race_last_pc[0];
                t->race_last_read[0] = word;
                t->race_last_value[0] = now;
                t->race_last_bytes[0] = bytes;
                t->race_last_atomic[0] = atomic;
                t->race_last_pc[0] = pc;
            }
        }
        w->value = now;
        previous = w;
    }
}

} // namespace kit_emu

/* ---- AddressSanitizer's calls ----------------------------------------------------------------
 * A .cu file built with --param asan-instrumentation-with-call-threshold=0 calls these for every
 * load and store. Each records the access, then calls AddressSanitizer's own (the next
 * definition of the name: libasan's), which checks it. */

namespace kit_emu
{
/* AddressSanitizer's own check of an access of 1, 2, 4 or 8 bytes, as its inline
 * instrumentation makes it on x86-64 Linux (a shadow byte per 8 bytes at (address >> 3) +
 * 0x7fff8000: 0 all addressable, k the first k): true when it is addressable. Elsewhere, and
 * whenever it is not (to report it), AddressSanitizer's function checks it. */
KIT_EMU_UNCHECKED static inline bool addressable(uintptr_t address, size_t size)
{
#if defined(__x86_64__) && defined(__linux__)
    /* Only an address of the program's memory has a shadow byte (AddressSanitizer's low and high
     * memory); a wild one (a pointer never set) goes to its own check, whose report names the
     * student's line rather than this function. */
    if (!(address < 0x7fff8000ull ||
          (address >= 0x10007fff8000ull && address < 0x800000000000ull))) {
        return false;
    }
    signed char k = *(const volatile signed char *)((address >> 3) + 0x7fff8000);
    return k == 0 || (size < 8 && (signed char)((address & 7) + size - 1) < k);
#else
    (void)address;
    (void)size;
    return false;
#endif
}
} // namespace kit_emu

#define KIT_EMU_ASAN_CALL(kind, size, is_write)                                                    \
    extern "C" KIT_EMU_UNCHECKED KIT_EMU_HOOK void __asan_##kind##size(uintptr_t address)          \
    {                                                                                              \
        static void (*real)(uintptr_t) = NULL;                                                     \
        kit_emu::access(address, size, is_write, __builtin_return_address(0));                     \
        if (size < 16 && kit_emu::addressable(address, size)) {                                    \
            return;                                                                                \
        }                                                                                          \
        if (!real) {                                                                               \
            real = (void (*)(uintptr_t))dlsym(RTLD_NEXT, "__asan_" #kind #size);                   \
            if (!real) {                                                                           \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
        real(address);                                                                             \
    }
KIT_EMU_ASAN_CALL(load, 1, false)
KIT_EMU_ASAN_CALL(load, 2, false)
KIT_EMU_ASAN_CALL(load, 4, false)
KIT_EMU_ASAN_CALL(load, 8, false)
KIT_EMU_ASAN_CALL(load, 16, false)
KIT_EMU_ASAN_CALL(store, 1, true)
KIT_EMU_ASAN_CALL(store, 2, true)
KIT_EMU_ASAN_CALL(store, 4, true)
KIT_EMU_ASAN_CALL(store, 8, true)
KIT_EMU_ASAN_CALL(store, 16, true)
#undef KIT_EMU_ASAN_CALL

extern "C" KIT_EMU_HOOK void __asan_loadN(uintptr_t address, size_t size)
{
    static void (*real)(uintptr_t, size_t) = NULL;
    kit_emu::access(address, size, false, __builtin_return_address(0));
    if (!real) {
        real = (void (*)(uintptr_t, size_t))dlsym(RTLD_NEXT, "__asan_loadN");
        if (!real) {
            return;
        }
    }
    real(address, size);
}

extern "C" KIT_EMU_HOOK void __asan_storeN(uintptr_t address, size_t size)
{
    static void (*real)(uintptr_t, size_t) = NULL;
    kit_emu::access(address, size, true, __builtin_return_address(0));
    if (!real) {
        real = (void (*)(uintptr_t, size_t))dlsym(RTLD_NEXT, "__asan_storeN");
        if (!real) {
            return;
        }
    }
    real(address, size);
}
