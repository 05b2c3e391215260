"""Points need evidence that the GPU did the TODO's work.

On a small input a sort done on the host costs as little CPU time as a GPU sort's launches, so
no measurement can tell the two apart there (cpu.py). A TODO's answers on small inputs
therefore count only when the same TODO showed, where it can be seen, that its GPU path is
real:

- **Its judged tests.** A suite with tests the rubric's "cpu" holds to the CPU budget (the
  large ones, where a host sort costs far more than an honest solution's launches) counts its
  other tests only when every judged test passed, budget included. A submission that sorts
  on the host up to some size and does nothing above it loses the TODO, not only its large
  tests.
- **The timed run.** A TODO with no judged test (Lab 01's 1.2: n launches of a tiny kernel,
  launch-bound at every size, so an honest loop's CPU time is as large as a host sort's)
  takes its evidence from the speed rule's timed run, when the rubric gives a "floor_ratio":
  its n phases cannot finish in less than that fraction of the reference's time (0.1 in Lab
  01: even one cooperative kernel with a grid-wide barrier per phase takes more), and a host
  sort took 0.02-0.03x on an H100. The timed run is made for this evidence even when the
  lab is not correct enough for speed points. A run under the floor is host work found: like
  a test over the CPU budget, it costs every test of the lab. A run that failed (a wrong
  result, a crash, out of time) leaves the TODO without evidence: its tests do not count. A
  run that was never made for a reason that is not the student's (no reference solution, as
  in the student package; speed switched off) is said in a note and costs nothing.

What this still cannot see, as docs/instructor.md says: a submission whose GPU path is real
and which still sorts some small inputs on the host, and a host sort dressed up with the
launches of the real thing (as slow as it, so worth no more).
"""

from __future__ import annotations

from .run import FAILED, PASSED


def judged_tests(rubric, suite):
    """The ids of a suite's tests that the CPU budget holds in."""
    return [run.test.id for run in suite.runs if rubric.cpu.applies(run.test.id)]


def timed_suites(rubric, suites):
    """The suites whose evidence is the timed run: required for speed, none of their tests
    judged, and a floor_ratio in the rubric's speed rule."""
    rule = rubric.speed
    if rule is None or rule.floor_ratio is None:
        return []
    return [
        name
        for name in rubric.required_for_speed()
        if name in suites and not judged_tests(rubric, suites[name])
    ]


def _withdraw(runs, message):
    for run in runs:
        if run.status == PASSED:
            run.status = FAILED
            run.message = message


def gate_on_judged(rubric, result):
    """Withdraws the passed tests of every suite whose judged tests did not all pass."""
    for name, suite in result.suites.items():
        judged = set(judged_tests(rubric, suite))
        failed = [
            run.test.name for run in suite.runs if run.test.id in judged and run.status != PASSED
        ]
        if not failed:
            continue
        _withdraw(
            [run for run in suite.runs if run.test.id not in judged],
            f"not counted: this TODO's large tests ({', '.join(failed)}) did not pass, "
            "and on small inputs the grader cannot tell a GPU sort from a host sort; "
            "they are the evidence that your GPU code did the work",
        )


def below_floor(rule, ratio):
    return (
        rule is not None
        and rule.floor_ratio is not None
        and ratio is not None
        and ratio < rule.floor_ratio
    )


def withdraw_lab(result, message):
    """Host work found: every passed test of the lab is withdrawn."""
    for suite in result.suites.values():
        _withdraw(suite.runs, message)


def withdraw_timed(rubric, result, why):
    """The timed run gave no evidence: the suites that rest on it lose their passed tests."""
    for name in timed_suites(rubric, result.suites):
        _withdraw(
            result.suites[name].runs,
            f"not counted: {why}; the timed run of your sort is the evidence that the GPU "
            f"did this TODO's work (on small inputs the grader cannot tell a GPU sort from "
            f"a host sort)",
        )
