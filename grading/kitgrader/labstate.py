"""What grading knows of a lab: before anyone is graded (LabPlan), and of the lab of the
submission being graded, between its stages (LabState); the kit's binaries a lab's grading
runs, and how tests and their logs are named."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class LabPlan:
    """What is known about a lab before grading anyone."""

    lab: object
    tests: list  # run.TestInfo, in -l order
    symbols: object  # forbidden.KitSymbols
    reference_executor: Path = None  # the reference solution's executor: speed, CPU budgets
    reference_note: str = ""  # why there is no reference executor, when there is none
    reference_linkable: bool = False  # there is a reference to link (_link_reference)
    speed_note: str = ""  # why there are no speed points, when there are none


@dataclass
class LabState:
    """One lab of the submission being graded, between its steps (SubmissionGrader.grade)."""

    lab: object
    plan: object
    result: object
    started: float
    executor: Path = None  # linked: its tests can run
    work: Path = None
    logs: Path = None
    timing: list = field(default_factory=list)  # where its grading time goes: timing.log


def verdict_binary(lab):
    """The kit's test binary for grading: its suites, and stubs that reach the executor."""
    return lab.kit.build / "grading" / f"verdict_{lab.symbol_id}"


def timed_binary(lab):
    """The kit's timed driver for speed points, split the same way."""
    return lab.kit.build / "grading" / f"timed_{lab.symbol_id}"


def cpu_text(cpu_ms):
    """A CPU time as a test's message shows it."""
    return f"{cpu_ms:.1f} ms" if isinstance(cpu_ms, float) else str(cpu_ms or "none")


def log_name(test_id):
    """A test's log file: its id with "/" as "."."""
    return test_id.replace("/", ".") + ".log"


def is_large(test):
    """A lab's long tests, on much data, are named "large_..." (DESIGN.md)."""
    return "large" in test.name


def is_medium(test):
    """The sweeps named "medium_..." (up to 2^22 keys in every distribution, 7-8 s of a suite's
    15 s batch on an H100): jobs of their own, beside the rest of their suite."""
    return "medium" in test.name
