"""Speed points: the lab's sort timed against the reference solution's, on the same GPU, in
the same run, with the same input.

Both are the kit's timed driver (build/grading/timed_NN_name: the lab's NAME_main.o with
grading/timed_driver.o), which holds the clock and checks the result, running the sort in an
executor (tests/remote.h): one with the student's object, one with the reference solution's,
both in the sandbox. They run alternately, ROUNDS times
each (reference first), each run reporting the median of its timed repetitions through the
result channel; the best run of each side is kept, and

    ratio = student's time / reference's time
    points = full              when ratio <= full_ratio (1.25 by default)
           = 0                 when ratio >= zero_ratio (3.0 by default)
           = linear in between: full * (zero_ratio - ratio) / (zero_ratio - full_ratio)

Speed points are given only when the lab is correct: every suite of the rubric's `requires`
(by default every suite that is not a bonus) passed all its tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import cpu
from .rubric import CpuRule
from .run import describe_signal, read_channel, run_limited

ROUNDS = 2


@dataclass
class Timing:
    ok: bool
    ms: float = None
    cpu_ms: float = None  # the lab process's CPU time over the run, measured from outside
    wall_s: float = None  # the whole run, start-up and checks included
    message: str = ""
    output: str = ""


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


def time_once(argv, env, time_limit):
    """One run of a timed driver: its median time in ms and the lab process's CPU time, or
    why there is none."""
    result = run_limited(argv, time_limit=time_limit, env=env, channel=True)
    channel = read_channel(result)
    if result.timed_out:
        return Timing(False, message=f"no answer within {time_limit:g} s", output=result.output)
    if result.signal is not None:
        return Timing(False, message=f"crashed: {describe_signal(result.signal)}",
                      output=result.output)
    if not channel.good or not channel.result:
        return Timing(False, message=f"no result from the timed driver (exit {result.exit_code})",
                      output=result.output)
    word, rest = channel.result[0], channel.result[1:]
    if word == "ok" and result.exit_code == 0 and len(rest) >= 3:
        try:
            cpu = float(rest[2])
            return Timing(True, ms=float(rest[0]), cpu_ms=cpu if cpu >= 0 else None,
                          wall_s=result.elapsed, output=result.output)
        except ValueError:
            pass
    return Timing(False, message=f"{word}: {' '.join(rest)}".strip(), output=result.output)


def measure(student_argv, reference_argv, args, env, time_limit, rounds=ROUNDS, cpu_rule=None):
    """Alternates reference and student runs; see the module's comment. Each argv is the
    kit's timed driver with its options and, after `--`, the executor to time."""
    log = [f"speed test: driver options {' '.join(args)}, {rounds} rounds, best of each side"]
    best = {"reference": None, "student": None}
    least_cpu = {"reference": None, "student": None}
    for round_number in range(1, rounds + 1):
        for who, argv in (("reference", reference_argv), ("student", student_argv)):
            timing = time_once(argv, env, time_limit)
            log.append(f"round {round_number} {who}: "
                       + (f"{timing.ms:.3f} ms, CPU {timing.cpu_ms if timing.cpu_ms is not None else 'unknown'} ms"
                          f" (the run took {timing.wall_s:.2f} s)"
                          if timing.ok else timing.message))
            if not timing.ok:
                if who == "reference":
                    return SpeedResult(False, message="the reference solution could not be "
                                       f"timed: {timing.message}", log="\n".join(log))
                return SpeedResult(False, message=f"your sort could not be timed: "
                                   f"{timing.message}", log="\n".join(log))
            if best[who] is None or timing.ms < best[who]:
                best[who] = timing.ms
            if timing.cpu_ms is not None and (least_cpu[who] is None
                                              or timing.cpu_ms < least_cpu[who]):
                least_cpu[who] = timing.cpu_ms
    # The clock alone would reward a sort done on the host (no kernels to wait for): the CPU
    # time of the student's process, measured from outside, must be in line with the
    # reference's.
    rule = cpu_rule or CpuRule()
    used = least_cpu["student"] if least_cpu["student"] is not None else "unknown"
    too_much = cpu.over_budget(rule, used, least_cpu["reference"]) if rule.speed else ""
    if too_much:
        log.append(too_much)
        return SpeedResult(False, message=f"no speed points: {too_much}", log="\n".join(log))
    reference_ms = max(best["reference"], 1e-6)
    ratio = best["student"] / reference_ms
    log.append(f"best: student {best['student']:.3f} ms, reference {reference_ms:.3f} ms, "
               f"ratio {ratio:.2f}")
    return SpeedResult(True, ratio=ratio, student_ms=best["student"], reference_ms=reference_ms,
                       log="\n".join(log))
