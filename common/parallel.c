/* Host work spread over a few threads; see parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

/* The cores this process may use: Linux's affinity mask (a Slurm job's or a container's cores),
 * elsewhere (macOS, or the emulation's KIT_EMU_PORTABLE build) the cores that are online. */
static size_t usable_cores(void)
{
#if defined(__linux__) && !defined(KIT_EMU_PORTABLE)
    cpu_set_t cpus;
    return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (size_t)CPU_COUNT(&cpus) : 1;
#else
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (size_t)online : 1;
#endif
}

size_t kit_parallel_shares(size_t items)
{
    if (items < KIT_PARALLEL_MIN_ITEMS) {
        return 1;
    }
    size_t count = usable_cores();
    return count < 1 ? 1 : count > KIT_PARALLEL_MAX ? KIT_PARALLEL_MAX : count;
}

size_t kit_share_begin(size_t items, size_t share, size_t shares)
{
    return items * share / shares; /* no overflow: items < 2^40 */
}

typedef struct {
    void (*work)(void *block);
    void *block;
} task;

static void *run_task(void *arg)
{
    task *t = arg;
    t->work(t->block);
    return NULL;
}

void kit_parallel_run(void (*work)(void *block), void *args, size_t size, size_t count)
{
    pthread_t threads[KIT_PARALLEL_MAX];
    task tasks[KIT_PARALLEL_MAX];
    int started[KIT_PARALLEL_MAX] = {0};
    for (size_t first = 0; first < count; first += KIT_PARALLEL_MAX) {
        size_t batch = count - first < KIT_PARALLEL_MAX ? count - first : KIT_PARALLEL_MAX;
        for (size_t t = 1; t < batch; t++) {
            tasks[t] = (task){work, (char *)args + (first + t) * size};
            started[t] = pthread_create(&threads[t], NULL, run_task, &tasks[t]) == 0;
        }
        work((char *)args + first * size);
        for (size_t t = 1; t < batch; t++) {
            if (started[t]) {
                pthread_join(threads[t], NULL);
            } else {
                work(tasks[t].block);
            }
        }
    }
}
