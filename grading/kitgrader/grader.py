"""Grading one submission, lab by lab.

Before any submission: GradingContext.prepare() checks that `make` built what each lab needs,
lists each lab's tests from the kit's own binary, checks the rubric against them, reads the
kit's symbols, and links the reference solution's timed driver (for speed points).

Per lab of a submission (each on its own: one lab's trouble never stops the next; steps 1-4
of every lab run side by side, step 5 of every lab shares one pool of --test-jobs tests, and
steps 6-7 run one lab at a time, so that timings are taken on a quiet GPU):
  1. take only the lab's student file (no link followed, a regular file), into a folder the
     grader owns, named by the lab, never by the student;
  2. refuse includes from outside the lab, common/, CUDA and the system (includes.py), then
     compile it alone with nvcc in the sandbox (an error: 0 points, the compiler's message);
  3. read its imports: anything the lab does not allow scores 0 (allowlist.py, forbidden.py);
  4. link it, in the sandbox, into the lab's executor (grading/runtime/remote.h);
  5. run each test: the kit's verdict binary (no student code) in its own process group with
     the rubric's time limit, talking to the executor in the sandbox (run.py); --test-jobs
     tests at once;
  6. if the lab is correct and the rubric gives speed points, time it against the reference
     (both through the same split: the clock is in the kit's timed driver, one run of which
     drives both executors, speed.py);
  7. with --sanitize, run compute-sanitizer, wrapped around the executor, on its small tests.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import GraderError, NoGpu
import threading

from . import (build, cpu, emulated, evidence, forbidden, gpu, includes, sandbox, sanitize,
               sharing, speed)
from .discover import Rejected, find_student_file, misplaced_copies, read_student_file
from .results import (COMPILE_ERROR, FORBIDDEN, GRADED, LINK_ERROR, MISSING, NOT_CHECKED,
                      REJECTED, LabResult, SpeedOutcome, SubmissionResult, SuiteResult)
from .rubric import check_against_tests
from .run import (CRASHED, FAILED, OUTPUT_LIMIT, PASSED, SKIPPED, TIMEOUT, NOT_RUN, TestRun,
                  list_tests, run_batch, run_test)


@dataclass
class Options:
    sanitize: bool = False
    time_limit: float = None  # overrides every test's limit
    max_time: float = None  # a submission's whole grading, in seconds
    gpu_check: bool = True  # False only for the grader's own tests (--no-gpu-check)
    sanitizer: str = None  # the compute-sanitizer command
    keep_work: bool = False
    output_limit: int = OUTPUT_LIMIT
    test_jobs: int = 1  # tests of one submission run at once (on its one GPU)
    batch_tests: bool = True  # a suite's short tests in one process (Grader._run_batch)
    sandbox: str = "auto"  # the isolation to use: sandbox.KINDS, or auto
    gpu_arch: str = None  # e.g. "sm_90": every GPU graded on is one; compile for it alone
    fail_closed: str = ""  # "a class run", "a Gradescope run": refuse weak isolation (sandbox.py)
    emulate: bool = True  # no GPU: run the [emulate] tests on the CPU emulation (emulated.py)


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
    """One lab of the submission being graded, between its steps (Grader.grade)."""

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


def _cpu_text(cpu_ms):
    return f"{cpu_ms:.1f} ms" if isinstance(cpu_ms, float) else str(cpu_ms or "none")


def log_name(test_id):
    return test_id.replace("/", ".") + ".log"


class GradingContext:
    def __init__(self, kit, labs, options, work_root):
        self.kit = kit
        self.labs = labs
        self.options = options
        self.work_root = Path(work_root).resolve()
        self.toolchain = None
        self.isolation = None
        self.plans = {}
        self.reference_cpu = {}  # (lab, test, GPU facts) -> the reference's CPU ms (cpu.py)
        self.reference_cpu_lock = threading.Lock()

    def prepare(self):
        missing = {lab.id: lab.missing_parts() + [
            str(p) for p in [verdict_binary(lab), *build.executor_parts(lab),
                             self.kit.build / "tools" / "sandbox_exec"] if not p.exists()]
            for lab in self.labs}
        missing = {k: v for k, v in missing.items() if v}
        if missing:
            lines = [f"  {lab}: {', '.join(parts)}" for lab, parts in missing.items()]
            raise GraderError("the kit is not built for grading (run make first); missing:\n"
                              + "\n".join(lines))
        self.toolchain = build.load_toolchain(self.kit.grading_env)
        if self.options.gpu_arch:
            self.toolchain = self.toolchain.for_gpu(self.options.gpu_arch)
        self.work_root.mkdir(parents=True, exist_ok=True)
        binds = [self.kit.root / "common", self.kit.labs_root, self.kit.build, self.work_root]
        self.isolation = sandbox.detect(self.kit.build / "tools" / "sandbox_exec", binds,
                                        self.options.sandbox)
        if self.options.fail_closed:
            sandbox.check_fail_closed(self.isolation, self.options.sandbox,
                                      self.options.fail_closed)
        sandbox.protect_secrets(self.isolation, sandbox.secret_paths(self.kit))
        for lab in self.labs:
            self.toolchain.flags_for(lab.id)
            try:
                tests = list_tests(lab.lister)
            except RuntimeError as err:
                raise GraderError(f"cannot list the tests of {lab.id}: {err}")
            if not tests:
                raise GraderError(f"{lab.lister} -l lists no tests")
            suites = list(dict.fromkeys(t.suite for t in tests))
            problems = check_against_tests(lab.rubric, suites, [t.id for t in tests])
            if problems:
                raise GraderError("\n".join(problems))
            for suite in suites:
                lab.rubric.rule(suite)  # suites not in the rubric: known, worth nothing
            plan = LabPlan(lab=lab, tests=tests, symbols=forbidden.kit_symbols(lab))
            self._prepare_reference(plan)
            self.plans[lab.id] = plan

    def _prepare_reference(self, plan):
        """Links the reference solution's executor: the CPU budgets of tests (cpu.py) and
        speed points are measured against it, on the same GPU, in the same run."""
        rule = plan.lab.rubric.speed
        speed_wanted = rule is not None and rule.points > 0
        if not plan.lab.solution_source.exists():
            # A student package: the reference is the instructor's, and so is the timing.
            plan.reference_note = "no reference solution here"
            plan.speed_note = "speed: measured when your instructor grades"
            return
        needed = [plan.lab.solution_obj] + ([timed_binary(plan.lab)] if speed_wanted else [])
        missing = [str(p) for p in needed if not p.exists()]
        if missing:
            plan.reference_note = f"missing {', '.join(missing)} (run make)"
            plan.speed_note = f"speed not measured: {plan.reference_note}"
            return
        plan.reference_linkable = True
        if speed_wanted:  # else linked when a test's CPU time first needs it
            self._link_reference(plan)

    def _link_reference(self, plan):
        """The reference's executor, linked once (None when that failed: see the notes)."""
        if plan.reference_executor is not None or not plan.reference_linkable:
            return plan.reference_executor
        plan.reference_linkable = False
        folder = self.work_root / "reference" / plan.lab.id
        folder.mkdir(parents=True, exist_ok=True)
        obj = folder / f"{plan.lab.id}.o"
        shutil.copyfile(plan.lab.solution_obj, obj)
        out = folder / "executor"
        step = build.link_executor(self.toolchain, self.isolation, plan.lab, obj, out)
        if not step.ok:
            plan.reference_note = f"linking the reference failed: {step.message}"
            plan.speed_note = f"speed not measured: {plan.reference_note}"
            return None
        plan.reference_executor = out
        return out

    def time_bound(self, labs):
        """The most a submission's grading can take with these limits (plus a little)."""
        total = 0.0
        for lab in labs:
            plan = self.plans[lab.id]
            # A lab with a bonus file may compile twice: a bonus file that did not compile
            # (out of time included) is replaced by the kit's copy and compiled again. Outside
            # bubblewrap a compile that failed lists its headers (nvcc -M), under the same
            # limit, before its message is shown (build.compile_student).
            compiles = 2 if lab.bonus_file else 1
            if not self.isolation.kind.startswith("bwrap"):
                compiles *= 2
            total += compiles * build.COMPILE_TIME_LIMIT_S + 2 * build.LINK_TIME_LIMIT_S
            # A test of a batch may run twice (it failed after others passed: alone again).
            total += sum(self.test_limit(lab, t.suite) * (2 if self.batched(lab, t) else 1)
                         for t in plan.tests) / max(1, self.options.test_jobs)
            if plan.reference_executor is not None and lab.rubric.speed:
                total += speed.run_limit(lab.rubric.speed.time_limit_s)
            if self.options.sanitize:
                rule = lab.rubric.sanitizer
                total += (len(sanitize.choose_tests(rule, plan.tests)) * len(rule.tools)
                          * rule.time_limit_s)
        if self.options.max_time:
            total = min(total, self.options.max_time)
        return total

    def batched(self, lab, test):
        """Whether a test may share its process and executor with others of its suite."""
        return self.batch_group(lab, test) is not None

    def batch_group(self, lab, test):
        """Which of its suite's batches a test runs in: "short" (the many short tests, their
        buffers in the executor), "large" (the large tests, their buffers in the verdict
        process, grader._test_env: one process and one pair of CUDA contexts for them all,
        where a process each spent a third of their time starting executors and contexts), or
        None: a job of its own (a medium sweep: in a batch it made the pool's longest job).
        Whether its CPU time is judged plays no part, so that the student's process cannot
        tell a judged test by how it runs (a test of a batch has its own CPU time, measured
        from where the one before it ended)."""
        if not self.options.batch_tests or is_medium(test):
            return None
        return "large" if is_large(test) else "short"

    def include_roots(self, lab):
        """Where a compile's headers may come from, as the sandbox names them."""
        inside = [Path(p) for _, p in build.source_binds(lab)] if \
            self.isolation.kind.startswith("bwrap") else [lab.kit.root / "common", lab.dir]
        system = includes.allowed_roots(lab.dir, lab.kit.root / "common", self.toolchain.nvcc)
        outside = {Path(os.path.realpath(p)) for p in (lab.dir, lab.kit.root / "common")}
        return inside + [r for r in system if r not in outside]

    def reference_cpu_ms(self, lab, test, env, iso, fresh=False, owner=None):
        """The reference solution's CPU time on this test (ms), measured once per grading
        run and GPU (fresh: measured now); None when there is no reference or it could not
        be measured."""
        plan = self.plans[lab.id]
        key = (lab.id, test.id, env.get("KIT_GPU_FACTS"), env.get("CUDA_VISIBLE_DEVICES"))
        with self.reference_cpu_lock:
            if key in self.reference_cpu and not fresh:
                return self.reference_cpu[key]
        value = None
        with self.reference_cpu_lock:
            executor = self._link_reference(plan)
        if executor is not None:
            limit = self.test_limit(lab, test.suite)
            command = build.executor_command(iso, plan.reference_executor, limit)
            run, _ = run_test(verdict_binary(lab), test, time_limit=limit, env=env,
                              executor=command, owner=owner)
            used = run.details.get("cpu_ms")
            if run.status == "passed" and isinstance(used, float):
                value = used
        with self.reference_cpu_lock:
            self.reference_cpu[key] = value
        return value

    def test_limit(self, lab, suite):
        if self.options.time_limit:
            return self.options.time_limit
        return lab.rubric.time_limit(suite)


def is_large(test):
    """A lab's long tests, on much data, are named "large_..." (DESIGN.md)."""
    return "large" in test.name


def is_medium(test):
    """The sweeps named "medium_..." (up to 2^22 keys in every distribution, 7-8 s of a suite's
    15 s batch on an H100): jobs of their own, beside the rest of their suite."""
    return "medium" in test.name


class SubmissionGrader:
    """Grades one submission folder; see the module's comment."""

    def __init__(self, context, name, submission, out_dir, gpu_id=None, labs=None, echo=None,
                 work_dir=None, slot=0, turns=None, watch=None, testing=None, test_jobs=None):
        self.ctx = context
        self.work_dir = Path(work_dir).resolve() if work_dir else None
        self.name = name
        self.submission = Path(submission)
        self.out = Path(out_dir).resolve()  # absolute: tests run in folders of their own
        self.gpu_id = gpu_id
        self.labs = labs if labs is not None else context.labs
        self.env = gpu.gpu_env(gpu_id)
        # The verdict processes learn the GPU from the grader's probe, never from the
        # student's process (grading/runtime/remote_client.c); without a probe, of no GPU at all.
        self.env["KIT_GPU_FACTS"] = "none the grader did not probe the GPU (--no-gpu-check)"
        # The slot's own uid and its GPU's device file alone ("": no GPU, for the grader's
        # own tests, which run none).
        self.isolation = context.isolation.for_slot(
            slot, gpu_id if gpu_id is not None or context.options.gpu_check else "")
        self.echo = echo or (lambda text: None)
        self.deadline = None
        # A class run shares the GPU among slots (sharing.py): its turns, and the watch on
        # each slot's GPU memory (None: this slot has the GPU to itself).
        self.slot = slot
        self.turns = turns or sharing.GpuTurns()
        self.watch = watch
        # Held while the submission compiles and runs its tests, not while it waits for the
        # GPU alone: a classmate's tests take its place (classroom.py).
        self.testing = testing or contextlib.nullcontext()
        # Tests at once: --test-jobs, or its share when submissions share the GPU.
        self.test_jobs = test_jobs or context.options.test_jobs
        # On a shared GPU (a class run gives a slot its share of --test-jobs only then): a test
        # that did not pass runs again with the GPU alone before it counts
        # (_run_failures_alone), and each test process's allocations are bounded by its share
        # of the slot's memory budget (memory_budget.c; the watch's, where it knows the GPU's).
        self.shared_gpu = test_jobs is not None
        budget = watch.budgets.get(str(gpu_id)) if watch is not None else None
        self.memory_budget_mib = budget // max(1, self.test_jobs) if budget else None

    # ---- the whole submission ----------------------------------------------------------------

    def grade(self):
        opts = self.ctx.options
        result = SubmissionResult(name=self.name, path=str(self.submission))
        result.isolation = self.ctx.isolation.text
        result.time_bound = self.ctx.time_bound(self.labs)
        start = time.monotonic()
        if opts.max_time:
            self.deadline = start + opts.max_time
        self.work = self.work_dir or self.out / "work"
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.rmtree(self.out / "logs", ignore_errors=True)
        try:
            no_gpu = None
            if opts.gpu_check:
                try:
                    probe = gpu.require_gpu(self.ctx.kit, self.env)
                except NoGpu as err:
                    no_gpu = err  # the checks that need no GPU still run, below
            if opts.gpu_check and not no_gpu:
                result.gpu = probe.line
                self.env["KIT_GPU_FACTS"] = probe.facts
                if "(HMM)" in result.gpu:
                    result.isolation += ("; but this GPU reads host memory directly (HMM), so "
                                         "the device-to-host copy count can be bypassed "
                                         "(docs/instructor.md: uvm_disable_hmm=1)")
            with self.testing:  # a test slot of the GPU (classroom.py)
                states = self._compile_and_test(result, no_gpu)
            self._finish_labs(states)
        except NoGpu as err:
            result.error, result.exit_code = str(err), err.exit_code
        except sandbox.SandboxFailed as err:
            result.error, result.exit_code = str(err), err.exit_code
        finally:
            sandbox.end_slot(self.isolation)
            result.elapsed = time.monotonic() - start
            if not opts.keep_work:
                shutil.rmtree(self.work, ignore_errors=True)
        if result.skipped:
            result.notes.append(f"{result.skipped} tests were skipped (no GPU): the score is "
                                "not a grade")
        return result

    def _compile_and_test(self, result, no_gpu):
        """The labs compile side by side, and their tests share one pool (the long ones of
        every lab first); then each lab's CPU checks and speed rounds run alone, on a quiet
        GPU (_finish_labs): a lab no longer waits for the last test of the one before.
        Without a GPU (no_gpu: NoGpu), the checks that need none run, and no_gpu is raised."""
        with ThreadPoolExecutor(max_workers=max(1, len(self.labs))) as pool:
            states = list(pool.map(self._start_lab, self.labs))
        result.labs.extend(state.result for state in states)
        result.notes += [f"{state.lab.id}: {note}" for state in states
                         for note in state.result.notes]
        if no_gpu:
            # What a student can learn at home: each file compiles, includes and calls
            # only what its lab allows, and links; the host suites (tests without [gpu],
            # such as Lab 02's co-rank) run as on a GPU host; the GPU tests wait.
            for state in states:
                if state.executor:
                    state.result.not_run("no GPU (file compiled, includes and calls "
                                         "allowed, linked)", gpu_only=True)
                    if state.result.speed:
                        state.result.speed.message = ("measured when your instructor "
                                                      "grades, on a GPU")
            self._run_tests(states, only=lambda test: not test.gpu)
            self._emulate(states, result)
            raise no_gpu
        self._run_tests(states)
        return states

    # ---- one lab --------------------------------------------------------------------------------

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
            outcome = emulated.run_lab(self.ctx.kit, lab, self.isolation, settings, files,
                                       work / "emulate", Path(state.result.logs), self.deadline)
            if not outcome.ok:
                result.notes.append(f"{lab.id}: emulation: {outcome.message}")
                continue
            for name, suite in state.result.suites.items():
                passed, total, first = outcome.suites.get(name, (0, 0, ""))
                if total:
                    suite.emulated = (f"emulated: {passed}/{total} passed" if not first else
                                      f"emulated: {passed}/{total} passed; {first}")

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
                test.suite, SuiteResult(test.suite, lab.rubric.rule(test.suite)))
            suite.runs.append(TestRun(test=test, status=NOT_RUN))
        # Suites in rubric order, then any others in the order of the tests.
        order = [s for s in lab.rubric.suites if s in result.suites]
        result.suites = {name: result.suites[name] for name in order}
        rule = lab.rubric.speed
        if rule and rule.points > 0:
            result.speed = SpeedOutcome(
                max_points=rule.points if plan.reference_executor else 0.0,
                message=plan.speed_note or "not measured")
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
        return "" if not copies else (
            f" where the grader looks ({lab.id}/{name}), and more than one elsewhere: "
            + ", ".join(str(c.relative_to(self.submission)) for c in copies))

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
        result.source = os.path.relpath(source, top) if Path(os.path.abspath(source)) \
            .is_relative_to(top) else str(source)
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
            self._stop(result, NOT_CHECKED, f"the check of {lab.student_file}'s compiled "
                       f"symbols did not finish: {err}")
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
        timing.append(f"compile, check and link: {now - started:.1f} s (compile "
                      f"{compiled - started:.1f}, check {checked - compiled:.1f}, link "
                      f"{now - checked:.1f})")
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
            note = (f"no {name} in the submission{where}: the kit's copy of it (the "
                    f"skeleton) stands in for it, so its bonus TODOs score nothing")
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
            note = (f"{name} did not compile with your {lab.student_file} (logs/{lab.id}/"
                    f"build.log): the kit's copy of it (the skeleton) stands in for it, so its "
                    f"bonus TODOs score nothing")
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

    def _run_tests(self, states, only=None):
        """Every test of every lab that built (with only: those it accepts), in one pool of
        test_jobs at a time. A suite's short tests run as one batch, and its large tests as
        another (_run_batch, batch_group). The long jobs (batches, and tests a lab names
        "large_..." or "medium_...") start first, so the short ones fill the gaps beside them
        instead of leaving one long job running alone at the end."""
        opts = self.ctx.options
        built = [state for state in states if state.executor]
        jobs = []
        for state in built:
            for suite in state.result.suites.values():
                wanted = [i for i, run in enumerate(suite.runs)
                          if only is None or only(run.test)]
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
            state.timing.append(f"{count} tests ({batches} batches), in one pool with the other "
                                f"labs' ({len(jobs)} jobs in all, {self.test_jobs} at a time): "
                                f"{elapsed:.1f} s")

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
        lines = [f"the test pool: {len(self._schedule)} jobs, {self.test_jobs} at a time, "
                 f"{elapsed:.1f} s; each job: start and end (s from the pool's start), its "
                 "length, lab, suite and tests"]
        for begin, end, (state, suite, indices) in sorted(self._schedule,
                                                          key=lambda s: s[0] - s[1]):
            lines.append(f"{begin - started:7.2f} {end - started:7.2f} {end - begin:6.2f}  "
                         f"{state.lab.id} {suite.name} "
                         + ("x" + str(len(indices)) if len(indices) > 1
                            else suite.runs[indices[0]].test.id))
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
                runs = [self._run_one(state.lab, state.executor, tests[0], state.work,
                                      state.logs)]
            else:
                batch = self._run_batch(state.lab, state.executor, tests, state.work, state.logs)
                runs = [batch[test.id] for test in tests]
            if self.watch is not None and self.watch.disturbed(self.slot, self.gpu_id, started):
                runs = [run if run.passed or run.status == NOT_RUN else
                        self._run_again_undisturbed(state, run) for run in runs]
        self._schedule.append((started, time.monotonic(), job))
        return runs

    def _run_again_undisturbed(self, state, run):
        again = self._run_one(state.lab, state.executor, run.test, state.work, state.logs)
        with open(again.log, "a") as log:
            log.write(f"\n---\ngrader: run again: the first run ({run.status}: "
                      f"{run.message}) overlapped another submission's going over its GPU "
                      f"memory budget on this GPU\n")
        return again

    def _run_one(self, lab, executor, test, work, logs):
        opts = self.ctx.options
        binary = verdict_binary(lab)
        if self._out_of_time():
            return self._not_run(test)
        limit = self._limit(lab, test.suite)
        self.echo(f"{lab.id}: {test.id}")
        command = build.executor_command(self.isolation, executor, limit,
                                         memory_budget_mib=self.memory_budget_mib)
        run, process = run_test(binary, test, time_limit=limit, env=self._test_env(lab, test),
                                cwd=work, output_limit=opts.output_limit, executor=command,
                                owner=self.slot)
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
            command = build.executor_command(self.isolation, executor, limit * len(pending),
                                             memory_budget_mib=self.memory_budget_mib)
            batch_runs, process = run_batch(verdict_binary(lab), pending, time_limit=limit,
                                            env=self._test_env(lab, pending[0]), cwd=work,
                                            output_limit=opts.output_limit, executor=command,
                                            owner=self.slot)
            if not batch_runs:  # nothing started (no GPU, say): each alone, as always
                runs.update((test.id, self._run_one(lab, executor, test, work, logs))
                            for test in pending)
                break
            group = "large." if is_large(pending[0]) else ""
            batch_log = logs / f"batch.{log_name(pending[0].suite)[:-4]}.{group}{number}.log"
            names = " ".join(f"-t {test.id}" for test in pending)
            batch_log.write_text(f"$ {verdict_binary(lab).name} {names}   (limit {limit:g} s "
                                 f"per test)\n{process.elapsed:.2f} s, exit code "
                                 f"{process.exit_code}, signal {process.signal}\n---\n"
                                 f"{process.output}")
            for k, run in enumerate(batch_runs):
                if run.passed or k == 0 or run.status == TIMEOUT:
                    self._write_log(lab, run, process, limit, logs, batch_log=batch_log)
                    runs[run.test.id] = self._stopped_at_deadline(
                        self._judged(lab, run.test, run, process))
                if not run.passed:
                    pending = pending[k + 1:] if k == 0 or run.status == TIMEOUT else pending[k:]
                    break
            else:
                pending = pending[len(batch_runs):]
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
            run.message = (f"stopped: this submission used up its "
                           f"{self.ctx.options.max_time:g} s of grading time")
        return run

    def _not_run(self, test):
        return TestRun(test=test, status=NOT_RUN,
                       message=f"not run: this submission used up its "
                               f"{self.ctx.options.max_time:g} s of grading time")

    def _write_log(self, lab, run, process, limit, logs, batch_log=None):
        """The test's log: how it ran, what was measured, and what the process printed (for a
        test of a batch that passed: where the batch's output is)."""
        plane = ""
        if run.details.get("plane"):
            judged = lab.rubric.cpu.applies(run.test.id)
            plane = (f"the test's buffers lived in the process running your code "
                     f"({run.details['plane']}), so that CPU time includes moving them"
                     f"{'' if judged else ' (it is not judged in this test)'}\n")
        if batch_log is None:
            how = (f"status: {run.status}; exit code {process.exit_code}, signal "
                   f"{process.signal}, {process.output_bytes} bytes of output, "
                   f"{process.elapsed:.2f} s, CPU time of the process running your code "
                   f"{_cpu_text(run.details.get('cpu_ms'))}\n{plane}")
            output = process.output
        else:
            how = (f"status: {run.status}; ran in one process with other tests of its suite "
                   f"({run.details.get('batch')} named; the process: {batch_log.name}), "
                   f"{run.elapsed:.2f} s, CPU time of the process running your code "
                   f"{_cpu_text(run.details.get('cpu_ms'))}\n{plane}")
            output = process.output if not run.passed else f"(the output: {batch_log.name})\n"
        log = logs / log_name(run.test.id)
        log.write_text(f"$ {verdict_binary(lab).name} -t {run.test.id}   (limit {limit:g} s)\n"
                       f"{how}{run.message}\n---\n{output}")
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
                    self._sanitize(lab, state.plan, state.executor, state.work, state.logs,
                                   result)
                    timing.append(f"compute-sanitizer: {time.monotonic() - started:.1f} s")
                if quiet.waited:
                    timing.append(f"waiting for the GPU alone (other submissions' tests to "
                                  f"end), before the first lab's timed work: "
                                  f"{quiet.waited:.1f} s")
                (state.logs / "timing.log").write_text("\n".join(timing) + "\n")
            finally:
                result.elapsed = time.monotonic() - state.started

    def _timed_checks(self, state, quiet):
        """A lab's CPU time checks and speed rounds; quiet() before anything is measured."""
        lab, plan, result = state.lab, state.plan, state.result
        executor, work, logs, timing = state.executor, state.work, state.logs, state.timing
        started = time.monotonic()
        if self._run_failures_alone(state, quiet):
            timing.append(f"failed tests run again with the GPU alone: "
                          f"{time.monotonic() - started:.1f} s")
            started = time.monotonic()
        self._confirm_cpu(lab, executor, work, result, quiet)
        evidence.gate_on_judged(lab.rubric, result)
        timing.append(f"CPU time checks: {time.monotonic() - started:.1f} s")
        started = time.monotonic()
        self._speed(lab, plan, executor, logs, result, quiet)
        timing.append(f"speed: {time.monotonic() - started:.1f} s")

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
                again = self._run_one(state.lab, state.executor, run.test, state.work,
                                      state.logs)
                with open(again.log, "a") as log:
                    log.write(f"\n---\ngrader: run again with the GPU alone: the first run "
                              f"({run.status}: {run.message}) shared the GPU with other "
                              "submissions, and this verdict is the one that counts\n")
                suite.runs[i] = again
                count += 1
        return count

    def _out_of_time(self):
        return self.deadline is not None and time.monotonic() >= self.deadline

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
        reference = self.ctx.reference_cpu_ms(lab, test, self._test_env(lab, test),
                                              self.isolation, owner=self.slot)
        run.details["reference_cpu_ms"] = reference
        if cpu.over_budget(lab.rubric.cpu, used, reference):
            run.details["cpu_suspect"] = True

    def _confirm_cpu(self, lab, executor, work, result, quiet):
        """The tests suspected of host work, measured again one at a time, each beside a fresh
        run of the reference: when many tests share the GPU, a launch-heavy test's CPU time
        grows with the wait for queue space, the reference's as much. A test still over the
        budget fails; and since the grader cannot tell which of this lab's other answers the GPU
        computed, none of the lab's tests counts then."""
        suspects = [(suite, run) for suite in result.suites.values() for run in suite.runs
                    if run.details.get("cpu_suspect")]
        caught = []
        if suspects:
            quiet()
        for suite, run in suspects:
            limit = self.ctx.test_limit(lab, run.test.suite)
            command = build.executor_command(self.isolation, executor, limit)
            env = self._test_env(lab, run.test)
            again, _ = run_test(verdict_binary(lab), run.test, time_limit=limit, env=env,
                                cwd=work, executor=command, owner=self.slot)
            reference = self.ctx.reference_cpu_ms(lab, run.test, env, self.isolation,
                                                 fresh=True, owner=self.slot)
            used = [u for u in (run.details.get("cpu_ms"), again.details.get("cpu_ms"))
                    if isinstance(u, float)]
            references = [r for r in (run.details.get("reference_cpu_ms"), reference)
                          if r is not None]
            message = cpu.over_budget(lab.rubric.cpu, min(used), max(references)) \
                if used and references else ""
            with open(run.log, "a") as log:
                log.write(f"\n---\ngrader: measured again alone: your code {used} ms of CPU "
                          f"time, the reference {references} ms\n"
                          + (f"grader: {message}\n" if message else "grader: within budget\n"))
            if message:
                run.status, run.message = FAILED, message
                caught.append(run)
        if not caught:
            return
        evidence.withdraw_lab(result, f"not scored: in {caught[0].test.id} your code did the "
                                      "work on the host (its CPU time), so the grader cannot "
                                      "tell which of this lab's answers the GPU computed")

    def _speed(self, lab, plan, executor, logs, result, quiet):
        """The timed run: speed points when the lab is correct; else, when a suite rests on
        it for its evidence (evidence.py) and passed a test, made for that evidence alone."""
        outcome = result.speed
        timed = evidence.timed_suites(lab.rubric, result.suites)
        if outcome is None or plan.reference_executor is None:
            if timed and result.status == GRADED:
                result.notes.append(f"the timed run was not made here (no reference solution "
                                    f"or speed): {', '.join(timed)} counted without its evidence")
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
            evidence.withdraw_timed(lab.rubric, result, "your submission used up its grading "
                                                        "time before its sort was timed")
            return
        rule = lab.rubric.speed
        quiet()
        self.echo(f"{lab.id}: speed")
        iso, driver = self.isolation, timed_binary(lab)
        limit = rule.time_limit_s
        measured = speed.measure(
            driver, rule.args, build.executor_command(iso, executor, limit),
            build.executor_command(iso, plan.reference_executor, limit), self.env, limit,
            cpu_rule=lab.rubric.cpu)
        (logs / "speed.log").write_text(measured.log + "\n")
        outcome.log = measured.log
        if not measured.measured:
            if measured.message.startswith("the reference"):
                outcome.max_points = 0.0  # not the student's fault: not counted
                if timed:
                    result.notes.append("the reference could not be timed: the timed run's "
                                        "evidence was not checked")
            else:
                evidence.withdraw_timed(lab.rubric, result,
                                        f"the timed run of your sort failed ({measured.message})")
            prefix = "not measured" if points else "no points, and the timed run failed"
            outcome.message = f"{prefix}: {measured.message}"
            return
        timing = (f"{measured.ratio:.2f}x the reference's time ({measured.student_ms:.2f}"
                  f" ms vs {measured.reference_ms:.2f} ms")
        if evidence.below_floor(rule, measured.ratio):
            outcome.message = (f"no points: {timing}), faster than the lab's GPU work can be "
                               f"(the floor is {rule.floor_ratio:g}x): the sort ran on the host")
            evidence.withdraw_lab(result, f"not scored: the timed run of your sort took {timing})"
                                          f", less than the GPU needs for this lab's work "
                                          f"(at least {rule.floor_ratio:g}x), so the grader "
                                          "cannot tell which of this lab's answers the GPU "
                                          "computed")
            return
        if not points:
            outcome.message += f" (timed for the evidence of your GPU work: {timing}))"
            return
        outcome.ratio = measured.ratio
        outcome.student_ms, outcome.reference_ms = measured.student_ms, measured.reference_ms
        outcome.points = speed.speed_points(measured.ratio, rule.points, rule.full_ratio,
                                            rule.zero_ratio)
        outcome.message = (f"{timing}; full points up to {rule.full_ratio:g}x, none from "
                           f"{rule.zero_ratio:g}x)")

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
                command = build.executor_command(self.isolation, executor,
                                                 rule.time_limit_s, wrapper, binds)
                with self.turns.shared():
                    run = sanitize.run_tool(tool, verdict_binary(lab), test_id, command,
                                            self.env, rule.time_limit_s, cwd=work,
                                            owner=self.slot)
                log.write_text(run.log)
                run.log = str(log)
                result.sanitizer.append(run)
        if rule.deduction > 0 and any(r.status == "found" for r in result.sanitizer):
            result.deduction = rule.deduction
