"""The build stage of one submission's grading (grader.py's steps 1-4, lab by lab, side by
side): the lab's student file taken (discover.py), compiled alone in the sandbox with its
includes checked (build.py, includes.py), its object held to the lab's rules (forbidden.py),
and linked into the lab's executor. What it leaves, per lab: a LabState with the executor, or
the lab's result saying why it stopped (missing, refused, a compile or link error).

A mixin of SubmissionGrader (grader.py), which holds the state the stages share.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from . import build, forbidden, includes
from .discover import Rejected, find_student_file, misplaced_copies, read_student_file
from .labstate import LabState
from .results import (
    COMPILE_ERROR,
    FORBIDDEN,
    LINK_ERROR,
    MISSING,
    NOT_CHECKED,
    REJECTED,
    LabResult,
    SpeedOutcome,
    SuiteResult,
)
from .run import NOT_RUN, TestRun


class BuildStage:
    """The build stage (steps 1-4): a LabState per lab, with its executor or the reason it
    has none."""

    def _start_lab(self, lab):
        """A lab's result table, and its student file compiled, checked and linked (or the
        reason it stopped there)."""
        plan = self.ctx.plans[lab.id]
        result = LabResult(lab=lab)
        state = LabState(lab=lab, plan=plan, result=result, started=time.monotonic())
        result.logs = str(self.out / "logs" / lab.id)
        Path(result.logs).mkdir(parents=True, exist_ok=True)
        for test in plan.tests:
            suite = result.suites.setdefault(
                test.suite, SuiteResult(test.suite, lab.rubric.rule(test.suite))
            )
            suite.runs.append(TestRun(test=test, status=NOT_RUN))
        # Suites in rubric order, then any others in the order of the tests.
        order = [s for s in lab.rubric.suites if s in result.suites]
        result.suites = {name: result.suites[name] for name in order}
        rule = lab.rubric.speed
        if rule and rule.points > 0:
            result.speed = SpeedOutcome(
                max_points=rule.points if plan.reference_executor else 0.0,
                message=plan.speed_note or "not measured",
            )
        try:
            self._build_lab(state)
        finally:
            result.elapsed = time.monotonic() - state.started
        return state

    def _stop(self, result, status, message):
        result.status, result.message = status, message
        result.not_run(f"not run: {status}")
        if result.speed:
            result.speed.message = f"not measured: {status}"

    def _not_found(self, lab, name):
        """What follows "no NAME in the submission": where copies of it are when there are
        several and none where the grader looks (find_student_file() takes none of them)."""
        copies = misplaced_copies(self.submission, lab, name=name)
        return (
            ""
            if not copies
            else (
                f" where the grader looks ({lab.id}/{name}), and more than one elsewhere: "
                + ", ".join(str(c.relative_to(self.submission)) for c in copies)
            )
        )

    def _build_lab(self, state):
        lab, plan, result = state.lab, state.plan, state.result
        iso, tc = self.isolation, self.ctx.toolchain
        source = find_student_file(self.submission, lab)
        if source is None:
            where = self._not_found(lab, lab.student_file)
            self._stop(result, MISSING, f"no {lab.student_file} in the submission{where}")
            return
        # Shown as SUBMISSION/.../FILE, not with the grading machine's folders.
        top = self.submission.resolve().parent
        result.source = (
            os.path.relpath(source, top)
            if Path(os.path.abspath(source)).is_relative_to(top)
            else str(source)
        )
        try:
            text = read_student_file(self.submission, source)
        except Rejected as err:
            self._stop(result, REJECTED, str(err))
            return
        problem = includes.scan_source(text.decode("utf-8", "replace"), lab.student_file)
        if problem:
            self._stop(result, REJECTED, problem)
            return
        # The work folder is named by the lab, under a folder named by index in a class run.
        work = self.work / lab.id
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        copy = work / lab.student_file
        copy.write_bytes(text)
        logs = Path(result.logs)

        started, timing = time.monotonic(), []  # where a lab's grading time goes: timing.log
        obj = work / f"{lab.id}.o"
        if lab.bonus_file:
            if not self._compile_with_bonus(lab, result, copy, obj, logs):
                return
        else:
            self.echo(f"{lab.id}: compiling {lab.student_file}")
            step = build.compile_student(tc, iso, lab, copy, obj, self.ctx.include_roots(lab))
            (logs / "build.log").write_text(f"$ {' '.join(step.command)}\n{step.output}")
            if not step.ok:
                self._stop(result, COMPILE_ERROR, step.message)
                return
        compiled = time.monotonic()
        try:
            findings = forbidden.check_object(obj, lab, plan.symbols, lab.rubric.forbidden, iso)
        except forbidden.CheckFailed as err:
            self._stop(
                result,
                NOT_CHECKED,
                f"the check of {lab.student_file}'s compiled " f"symbols did not finish: {err}",
            )
            return
        if findings:
            message = forbidden.summary(findings, lab.files_named)
            (logs / "forbidden.log").write_text(message + "\n")
            self._stop(result, FORBIDDEN, message)
            return
        executor, checked = work / "executor", time.monotonic()
        step = build.link_executor(tc, iso, lab, obj, executor)
        with open(logs / "build.log", "a") as log:
            log.write(f"\n$ {' '.join(step.command)}\n{step.output}")
        if not step.ok:
            self._stop(result, LINK_ERROR, step.message)
            return
        # The test processes cannot change what they run: the executor is read-only to them
        # (bound so), and the verdict binaries are the kit's.
        os.chmod(executor, 0o555)

        now = time.monotonic()
        timing.append(
            f"compile, check and link: {now - started:.1f} s (compile "
            f"{compiled - started:.1f}, check {checked - compiled:.1f}, link "
            f"{now - checked:.1f})"
        )
        state.executor, state.work, state.logs, state.timing = executor, work, logs, timing

    def _compile_with_bonus(self, lab, result, student_copy, obj, logs):
        """A lab of two student files compiled as make compiles it: one translation unit, the
        bonus file with the student file included first (build.compile_student's first). The
        bonus file is the submission's, or the kit's copy (the skeleton) when the submission
        has none or the two do not compile together, with a note saying so: an unfinished
        bonus costs the bonus, never the lab. (The note does not say what the bonus scored:
        the student file may have done the bonus's work itself; the table says.) A bonus file that
        breaks a rule (a link, an include from elsewhere) stops the lab, as the student file
        would; the rule checks of the object cover both files. Returns whether it compiled
        (else the lab is stopped)."""
        name, tc, iso = lab.bonus_file, self.ctx.toolchain, self.isolation
        copy, roots = student_copy.parent / name, self.ctx.include_roots(lab)
        source, note = find_student_file(self.submission, lab, name), None
        if source is None:
            # Several copies and none where the grader looks: none is taken (which would be a
            # guess), and the note says so rather than that there is none.
            where = self._not_found(lab, name)
            note = (
                f"no {name} in the submission{where}: the kit's copy of it (the "
                f"skeleton) stands in for it, so its bonus TODOs score nothing"
            )
        else:
            try:
                text = read_student_file(self.submission, source)
            except Rejected as err:
                self._stop(result, REJECTED, str(err))
                return False
            problem = includes.scan_source(text.decode("utf-8", "replace"), name)
            if problem:
                self._stop(result, REJECTED, problem)
                return False
            copy.write_bytes(text)
            self.echo(f"{lab.id}: compiling {lab.student_file} and {name}")
            step = build.compile_student(tc, iso, lab, copy, obj, roots, first=student_copy)
            (logs / "build.log").write_text(f"$ {' '.join(step.command)}\n{step.output}")
            if step.ok:
                return True
            if step.refused:  # an include from elsewhere: refused, in either file
                self._stop(result, COMPILE_ERROR, step.message)
                return False
            note = (
                f"{name} did not compile with your {lab.student_file} (logs/{lab.id}/"
                f"build.log): the kit's copy of it (the skeleton) stands in for it, so its "
                f"bonus TODOs score nothing"
            )
        copy.write_bytes((lab.dir / name).read_bytes())
        self.echo(f"{lab.id}: compiling {lab.student_file} and the kit's {name}")
        step = build.compile_student(tc, iso, lab, copy, obj, roots, first=student_copy)
        with open(logs / "build.log", "a") as log:
            log.write(f"\n$ (the kit's {name}) {' '.join(step.command)}\n{step.output}")
        if not step.ok:  # then the student file does not compile (with the skeleton either)
            self._stop(result, COMPILE_ERROR, step.message)
            return False
        result.notes.append(note)
        return True
