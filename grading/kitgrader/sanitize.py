"""compute-sanitizer on a lab's small tests (grading/grade --sanitize).

memcheck finds out-of-bounds and misaligned accesses and CUDA API errors; racecheck finds
shared-memory hazards, such as a missing __syncthreads(), which can go unseen by the tests
because a racy kernel often sorts correctly anyway. Each tool runs each chosen test of the
lab (the tests marked [sanitize]: the first one, all of them, or those the rubric names):
the kit's verdict binary runs the test as always, and the sanitizer runs the executor, the
process with the student's code, in the sandbox (grading/runtime/remote.h). The kit builds with
-lineinfo, so reports name the student file's lines.

Whether the tool found something is its exit status (--error-exitcode), read by the verdict
process, which reaps the sanitizer: 0 is clean, ERROR_EXIT is a finding, anything else (a
sanitizer killed or ended early) counts as a finding. The report shares the executor's output,
which the student's code can also write to: it is shown as feedback, never decides.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .run import read_channel, run_limited

ERROR_EXIT = 99
HEAD = re.compile(r"^========= (?! )(?P<text>.*\S)")
DETAIL = re.compile(r"^=========  +(?P<text>.*\S)")
NOT_FINDINGS = (
    "COMPUTE-SANITIZER",
    "ERROR SUMMARY",
    "RACECHECK SUMMARY",
    "LEAK SUMMARY",
    "Target application",
    "This tool",
    "Warning: No ",
    "Note:",
)
LOCATION = re.compile(r"\S+\.(?:cu|cuh|c|h|cpp|hpp):\d+")
SUMMARY = re.compile(r"(?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
MAX_FINDINGS = 10


@dataclass
class SanitizerRun:
    tool: str
    test: str
    status: str  # "clean", "found", "timeout", "error"
    count: int = 0
    findings: list = field(default_factory=list)  # readable, with source lines
    message: str = ""
    log: str = ""


def find_sanitizer(toolchain, override=None):
    """--sanitizer if given, else the toolkit's compute-sanitizer next to nvcc, else PATH's."""
    if override:
        return override
    beside = Path(toolchain.nvcc).parent / "compute-sanitizer"
    if os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("compute-sanitizer")


def short_paths(text):
    """/long/path/to/oddeven.cu:42 -> oddeven.cu:42"""
    return re.sub(r"(?:/[^\s:/]+)+/([^\s:/]+:\d+)", r"\1", text)


def parse_report(text):
    """(count, findings): the reported errors or hazards, each as one or two readable lines."""
    findings, current = [], None
    for line in text.splitlines():
        head, detail = HEAD.match(line), DETAIL.match(line)
        if head:
            words = head.group("text")
            if words.startswith(NOT_FINDINGS + ("Saved host backtrace",)):
                current = None
                continue
            current = [short_paths(words)]
            findings.append(current)
        elif detail and current is not None:
            words = detail.group("text")
            if words.startswith(("Saved host backtrace", "Host Frame", "Device Frame")):
                current = None
            elif (LOCATION.search(words) or words.startswith("and ")) and len(current) < 3:
                current.append(short_paths(words))
    repeats = {}  # the same report from many threads: shown once, with how many times
    for finding in findings:
        entry = "\n    ".join(finding)
        repeats[entry] = repeats.get(entry, 0) + 1
    unique = [
        entry if times == 1 else f"{entry}\n    (reported {times} times)"
        for entry, times in repeats.items()
    ]
    counts = [int(a or b) for a, b in SUMMARY.findall(text)]
    count = max(counts) if counts else len(findings)
    return count, unique


def wrapper(sanitizer, tool):
    """The words that run the executor under the sanitizer, and what the sandbox must show of
    the sanitizer when it lives outside /usr (bound at its own path)."""
    real = os.path.realpath(sanitizer)
    binds = [] if real.startswith("/usr/") else [(real, real)]
    argv = [
        real,
        "--tool",
        tool,
        "--error-exitcode",
        str(ERROR_EXIT),
        "--print-limit",
        "20",
        "--show-backtrace",
        "device",
    ]
    return argv, binds


def run_tool(tool, verdict, test_id, executor, env, time_limit, cwd=None, owner=None):
    """One test with its executor under the sanitizer (executor: the sandboxed argv).

    The verdict comes from the sanitizer's exit status, which the verdict process reads when
    it reaps the executor and sends on its result channel: the student's process shares the
    report's stream and can print a summary of its own, but cannot change how the sanitizer
    ended (and, in the sandbox, cannot signal it). The report's text is feedback."""
    command = [str(verdict), "-t", test_id, "--", *executor]
    # The test's buffers live in the executor here, each exactly as large as asked: memcheck
    # knows a buffer's end only from its allocation, and the verdict process's shared buffers
    # (grading/runtime/shared_memory.h) are whole pages, so a write past n keys would land inside one.
    # No CPU time is judged in a sanitizer run.
    env = dict(env if env is not None else os.environ, KIT_DATA_PLANE="executor")
    result = run_limited(
        command, time_limit=time_limit, env=env, cwd=cwd, channel=True, owner=owner
    )
    report = result.output
    log = f"$ {' '.join(command)}\n{report}"
    count, findings = parse_report(report)
    channel = read_channel(result)
    ended = (channel.notes.get("executor") or [None])[-1] if channel.good else None
    run = SanitizerRun(
        tool=tool,
        test=test_id,
        status="clean",
        count=count,
        findings=findings[:MAX_FINDINGS],
        log=log,
    )
    what = "hazard(s)" if tool == "racecheck" else "error(s)"
    if result.start_error:
        run.status, run.message = "error", f"could not start {verdict}: {result.start_error}"
    elif result.timed_out:
        run.status = "timeout"
        run.message = f"{tool} on {test_id} took longer than {time_limit:g} s and was stopped"
    elif ended == f"exit {ERROR_EXIT}":
        run.status = "found"
        run.count = max(count, len(findings), 1)
        run.message = f"{tool} on {test_id}: {run.count} {what}"
    elif ended == "exit 0":
        run.count, run.findings = 0, []
        run.message = f"{tool} on {test_id}: nothing found"
    else:
        run.status, run.count = "found", max(count, len(findings), 1)
        how = ended or "no exit status (it never started, or the test process gave no result)"
        run.message = (
            f"{tool} on {test_id}: the sanitizer did not finish ({how}): counted " "as a finding"
        )
    return run


def choose_tests(rule, tests):
    """The SUITE/TEST ids the sanitizer runs, from the rubric's `tests` and the -l marks."""
    marked = [t.id for t in tests if t.sanitize]
    if rule.tests == "first":
        return marked[:1]
    if rule.tests == "all":
        return marked
    known = {t.id for t in tests}
    return [t for t in rule.tests if t in known]
