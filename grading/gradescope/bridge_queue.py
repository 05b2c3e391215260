"""The GPU host's queue for the Gradescope bridge: gradings wait their turn for a GPU, in the
order they came, so that on deadline night every submission is graded alone on its GPU (or
with as many others as sharing allows) instead of all at once.

Everything lives in one folder (--spool's queue/), shared by the bridge's processes, one per
ssh connection; no daemon. A request that arrives takes a ticket: a file named by its arrival
time, which it holds locked while it lives (a ticket whose lock can be taken belongs to a
process that died, and is dropped). The oldest live ticket alone may take a slot: a lock file
per slot (slots = GPUs x gradings per GPU), held while it grades. When it has one, it gives its
ticket back, so the next one becomes the oldest. Durations of the last gradings give the
expected wait; journal.tsv keeps each grading's arrival, wait and duration for the instructor.

A request that would wait past its time (the container's budget less the least a grading
needs) or finds the queue full is answered "busy" at once, or as soon as that is known: the
container then says the host answered and could not grade it now.
"""

import fcntl
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.2
HISTORY = 20  # gradings whose durations make the expected wait


class Busy(Exception):
    """The queue cannot grade this request in its time: the message says why, for the
    student."""


@dataclass
class Turn:
    """A slot held: which one, and what the student is told of the wait."""

    slot: int
    gpu: str  # the GPU of the slot ("" when the host names none)
    place: int  # on arrival: 1 + the requests ahead of it
    expected_s: float  # on arrival, or -1 when no grading has been measured yet
    waited_s: float
    started: float  # time.time() when it took the slot
    fd: int
    ticket: str

    def line(self, slots):
        expected = (
            f"expected {minutes(self.expected_s)}"
            if self.expected_s >= 0
            else "no grading measured yet to expect a wait from"
        )
        return (
            f"queue: place {self.place} on arrival ({self.place - 1} ahead of it, "
            f"{slots} grading{'s' if slots != 1 else ''} at once on this host); "
            f"{expected}; waited {minutes(self.waited_s)}"
        )


def minutes(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Queue:
    def __init__(self, folder, gpus=(), per_gpu=1, max_waiting=200):
        self.folder = Path(folder)
        self.gpus = list(gpus) or [""]
        self.slots = len(self.gpus) * max(1, per_gpu)
        self.max_waiting = max_waiting
        for part in ("tickets", "slots"):
            (self.folder / part).mkdir(parents=True, exist_ok=True)

    # ---- tickets ----

    def _take_ticket(self):
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(3)}"
        # Locked under a name no one reads, then put in place: a ticket seen unlocked is dead.
        hidden = self.folder / "tickets" / f".{name}"
        fd = os.open(hidden, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        hidden.rename(self.folder / "tickets" / name)
        return name, fd

    def _live_tickets(self, mine):
        """The tickets of the requests that wait, oldest first (dead ones dropped)."""
        live = []
        for name in sorted(os.listdir(self.folder / "tickets")):
            if name.startswith("."):
                continue  # one being taken
            if name == mine:
                live.append(name)
                continue
            path = self.folder / "tickets" / name
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                live.append(name)  # its process holds it: it waits
            else:
                path.unlink(missing_ok=True)  # its process is gone
            finally:
                os.close(fd)
        return live

    def waiting(self):
        """How many requests wait now."""
        return len(self._live_tickets(None))

    # ---- slots ----

    def _take_slot_number(self, slot):
        """The slot's lock (an open fd) when it is free, else None."""
        fd = os.open(self.folder / "slots" / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            os.close(fd)
            return None

    def _take_slot(self):
        """(slot, fd) of a free slot, or None."""
        for slot in range(self.slots):
            fd = self._take_slot_number(slot)
            if fd is not None:
                return slot, fd
        return None

    def busy_slots(self):
        held = 0
        for slot in range(self.slots):
            fd = self._take_slot_number(slot)
            if fd is None:
                held += 1
            else:
                os.close(fd)
        return held

    # ---- durations ----

    def _average_s(self):
        try:
            lines = (self.folder / "durations").read_text().split()[-HISTORY:]
            values = [float(v) for v in lines]
        except (OSError, ValueError):
            return -1.0
        return sum(values) / len(values) if values else -1.0

    def expected_wait_s(self, ahead, busy):
        """The expected wait of a request with `ahead` requests before it while `busy` slots
        grade: the gradings that must end before one of the slots is its, at the average
        duration; -1 when no grading has been measured."""
        if ahead + busy < self.slots:
            return 0.0
        average = self._average_s()
        if average < 0:
            return -1.0
        return (ahead + busy - self.slots + 1) / self.slots * average

    # ---- the turn ----

    def wait(self, budget_s, least_s):
        """Waits for a slot, in the order of arrival: a Turn, or Busy when the queue is full
        or the wait leaves less than `least_s` of `budget_s` to grade."""
        start = time.monotonic()
        name, ticket_fd = self._take_ticket()
        try:
            live = self._live_tickets(name)
            ahead = live.index(name)
            if ahead >= self.max_waiting:
                raise Busy(
                    f"{ahead} submissions are waiting for this host's GPUs already (it "
                    f"takes {self.max_waiting} at most)"
                )
            expected = self.expected_wait_s(ahead, self.busy_slots())
            if expected > budget_s - least_s:
                raise Busy(
                    f"{ahead} submissions wait before this one, about "
                    f"{minutes(expected)}, more than the time it has "
                    f"({minutes(budget_s)}, of which a grading needs "
                    f"{minutes(least_s)})"
                )
            while True:
                if self._live_tickets(name)[0] == name:
                    taken = self._take_slot()
                    if taken:
                        slot, fd = taken
                        return Turn(
                            slot,
                            self.gpus[slot % len(self.gpus)],
                            ahead + 1,
                            expected,
                            time.monotonic() - start,
                            time.time(),
                            fd,
                            name,
                        )
                waited = time.monotonic() - start
                if budget_s - waited < least_s:
                    raise Busy(
                        f"it waited {minutes(waited)} in the queue ({ahead} were ahead "
                        "of it on arrival), and the time left would not grade it"
                    )
                time.sleep(POLL_S)
        finally:
            (self.folder / "tickets" / name).unlink(missing_ok=True)
            os.close(ticket_fd)

    def done(self, turn, duration_s):
        """Gives the slot back and records the grading (its duration, for the expected wait;
        its line in journal.tsv)."""
        durations = self.folder / "durations"
        with open(durations, "a") as out:
            out.write(f"{duration_s:.1f}\n")
        if durations.stat().st_size > 4096:  # keep the last ones only
            kept = durations.read_text().split()[-HISTORY:]
            spare = durations.with_suffix(f".{os.getpid()}")
            spare.write_text("".join(f"{v}\n" for v in kept))
            spare.replace(durations)
        with open(self.folder / "journal.tsv", "a") as out:
            out.write(
                f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(turn.started))}\t"
                f"{turn.started:.3f}\t{turn.ticket}\tslot {turn.slot}\tplace {turn.place}\t"
                f"waited {turn.waited_s:.1f} s\tgraded in {duration_s:.1f} s\n"
            )
        os.close(turn.fd)
