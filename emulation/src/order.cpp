/*
 * The settings of a run, read once from the environment (KIT_EMU_ORDER, KIT_EMU_TIMEOUT,
 * KIT_EMU_RESIDENT_BLOCKS, KIT_EMU_PREEMPT, KIT_EMU_RACECHECK), and its thread order: the kind,
 * the seed, and the random generators that every random choice of the order draws from
 * (internal.h: thread_order_t, order_random). The orders `make emulate` runs each test in are
 * listed in emulation/orders.txt.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace kit_emu
{

settings_t settings;
thread_order_t thread_order;

void read_settings()
{
    static bool done = false;
    if (done) {
        return;
    }
    done = true;
    thread_order.kind = ORDER_FORWARD;
    thread_order.compare = false;
    thread_order.seed = 1;
    settings.timeout_s = 20;
    settings.spin_rounds = 20000;
    settings.resident_blocks = 0;
    settings.preempt = true;
    settings.racecheck = 2;
    const char *order = getenv("KIT_EMU_ORDER");
    if (order && *order) {
        if (strcmp(order, "forward") == 0) {
            thread_order.kind = ORDER_FORWARD;
        } else if (strcmp(order, "reverse") == 0) {
            thread_order.kind = ORDER_REVERSE;
        } else if (strcmp(order, "compare") == 0) {
            thread_order.compare = true;
        } else if (strncmp(order, "random", 6) == 0 && (order[6] == '\0' || order[6] == ':')) {
            thread_order.kind = ORDER_RANDOM;
            if (order[6] == ':') {
                thread_order.seed = strtoull(order + 7, NULL, 10);
            }
        } else {
            fprintf(stderr,
                    "emulation: KIT_EMU_ORDER=%s: want forward, reverse, random[:SEED] "
                    "or compare\n",
                    order);
            exit(2);
        }
    }
    const char *timeout = getenv("KIT_EMU_TIMEOUT");
    if (timeout && atof(timeout) > 0) {
        settings.timeout_s = atof(timeout);
    }
    const char *resident = getenv("KIT_EMU_RESIDENT_BLOCKS");
    if (resident && atoi(resident) > 0) {
        settings.resident_blocks = (unsigned)atoi(resident);
    }
    const char *preempt = getenv("KIT_EMU_PREEMPT");
    if (preempt && strcmp(preempt, "0") == 0) {
        settings.preempt = false;
    }
    const char *racecheck = getenv("KIT_EMU_RACECHECK");
    settings.racecheck = !racecheck || !*racecheck ? 2 : strcmp(racecheck, "0") == 0 ? 0 : 1;
}

const char *thread_order_t::name() const
{
    static char text[48];
    switch (kind) {
    case ORDER_FORWARD:
        return "forward";
    case ORDER_REVERSE:
        return "reverse";
    default:
        snprintf(text, sizeof text, "random:%llu", (unsigned long long)seed);
        return text;
    }
}

const char *thread_order_t::repeated_by() const
{
    return compare ? "compare" : name();
}

/* Each random choice draws from a sequence of its own, seeded from the order's seed as it always
 * was, so that random:SEED gives the runs, and the reports, it always gave. */

order_random thread_order_t::blocks_random(unsigned long long launch) const
{
    return order_random(order_random::SPLITMIX64,
                        order_random::mix(seed * 0x100000001b3ull + launch));
}

order_random thread_order_t::tree_random() const
{
    return order_random(order_random::LCG64, seed);
}

order_random thread_order_t::streams_random() const
{
    return order_random(order_random::XORSHIFT64, seed * 0x9e3779b97f4a7c15ull + 1);
}

} // namespace kit_emu
