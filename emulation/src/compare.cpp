/*
 * Compare mode (KIT_EMU_ORDER=compare): every launch runs in each thread order from the same
 * device memory, and a difference in what the orders leave there is reported as a race.
 */
#include "launch_state.h"

#include <string.h>

#include <utility>
#include <vector>

namespace kit_emu
{

/* KIT_EMU_ORDER=compare: runs the launch in each thread order from the same device memory and
 * compares what each leaves there; a difference is a race, reported with the first word that
 * differs. A launch whose atomics changed memory may differ legitimately (who came first), and
 * one that read the clock (clock(), clock64(): its values differ on a GPU from run to run), so
 * their orders are not compared. The result kept is the last order's. */
void run_in_every_order(launch_state &l, unsigned long long blocks)
{
    static const order_kind orders[] = {ORDER_FORWARD, ORDER_REVERSE, ORDER_RANDOM};
    std::vector<device_copy> before = device_snapshot(), first;
    for (int i = 0; i < 3 && l.error == cudaSuccess; i++) {
        if (i > 0) {
            device_restore(before);
            tree_discard_launches(); /* the launches the earlier order's run made */
        }
        thread_order.kind = orders[i];
        l.atomic_writes = 0;
        l.clock_reads = 0;
        run_grid(l, blocks);
        if (l.error != cudaSuccess || l.atomic_writes > 0 || l.clock_reads > 0) {
            break;
        }
        std::vector<device_copy> after = device_snapshot();
        if (i == 0) {
            first = std::move(after);
            continue;
        }
        for (size_t a = 0; a < after.size() && a < first.size(); a++) {
            const std::vector<unsigned char> &x = first[a].bytes, &y = after[a].bytes;
            size_t size = x.size() < y.size() ? x.size() : y.size(), at = 0;
            while (at < size && x[at] == y[at]) {
                at++;
            }
            if (at == size) {
                continue;
            }
            size_t word = at / 4;
            unsigned wx = 0, wy = 0;
            memcpy(&wx, &x[word * 4], size - word * 4 < 4 ? size - word * 4 : 4);
            memcpy(&wy, &y[word * 4], size - word * 4 < 4 ? size - word * 4 : 4);
            thread_order.kind = ORDER_FORWARD;
            report(&l,
                   "race: the kernel leaves different results in thread orders forward and %s: "
                   "4-byte word %zu of the %zu-byte allocation at %p is %u (0x%08x) after one and "
                   "%u (0x%08x) after the other. Threads read what other threads write (or write "
                   "the same place) with no __syncthreads() between, or blocks share data",
                   i == 1 ? "reverse" : "random", word, x.size(), (void *)first[a].start, wx, wx,
                   wy, wy);
            l.error = cudaErrorLaunchFailure;
            break;
        }
    }
    thread_order.kind = ORDER_FORWARD;
}

} // namespace kit_emu
