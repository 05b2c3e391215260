"""Without a GPU: a lab's [emulate] tests on the kit's CPU emulation (emulation/), as feedback.

A grade needs a GPU: on a machine without one the grader still scores nothing (exit 3). But
after the intake checks (the file compiles with nvcc, includes and calls only what the lab
allows, links; then the same checks on the emulation's own compile of it, intake()), it runs
what `make emulate` runs on the same files: each test marked
[emulate], in the thread orders forward, reverse and random:1. The table shows, per TODO, how
many of them passed, or the first that failed and why; no points, no speed.

The kit's own parts (the emulation's runtime, the tests, common/) are built first by the kit's
make (`make emulate-parts`, trusted code). What the student wrote is rewritten (cu2cpp.py),
compiled, linked and run in the slot's sandbox, as the GPU path compiles and runs it: the kit
is read-only there and only the parts a compile needs are seen (never solutions/ nor the
emulation's planted faults, which hold lines of the solutions).
"""

from __future__ import annotations

import json
import re
import shlex
import time
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from . import forbidden, includes, sandbox
from .build import COMPILE_LIMITS
from .run import run_limited

ORDERS = "forward,reverse,random:1"
BUILD_TIME_LIMIT_S = 300  # the rewrite, compile and link of one lab's files
RUN_TIME_LIMIT_S = 900  # every emulated test of a lab, in every order (each has its own limit)
TEST_TIME_LIMIT_S = 120  # one test in one order (run_emulated.py's --timeout)
# The tests' processes: files, /tmp and processes bounded as the GPU path's executor's are.
# Memory: an emulation built with AddressSanitizer reserves terabytes of address space, so no
# rlimit can bound it; its own hard_rss_limit_mb does (below); without it, the heap's rlimit.
RUN_LIMITS = dict(
    cpu_s=RUN_TIME_LIMIT_S, file_size=64 << 20, processes=64, open_files=1024, tmp_size=256 << 20
)
MEMORY_MB = 8192
RESULTS_BYTES = 4 << 20  # run_emulated.py's JSON on the result channel
INSIDE_KIT = "/kit"
INSIDE_WORK = "/work"


@dataclass
class Outcome:
    ok: bool  # the emulation ran (its tests may still fail)
    message: str = ""  # why it did not run
    suites: dict = field(default_factory=dict)  # suite -> (passed, total, first failure)


def supported(kit):
    """The labs the kit's emulation runs (emulation.mk's EMU_SUPPORTED), or none: also when the
    labs are another kit's (the grader's own tests), whose tests the emulation has not built."""
    mk = kit.root / "emulation" / "emulation.mk"
    if not mk.is_file() or kit.labs_root != kit.root / "labs":
        return set()
    for line in mk.read_text().splitlines():
        if line.startswith("EMU_SUPPORTED :="):
            return set(line.split(":=", 1)[1].split())
    return set()


def prepare(kit, labs):
    """Builds the kit's parts for `labs` (make emulate-parts); returns (settings, message):
    grader.env's variables, or None and why the emulation cannot run here."""
    command = [
        "make",
        "--no-print-directory",
        "-C",
        str(kit.root),
        f"BUILD={kit.build}",
        f"LABS={' '.join(lab.id for lab in labs)}",
        "emulate-parts",
    ]
    try:
        done = subprocess.run(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=BUILD_TIME_LIMIT_S * 2,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, f"the emulation's parts did not build ({err})"
    if done.returncode != 0:
        last = [line for line in done.stdout.splitlines() if line.strip()][-3:]
        return None, "the emulation cannot run here: " + " / ".join(last)
    settings = {}
    for line in (kit.build / "emulate" / "grader.env").read_text().splitlines():
        name, _, value = line.partition("=")
        settings[name] = value
    return settings, ""


class _Paths:
    """What the sandbox sees of the kit (read-only: the emulation's headers and scripts,
    common/, the lab's folder, the prebuilt objects) and of the work folder (writable), and
    how their paths are named inside (the real ones where the sandbox kind has no binds)."""

    def __init__(self, kit, lab, work, bwrapped):
        self.kit, self.work, self.bwrapped = kit, work, bwrapped
        parts = [
            "emulation/include",
            "emulation/cu2cpp.py",
            "emulation/run_emulated.py",
            "common",
            f"labs/{lab.id}",
        ]
        self.ro = [(str(kit.root / p), f"{INSIDE_KIT}/{p}") for p in parts]
        self.ro += [
            (str(kit.build / "emulate" / p), self.built(kit.build / "emulate" / p))
            for p in ("obj", "lib")
        ]
        self.rw = [(str(work), INSIDE_WORK)]
        self.cwd = INSIDE_KIT if bwrapped else str(kit.root)

    def built(self, path):
        """A file of the kit's build (absolute, or relative to the kit as make names it)."""
        path = self.kit.root / path  # (an absolute path stays what it is)
        if not self.bwrapped:
            return str(path)
        return f"{INSIDE_KIT}/build/{path.resolve().relative_to(self.kit.build)}"

    def own(self, name):
        """A file of the work folder."""
        return f"{INSIDE_WORK}/{name}" if self.bwrapped else str(self.work / name)

    def inside(self, path):
        """A file or folder of the kit's source, as the sandbox names it."""
        if not self.bwrapped:
            return str(path)
        return f"{INSIDE_KIT}/{Path(path).relative_to(self.kit.root)}"


def run_lab(kit, lab, iso, settings, files, work, logs, deadline=None):
    """Builds `files` (the lab's student file, and its bonus file when graded: {name: path})
    with the kit's tests against the emulation, in the sandbox, and runs the [emulate] tests.
    work: an empty folder of the slot's; logs: where emulate.log goes. settings: prepare()'s.
    deadline: time.monotonic() by which every step has ended (the grader's --max-time)."""
    main = lab.student_file
    names = [main] + [name for name in files if name != main]
    (work / "src").mkdir(parents=True, exist_ok=True)
    for name in names:
        (work / name).write_bytes(Path(files[name]).read_bytes())
    sandbox.prepare_writable(iso, work)
    at = _Paths(kit, lab, work, iso.kind.startswith("bwrap"))
    python = settings.get("EMU_PYTHON", "python3")
    cxx = shlex.split(settings.get("EMU_CXX", "g++"))
    log = []

    sanitized = bool(settings.get("EMU_SAN", "").strip())
    run_limits = sandbox.Limits(**RUN_LIMITS, data=None if sanitized else MEMORY_MB << 20)
    env = {"ASAN_OPTIONS": f"detect_leaks=0:hard_rss_limit_mb={MEMORY_MB}"}

    def step(argv, time_limit, limits=COMPILE_LIMITS, channel=False):
        """Runs argv in the sandbox, within the time left; the ProcessResult, or None when no
        time was left."""
        if deadline is not None:
            time_limit = min(time_limit, deadline - time.monotonic())
            if time_limit <= 1:
                return None
        argv = [str(a) for a in argv]
        boxed = sandbox.command(iso, argv, ro=at.ro, rw=at.rw, cwd=at.cwd, limits=limits, env=env)
        result = run_limited(
            boxed, time_limit=time_limit, channel=channel, channel_bytes=RESULTS_BYTES
        )
        log.append(f"$ {' '.join(argv)}\n{result.output}")
        return result

    def ok(result):
        return result is not None and result.exit_code == 0

    def stopped(message):
        (logs / "emulate.log").write_text("\n".join(log))
        return Outcome(False, f"{message} (logs/{lab.id}/emulate.log)")

    kit_file = f"{INSIDE_KIT}/emulation" if at.bwrapped else str(kit.root / "emulation")
    for name in names:
        rewrite = [python, f"{kit_file}/cu2cpp.py", "-o", at.own(f"src/{name}")]
        if name != main:  # a bonus file is parsed with the student file first, as nvcc does
            rewrite += ["--include", at.own(main)]
        if not ok(
            step(
                rewrite + ["-I", "common", "-I", f"labs/{lab.id}", at.own(name)], BUILD_TIME_LIMIT_S
            )
        ):
            return stopped(f"the emulation's rewrite of {name} failed")
    # One object from the files together, as the lab compiles them (the bonus file with the
    # student file included first).
    # It keeps what its preprocessor made (lab.ii) and the headers it read (lab.d): the
    # intake's checks, below, read the emulation's view of the files as they read nvcc's.
    compile_argv = [
        *cxx,
        *shlex.split(settings["EMU_CUFLAGS"]),
        f"-Ilabs/{lab.id}",
        "-c",
        "-MD",
        "-MF",
        at.own("lab.d"),
        "-save-temps=obj",
    ]
    if len(names) > 1:
        compile_argv += ["-include", at.own(f"src/{main}")]
    if not ok(
        step(compile_argv + [at.own(f"src/{names[-1]}"), "-o", at.own("lab.o")], BUILD_TIME_LIMIT_S)
    ):
        return stopped(
            "your files compiled with nvcc but not with the host compiler for the " "emulation"
        )
    refused = intake(kit, lab, iso, settings, at, names, work)
    if refused:
        (logs / "emulate.log").write_text("\n".join(log))
        return Outcome(False, f"not run: {refused}")
    tests = kit.build / "emulate" / "obj" / "tests"
    objects = [
        at.built(tests / o) for o in ("runner.o", "gpu_harness.o", f"test_{lab.symbol_id}.o")
    ]
    objects += [at.own("lab.o"), at.built(settings["EMU_KIT_LIB"])]
    objects += [at.built(o) for o in settings["EMU_RUNTIME_OBJ"].split()]
    binary = at.own(f"test_{lab.symbol_id}")
    if not ok(
        step(
            [
                *cxx,
                *shlex.split(settings.get("EMU_SAN", "")),
                "-o",
                binary,
                *objects,
                *shlex.split(settings["EMU_LIBS"]),
            ],
            BUILD_TIME_LIMIT_S,
        )
    ):
        return stopped("the emulated tests did not link with your files")
    # run_emulated.py (the kit's) starts a process per test and order; each runs the student's
    # code under the seccomp profile of every student process, through the sandbox's launcher.
    # Its results come back on the grader's result channel, which it takes out of its
    # environment first and no test process inherits (and it makes itself non-dumpable, so
    # that a test, of the same uid, cannot reach its memory): never from a file in the folder
    # the student's code may write.
    launcher = sandbox.INSIDE_LAUNCHER if at.bwrapped else str(iso.sandbox_exec)
    result = step(
        [
            python,
            f"{kit_file}/run_emulated.py",
            "--orders",
            ORDERS,
            "--timeout",
            TEST_TIME_LIMIT_S,
            "--results-channel",
            "--wrap",
            f"{launcher} --seccomp run --",
            binary,
        ],
        RUN_TIME_LIMIT_S,
        run_limits,
        channel=True,
    )
    (logs / "emulate.log").write_text("\n".join(log))
    if result is None:
        return Outcome(
            False, f"no time was left for the emulated tests (logs/{lab.id}/" "emulate.log)"
        )
    answer = [
        line[len(result.token) + 1 :]
        for line in result.channel_lines()
        if result.token and line.startswith(result.token + " ")
    ]
    try:
        suites = summarize(json.loads(answer[0]) if answer else None)
        if not suites:  # the program ended before it listed its tests (its own exit?)
            return stopped("the emulated test program listed no tests")
        return Outcome(True, suites=suites)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return stopped(
            "the emulated tests did not finish within the time left"
            if result.timed_out
            else "the emulated tests did not finish"
        )


def intake(kit, lab, iso, settings, at, names, work):
    """The GPU path's intake checks on the emulation's compile of the same files (lab.o, the
    lab.ii its preprocessor made, the lab.d of headers it read): code that only the emulation
    compiles (an #if that nvcc does not take) meets the lab's rules all the same. The first
    problem, as a sentence, or None."""
    label = lab.files_named if len(names) > 1 else lab.student_file
    problem = includes.scan_preprocessed_folder(work, label)
    if problem:
        return problem
    # Headers from the emulation's CUDA headers, common/, the lab's folder (as the sandbox
    # names them), the rewrites of the lab's headers cu2cpp.py wrote beside the files (src/)
    # and the host compiler's own folders; never CUDA's.
    roots = [
        Path(at.inside(kit.root / part))
        for part in ("emulation/include", "common", f"labs/{lab.id}")
    ]
    roots.append(Path(at.own("src")))
    roots += list(includes.system_roots(shlex.split(settings.get("EMU_CXX", "g++"))[0]))
    deps = (work / "lab.d").read_text(errors="replace") if (work / "lab.d").is_file() else ""
    problem = includes.check_dependencies(
        deps,
        at.own(f"src/{names[-1]}"),
        roots,
        cwd=at.cwd,
        own=[at.own(f"src/{n}") for n in names[:-1]],
    )
    if problem:
        return problem
    try:
        findings = forbidden.check_object(
            work / "lab.o",
            lab,
            emulation_symbols(kit, lab, settings),
            lab.rubric.forbidden if lab.rubric else (),
            iso,
            emulated=True,
        )
    except forbidden.CheckFailed as err:
        return f"the emulation's object of your files could not be checked ({err})"
    if findings:
        return (
            forbidden.summary(findings, label).replace(", so the lab scores 0", "")
            + "\n  (in code that only the emulation compiles: an #if that nvcc does not "
            "take; a GPU grade refuses it too)"
        )
    return None


_SYMBOLS = {}


def emulation_symbols(kit, lab, settings):
    """What the emulation's parts of the lab's test program define and use (forbidden.py's
    KitSymbols): its runtime, the kit's tests and common/ built for it, CUnit; the lab's API
    from its emulated tests and the solution's emulated object. Read once per lab."""
    key = (str(kit.build), lab.id)
    if key not in _SYMBOLS:
        emulate = kit.build / "emulate"
        tests = emulate / "obj" / "tests"
        parts = [tests / o for o in ("runner.o", "gpu_harness.o", f"test_{lab.symbol_id}.o")]
        parts += [kit.root / settings["EMU_KIT_LIB"]]
        parts += [kit.root / o for o in settings["EMU_RUNTIME_OBJ"].split()]
        parts += [
            Path(a)
            for a in shlex.split(settings.get("EMU_LIBS", ""))
            if a.endswith(".a") and "cunit" in Path(a).name.lower()
        ]
        solution = emulate / "solution" / "obj" / f"{lab.id}.o"
        _SYMBOLS[key] = forbidden.link_symbols(
            lab, [p for p in parts if p.exists()], [tests / f"test_{lab.symbol_id}.o"], solution
        )
    return _SYMBOLS[key]


def summarize(data):
    """run_emulated.py's results by suite: (passed, total, the first failure's story). Raises
    ValueError when they are not what it writes."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ValueError("not run_emulated.py's results")
    suites = {}
    for r in data["results"]:
        if not (
            isinstance(r, dict)
            and isinstance(r.get("test"), str)
            and isinstance(r.get("passed"), bool)
            and isinstance(r.get("orders"), dict)
            and r["orders"]
            and all(
                isinstance(v, dict)
                and isinstance(v.get("status"), str)
                and isinstance(v.get("why"), list)
                for v in r["orders"].values()
            )
        ):
            raise ValueError("not run_emulated.py's results")
        suite, _, test = r["test"].partition("/")
        passed, total, first = suites.get(suite, (0, 0, ""))
        if r["passed"]:
            passed += 1
        elif not first:
            bad = {o: v for o, v in r["orders"].items() if v["status"] != "pass"} or r["orders"]
            order, run = next(iter(bad.items()))
            why = next((line.strip() for line in run["why"] if line.strip()), run["status"])
            why = re.sub(r"^\S+:\d+: ", "", why)  # the test's file and line: in the log
            where = "every order" if len(bad) == len(r["orders"]) else f"order {order}"
            first = f"{test}: {run['status']} in {where}: {why}"
        suites[suite] = (passed, total + 1, first)
    return suites
