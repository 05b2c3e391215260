"""What grading shows: the terminal table, results.json (Gradescope's format), the gradebook.

results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
    {"score", "execution_time", "output", "visibility", "stdout_visibility",
     "tests": [{"name", "score", "max_score", "status": "passed"|"failed", "output",
                "visibility", "tags"}...],
     "extra_data": {the submission's max_score, per-lab scores and states, the GPU, the time
                    bound}}
(the keys of the specification alone at the top: the submission's maximum is extra_data's,
as Gradescope takes it from the tests' max_score)
with one entry per test (its share of its suite's points; a bonus suite's tests have
max_score 0), and per lab, when there is something to say, an entry for its build, its
speed points and compute-sanitizer's findings.

Much of what these show comes from the student's code: what its tests printed, compiler
messages about its file. All of it passes printable() on the way out (the table, every
string of results.json, the gradebook's cells), so no escape sequence, carriage return or
other control character reaches a terminal or a spreadsheet: a printed "FAIL" line cannot
move the cursor and overwrite the table with a forged score. The logs keep the raw output.
Every file is written whole or not at all (write_atomic): a temporary file, then os.replace.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
from pathlib import Path

from .results import GRADED
from .run import NOT_RUN, PASSED

OUTPUT_IN_JSON = 6000  # characters of a test's output kept in results.json
MESSAGE_WIDTH = 96

# Terminal escape sequences, whole: CSI (ESC [ ... or the 8-bit CSI), OSC and the other
# string commands up to their terminator (or the line's end), and two-character ones.
ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# What is left that no terminal should get: C0 controls but newline and tab, DEL, C1
# controls, the marks that reorder text (bidi), line and paragraph separators, lone
# surrogates (from undecodable bytes).
UNPRINTABLE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
    r"\u2028\u2029\u2066-\u2069\ud800-\udfff]"
)


def printable(text, multiline=True):
    """text without terminal escape sequences and control characters, for a terminal, a
    report or a spreadsheet; newlines and tabs kept when multiline, else made spaces. The one
    place where text that the student's code or the compiler produced is made safe to show."""
    text = ESCAPE_SEQUENCE.sub("", str(text).replace("\r\n", "\n"))
    if not multiline:
        text = text.replace("\n", " ").replace("\t", " ")
    return UNPRINTABLE.sub("", text)


def _printable_tree(value):
    """Every string in a JSON-like tree made printable()."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {key: _printable_tree(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_printable_tree(item) for item in value]
    return value


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


FILE_MODE = 0o666 & ~_umask()  # what open() would give a new file (read once, at import)


def write_atomic(path, text, encoding_errors="strict"):
    """Writes text to path in one step: a temporary file beside it, then os.replace(), so
    whoever reads path (or a grader stopped half way) finds the old file or the new one,
    never a part of one. Written as given (no newline translation)."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=encoding_errors, newline="") as f:
            os.fchmod(f.fileno(), FILE_MODE)
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path


def fmt(points):
    return f"{points:.2f}".rstrip("0").rstrip(".") if points != int(points) else f"{points:.0f}"


def _relative(path):
    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    except ValueError:
        return path


def _short(text, width=MESSAGE_WIDTH):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


# ---- the terminal -------------------------------------------------------------------------


def lab_table(lab, verbose=False, graded=True):
    """The lab's lines of the terminal table. graded=False (the submission was not graded: no
    GPU, say): no score is shown, only what each part is worth, so that nothing looks like a
    grade."""
    lines = []
    where = _relative(lab.source) if lab.source else lab.lab.student_file
    score = (
        f"{fmt(lab.score)} / {fmt(lab.max_score)} points"
        if graded
        else f"not graded (up to {fmt(lab.max_score)} points)"
    )
    lines.append(f"== {lab.lab.id}: {score}   ({where})")
    if lab.status != GRADED:
        lines.append(f"   {lab.status.upper()}: 0 points for the lab")
        message = [line.rstrip() for line in lab.message.splitlines() if line.strip()]
        for line in message[:20]:
            lines.append(f"     {line}")
        if len(message) > 20:
            lines.append(f"     [... the whole message is in {lab.logs}]")
        return lines
    lines.append(f"   {'part':<26} {'score':>7} {'max':>7} {'tests':>6}  first failure")
    if any(suite.emulated for suite in lab.suites.values()):
        lines.append(
            "   (no GPU: each TODO's [emulate] tests ran on the CPU emulation instead, "
            "in 3 thread orders:"
        )
        lines.append("    feedback, no points: a GPU decides the grade)")
    for suite in lab.suites.values():
        label = suite.name + (" (bonus)" if suite.rule.bonus else "")
        if not suite.rule.in_rubric:
            label += " (no points)"
        max_text = ("+" + fmt(suite.rule.points)) if suite.rule.bonus else fmt(suite.max_points)
        tests = f"{suite.passed}/{len(suite.runs)}"
        points = fmt(suite.points) if graded else "-"
        lines.append(
            f"   {label:<26} {points:>7} {max_text:>7} {tests:>6}  "
            f"{_short(suite.emulated or suite.first_failure())}"
        )
        if verbose:
            for run in suite.runs:
                mark = "PASS" if run.status == PASSED else run.status.upper()
                lines.append(
                    f"       {mark:<8} {run.test.name} ({run.elapsed:.1f} s)"
                    + (f"  {_short(run.message, 80)}" if run.status != PASSED else "")
                )
    if lab.speed:
        lines.append(
            f"   {'speed':<26} {fmt(lab.speed.points) if graded else '-':>7} "
            f"{fmt(lab.speed.max_points):>7} {'-':>6}  {_short(lab.speed.message)}"
        )
    if lab.sanitizer or lab.sanitizer_note:
        found = [r for r in lab.sanitizer if r.status != "clean"]
        text = lab.sanitizer_note or (
            "nothing found" if not found else "; ".join(r.message for r in found)
        )
        lines.append(
            f"   {'compute-sanitizer':<26} {fmt(-lab.deduction):>7} {'-':>7} {'-':>6}  "
            f"{_short(text)}"
        )
        shown = []  # the same finding from several tests is shown once
        for run in found:
            shown += [(run.tool, f) for f in run.findings if (run.tool, f) not in shown]
        for tool, finding in shown[:5]:
            for i, line in enumerate(finding.splitlines()):
                lead = f"{tool}: " if i == 0 else " " * (len(tool) + 2)
                lines.append(f"       {lead}{line.strip()}")
        if len(shown) > 5:
            lines.append(f"       ... {len(shown) - 5} more in results.json and the logs")
    return lines


def submission_table(sub, verbose=False, out_dir=None):
    lines = []
    for lab in sub.labs:
        lines += lab_table(lab, verbose, graded=not sub.error)
        lines.append("")
    if sub.error:
        lines.append(f"NOT GRADED: {sub.error}")
    passed = sum(lab.count(PASSED) for lab in sub.labs)
    skipped = sub.skipped
    not_run = sum(lab.count(NOT_RUN) for lab in sub.labs)
    failed = sum(len(lab.runs()) for lab in sub.labs) - passed - skipped - not_run
    total = (
        f"total {fmt(sub.score)} / {fmt(sub.max_score)} points"
        if not sub.error
        else f"total: not graded (up to {fmt(sub.max_score)} points)"
    )
    lines.append(
        f"{total} ({len(sub.labs)} "
        f"lab{'s' if len(sub.labs) != 1 else ''}); tests: {passed} passed, "
        f"{failed} failed"
        + (f", {skipped} skipped" if skipped else "")
        + (f", {not_run} not run" if not_run else "")
    )
    time_line = f"time {sub.elapsed:.1f} s (bound {sub.time_bound:.0f} s)"
    if sub.gpu:
        time_line += f"; {sub.gpu}"
    lines.append(time_line)
    if sub.isolation:
        lines.append(f"isolation: {sub.isolation}")
    for note in sub.notes:
        lines.append(f"note: {note}")
    if out_dir:
        # Not graded: no results.json is written (nothing may look like a grade).
        kept = "grade.log" if sub.error else "results.json"
        lines.append(f"results: {Path(out_dir) / kept}   logs: {Path(out_dir) / 'logs'}/")
    return printable("\n".join(lines))


# ---- results.json -------------------------------------------------------------------------


def _status(ok):
    return "passed" if ok else "failed"


def _test_output(run):
    text = run.message or ("passed" if run.status == PASSED else run.status)
    if run.output and run.status != PASSED:
        out = run.output
        if len(out) > OUTPUT_IN_JSON:
            out = out[: OUTPUT_IN_JSON // 2] + "\n[...]\n" + out[-OUTPUT_IN_JSON // 2 :]
        text += "\n\n" + out
    return text


def results_json(sub):
    """results.json's content, every string printable()."""
    return _printable_tree(_results(sub))


def _results(sub):
    tests = []
    for lab in sub.labs:
        rid = lab.lab.id
        if lab.status != GRADED:
            tests.append(
                {
                    "name": f"{rid} build",
                    "score": 0.0,
                    "max_score": 0.0,
                    "status": "failed",
                    "output": f"{lab.status}: {lab.message}",
                    "visibility": "visible",
                    "tags": [rid],
                }
            )
        for suite in lab.suites.values():
            share = suite.test_points()
            for run in suite.runs:
                visibility = suite.rule.test_visibility.get(run.test.name, suite.rule.visibility)
                ok = run.status == PASSED
                tests.append(
                    {
                        "name": f"{rid} {run.test.id}",
                        "score": round(share if ok else 0.0, 4),
                        "max_score": 0.0 if suite.rule.bonus else round(share, 4),
                        "status": _status(ok),
                        "output": _test_output(run),
                        "visibility": visibility,
                        "tags": [rid, suite.name] + (["bonus"] if suite.rule.bonus else []),
                    }
                )
        if lab.speed and (lab.speed.max_points > 0 or lab.speed.points > 0):
            tests.append(
                {
                    "name": f"{rid} speed",
                    "score": round(lab.speed.points, 4),
                    "max_score": round(lab.speed.max_points, 4),
                    "status": _status(lab.speed.points >= lab.speed.max_points),
                    "output": lab.speed.message,
                    "visibility": lab.lab.rubric.speed.visibility,
                    "tags": [rid, "speed"],
                }
            )
        if lab.sanitizer or lab.sanitizer_note:
            found = [r for r in lab.sanitizer if r.status != "clean"]
            parts = [lab.sanitizer_note] if lab.sanitizer_note else []
            for r in lab.sanitizer:
                parts.append(
                    r.message + "".join("\n  " + f.replace("\n", "\n  ") for f in r.findings)
                )
            text = "\n".join(parts)
            tests.append(
                {
                    "name": f"{rid} compute-sanitizer",
                    "score": -round(lab.deduction, 4),
                    "max_score": 0.0,
                    "status": _status(not found),
                    "output": text.strip() or "nothing found",
                    "visibility": "visible",
                    "tags": [rid, "sanitizer"],
                }
            )
    return {
        "score": round(sub.score, 4),
        "execution_time": round(sub.elapsed, 1),
        "output": submission_table(sub),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "submission": sub.name,
            "max_score": round(sub.max_score, 4),
            "labs": {
                lab.lab.id: {
                    "score": round(lab.score, 4),
                    "max_score": round(lab.max_score, 4),
                    "status": lab.status,
                    "message": lab.message[:2000],
                }
                for lab in sub.labs
            },
            "gpu": sub.gpu,
            "time_bound_s": round(sub.time_bound, 1),
            "notes": sub.notes,
        },
    }


def write_submission(sub, out_dir, verbose=False):
    """results.json (unless the grader could not grade) and grade.log, in out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.json"
    table = submission_table(sub, verbose=True, out_dir=out_dir)
    write_atomic(out_dir / "grade.log", table + "\n")
    if sub.error:
        results.unlink(missing_ok=True)
    else:
        write_atomic(results, json.dumps(results_json(sub), indent=2) + "\n")
    return submission_table(sub, verbose=verbose, out_dir=out_dir)


# ---- the gradebook ------------------------------------------------------------------------


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell):
    """A cell a spreadsheet shows as text: one that starts like a formula (a student's folder
    name such as =HYPERLINK(...), or a message) gets a leading '."""
    cell = str(cell)
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def write_gradebook(path, subs, lab_ids):
    """One row per student, a column per lab, the total; why, when a student was not graded;
    how the code was isolated. Every cell is made safe for a spreadsheet (the student's name,
    which classroom.py vets, as it is; the others printable() on one line). Written whole or
    not at all: a class run writes it after every student."""
    return write_gradebook_rows(path, [gradebook_row(sub, lab_ids) for sub in subs], lab_ids)


def write_gradebook_rows(path, rows, lab_ids):
    """write_gradebook() from rows as gradebook_row() gives them (a Slurm run gathers the
    rows its tasks wrote, slurm.py)."""
    text = io.StringIO()
    out = csv.writer(text)
    out.writerow(
        ["student", *lab_ids, "total", "max_total", "status", "seconds", "isolation", "notes"]
    )
    for name, *cells in sorted(rows, key=lambda row: row[0]):
        out.writerow(
            [spreadsheet_safe(name)]
            + [spreadsheet_safe(printable(c, multiline=False)) for c in cells]
        )
    return write_atomic(path, text.getvalue(), encoding_errors="backslashreplace")


def gradebook_row(sub, lab_ids):
    """The student's row: name, a cell per lab, total, max, status, seconds, isolation, notes."""
    if sub.error:
        return [
            sub.name,
            *([""] * len(lab_ids)),
            "",
            "",
            "not graded",
            f"{sub.elapsed:.0f}",
            sub.isolation,
            sub.error,
        ]
    cells = []
    notes = []
    for lab_id in lab_ids:
        lab = sub.lab(lab_id)
        cells.append(fmt(lab.score) if lab else "")
        if lab and lab.status != GRADED:
            notes.append(f"{lab_id}: {lab.status}")
    notes += sub.notes
    return [
        sub.name,
        *cells,
        fmt(sub.score),
        fmt(sub.max_score),
        "graded",
        f"{sub.elapsed:.0f}",
        sub.isolation,
        "; ".join(notes),
    ]
