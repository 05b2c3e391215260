"""The test stage of one submission's grading (grader.py's step 5): every test of every lab
that built, in one pool of --test-jobs at a time (batches of a suite's tests in one executor,
each verdict the one the test alone would get), each judged by the kit's verdict binary
(run.py) and logged; on a shared GPU, the turns and the re-runs that keep a classmate's code
out of the verdicts (sharing.py). Without a GPU, the [emulate] tests on the CPU emulation
instead (emulated.py), as feedback.

A mixin of SubmissionGrader (grader.py), which holds the state the stages share.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import build, cpu, emulated, gpu, sandbox
from .labstate import cpu_text, is_large, is_medium, log_name, verdict_binary
from .run import CRASHED, FAILED, PASSED, SKIPPED, TIMEOUT, NOT_RUN, TestRun, run_batch, run_test


class TestStage:
    """The test stage (step 5): every test in one pool, judged and logged; or, without a
    GPU, emulated."""

    def _run_tests(self, states, only=None):
        """Every test of every lab that built (with only: those it accepts), in one pool of
        test_jobs at a time. A suite's short tests run as one batch, and its large tests as
        another (_run_batch, batch_group). The long jobs (batches, and tests a lab names
        "large_..." or "medium_...") start first, so the short ones fill the gaps beside them
        instead of leaving one long job running alone at the end."""
        built = [state for state in states if state.executor]
        jobs = []
        for state in built:
            for suite in state.result.suites.values():
                wanted = [i for i, run in enumerate(suite.runs) if only is None or only(run.test)]
                groups = {}
                for i in wanted:
                    group = self.ctx.batch_group(state.lab, suite.runs[i].test)
                    groups.setdefault(group, []).append(i)
                for group, indices in groups.items():
                    if group is None or len(indices) == 1:
                        jobs += [(state, suite, [i]) for i in indices]
                    else:
                        jobs.append((state, suite, indices))
        # The long jobs first: batches of large tests, then other batches (many short tests in
        # a row) and large or medium tests alone, then the short tests alone.
        jobs.sort(key=self._job_rank)
        started = time.monotonic()
        self._schedule = []  # (start, end, job) of each job: logs/pool.log
        with ThreadPoolExecutor(max_workers=max(1, self.test_jobs)) as pool:
            done = pool.map(self._run_job, jobs)
            for (_, suite, indices), runs in zip(jobs, done):
                for i, run in zip(indices, runs):
                    suite.runs[i] = run
        elapsed = time.monotonic() - started
        self._write_schedule(started, elapsed)
        for state in built:
            count = sum(len(suite.runs) for suite in state.result.suites.values())
            batches = sum(1 for job in jobs if job[0] is state and len(job[2]) > 1)
            state.timing.append(
                f"{count} tests ({batches} batches), in one pool with the other "
                f"labs' ({len(jobs)} jobs in all, {self.test_jobs} at a time): "
                f"{elapsed:.1f} s"
            )

    @staticmethod
    def _job_rank(job):
        """0 for a batch of large tests, 1 for other batches and the large and medium tests
        alone, 2 for a short test alone: the pool starts the long jobs first."""
        _, suite, indices = job
        first = suite.runs[indices[0]].test
        if len(indices) > 1:
            return 0 if is_large(first) else 1
        return 1 if is_large(first) or is_medium(first) else 2

    def _write_schedule(self, started, elapsed):
        """logs/pool.log: when each job of the test pool started and ended, longest first, so
        that an instructor can see what a submission's test time is made of."""
        lines = [
            f"the test pool: {len(self._schedule)} jobs, {self.test_jobs} at a time, "
            f"{elapsed:.1f} s; each job: start and end (s from the pool's start), its "
            "length, lab, suite and tests"
        ]
        for begin, end, (state, suite, indices) in sorted(
            self._schedule, key=lambda s: s[0] - s[1]
        ):
            lines.append(
                f"{begin - started:7.2f} {end - started:7.2f} {end - begin:6.2f}  "
                f"{state.lab.id} {suite.name} "
                + ("x" + str(len(indices)) if len(indices) > 1 else suite.runs[indices[0]].test.id)
            )
        (self.out / "logs" / "pool.log").write_text("\n".join(lines) + "\n")

    def _run_job(self, job):
        """A test, or a batch of a suite's tests, in a shared turn on the GPU (sharing.py).
        A test that did not pass while another submission on the GPU was over its memory
        budget runs again: the memory it lacked may have been taken."""
        state, suite, indices = job
        tests = [suite.runs[i].test for i in indices]
        started = time.monotonic()
        with self.turns.shared():
            if len(tests) == 1:
                runs = [self._run_one(state.lab, state.executor, tests[0], state.work, state.logs)]
            else:
                batch = self._run_batch(state.lab, state.executor, tests, state.work, state.logs)
                runs = [batch[test.id] for test in tests]
            if self.watch is not None and self.watch.disturbed(self.slot, self.gpu_id, started):
                runs = [
                    run
                    if run.passed or run.status == NOT_RUN
                    else self._run_again_undisturbed(state, run)
                    for run in runs
                ]
        self._schedule.append((started, time.monotonic(), job))
        return runs

    def _run_again_undisturbed(self, state, run):
        again = self._run_one(state.lab, state.executor, run.test, state.work, state.logs)
        with open(again.log, "a") as log:
            log.write(
                f"\n---\ngrader: run again: the first run ({run.status}: "
                f"{run.message}) overlapped another submission's going over its GPU "
                f"memory budget on this GPU\n"
            )
        return again

    def _run_one(self, lab, executor, test, work, logs):
        opts = self.ctx.options
        binary = verdict_binary(lab)
        if self._out_of_time():
            return self._not_run(test)
        limit = self._limit(lab, test.suite)
        self.echo(f"{lab.id}: {test.id}")
        command = build.executor_command(
            self.isolation, executor, limit, memory_budget_mib=self.memory_budget_mib
        )
        run, process = run_test(
            binary,
            test,
            time_limit=limit,
            env=self._test_env(lab, test),
            cwd=work,
            output_limit=opts.output_limit,
            executor=command,
            owner=self.slot,
        )
        self._write_log(lab, run, process, limit, logs)
        return self._stopped_at_deadline(self._judged(lab, test, run, process))

    def _run_batch(self, lab, executor, tests, work, logs):
        """Tests of one suite in one process (run.run_batch): one executor, so one CUDA context
        for all of them while they pass, where a context per test made the driver (which
        creates them one at a time, across processes) the grading's bottleneck. Every verdict
        is what the test alone would get: a test that does not pass after others passed in the
        same executor (their state could have carried over) runs again first in a fresh one;
        a failure of the first test of a process, or a test out of its own time limit, is
        final. Returns test id -> TestRun."""
        opts = self.ctx.options
        limit = self._limit(lab, tests[0].suite)
        runs, pending, number = {}, list(tests), 0
        while pending:
            if self._out_of_time():
                runs.update((test.id, self._not_run(test)) for test in pending)
                break
            if len(pending) == 1:
                runs[pending[0].id] = self._run_one(lab, executor, pending[0], work, logs)
                break
            number += 1
            self.echo(f"{lab.id}: {pending[0].suite}, {len(pending)} tests in one process")
            # The executor's CPU limit covers the whole batch; each test's time is still its own.
            command = build.executor_command(
                self.isolation,
                executor,
                limit * len(pending),
                memory_budget_mib=self.memory_budget_mib,
            )
            batch_runs, process = run_batch(
                verdict_binary(lab),
                pending,
                time_limit=limit,
                env=self._test_env(lab, pending[0]),
                cwd=work,
                output_limit=opts.output_limit,
                executor=command,
                owner=self.slot,
            )
            if not batch_runs:  # nothing started (no GPU, say): each alone, as always
                runs.update(
                    (test.id, self._run_one(lab, executor, test, work, logs)) for test in pending
                )
                break
            group = "large." if is_large(pending[0]) else ""
            batch_log = logs / f"batch.{log_name(pending[0].suite)[:-4]}.{group}{number}.log"
            names = " ".join(f"-t {test.id}" for test in pending)
            batch_log.write_text(
                f"$ {verdict_binary(lab).name} {names}   (limit {limit:g} s "
                f"per test)\n{process.elapsed:.2f} s, exit code "
                f"{process.exit_code}, signal {process.signal}\n---\n"
                f"{process.output}"
            )
            for k, run in enumerate(batch_runs):
                if run.passed or k == 0 or run.status == TIMEOUT:
                    self._write_log(lab, run, process, limit, logs, batch_log=batch_log)
                    runs[run.test.id] = self._stopped_at_deadline(
                        self._judged(lab, run.test, run, process)
                    )
                if not run.passed:
                    pending = pending[k + 1 :] if k == 0 or run.status == TIMEOUT else pending[k:]
                    break
            else:
                pending = pending[len(batch_runs) :]
        return runs

    def _limit(self, lab, suite):
        """A test's time limit, cut to the submission's grading time left (--max-time): a
        test that would run past it is stopped there."""
        limit = self.ctx.test_limit(lab, suite)
        if self.deadline is not None:
            limit = max(0.1, min(limit, self.deadline - time.monotonic()))
        return limit

    def _stopped_at_deadline(self, run):
        """A test out of time because the grading time ran out says so, not that it hung."""
        if run.status == TIMEOUT and self._out_of_time():
            run.status = NOT_RUN
            run.message = (
                f"stopped: this submission used up its "
                f"{self.ctx.options.max_time:g} s of grading time"
            )
        return run

    def _not_run(self, test):
        return TestRun(
            test=test,
            status=NOT_RUN,
            message=f"not run: this submission used up its "
            f"{self.ctx.options.max_time:g} s of grading time",
        )

    def _write_log(self, lab, run, process, limit, logs, batch_log=None):
        """The test's log: how it ran, what was measured, and what the process printed (for a
        test of a batch that passed: where the batch's output is)."""
        plane = ""
        if run.details.get("plane"):
            judged = lab.rubric.cpu.applies(run.test.id)
            plane = (
                f"the test's buffers lived in the process running your code "
                f"({run.details['plane']}), so that CPU time includes moving them"
                f"{'' if judged else ' (it is not judged in this test)'}\n"
            )
        if batch_log is None:
            how = (
                f"status: {run.status}; exit code {process.exit_code}, signal "
                f"{process.signal}, {process.output_bytes} bytes of output, "
                f"{process.elapsed:.2f} s, CPU time of the process running your code "
                f"{cpu_text(run.details.get('cpu_ms'))}\n{plane}"
            )
            output = process.output
        else:
            how = (
                f"status: {run.status}; ran in one process with other tests of its suite "
                f"({run.details.get('batch')} named; the process: {batch_log.name}), "
                f"{run.elapsed:.2f} s, CPU time of the process running your code "
                f"{cpu_text(run.details.get('cpu_ms'))}\n{plane}"
            )
            output = process.output if not run.passed else f"(the output: {batch_log.name})\n"
        log = logs / log_name(run.test.id)
        log.write_text(
            f"$ {verdict_binary(lab).name} -t {run.test.id}   (limit {limit:g} s)\n"
            f"{how}{run.message}\n---\n{output}"
        )
        run.log = str(log)

    def _judged(self, lab, test, run, process):
        """The grader's own checks after a test ran: the sandbox, the GPU, the CPU time."""
        opts = self.ctx.options
        if not run.passed and self.watch is not None:
            note = self.watch.over_budget_note(self.slot, time.monotonic() - process.elapsed - 1)
            if note:
                run.message = f"{note} ({run.message})"
        if not run.passed and build.sandbox_words(process.output):
            # The launcher or bubblewrap spoke: was it the sandbox that could not start?
            sandbox.check_starts(self.isolation)
        if opts.gpu_check and (run.status in (TIMEOUT, CRASHED) or process.unkillable):
            # Killing a process in the middle of a kernel must leave the GPU usable.
            gpu.require_gpu(self.ctx.kit, self.env, retries=3)
        if opts.gpu_check and run.status == SKIPPED:
            gpu.require_gpu(self.ctx.kit, self.env, retries=3)  # NoGpu: the GPU went away
            run.status = FAILED
            run.message = f"not run, so not passed: {run.message}"
        if run.status == PASSED:
            self._check_cpu(lab, test, run)
        return run

    def _test_env(self, lab, test):
        """The environment of a test's processes. In a large test the verdict process holds
        the test's buffers (grading/runtime/shared_memory.h), so that the executor's CPU time is
        the student's work alone, not the moving of much data; in the others they live in the
        executor (KIT_DATA_PLANE=executor), as under compute-sanitizer: there the data is
        small, and the shared buffers would cost a second CUDA context per test, whose
        creation the driver serializes across processes, and a switch between contexts at
        every copy (with eight tests at once, that made many-call tests ten times slower).
        Where the buffers live follows the test's size alone, which the student's code sees
        anyway, never whether its CPU time is judged (evidence.py)."""
        if is_large(test):
            return self.env
        return dict(self.env, KIT_DATA_PLANE="executor")

    def _check_cpu(self, lab, test, run):
        """Marks a passed test whose process used more CPU time than the reference allows
        (cpu.py) as a suspect, to be measured again when the GPU is quiet
        (_confirm_cpu). Measured from outside by the verdict process, never reported by the
        student's process."""
        if not lab.rubric.cpu.applies(test.id):
            return
        used = run.details.get("cpu_ms")
        if used == "unknown":
            run.status = FAILED
            run.message = cpu.over_budget(lab.rubric.cpu, used, None)
            return
        if not cpu.needs_reference(lab.rubric.cpu, used):
            return
        reference = self.ctx.reference_cpu_ms(
            lab, test, self._test_env(lab, test), self.isolation, owner=self.slot
        )
        run.details["reference_cpu_ms"] = reference
        if cpu.over_budget(lab.rubric.cpu, used, reference):
            run.details["cpu_suspect"] = True

    def _run_failures_alone(self, state, quiet):
        """On a GPU that other submissions share, each test that did not pass runs again with
        the GPU alone (quiet()) before it counts, and the second verdict is the one: whatever a
        classmate's code did to the GPU meanwhile (memory taken for a moment, shorter than the
        watch's poll, or anything else), a failure is one the submission earns alone. Its own
        allocations stay bounded by its share (memory_budget.c), so a submission that takes
        more than that fails its own test, alone or not. Returns how many ran again."""
        if not self.shared_gpu:
            return 0
        count = 0
        for suite in state.result.suites.values():
            for i, run in enumerate(suite.runs):
                if run.passed or run.status == NOT_RUN or self._out_of_time():
                    continue
                quiet()
                again = self._run_one(state.lab, state.executor, run.test, state.work, state.logs)
                with open(again.log, "a") as log:
                    log.write(
                        f"\n---\ngrader: run again with the GPU alone: the first run "
                        f"({run.status}: {run.message}) shared the GPU with other "
                        "submissions, and this verdict is the one that counts\n"
                    )
                suite.runs[i] = again
                count += 1
        return count

    def _emulate(self, states, result):
        """No GPU: each lab that passed its intake runs its [emulate] tests on the CPU
        emulation (emulated.py), shown per TODO, no points. Where the emulation cannot run (no
        host compiler, no libclang, a kit without it), a note says why."""
        labs = [s for s in states if s.executor and s.lab.id in emulated.supported(self.ctx.kit)]
        if not labs or not self.ctx.options.emulate:
            return
        self.echo("no GPU: the [emulate] tests on the CPU emulation instead (no points)")
        settings, why = emulated.prepare(self.ctx.kit, [s.lab for s in labs])
        if settings is None:
            result.notes.append(why)
            return
        for state in labs:
            lab, work = state.lab, self.work / state.lab.id
            files = {name: work / name for name in lab.student_files if (work / name).is_file()}
            self.echo(f"{lab.id}: emulating {', '.join(files)}")
            outcome = emulated.run_lab(
                self.ctx.kit,
                lab,
                self.isolation,
                settings,
                files,
                work / "emulate",
                Path(state.result.logs),
                self.deadline,
            )
            if not outcome.ok:
                result.notes.append(f"{lab.id}: emulation: {outcome.message}")
                continue
            for name, suite in state.result.suites.items():
                passed, total, first = outcome.suites.get(name, (0, 0, ""))
                if total:
                    suite.emulated = (
                        f"emulated: {passed}/{total} passed"
                        if not first
                        else f"emulated: {passed}/{total} passed; {first}"
                    )
