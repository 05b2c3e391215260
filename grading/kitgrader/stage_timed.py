"""The timed stage of one submission's grading (grader.py's steps 6-7), one lab at a time
with the GPU alone (sharing.AloneWhenNeeded): the failures of a shared GPU run again, CPU time
checked again on a quiet GPU (cpu.py), speed against the reference (speed.py); then, the GPU
shared again, compute-sanitizer (sanitize.py).

A mixin of SubmissionGrader (grader.py), which holds the state the stages share.
"""

from __future__ import annotations

import time

from . import build, cpu, evidence, sanitize, sharing, speed
from .labstate import log_name, timed_binary, verdict_binary
from .results import GRADED
from .run import FAILED, run_test


class TimedStage:
    """The timed stage (steps 6-7): speed and CPU time with the GPU alone, then the
    sanitizers."""

    def _finish_labs(self, states):
        """Each lab's CPU time checks and speed rounds, one lab at a time, in one turn with
        the GPU alone (taken when the first of them needs it: sharing.AloneWhenNeeded); then,
        the GPU shared again, the sanitizer runs."""
        built = [state for state in states if state.executor]
        quiet = sharing.AloneWhenNeeded(self.turns)
        try:
            for state in built:
                self._timed_checks(state, quiet)
        finally:
            quiet.close()
        for state in built:
            lab, result, timing = state.lab, state.result, state.timing
            try:
                if self.ctx.options.sanitize:
                    started = time.monotonic()
                    self._sanitize(lab, state.plan, state.executor, state.work, state.logs, result)
                    timing.append(f"compute-sanitizer: {time.monotonic() - started:.1f} s")
                if quiet.waited:
                    timing.append(
                        f"waiting for the GPU alone (other submissions' tests to "
                        f"end), before the first lab's timed work: "
                        f"{quiet.waited:.1f} s"
                    )
                (state.logs / "timing.log").write_text("\n".join(timing) + "\n")
            finally:
                result.elapsed = time.monotonic() - state.started

    def _timed_checks(self, state, quiet):
        """A lab's CPU time checks and speed rounds; quiet() before anything is measured."""
        lab, plan, result = state.lab, state.plan, state.result
        executor, work, logs, timing = state.executor, state.work, state.logs, state.timing
        started = time.monotonic()
        if self._run_failures_alone(state, quiet):
            timing.append(
                f"failed tests run again with the GPU alone: " f"{time.monotonic() - started:.1f} s"
            )
            started = time.monotonic()
        self._confirm_cpu(lab, executor, work, result, quiet)
        evidence.gate_on_judged(lab.rubric, result)
        timing.append(f"CPU time checks: {time.monotonic() - started:.1f} s")
        started = time.monotonic()
        self._speed(lab, plan, executor, logs, result, quiet)
        timing.append(f"speed: {time.monotonic() - started:.1f} s")

    def _confirm_cpu(self, lab, executor, work, result, quiet):
        """The tests suspected of host work, measured again one at a time, each beside a fresh
        run of the reference: when many tests share the GPU, a launch-heavy test's CPU time
        grows with the wait for queue space, the reference's as much. A test still over the
        budget fails; and since the grader cannot tell which of this lab's other answers the GPU
        computed, none of the lab's tests counts then."""
        suspects = [
            (suite, run)
            for suite in result.suites.values()
            for run in suite.runs
            if run.details.get("cpu_suspect")
        ]
        caught = []
        if suspects:
            quiet()
        for suite, run in suspects:
            limit = self.ctx.test_limit(lab, run.test.suite)
            command = build.executor_command(self.isolation, executor, limit)
            env = self._test_env(lab, run.test)
            again, _ = run_test(
                verdict_binary(lab),
                run.test,
                time_limit=limit,
                env=env,
                cwd=work,
                executor=command,
                owner=self.slot,
            )
            reference = self.ctx.reference_cpu_ms(
                lab, run.test, env, self.isolation, fresh=True, owner=self.slot
            )
            used = [
                u
                for u in (run.details.get("cpu_ms"), again.details.get("cpu_ms"))
                if isinstance(u, float)
            ]
            references = [
                r for r in (run.details.get("reference_cpu_ms"), reference) if r is not None
            ]
            message = (
                cpu.over_budget(lab.rubric.cpu, min(used), max(references))
                if used and references
                else ""
            )
            with open(run.log, "a") as log:
                log.write(
                    f"\n---\ngrader: measured again alone: your code {used} ms of CPU "
                    f"time, the reference {references} ms\n"
                    + (f"grader: {message}\n" if message else "grader: within budget\n")
                )
            if message:
                run.status, run.message = FAILED, message
                caught.append(run)
        if not caught:
            return
        evidence.withdraw_lab(
            result,
            f"not scored: in {caught[0].test.id} your code did the "
            "work on the host (its CPU time), so the grader cannot "
            "tell which of this lab's answers the GPU computed",
        )

    def _speed(self, lab, plan, executor, logs, result, quiet):
        """The timed run: speed points when the lab is correct; else, when a suite rests on
        it for its evidence (evidence.py) and passed a test, made for that evidence alone."""
        outcome = result.speed
        timed = evidence.timed_suites(lab.rubric, result.suites)
        if outcome is None or plan.reference_executor is None:
            if timed and result.status == GRADED:
                result.notes.append(
                    f"the timed run was not made here (no reference solution "
                    f"or speed): {', '.join(timed)} counted without its evidence"
                )
            return
        points = result.correct_for_speed()
        if not points:
            needed = ", ".join(lab.rubric.required_for_speed())
            if not any(result.suites[name].passed for name in timed):
                outcome.message = f"not measured: needs every test of {needed} to pass"
                return
            outcome.message = f"no points: needs every test of {needed} to pass"
        if self._out_of_time():
            if points:
                outcome.message = "not measured: this submission used up its grading time"
            evidence.withdraw_timed(
                lab.rubric,
                result,
                "your submission used up its grading " "time before its sort was timed",
            )
            return
        rule = lab.rubric.speed
        quiet()
        self.echo(f"{lab.id}: speed")
        iso, driver = self.isolation, timed_binary(lab)
        limit = rule.time_limit_s
        measured = speed.measure(
            driver,
            rule.args,
            build.executor_command(iso, executor, limit),
            build.executor_command(iso, plan.reference_executor, limit),
            self.env,
            limit,
            cpu_rule=lab.rubric.cpu,
        )
        (logs / "speed.log").write_text(measured.log + "\n")
        outcome.log = measured.log
        if not measured.measured:
            if measured.message.startswith("the reference"):
                outcome.max_points = 0.0  # not the student's fault: not counted
                if timed:
                    result.notes.append(
                        "the reference could not be timed: the timed run's "
                        "evidence was not checked"
                    )
            else:
                evidence.withdraw_timed(
                    lab.rubric, result, f"the timed run of your sort failed ({measured.message})"
                )
            prefix = "not measured" if points else "no points, and the timed run failed"
            outcome.message = f"{prefix}: {measured.message}"
            return
        timing = (
            f"{measured.ratio:.2f}x the reference's time ({measured.student_ms:.2f}"
            f" ms vs {measured.reference_ms:.2f} ms"
        )
        if evidence.below_floor(rule, measured.ratio):
            outcome.message = (
                f"no points: {timing}), faster than the lab's GPU work can be "
                f"(the floor is {rule.floor_ratio:g}x): the sort ran on the host"
            )
            evidence.withdraw_lab(
                result,
                f"not scored: the timed run of your sort took {timing})"
                f", less than the GPU needs for this lab's work "
                f"(at least {rule.floor_ratio:g}x), so the grader "
                "cannot tell which of this lab's answers the GPU "
                "computed",
            )
            return
        if not points:
            outcome.message += f" (timed for the evidence of your GPU work: {timing}))"
            return
        outcome.ratio = measured.ratio
        outcome.student_ms, outcome.reference_ms = measured.student_ms, measured.reference_ms
        outcome.points = speed.speed_points(
            measured.ratio, rule.points, rule.full_ratio, rule.zero_ratio
        )
        outcome.message = (
            f"{timing}; full points up to {rule.full_ratio:g}x, none from " f"{rule.zero_ratio:g}x)"
        )

    def _sanitize(self, lab, plan, executor, work, logs, result):
        rule = lab.rubric.sanitizer
        tool_path = sanitize.find_sanitizer(self.ctx.toolchain, self.ctx.options.sanitizer)
        if not tool_path:
            result.sanitizer_note = "compute-sanitizer not found: not run"
            return
        tests = sanitize.choose_tests(rule, plan.tests)
        if not tests:
            result.sanitizer_note = "no test of this lab is marked [sanitize]: not run"
            return
        for test_id in tests:
            for tool in rule.tools:
                if self._out_of_time():
                    result.sanitizer_note = "not all run: the submission's grading time ran out"
                    return
                self.echo(f"{lab.id}: {tool} {test_id}")
                log = logs / f"{tool}.{log_name(test_id)}"
                wrapper, binds = sanitize.wrapper(tool_path, tool)
                command = build.executor_command(
                    self.isolation, executor, rule.time_limit_s, wrapper, binds
                )
                with self.turns.shared():
                    run = sanitize.run_tool(
                        tool,
                        verdict_binary(lab),
                        test_id,
                        command,
                        self.env,
                        rule.time_limit_s,
                        cwd=work,
                        owner=self.slot,
                    )
                log.write_text(run.log)
                run.log = str(log)
                result.sanitizer.append(run)
        if rule.deduction > 0 and any(r.status == "found" for r in result.sanitizer):
            result.deduction = rule.deduction
