"""A lab's rubric: grading/rubric/NN-name.json, or the default when the lab has none.

    {
      "title": "Lab 01: odd-even transposition sort",
      "student_file": "oddeven.cu",          the file taken from a submission
      "bonus_file": "oddeven_bonus.cu",      optional: a second file, for the bonus TODOs;
                                             a submission without it (or whose copy does not
                                             compile) is graded with the kit's copy of it,
                                             labs/NN-name/FILE (the skeleton)
      "time_limit_s": 60,                    per test, unless a suite says otherwise
      "suites": {                            one suite per TODO; order = order in the table
        "1.1_phase": {"points": 25},
        "1.2_sort": {"points": 25, "visibility": "after_due_date", "time_limit_s": 120},
        "1.4_cooperative": {"points": 10, "bonus": true,
                            "tests": {"large_sizes": {"visibility": "hidden"}}}
      },
      "speed": {                             optional speed points
        "points": 10,
        "args": ["--algo", "global", "-n", "2^14", "--reps", "5"],   the lab driver's options
        "requires": ["1.1_phase", "1.2_sort"],  suites that must pass in full (default: all
                                                but bonus suites)
        "full_ratio": 1.25,                  full points at <= 1.25x the reference's time
        "zero_ratio": 3.0,                   no points at >= 3x; linear in between
        "time_limit_s": 120
      },
      "sanitizer": {                         used with grading/grade --sanitize
        "tests": "first",                    "first" or "all" tests marked [sanitize], or a
                                             list of SUITE/TEST
        "tools": ["memcheck", "racecheck"],
        "deduction": 0,                      points off the lab when a tool finds something
        "time_limit_s": 300
      },
      "forbidden": [{"pattern": "regex on nm -C names", "why": "what the message says"}],
      "cpu": {"factor": 3, "slack_ms": 250,  a test's process may use this much CPU time:
              "tests": ["*"],                factor * the reference's on the same test +
              "speed": true}                 slack_ms (cpu.py), in the tests matched by
                                             "tests" (SUITE/TEST shell patterns) and, when
                                             "speed" is true, the timed run; defaults shown
    }

Keys starting with "_" are comments. Points are split equally among a suite's tests. A bonus
suite adds to the score and not to the maximum. Visibility is Gradescope's: visible, hidden,
after_due_date or after_published. A suite the test binary has and the rubric does not name
is worth no points (the table says so); a suite the rubric names and the binary lacks is an
error in the rubric.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import GraderError

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
DEFAULT_TIME_LIMIT_S = 60.0
DEFAULT_SUITE_POINTS = 10.0
SANITIZER_TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")


@dataclass
class SuiteRule:
    points: float = DEFAULT_SUITE_POINTS
    visibility: str = "visible"
    bonus: bool = False
    time_limit_s: float = None  # None: the lab's
    test_visibility: dict = field(default_factory=dict)  # test name -> visibility
    in_rubric: bool = True  # False: found in the test binary, not named by the rubric


@dataclass
class SpeedRule:
    points: float
    args: list
    requires: list = None  # None: every suite that is not a bonus
    full_ratio: float = 1.25
    zero_ratio: float = 3.0
    time_limit_s: float = 120.0
    visibility: str = "visible"
    # Below it the timed run cannot have been the lab's GPU work (evidence.py); None: no floor.
    floor_ratio: float = None


@dataclass
class CpuRule:
    """How much CPU time a test's process may use against the reference's (cpu.py)."""

    factor: float = 3.0
    slack_ms: float = 250.0
    tests: list = field(default_factory=lambda: ["*"])  # SUITE/TEST patterns it applies to
    speed: bool = True  # whether the timed run's CPU time is held to it too

    def applies(self, test_id):
        """Whether the budget holds for this test: only where an honest solution's CPU time
        is small and steady (few launches, much data), or an honest habit such as waiting
        after every launch would read as host work (cpu.py)."""
        return any(fnmatch.fnmatchcase(test_id, pattern) for pattern in self.tests)


@dataclass
class SanitizerRule:
    tests: object = "first"  # "first", "all" or a list of SUITE/TEST
    tools: list = field(default_factory=lambda: ["memcheck", "racecheck"])
    deduction: float = 0.0
    time_limit_s: float = 300.0


@dataclass
class Rubric:
    lab: str
    title: str
    student_file: str
    bonus_file: str = None
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    suites: dict = field(default_factory=dict)  # suite -> SuiteRule, in table order
    speed: SpeedRule = None
    sanitizer: SanitizerRule = field(default_factory=SanitizerRule)
    forbidden: list = field(default_factory=list)  # [(compiled regex, why)]
    allow: list = field(default_factory=list)  # imports allowed beyond allowlist.py's BASE
    cpu: CpuRule = field(default_factory=CpuRule)
    source: str = "default"  # the rubric file, or "default"

    @property
    def is_default(self):
        return self.source == "default"

    def rule(self, suite):
        """The rule of a suite; one the rubric does not name is worth nothing (or, under the
        default rubric, the default points)."""
        if suite not in self.suites:
            self.suites[suite] = SuiteRule(
                points=DEFAULT_SUITE_POINTS if self.is_default else 0.0,
                in_rubric=self.is_default,
            )
        return self.suites[suite]

    def time_limit(self, suite):
        rule = self.rule(suite)
        return rule.time_limit_s if rule.time_limit_s is not None else self.time_limit_s

    def required_for_speed(self):
        if self.speed is None:
            return []
        if self.speed.requires is not None:
            return list(self.speed.requires)
        return [s for s, r in self.suites.items() if not r.bonus and r.points > 0]


def default_rubric(lab_id, lab_name):
    """Each suite the same points, visible, no speed points: a new lab is graded at once."""
    return Rubric(lab=lab_id, title=lab_id, student_file=f"{lab_name}.cu")


class _Reader:
    """Reads one JSON object, refusing unknown keys and wrong types with the key's path."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, message):
        raise GraderError(f"rubric {self.path}: {where}: {message}")

    def keys(self, obj, where, allowed):
        if not isinstance(obj, dict):
            self.fail(where, "must be an object {...}")
        for key in obj:
            if not key.startswith("_") and key not in allowed:
                self.fail(where, f"unknown key '{key}' (known: {', '.join(allowed)})")

    def number(self, obj, key, where, default, minimum=0.0):
        value = obj.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
            self.fail(f"{where}.{key}", f"must be a number >= {minimum:g}, not {value!r}")
        return float(value)

    def visibility(self, obj, where, default="visible"):
        value = obj.get("visibility", default)
        if value not in VISIBILITIES:
            self.fail(f"{where}.visibility", f"must be one of {', '.join(VISIBILITIES)}")
        return value

    def string_list(self, value, where):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(where, "must be a list of strings")
        return list(value)


TOP_LEVEL_KEYS = [
    "lab",
    "title",
    "student_file",
    "bonus_file",
    "time_limit_s",
    "suites",
    "speed",
    "sanitizer",
    "forbidden",
    "allow",
    "cpu",
]


def load_rubric(path, lab_id, lab_name):
    """Reads and checks a rubric file; every mistake is a GraderError naming the key.
    "suites" is read before "speed", whose "requires" names suites."""
    path = Path(path)
    data = _read_json(path)
    r = _Reader(path)
    r.keys(data, "top level", TOP_LEVEL_KEYS)
    if "lab" in data and data["lab"] != lab_id:
        r.fail("lab", f"says {data['lab']!r} but the file is for {lab_id!r}")
    rubric = Rubric(
        lab=lab_id,
        title=str(data.get("title", lab_id)),
        student_file=str(data.get("student_file", f"{lab_name}.cu")),
        bonus_file=str(data["bonus_file"]) if data.get("bonus_file") else None,
        time_limit_s=r.number(data, "time_limit_s", "top level", DEFAULT_TIME_LIMIT_S, 1),
        source=str(path),
    )
    _check_file_names(r, rubric)
    rubric.allow = _allow(r, data.get("allow", []))
    if "cpu" in data:
        rubric.cpu = _cpu_rule(r, data["cpu"])
    suites = data.get("suites", {})
    r.keys(suites, "suites", list(suites))
    for name, spec in suites.items():
        rubric.suites[name] = _suite_rule(r, name, spec)
    if "speed" in data and data["speed"] is not None:
        rubric.speed = _speed_rule(r, data["speed"], rubric.suites)
    if "sanitizer" in data:
        rubric.sanitizer = _sanitizer_rule(r, data["sanitizer"])
    for i, spec in enumerate(data.get("forbidden", [])):
        rubric.forbidden.append(_forbidden_rule(r, i, spec))
    return rubric


def _read_json(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise GraderError(f"rubric {path}: cannot read it: {err}")


def _check_file_names(r, rubric):
    """The lab's files are plain .cu names: they are looked up in a submission and in labs/."""
    for key, name in (("student_file", rubric.student_file), ("bonus_file", rubric.bonus_file)):
        if name is not None and ("/" in name or name.startswith(".") or not name.endswith(".cu")):
            r.fail(key, "must be a plain file name ending in .cu, like oddeven.cu")
    if rubric.bonus_file == rubric.student_file:
        r.fail("bonus_file", "must differ from student_file")


def _allow(r, allow):
    if not isinstance(allow, list) or not all(isinstance(a, str) and a for a in allow):
        r.fail("allow", 'must be a list of names a lab file may call, e.g. ["cudaMallocHost"]')
    return list(allow)


def _cpu_rule(r, spec):
    r.keys(spec, "cpu", ["factor", "slack_ms", "tests", "speed", "_comment"])
    if not isinstance(spec.get("speed", True), bool):
        r.fail("cpu.speed", "must be true or false")
    return CpuRule(
        factor=r.number(spec, "factor", "cpu", 3.0, 1.0),
        slack_ms=r.number(spec, "slack_ms", "cpu", 250.0, 0.0),
        tests=r.string_list(spec.get("tests", ["*"]), "cpu.tests"),
        speed=spec.get("speed", True),
    )


def _suite_rule(r, name, spec):
    where = f"suites.{name}"
    r.keys(spec, where, ["points", "visibility", "bonus", "time_limit_s", "tests"])
    tests = spec.get("tests", {})
    r.keys(tests, f"{where}.tests", list(tests))
    test_visibility = {}
    for test, test_spec in tests.items():
        r.keys(test_spec, f"{where}.tests.{test}", ["visibility"])
        test_visibility[test] = r.visibility(test_spec, f"{where}.tests.{test}")
    if not isinstance(spec.get("bonus", False), bool):
        r.fail(f"{where}.bonus", "must be true or false")
    return SuiteRule(
        points=r.number(spec, "points", where, DEFAULT_SUITE_POINTS),
        visibility=r.visibility(spec, where),
        bonus=spec.get("bonus", False),
        time_limit_s=r.number(spec, "time_limit_s", where, None, 1),
        test_visibility=test_visibility,
    )


def _speed_rule(r, spec, suites):
    """The speed rule; the suites it requires must be among `suites`, the rubric's."""
    r.keys(
        spec,
        "speed",
        [
            "points",
            "args",
            "requires",
            "full_ratio",
            "zero_ratio",
            "time_limit_s",
            "visibility",
            "floor_ratio",
        ],
    )
    if "args" not in spec:
        r.fail("speed", 'needs \'args\', the lab driver\'s options (like ["-n", "2^20"])')
    rule = SpeedRule(
        points=r.number(spec, "points", "speed", 0.0),
        args=r.string_list(spec["args"], "speed.args"),
        requires=(
            r.string_list(spec["requires"], "speed.requires") if "requires" in spec else None
        ),
        full_ratio=r.number(spec, "full_ratio", "speed", 1.25, 1.0),
        zero_ratio=r.number(spec, "zero_ratio", "speed", 3.0, 1.0),
        time_limit_s=r.number(spec, "time_limit_s", "speed", 120.0, 1),
        visibility=r.visibility(spec, "speed"),
        floor_ratio=(
            r.number(spec, "floor_ratio", "speed", None, 0.0) if "floor_ratio" in spec else None
        ),
    )
    if rule.floor_ratio is not None and not 0 < rule.floor_ratio < 1:
        r.fail("speed.floor_ratio", "must be between 0 and 1 (a fraction of the reference's time)")
    if rule.zero_ratio <= rule.full_ratio:
        r.fail("speed.zero_ratio", "must be larger than full_ratio")
    for suite in rule.requires or []:
        if suite not in suites:
            r.fail("speed.requires", f"names '{suite}', which is not in 'suites'")
    return rule


def _sanitizer_rule(r, spec):
    r.keys(spec, "sanitizer", ["tests", "tools", "deduction", "time_limit_s"])
    tests = spec.get("tests", "first")
    if tests not in ("first", "all"):
        tests = r.string_list(tests, "sanitizer.tests")
    tools = r.string_list(spec.get("tools", ["memcheck", "racecheck"]), "sanitizer.tools")
    for tool in tools:
        if tool not in SANITIZER_TOOLS:
            r.fail("sanitizer.tools", f"unknown tool '{tool}' ({', '.join(SANITIZER_TOOLS)})")
    return SanitizerRule(
        tests=tests,
        tools=tools,
        deduction=r.number(spec, "deduction", "sanitizer", 0.0),
        time_limit_s=r.number(spec, "time_limit_s", "sanitizer", 300.0, 1),
    )


def _forbidden_rule(r, i, spec):
    """Entry i of "forbidden": (the compiled pattern, why it is forbidden)."""
    r.keys(spec, f"forbidden[{i}]", ["pattern", "why"])
    try:
        pattern = re.compile(spec["pattern"])
    except (KeyError, re.error) as err:
        r.fail(f"forbidden[{i}].pattern", f"needs a regular expression ({err})")
    return pattern, str(spec.get("why", f"matches {spec['pattern']}"))


def lab_rubric(rubric_dir, lab_id, lab_name):
    """The lab's rubric file if there is one, otherwise the default rubric."""
    path = Path(rubric_dir) / f"{lab_id}.json"
    if path.is_file():
        return load_rubric(path, lab_id, lab_name)
    return default_rubric(lab_id, lab_name)


def check_against_tests(rubric, suites_found, test_ids=()):
    """Problems of a rubric with the suites and tests the lab's test binary really has. A
    "cpu.tests" pattern that matches no test would switch the CPU budget off unseen."""
    problems = [
        f"rubric {rubric.source}: suite '{name}' is not in the lab's tests "
        f"(they have: {', '.join(suites_found)})"
        for name in rubric.suites
        if name not in suites_found
    ]
    if test_ids:
        problems += [
            f"rubric {rubric.source}: cpu.tests: '{pattern}' matches none of the lab's tests"
            for pattern in rubric.cpu.tests
            if not any(fnmatch.fnmatchcase(t, pattern) for t in test_ids)
        ]
    return problems
