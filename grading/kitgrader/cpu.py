"""The CPU time a student's process may use: the sort must run on the GPU.

The verdict process (and the timed driver) measures the executor's CPU time from outside, as
the kernel accounts it to the executor and every process in its sandbox, over the whole test
from the moment the executor said CUDA was ready (grading/runtime/remote_client.c): the student's
process cannot report it, hide it, or move it into a window nobody looks at. A GPU sort costs
the host little (launches and the copies the test makes, the same for every solution); a sort
done on the host costs what the sort costs. The budget of a test is measured on the reference
solution, on this machine, for the same test:

    allowed = factor * reference's CPU time + slack_ms      (the rubric's "cpu", rubric.py)

The factor leaves room for legitimate differences (a student's code may allocate per call
where the reference does not); the slack absorbs the noise of tests that share the GPU. The
test's data never passes through the executor (the verdict process holds its buffers,
grading/runtime/shared_memory.h), so an honest process's CPU time is its launches, and a host sort's is
the sort and its copies. The rubric's "tests" confine the budget to tests where that holds:
large inputs, few launches. In a launch-bound test an honest loop that waits after every
launch can cost more than a host sort (docs/instructor.md, "How the grader keeps its word").
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
        return (
            "the grader could not measure the CPU time of the process running your code: "
            "not scored"
        )
    if (
        not isinstance(used_ms, float)
        or reference_ms is None
        or used_ms <= allowed_ms(rule, reference_ms)
    ):
        return ""
    return (
        f"your code used {used_ms:.0f} ms of CPU time (the reference solution "
        f"{reference_ms:.0f} ms on this machine; allowed {allowed_ms(rule, reference_ms):.0f}"
        " ms): the sort must run on the GPU, not on the host"
    )
