"""The CPU time a student's process may use: the sort must run on the GPU.

The verdict process (and the timed driver) measures the executor's CPU time from outside, as
the kernel accounts it to the executor and every process in its sandbox, over the whole test
from the moment the executor said CUDA was ready (tests/remote_client.c): the student's
process cannot report it, hide it, or move it into a window nobody looks at. A GPU sort costs
the host little (launches and the copies the test makes, the same for every solution); a sort
done on the host costs what the sort costs. The budget of a test is measured on the reference
solution, on this machine, for the same test:

    allowed = FACTOR * reference's CPU time + SLACK_MS

FACTOR is wide on purpose: a student's host loop may synchronise after every launch, or
allocate per call, where the reference does not (legitimate, and a few times the reference's
CPU time in Lab 01's launch loops). SLACK_MS absorbs the noise of small tests. What it catches
is a sort of a large input done on the host; small inputs cost a host sort too little to tell
(docs/instructor.md, "How the grader keeps its word").
"""

from __future__ import annotations

FACTOR = 4.0
SLACK_MS = 250.0


def allowed_ms(reference_ms):
    return FACTOR * reference_ms + SLACK_MS


def needs_reference(used_ms):
    """Whether a test's CPU time is high enough that the reference's must be measured: below
    SLACK_MS every budget allows it, so the reference need not run at all."""
    return used_ms is not None and used_ms != "unknown" and used_ms > SLACK_MS


def over_budget(used_ms, reference_ms):
    """The failure message when used_ms is over the budget, else ''."""
    if used_ms == "unknown":
        return ("the grader could not measure the CPU time of the process running your code: "
                "not scored")
    if used_ms is None or reference_ms is None or used_ms <= allowed_ms(reference_ms):
        return ""
    return (f"your code used {used_ms:.0f} ms of CPU time (the reference solution "
            f"{reference_ms:.0f} ms on this machine; allowed {allowed_ms(reference_ms):.0f} ms): "
            "the sort must run on the GPU, not on the host")
