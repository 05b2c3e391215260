"""What grading found, and the scores that follow from it.

Scores per lab:
  * each suite (one per TODO) gives its rubric points times the share of its tests passed;
    a bonus suite adds to the score and not to the maximum;
  * speed points (if the rubric has them) count in the maximum whenever the reference
    solution could be timed, and are earned only when the lab is correct (speed.py);
  * with --sanitize, a rubric's sanitizer deduction comes off when a tool finds something;
  * a lab that does not compile or link, or breaks the rules (forbidden.py), scores 0 and
    every test shows why it did not run; so does one whose object the checks could not read
    within their limits (not graded, and the message says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .run import NOT_RUN, PASSED, SKIPPED, TestRun

# Lab states
GRADED = "graded"
MISSING = "missing"  # no student file in the submission
REJECTED = "rejected"  # a student file the grader will not take (a link, too large)
COMPILE_ERROR = "compile error"
LINK_ERROR = "link error"
FORBIDDEN = "forbidden"
NOT_CHECKED = "not graded"  # a check of the object did not finish within its limits


@dataclass
class SuiteResult:
    name: str
    rule: object  # rubric.SuiteRule
    runs: list = field(default_factory=list)  # TestRun, in the order of -l
    # Without a GPU, what its [emulate] tests did on the CPU emulation (emulated.py): no points.
    emulated: str = ""

    @property
    def passed(self):
        return sum(1 for r in self.runs if r.status == PASSED)

    @property
    def points(self):
        if not self.runs:
            return 0.0
        return self.rule.points * self.passed / len(self.runs)

    @property
    def max_points(self):
        return 0.0 if self.rule.bonus else self.rule.points

    def test_points(self):
        return self.rule.points / len(self.runs) if self.runs else 0.0

    @property
    def complete(self):
        return bool(self.runs) and self.passed == len(self.runs)

    def first_failure(self):
        for run in self.runs:
            if run.status != PASSED:
                what = "" if run.status in ("failed", "crashed") else f"{run.status.upper()}: "
                return f"{run.test.name}: {what}{run.message}"
        return ""


@dataclass
class SpeedOutcome:
    points: float = 0.0
    max_points: float = 0.0  # 0 when not counted (no rubric speed, or no reference timing)
    message: str = ""
    ratio: float = None
    student_ms: float = None
    reference_ms: float = None
    log: str = ""


@dataclass
class LabResult:
    lab: object  # discover.Lab
    status: str = GRADED
    message: str = ""  # why a lab was not graded, for the student
    source: str = ""  # where the student file came from
    notes: list = field(default_factory=list)  # e.g. the bonus file graded as the kit's
    suites: dict = field(default_factory=dict)  # name -> SuiteResult
    speed: SpeedOutcome = None
    sanitizer: list = field(default_factory=list)  # sanitize.SanitizerRun
    sanitizer_note: str = ""
    deduction: float = 0.0
    elapsed: float = 0.0
    logs: str = ""  # folder of this lab's logs

    @property
    def score(self):
        total = sum(s.points for s in self.suites.values())
        if self.speed:
            total += self.speed.points
        return max(0.0, total - self.deduction)

    @property
    def max_score(self):
        total = sum(s.max_points for s in self.suites.values())
        if self.speed:
            total += self.speed.max_points
        return total

    def runs(self):
        return [r for s in self.suites.values() for r in s.runs]

    def count(self, status):
        return sum(1 for r in self.runs() if r.status == status)

    def correct_for_speed(self):
        required = self.lab.rubric.required_for_speed()
        return self.status == GRADED and all(
            name in self.suites and self.suites[name].complete for name in required
        )

    def not_run(self, message, gpu_only=False):
        """Every test of the lab (with gpu_only: every test that needs a GPU) did not run, for
        this reason."""
        for suite in self.suites.values():
            suite.runs = [
                TestRun(test=r.test, status=NOT_RUN, message=message)
                if r.test.gpu or not gpu_only
                else r
                for r in suite.runs
            ]


@dataclass
class SubmissionResult:
    name: str
    path: str
    labs: list = field(default_factory=list)  # LabResult
    elapsed: float = 0.0
    time_bound: float = 0.0
    gpu: str = ""  # the probe's line
    notes: list = field(default_factory=list)
    error: str = ""  # set when the grader could not grade it (not the student's fault)
    exit_code: int = 0  # the grader's exit code for this submission when error is set
    isolation: str = ""  # how the student's code was kept apart (sandbox.py), for the record

    @property
    def score(self):
        return sum(lab.score for lab in self.labs)

    @property
    def max_score(self):
        return sum(lab.max_score for lab in self.labs)

    @property
    def skipped(self):
        return sum(lab.count(SKIPPED) for lab in self.labs)

    def lab(self, lab_id):
        for lab in self.labs:
            if lab.lab.id == lab_id:
                return lab
        return None
