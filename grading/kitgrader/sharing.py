"""Several submissions on one GPU: what they share, and what each keeps to itself.

A class run grades several submissions side by side on each GPU (classroom.py), each in a
grading slot of its own (its sandbox uid, process limits, work folder). What they share is
the GPU, and two things keep that fair:

- GpuTurns, one per GPU. Tests and compute-sanitizer runs take a shared turn; anything timed
  (the speed rounds, the CPU-time checks made again on a quiet GPU) takes the GPU alone: it
  waits for the tests running now to end, no new test starts meanwhile, and the slots that
  want the GPU alone then take it one after another before the tests go on. Speed points are
  then measured as in a run of one submission at a time.
- MemoryWatch: each slot's processes may hold at most the slot's share of the GPU's memory
  (budget_mib). It asks nvidia-smi every half second what each process holds, finds the slot
  a process works for from its ancestry (run.owner_of: the sandbox cannot hide it), and kills
  the processes of a slot over its budget, largest first. The test they belonged to fails
  and says why (over_budget_note); a test of another slot on that GPU that failed while a
  slot was over its budget is run again (disturbed), since the memory it lacked was taken.

JOBS_PER_GPU is the default number of test slots per GPU, from what was measured (see
docs/instructor.md, "A class on one GPU"): one. On an H100 without MPS, CUDA time-slices the
contexts of different processes, so four submissions' tests side by side (8 test processes
each) ran a reference's tests in 276 s instead of 46-55 s alone, and one of Lab 01's
launch-bound tests ran past its 60 s limit: a wrong verdict. Sharing stays available with
--jobs N above the GPU count, each slot then running its share of --test-jobs, so that the
GPU has no more test processes at once than one submission alone gives it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass

from . import gpu as gpu_info
from .run import owner_of

JOBS_PER_GPU = 1  # submissions graded side by side on one GPU by default (the comment above)
MAX_WAIT_S = 90.0  # the longest a submission's timed work waits for others to join its window
MEMORY_SHARE = 0.9  # of the GPU's memory, split among its slots; the rest is the driver's
POLL_S = 0.5


class GpuTurns:
    """A GPU's turns: shared() for work that may run beside other work, alone() for work that
    must have the GPU to itself (a thread holding a shared turn must not ask for it).

    Having the GPU alone costs a drain: no new test starts until the running ones end (a
    batch of short tests, or a test that hangs until its limit, can take a minute). So the
    GPU is had alone in windows: one opens when `gather` threads want it, or the first of
    them has waited `max_wait` seconds, or nothing shares the GPU anyway; then new shared
    turns wait, and every thread that wants the GPU alone takes it in turn (those arriving
    meanwhile too) before the tests go on. The submissions that wait meanwhile hold no test
    slot (classroom.py): their classmates' tests keep the GPU busy."""

    def __init__(self, gather=1, max_wait=MAX_WAIT_S):
        self._cond = threading.Condition()
        self._sharing = 0
        self._alone = False
        self._wanting = []  # when each thread that wants the GPU alone asked
        self._window = False  # open: shared turns wait, alone turns are served
        self.gather, self.max_wait = max(1, gather), max_wait

    @contextlib.contextmanager
    def shared(self):
        with self._cond:
            while self._alone or self._window:
                self._cond.wait()
            self._sharing += 1
        try:
            yield
        finally:
            with self._cond:
                self._sharing -= 1
                self._cond.notify_all()

    def _window_due(self):
        return (
            len(self._wanting) >= self.gather
            or not self._sharing
            or time.monotonic() - min(self._wanting) >= self.max_wait
        )

    @contextlib.contextmanager
    def alone(self):
        with self._cond:
            asked = time.monotonic()
            self._wanting.append(asked)
            try:
                while not self._window:
                    if self._window_due():
                        self._window = True
                        self._cond.notify_all()
                        break
                    self._cond.wait(timeout=1.0)
                while self._alone or self._sharing:
                    self._cond.wait()
            finally:
                self._wanting.remove(asked)
            self._alone = True
        try:
            yield
        finally:
            with self._cond:
                self._alone = False
                if not self._wanting:
                    self._window = False  # the tests go on
                self._cond.notify_all()


class AloneWhenNeeded:
    """The GPU alone from the first call until close(): a submission's timed work (every
    lab's) in one turn, and no turn at all for a submission with nothing to time."""

    def __init__(self, turns):
        self._turns = turns
        self._stack = contextlib.ExitStack()
        self.held = False
        self.waited = 0.0  # seconds spent waiting for it

    def __call__(self):
        if not self.held:
            started = time.monotonic()
            self._stack.enter_context(self._turns.alone())
            self.waited += time.monotonic() - started
            self.held = True

    def close(self):
        self._stack.close()
        self.held = False


@dataclass
class OverBudget:
    """A slot found over its GPU memory budget, and what was done."""

    owner: object
    gpu: str
    seen: float  # monotonic time it was seen over
    used_mib: int
    budget_mib: int
    killed: list  # pids killed


class MemoryWatch:
    """Keeps each slot within its GPU memory budget (see the module's comment).
    budgets: {gpu: MiB per slot}; query() -> [(gpu, pid, used MiB)] (default nvidia-smi's);
    parent_of for owner_of (tests)."""

    def __init__(self, budgets, query=None, kill=None, parent_of=None, poll_s=POLL_S):
        self.budgets = {str(g): int(mib) for g, mib in budgets.items()}
        self._query = query or compute_processes
        self._kill = kill or _kill
        self._parent_of = parent_of
        self._poll_s = poll_s
        self._events = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name="gpu-memory-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)

    def _run(self):
        while not self._stop.wait(self._poll_s):
            self.check()

    def check(self):
        """One look: every slot's processes summed per GPU; a slot over its budget loses its
        largest processes until it is within it. Returns the OverBudget events of this look."""
        found = {}  # (gpu, owner) -> [(MiB, pid)]
        for gpu, pid, mib in self._query() or []:
            if str(gpu) not in self.budgets:
                continue
            owner = owner_of(pid, self._parent_of)
            if owner is not None:
                found.setdefault((str(gpu), owner), []).append((mib, pid))
        events = []
        now = time.monotonic()
        for (gpu, owner), processes in found.items():
            used, budget = sum(m for m, _ in processes), self.budgets[gpu]
            if used <= budget:
                continue
            killed, left = [], used
            for mib, pid in sorted(processes, reverse=True):
                if left <= budget:
                    break
                self._kill(pid)
                killed.append(pid)
                left -= mib
            events.append(OverBudget(owner, gpu, now, used, budget, killed))
        if events:
            with self._lock:
                self._events += events
        return events

    def over_budget_note(self, owner, since):
        """Why a test of `owner` that started at `since` (monotonic) ended, if this watch
        killed its processes: a line for the test's message, or ""."""
        with self._lock:
            mine = [e for e in self._events if e.owner == owner and e.seen >= since]
        if not mine:
            return ""
        e = max(mine, key=lambda e: e.used_mib)
        return (
            f"your code held {e.used_mib} MiB of GPU memory, more than the "
            f"{e.budget_mib} MiB each submission may hold while a class shares the GPU, so "
            f"its process was stopped"
        )

    def disturbed(self, owner, gpu, since, until=None):
        """Whether another slot on this GPU was over its budget between since and until (a
        test that failed then may have lacked memory it took): run the test again."""
        until = time.monotonic() if until is None else until
        with self._lock:
            return any(
                e.owner != owner
                and e.gpu == str(gpu)
                and since - self._poll_s <= e.seen <= until + self._poll_s
                for e in self._events
            )


def compute_processes():
    """[(gpu index, pid, used MiB)] of every compute process nvidia-smi lists."""
    gpus = gpu_info.smi("--query-gpu=index,uuid") or []
    index = {row[1]: row[0] for row in gpus if len(row) >= 2}
    rows = gpu_info.smi("--query-compute-apps=gpu_uuid,pid,used_memory") or []
    found = []
    for row in rows:
        if len(row) >= 3 and row[1].isdigit() and row[2].isdigit() and row[0] in index:
            found.append((index[row[0]], int(row[1]), int(row[2])))
    return found


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def budgets_for(slot_gpus, gpu_mib):
    """{gpu: MiB per slot} for the GPUs with more than one slot (a slot alone on its GPU has
    nobody to leave memory for). slot_gpus: each slot's GPU; gpu_mib: {gpu: its memory}."""
    count = {}
    for gpu in slot_gpus:
        count[gpu] = count.get(gpu, 0) + 1
    return {
        gpu: int(gpu_mib[gpu] * MEMORY_SHARE / n)
        for gpu, n in count.items()
        if n > 1 and gpu_mib.get(gpu)
    }
