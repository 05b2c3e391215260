"""Speed points: the lab's sort timed against the reference solution's, on the same GPU, in
the same run, on the same inputs.

One run of the kit's timed driver (build/grading/timed_NN_name: the lab's NAME_main.o with
grading/timed_driver.o) times both sides: it holds the clock, makes the inputs and checks every
result, and drives two executors (grading/runtime/remote.h), one linked with the reference solution's
object and one with the student's, both in the sandbox, each started once and warmed up
before anything is timed. Each side runs ROUNDS rounds; round k is the rubric's --reps runs
of each side on the round's inputs, alternating run by run: reference, student, student,
reference, ..., so that both sample the same spells of the machine (a launch-bound sort's
time moves by a fifth from one tenth of a second to the next), and all of the timed run's
processes are on one CPU (--pin-cpu). A round reports each side's mean, median and least run
through the result channel, with the CPU time of the side's executor over its runs, measured from
outside. Every round has fresh inputs, the same for both sides, so a result kept from an
earlier round (by a fingerprint of its input) serves nothing; and each side's time is the
trimmed mean of its rounds (side_time): the mean of its rounds' mean runs, its fastest and its
slowest round left out, which one lucky, replayed or disturbed round cannot move:

    ratio = student's time / reference's time
    points = full              when ratio <= full_ratio (1.25 by default)
           = 0                 when ratio >= zero_ratio (3.0 by default)
           = linear in between: full * (zero_ratio - ratio) / (zero_ratio - full_ratio)

Speed points are given only when the lab is correct: every suite of the rubric's `requires`
(by default every suite that is not a bonus) passed all its tests. A side that cannot be
timed (a wrong result, a CUDA error, a crash, no answer within the limit of a round) ends the
run: the reference's failure leaves speed out of the maximum, the student's gives no points.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass

from . import cpu
from .rubric import CpuRule
from .run import CHANNEL_BYTES, batch_notes, describe_signal, read_channel, run_limited

# Rounds per side, each of the rubric's --reps runs. On an H100, 6 rounds of 3 kept the
# reference against itself within 4% in Labs 01-04 (4 rounds of 5 did too; all of one side's
# rounds in a row did not). Lab 05's CDP tree takes either about 18 ms or about 24 ms, run by
# run, in either process (about one run in three is fast): a median of round medians fell in
# either mode, so that an identical file came out anywhere from 0.87x to 1.33x; the trimmed
# mean of round means averages the two modes (side_time), and Lab 05 runs 5 per round.
ROUNDS = 6
# Both sides on the CPU the timed run starts on: a launch-bound sort runs at the pace of the
# CPU that launches it (grading/runtime/timed_driver.c, --pin-cpu).
PIN_CPU = True
SIDES = ("reference", "student")


@dataclass
class Round:
    who: str
    number: int
    ms: float  # the median of its timed repetitions
    min_ms: float
    cpu_ms: float = None  # the executor's CPU time over them, measured from outside
    seconds: float = None  # the round's wall time, its side's start-up included in its first
    mean_ms: float = None  # the mean of its timed repetitions


@dataclass
class SpeedResult:
    measured: bool
    ratio: float = None
    student_ms: float = None
    reference_ms: float = None
    message: str = ""
    log: str = ""


def speed_points(ratio, full_points, full_ratio=1.25, zero_ratio=3.0):
    if ratio <= full_ratio:
        return float(full_points)
    if ratio >= zero_ratio:
        return 0.0
    return full_points * (zero_ratio - ratio) / (zero_ratio - full_ratio)


def run_limit(time_limit, rounds=ROUNDS):
    """The time limit of the whole timed run: time_limit per round of each side (the driver
    itself stops a side whose round runs past time_limit, so a hang costs one round's)."""
    return 2 * rounds * time_limit


def parse_round(text):
    """A `round` note, `SIDE K MEDIAN_MS MIN_MS CPU_MS SECONDS MEAN_MS`, or None."""
    words = text.split()
    if len(words) != 7 or words[0] not in SIDES:
        return None
    try:
        number, ms, min_ms, cpu_ms, seconds, mean_ms = int(words[1]), *map(float, words[2:])
    except ValueError:
        return None
    return Round(words[0], number, ms, min_ms, cpu_ms if cpu_ms >= 0 else None, seconds, mean_ms)


def side_time(means):
    """A side's time from its rounds' mean runs: their mean, without the fastest and the
    slowest round when there are three or more. Not a median: where a sort's runs fall in two
    modes (Lab 05's CDP tree: 18 or 24 ms, run by run), a median lands in either and an
    identical file moves by a third; the mean of many runs weighs both. Not the plain mean
    either: one round that was lucky, replayed or disturbed (another process's hiccup) is
    left out."""
    ordered = sorted(means)
    kept = ordered[1:-1] if len(ordered) >= 3 else ordered
    return statistics.fmean(kept)


def failure(result, channel, running, time_limit):
    """(side, message) when the timed run did not end well, else None. A run that ended
    without its result line (killed at its limit, or for printing too much) is put on the
    side it was running then (its last `run` note)."""
    if result.timed_out:
        return running, f"no answer within {time_limit:g} s"
    if result.signal is not None:
        return running, f"crashed: {describe_signal(result.signal)}"
    if not channel.good or not channel.result:
        return running, f"no result from the timed driver (exit {result.exit_code})"
    words = channel.result
    if words == ["ok"] and result.exit_code == 0:
        return None
    if len(words) >= 3 and words[0] == "failed" and words[1] in SIDES:
        who, word, rest = words[1], words[2], words[3:]
        if word == "timeout":
            return who, f"no answer within {time_limit:g} s"
        if word == "crashed" and rest and rest[0].isdigit():
            return who, f"crashed: {describe_signal(int(rest[0]))}"
        return who, f"{word}: {' '.join(rest)}".strip()
    return running, f"{' '.join(words)} (exit {result.exit_code})"


def measure(
    timed,
    args,
    student_executor,
    reference_executor,
    env,
    time_limit,
    rounds=ROUNDS,
    cpu_rule=None,
    pin=PIN_CPU,
):
    """Times both sides in one run of the timed driver `timed` (see the module's comment).
    args: the driver's options; each executor: the argv that runs it; time_limit: the limit
    of each round; pin: the timed run on one CPU (the timed driver's --pin-cpu)."""
    argv = [
        str(timed),
        *args,
        "--rounds",
        str(rounds),
        "--round-limit",
        f"{time_limit:g}",
        *(["--pin-cpu", "here"] if pin else []),
        "--reference-words",
        str(len(reference_executor)),
        "--",
        *reference_executor,
        *student_executor,
    ]
    log = [
        f"speed test: driver options {' '.join(args)}, {rounds} rounds per side in one timed "
        "run (alternating: reference, student, student, reference, ...), fresh inputs in each "
        "round, each side's rounds' mean runs averaged without its fastest and slowest round"
    ]
    # A note each time the turn passes from one side to the other: more than a test's.
    result = run_limited(
        argv,
        time_limit=run_limit(time_limit, rounds),
        env=env,
        channel=True,
        channel_bytes=8 * CHANNEL_BYTES,
    )
    notes = batch_notes(result)
    running = "reference"
    for text in notes.get("run", []):
        if text.split()[:1] and text.split()[0] in SIDES:
            running = text.split()[0]
    times = {who: [] for who in SIDES}
    least_cpu = {who: None for who in SIDES}
    for text in notes.get("round", []):
        done = parse_round(text)
        if done is None:
            continue
        log.append(
            f"round {done.number} {done.who}: mean {done.mean_ms:.3f} ms (median "
            f"{done.ms:.3f}, least {done.min_ms:.3f}), CPU "
            f"{done.cpu_ms if done.cpu_ms is not None else 'unknown'} ms (the round took "
            f"{done.seconds:.2f} s)"
        )
        times[done.who].append(done.mean_ms)
        if done.cpu_ms is not None and (
            least_cpu[done.who] is None or done.cpu_ms < least_cpu[done.who]
        ):
            least_cpu[done.who] = done.cpu_ms
    failed = failure(result, read_channel(result), running, time_limit)
    if failed is None and not all(times.values()):
        failed = (
            "reference",
            "the timed driver reported no round of "
            + " or ".join(who for who in SIDES if not times[who]),
        )
    log.append(f"the timed run took {result.elapsed:.2f} s")
    if os.environ.get("KIT_PROFILE") == "1":  # where its processes' time went (remote_client.c)
        log += [line for line in result.output.splitlines() if line.startswith("kit profile:")]
    if failed:
        who, message = failed
        log.append(f"{who}: {message}")
        if who == "reference":
            return SpeedResult(
                False,
                message=f"the reference solution could not be timed: " f"{message}",
                log="\n".join(log),
            )
        return SpeedResult(
            False, message=f"your sort could not be timed: {message}", log="\n".join(log)
        )
    # The clock alone would reward a sort done on the host (no kernels to wait for): the CPU
    # time of the student's process, measured from outside, must be in line with the
    # reference's.
    rule = cpu_rule or CpuRule()
    used = least_cpu["student"] if least_cpu["student"] is not None else "unknown"
    too_much = cpu.over_budget(rule, used, least_cpu["reference"]) if rule.speed else ""
    if too_much:
        log.append(too_much)
        return SpeedResult(False, message=f"no speed points: {too_much}", log="\n".join(log))
    student_ms = side_time(times["student"])
    reference_ms = max(side_time(times["reference"]), 1e-6)
    ratio = student_ms / reference_ms
    log.append(
        f"trimmed mean of the rounds: student {student_ms:.3f} ms, reference "
        f"{reference_ms:.3f} ms, ratio {ratio:.2f}"
    )
    return SpeedResult(
        True, ratio=ratio, student_ms=student_ms, reference_ms=reference_ms, log="\n".join(log)
    )
