"""compute-sanitizer on a lab's small tests (grading/grade --sanitize).

memcheck finds out-of-bounds and misaligned accesses and CUDA API errors; racecheck finds
shared-memory hazards, such as a missing __syncthreads(), which can go unseen by the tests
because a racy kernel often sorts correctly anyway. Each tool runs each chosen test of the
student's test binary (the tests marked [sanitize]: the first one, all of them, or those the
rubric names) in its own process group under the sanitizer's time limit. The report goes to
a log file the grader names (--log-file), not to the program's output; the kit builds with
-lineinfo, so reports name the student file's lines. The verdict comes from the sanitizer's
own exit status (--error-exitcode) and that report.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .run import run_limited

ERROR_EXIT = 99
HEAD = re.compile(r"^========= (?! )(?P<text>.*\S)")
DETAIL = re.compile(r"^=========  +(?P<text>.*\S)")
NOT_FINDINGS = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
                "Target application", "This tool", "Warning: No ", "Note:")
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
    unique = [entry if times == 1 else f"{entry}\n    (reported {times} times)"
              for entry, times in repeats.items()]
    counts = [int(a or b) for a, b in SUMMARY.findall(text)]
    count = max(counts) if counts else len(findings)
    return count, unique


def run_tool(sanitizer, tool, binary, test_id, log_path, env, time_limit, cwd=None):
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    if log_path.exists():
        log_path.unlink()
    command = [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXIT),
               "--print-limit", "20", "--show-backtrace", "device", "--log-file", str(log_path),
               str(binary), "-t", test_id]
    result = run_limited(command, time_limit=time_limit, env=env, cwd=cwd)
    report = log_path.read_text(errors="replace") if log_path.exists() else ""
    log = f"$ {' '.join(command)}\n{report}\n--- the test's own output ---\n{result.output}"
    count, findings = parse_report(report)
    run = SanitizerRun(tool=tool, test=test_id, status="clean", count=count,
                       findings=findings[:MAX_FINDINGS], log=log)
    if result.start_error:
        run.status, run.message = "error", f"could not start {sanitizer}: {result.start_error}"
    elif result.timed_out:
        run.status = "timeout"
        run.message = f"{tool} on {test_id} took longer than {time_limit:g} s and was stopped"
    elif result.exit_code == ERROR_EXIT or findings or count:
        run.status = "found"
        run.count = max(count, len(findings), 1)
        run.message = f"{tool} on {test_id}: {run.count} " + (
            "hazard(s)" if tool == "racecheck" else "error(s)")
    else:
        run.message = f"{tool} on {test_id}: nothing found"
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
