"""The CPU time a student's process may use: the sort must run on the GPU.

The verdict process (and the timed driver) measures the executor's CPU time from outside, as
the kernel accounts it to the executor and every process in its sandbox, over the whole test
from the moment the executor said CUDA was ready (tests/remote_client.c): the student's
process cannot report it, hide it, or move it into a window nobody looks at. A GPU sort costs
the host little (launches and the copies the test makes, the same for every solution); a sort
done on the host costs what the sort costs. The budget of a test is measured on the reference
solution, on this machine, for the same test:

    allowed = factor * reference's CPU time + slack_ms      (the rubric's "cpu", rubric.py)

The factor leaves room for legitimate differences: a student's host loop may synchronise
after every launch, or allocate per call, where the reference does not. The slack absorbs the
noise of small tests. Data the tests move travels through the executor's pinned staging
buffer (tests/remote_executor.c), so an honest process spends little CPU time on it. What the
budget catches is host work on large inputs; small inputs cost a host sort too little to tell
(docs/instructor.md, "How the grader keeps its word").
"""

from __future__ import annotations


def allowed_ms(rule, reference_ms):
    return rule.factor * reference_ms + rule.slack_ms


def needs_reference(rule, used_ms):
    """Whether a test's CPU time is high enough that the reference's must be measured: below
    the slack every budget allows it, so the reference need not run at all."""
    return isinstance(used_ms, float) and used_ms > rule.slack_ms


def over_budget(rule, used_ms, reference_ms):
    """The failure message when used_ms is over the budget, else ''."""
    if used_ms == "unknown":
        return ("the grader could not measure the CPU time of the process running your code: "
                "not scored")
    if not isinstance(used_ms, float) or reference_ms is None or \
            used_ms <= allowed_ms(rule, reference_ms):
        return ""
    return (f"your code used {used_ms:.0f} ms of CPU time (the reference solution "
            f"{reference_ms:.0f} ms on this machine; allowed {allowed_ms(rule, reference_ms):.0f}"
            " ms): the sort must run on the GPU, not on the host")
