"""Grading one submission, lab by lab.

Before any submission: GradingContext.prepare() checks that `make` built what each lab needs,
lists each lab's tests from the kit's own binary, checks the rubric against them, reads the
kit's symbols, and links the reference solution's timed driver (for speed points).

Per lab of a submission (each on its own: one lab's trouble never stops the next; steps 1-4
of every lab run side by side, step 5 of every lab shares one pool of --test-jobs tests, and
steps 6-7 run one lab at a time, so that timings are taken on a quiet GPU), in three stages,
a module each: stage_build.py (steps 1-4), stage_tests.py (5), stage_timed.py (6-7); then
report.py writes the results:
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
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import GraderError, NoGpu, build, forbidden, gpu, includes, sandbox, sanitize, sharing, speed
from .labstate import LabPlan, is_large, is_medium, timed_binary, verdict_binary
from .results import SubmissionResult
from .rubric import check_against_tests
from .run import OUTPUT_LIMIT, list_tests, run_test
from .stage_build import BuildStage
from .stage_tests import TestStage
from .stage_timed import TimedStage


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
        missing = {
            lab.id: lab.missing_parts()
            + [
                str(p)
                for p in [
                    verdict_binary(lab),
                    *build.executor_parts(lab),
                    self.kit.build / "tools" / "sandbox_exec",
                ]
                if not p.exists()
            ]
            for lab in self.labs
        }
        missing = {k: v for k, v in missing.items() if v}
        if missing:
            lines = [f"  {lab}: {', '.join(parts)}" for lab, parts in missing.items()]
            raise GraderError(
                "the kit is not built for grading (run make first); missing:\n" + "\n".join(lines)
            )
        self.toolchain = build.load_toolchain(self.kit.grading_env)
        if self.options.gpu_arch:
            self.toolchain = self.toolchain.for_gpu(self.options.gpu_arch)
        self.work_root.mkdir(parents=True, exist_ok=True)
        binds = [self.kit.root / "common", self.kit.labs_root, self.kit.build, self.work_root]
        self.isolation = sandbox.detect(
            self.kit.build / "tools" / "sandbox_exec", binds, self.options.sandbox
        )
        if self.options.fail_closed:
            sandbox.check_fail_closed(
                self.isolation, self.options.sandbox, self.options.fail_closed
            )
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
            total += sum(
                self.test_limit(lab, t.suite) * (2 if self.batched(lab, t) else 1)
                for t in plan.tests
            ) / max(1, self.options.test_jobs)
            if plan.reference_executor is not None and lab.rubric.speed:
                total += speed.run_limit(lab.rubric.speed.time_limit_s)
            if self.options.sanitize:
                rule = lab.rubric.sanitizer
                total += (
                    len(sanitize.choose_tests(rule, plan.tests))
                    * len(rule.tools)
                    * rule.time_limit_s
                )
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
        inside = (
            [Path(p) for _, p in build.source_binds(lab)]
            if self.isolation.kind.startswith("bwrap")
            else [lab.kit.root / "common", lab.dir]
        )
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
            run, _ = run_test(
                verdict_binary(lab), test, time_limit=limit, env=env, executor=command, owner=owner
            )
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


class SubmissionGrader(BuildStage, TestStage, TimedStage):
    """Grades one submission folder; see the module's comment. Its stages are mixins, one
    module each (stage_build.py, stage_tests.py, stage_timed.py), sharing this object's state;
    grade() runs them in order, and report.py writes what they found."""

    def __init__(
        self,
        context,
        name,
        submission,
        out_dir,
        gpu_id=None,
        labs=None,
        echo=None,
        work_dir=None,
        slot=0,
        turns=None,
        watch=None,
        testing=None,
        test_jobs=None,
    ):
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
            slot, gpu_id if gpu_id is not None or context.options.gpu_check else ""
        )
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
                    result.isolation += (
                        "; but this GPU reads host memory directly (HMM), so "
                        "the device-to-host copy count can be bypassed "
                        "(docs/instructor.md: uvm_disable_hmm=1)"
                    )
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
            result.notes.append(
                f"{result.skipped} tests were skipped (no GPU): the score is " "not a grade"
            )
        return result

    def _compile_and_test(self, result, no_gpu):
        """The labs compile side by side, and their tests share one pool (the long ones of
        every lab first); then each lab's CPU checks and speed rounds run alone, on a quiet
        GPU (_finish_labs): a lab no longer waits for the last test of the one before.
        Without a GPU (no_gpu: NoGpu), the checks that need none run, and no_gpu is raised."""
        with ThreadPoolExecutor(max_workers=max(1, len(self.labs))) as pool:
            states = list(pool.map(self._start_lab, self.labs))
        result.labs.extend(state.result for state in states)
        result.notes += [
            f"{state.lab.id}: {note}" for state in states for note in state.result.notes
        ]
        if no_gpu:
            # What a student can learn at home: each file compiles, includes and calls
            # only what its lab allows, and links; the host suites (tests without [gpu],
            # such as Lab 02's co-rank) run as on a GPU host; the GPU tests wait.
            for state in states:
                if state.executor:
                    state.result.not_run(
                        "no GPU (file compiled, includes and calls " "allowed, linked)",
                        gpu_only=True,
                    )
                    if state.result.speed:
                        state.result.speed.message = (
                            "measured when your instructor " "grades, on a GPU"
                        )
            self._run_tests(states, only=lambda test: not test.gpu)
            self._emulate(states, result)
            raise no_gpu
        self._run_tests(states)
        return states

    # ---- one lab --------------------------------------------------------------------------------

    def _out_of_time(self):
        return self.deadline is not None and time.monotonic() >= self.deadline
