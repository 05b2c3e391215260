#!/usr/bin/env python3
"""The grader measures what it scores (make check-grader): no GPU needed.

usage: python3 grading/tests/test_hardening.py [--build BUILD] [unittest options, test names]

Everything the grader derives from a submission is processed under limits, and what it shows
is what it measured. Covered:
  * tools on a student's object (forbidden.py): nm, objdump and c++filt run in the sandbox
    under a time limit, an output cap and a memory cap, and never demangle what they cannot
    finish. A 291-character symbol whose demangling is terabytes (fixtures/host/nm_bomb)
    grades in bounded time, alone and in a class; imported, it is named mangled and cut; a
    rubric pattern that needs it demangled makes that lab "not graded", not the run. The
    library-sort rules read mangled names and agree with the demangled patterns they replace;
  * the scan of what the preprocessor made of a source (includes.py, build.py): an incbin
    pasted together with ## passes a scan of the source and is refused all the same;
  * control characters (report.py): a forged FAIL line full of escape sequences and carriage
    returns (fixtures/host/forged_escapes) shows none in the table, grade.log, results.json or
    the gradebook;
  * the gradebook of a class run is written after every student, and every report file whole
    (a temporary file, then a rename): a run stopped half way keeps what it graded.

The end-to-end tests grade fixtures with the fixture kit, as test_grader.py does (its helpers
are used here), each grader process under a memory limit and killed with its process group
when it overruns, so that a grader without these limits fails the test instead of the machine.
"""

import csv
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
import test_grader  # noqa: E402  (the fixture kit's build and grade())
import test_intake  # noqa: E402  (nvcc, and the flags it compiles small files with)
from testkit import FIXTURE_KIT, GRADING, ROOT  # noqa: E402

from kitgrader import Interrupted  # noqa: E402
from kitgrader import classroom, discover, forbidden, includes, report, run, sandbox  # noqa: E402
from kitgrader.results import (
    COMPILE_ERROR,
    GRADED,
    LabResult,
    SubmissionResult,  # noqa: E402
    SuiteResult,
)
from kitgrader.run import FAILED, TestInfo, TestRun  # noqa: E402

HOST = testkit.host_fixtures()  # fixtures/host/, written as submissions
BUILD = ROOT / "build"  # --build changes it
STATE = {}
GRADER_MEMORY = 24 << 30  # address space of a grader process under test (nvcc needs 8 GiB)
BOMB = "".join(
    re.findall(
        r'"([^"]*)"',
        re.search(
            r"#define BOMB_NAME(.*?)\n\n", (HOST / "nm_bomb" / "hostsum.cu").read_text(), re.S
        ).group(1),
    )
)
# What no terminal, report or spreadsheet may get: C0 controls but \n and \t, DEL, C1.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def setUpModule():
    test_grader.BUILD = BUILD
    test_intake.BUILD = BUILD
    tmp, fb = test_grader.make_fixture_build()
    test_grader.STATE.update(tmp=tmp, build=fb, out=tmp / "out")
    STATE.update(tmp=tmp, build=fb, out=tmp / "out")


def tearDownModule():
    if "tmp" in STATE and not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
        shutil.rmtree(STATE["tmp"], ignore_errors=True)


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (GRADER_MEMORY, GRADER_MEMORY))


def start_grade(submission, *options, out, kit_root=FIXTURE_KIT):
    """grading/grade on the fixture kit, in a process group of its own, memory limited."""
    command = [
        sys.executable,
        str(GRADING / "grade"),
        "-q",
        "--out",
        str(out),
        "--build",
        str(STATE["build"]),
        "--kit-root",
        str(kit_root),
        "--no-gpu-check",
        *options,
        str(submission),
    ]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_limit_memory,
    )


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def grade(case, submission, *options, out, kit_root=FIXTURE_KIT, limit=240):
    """(exit code, stdout, stderr, results.json or None, seconds); fails the test, with the
    grader and everything it started killed, when it runs past limit seconds."""
    started = time.monotonic()
    proc = start_grade(submission, *options, out=out, kit_root=kit_root)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        case.fail(f"the grader did not finish {Path(submission).name} within {limit} s")
    results = out / "results.json"
    return (
        proc.returncode,
        stdout,
        stderr,
        json.loads(results.read_text()) if results.exists() else None,
        time.monotonic() - started,
    )


def read_gradebook(path):
    with open(path, newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


@contextmanager
def alarm(seconds, what):
    """Fails the test when the block runs past seconds (subprocess.run kills its child)."""

    class Overran(Exception):
        pass

    def ring(signum, frame):
        raise Overran(f"{what} took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    except Overran as err:
        raise AssertionError(str(err))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def strings(tree):
    if isinstance(tree, str):
        yield tree
    elif isinstance(tree, dict):
        for value in tree.values():
            yield from strings(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from strings(value)


# ---- tools on a student's object ----------------------------------------------------------


class ObjectTools(unittest.TestCase):
    """forbidden.py on objects nvcc makes here, against the real kit's Lab 01."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="kitgrader-hardening-"))
        cls.tmp.chmod(0o755)  # the sandbox's uid reads the objects, as in grading
        cls.objects = {}
        nvcc = test_intake.find_nvcc()
        if not nvcc or not (BUILD / "grading.env").exists():
            return
        imported = cls.tmp / "imported.cu"
        imported.write_text(
            textwrap.dedent(
                f"""\
            #include "oddeven.h"
            extern void imported(int) __asm__("{BOMB}");
            int probe(void) {{ imported(1); return 0; }}
            """
            )
        )
        fixture = cls.tmp / "bomb.cu"
        shutil.copy(HOST / "nm_bomb" / "hostsum.cu", fixture)
        (cls.tmp / "hostsum.h").write_text(
            (FIXTURE_KIT / "labs" / "91-hostsum" / "hostsum.h").read_text()
        )
        cls.objects = test_intake.compile_all(
            nvcc, {"imported": imported, "bomb": fixture}, cls.tmp
        )

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        test_intake.need_nvcc(self)
        if not self.objects:
            self.skipTest(f"no build at {BUILD} (run make): the kit's symbols are needed")
        kit = discover.Kit.at(ROOT, build=BUILD)
        self.lab = {lab.id: lab for lab in discover.discover_labs(kit)}["01-oddeven"]
        self.symbols = forbidden.kit_symbols(self.lab)
        saved = {
            name: getattr(forbidden, name)
            for name in ("TOOL_MEMORY", "TOOL_TIME_LIMIT_S", "DEMANGLE_TIME_LIMIT_S")
            if hasattr(forbidden, name)
        }
        self.addCleanup(lambda: [setattr(forbidden, k, v) for k, v in saved.items()])

    def test_an_object_defining_the_bomb_is_checked_in_bounded_time(self):
        # What this test stands on: c++filt does not demangle the name in 5 s.
        self.assertEqual(len(BOMB), 291)
        with self.assertRaises(subprocess.TimeoutExpired):
            subprocess.run(
                ["c++filt", BOMB],
                capture_output=True,
                timeout=5,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)),
            )
        names = subprocess.run(
            ["nm", "--no-demangle", str(self.objects["bomb"])],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        self.assertIn(BOMB, names)
        started = time.monotonic()
        with alarm(60, "checking an object that defines the bomb"):
            findings = forbidden.check_object(self.objects["bomb"], self.lab, self.symbols)
        self.assertEqual(findings, [])
        self.assertLess(time.monotonic() - started, 30)

    def test_an_imported_bomb_is_named_mangled_and_cut(self):
        started = time.monotonic()
        with alarm(90, "checking an object that imports the bomb"):
            findings = forbidden.check_object(self.objects["imported"], self.lab, self.symbols)
        self.assertLess(time.monotonic() - started, 60)
        message = forbidden.summary(findings, "oddeven.cu")
        self.assertIn("oddeven.cu calls _Z4bombPFvPFv", message)
        self.assertIn("...", message)
        self.assertNotIn(BOMB, message)  # cut short
        self.assertLess(len(message), 2000)

    def test_a_rubric_pattern_on_the_bomb_fails_the_check_not_the_grader(self):
        forbidden.DEMANGLE_TIME_LIMIT_S = 2
        rules = [(re.compile(r"\bbomb\("), "a function named bomb")]
        started = time.monotonic()
        with alarm(60, "a rubric pattern on the bomb"):
            with self.assertRaises(forbidden.CheckFailed) as caught:
                forbidden.check_object(self.objects["bomb"], self.lab, self.symbols, rules)
        self.assertLess(time.monotonic() - started, 30)
        self.assertIn("c++filt did not finish within 2 s", str(caught.exception))

    def test_tools_run_under_a_time_limit_an_output_cap_and_a_memory_cap(self):
        obj, tools = self.objects["bomb"], forbidden.Tools.for_lab(self.lab)
        with self.assertRaises(forbidden.CheckFailed) as caught:
            forbidden.run_tool(tools, "c++filt", [BOMB], time_limit=2)
        self.assertIn("did not finish within 2 s", str(caught.exception))
        with self.assertRaises(forbidden.CheckFailed) as caught:
            forbidden.run_tool(tools, "nm", ["--no-demangle"], obj, output_limit=100)
        self.assertIn("printed more than 100 bytes", str(caught.exception))
        forbidden.TOOL_MEMORY = 1 << 20  # too little for nm even to start
        with self.assertRaises(forbidden.CheckFailed) as caught:
            forbidden.run_tool(tools, "nm", ["--no-demangle"], obj)
        self.assertIn("1 MiB of memory", str(caught.exception))

    def test_tools_run_in_the_sandbox(self):
        kit = discover.Kit.at(ROOT, build=BUILD)
        iso = sandbox.detect(kit.build / "tools" / "sandbox_exec", [self.tmp])
        tools = forbidden.Tools.for_lab(self.lab, iso)
        command = []
        real = forbidden.run_limited
        forbidden.run_limited = lambda argv, **kw: command.append(argv) or real(argv, **kw)
        try:
            names = forbidden.run_tool(tools, "nm", ["--no-demangle"], self.objects["bomb"])
        finally:
            forbidden.run_limited = real
        self.assertIn(BOMB, names)
        self.assertIn("--as", command[0])
        if iso.kind.startswith("bwrap"):
            self.assertIn(iso.bwrap, command[0])
            self.assertIn("/object/bomb.o", command[0])

    def test_sort_rules_read_mangled_names(self):
        cases = {
            "_ZN6thrust6detail10sort_implEv": "Thrust",
            "_ZN6thrust20THRUST_300001_SM_9004sortIPjEEvT_S3_": "Thrust",
            "_Z3runIN6thrust4lessIiEEEvT_": "Thrust",  # thrust:: in a template argument
            "_ZN3cub17CUB_300001_SM_90015DeviceRadixSort9SortKeysIjEEvPv": "CUB",
            "_ZSt4sortIPjEvT_S1_": forbidden.STD_SORTING,
            "_ZSt16__introsort_loopIPjlN9__gnu_cxx5__ops15_Iter_less_iterEEvT_S4_T0_T1_.isra.0": forbidden.STD_SORTING,
            "_ZNKSt6ranges9__sort_fnclIPjS2_St4lessIvESt8identityEET_S6_S6_T1_T2_": forbidden.STD_SORTING,
            "qsort": "the C library's qsort",
            "kit_cpu_merge_sort_u32": "the kit's CPU reference sorts (cpu_sort.h)",
            "_Z22kit_cpu_merge_sort_u32Pjm": "the kit's CPU reference sorts (cpu_sort.h)",
            "kit_baseline_cub_radix_ms": "the kit's CUB and std::sort baselines (baselines.h)",
            # not sorts: a function named thrust, a sort of one's own, std:: but no sort
            "_Z6thrusti": None,
            "_ZL3cubi": None,
            "_ZN2my4sortEPjm": None,
            "_Z4sortPjm": None,
            "_ZNSt6vectorIjSaIjEE9push_backERKj": None,
            "_ZSt9sort_thisv": None,
            "qsort_mine": None,
            "_ZN5mysrt6thrustE": None,
            BOMB: None,
        }
        for name, what in cases.items():
            self.assertEqual(forbidden.sort_rule(name), what, name)

    def test_sort_rules_agree_with_the_demangled_patterns_on_the_kits_objects(self):
        """The patterns the rules replace, on nm -C names of the kit's own objects (trusted),
        against the rules on the mangled names: the same verdict for every symbol."""
        old = [
            (re.compile(r"\bthrust::"), "Thrust"),
            (re.compile(r"\bcub::"), "CUB"),
            (re.compile(r"^(qsort|qsort_r|__qsort_r)$"), "the C library's qsort"),
            (
                re.compile(
                    r"\bstd::(__)?(sort|stable_sort|partial_sort|partial_sort_copy|"
                    r"nth_element|sort_heap|introsort_loop|final_insertion_sort|"
                    r"merge_sort_with_buffer|inplace_stable_sort|insertion_sort|"
                    r"heap_select)\b"
                ),
                forbidden.STD_SORTING,
            ),
            (re.compile(r"\bstd::ranges::__(stable_)?sort_fn"), forbidden.STD_SORTING),
            (re.compile(r"^kit_cpu_"), "the kit's CPU reference sorts (cpu_sort.h)"),
            (re.compile(r"^kit_baseline_"), "the kit's CUB and std::sort baselines (baselines.h)"),
        ]
        objects = sorted(BUILD.glob("obj/**/*.o")) + sorted(BUILD.glob("solution/obj/*.o"))
        self.assertTrue(any(o.name == "baselines.o" for o in objects))
        seen, count = set(), 0
        for obj in objects:
            listings = [
                subprocess.run(
                    ["nm", "-p", flag, str(obj)], capture_output=True, text=True, timeout=60
                ).stdout.splitlines()
                for flag in ("--no-demangle", "-C")
            ]
            for raw, readable in zip(*listings):
                raw, readable = raw[19:], readable[19:]  # after the address and the type
                want = next((what for pattern, what in old if pattern.search(readable)), None)
                self.assertEqual(forbidden.sort_rule(raw), want, f"{obj}: {raw}")
                seen.add(want)
                count += 1
        self.assertGreater(count, 1000)
        self.assertLessEqual({"CUB", forbidden.STD_SORTING}, seen)  # baselines.o has both


# ---- end to end: the bomb, alone and in a class ---------------------------------------------


class NmBomb(unittest.TestCase):
    def test_graded_in_bounded_time(self):
        rc, out, err, results, seconds = grade(self, HOST / "nm_bomb", out=STATE["out"] / "nm_bomb")
        self.assertLess(seconds, 150, out + err)
        self.assertEqual(rc, 0, out + err)
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual((lab["status"], lab["score"]), (GRADED, 10))

    def test_a_class_with_it_writes_its_gradebook(self):
        klass = STATE["tmp"] / "class-bomb"
        shutil.rmtree(klass, ignore_errors=True)
        for student, fixture in (("alice", "good"), ("bomb", "nm_bomb"), ("carol", "flat")):
            shutil.copytree(HOST / fixture, klass / student)
        out = STATE["out"] / "class-bomb"
        rc, stdout, err, _, seconds = grade(
            self, klass, "--class", "--jobs", "2", out=out, limit=400
        )
        self.assertEqual(rc, 0, stdout + err)
        book = read_gradebook(out / "gradebook.csv")
        self.assertEqual(sorted(book), ["alice", "bomb", "carol"])
        self.assertEqual(
            (book["alice"]["total"], book["bomb"]["91-hostsum"], book["carol"]["91-hostsum"]),
            ("20", "10", "6"),
        )

    def test_a_rubric_pattern_that_needs_demangling_stops_one_lab_not_the_run(self):
        kit = STATE["tmp"] / "kit-with-pattern"
        shutil.rmtree(kit, ignore_errors=True)
        shutil.copytree(FIXTURE_KIT, kit)
        rubric = kit / "grading" / "rubric" / "91-hostsum.json"
        data = json.loads(rubric.read_text())
        data["forbidden"] = [{"pattern": r"\bbomb\(", "why": "a function named bomb"}]
        rubric.write_text(json.dumps(data))
        klass = STATE["tmp"] / "class-pattern"
        shutil.rmtree(klass, ignore_errors=True)
        for student, fixture in (("alice", "good"), ("bomb", "nm_bomb")):
            shutil.copytree(HOST / fixture, klass / student)
        out = STATE["out"] / "class-pattern"
        rc, stdout, err, _, seconds = grade(
            self, klass, "--class", out=out, kit_root=kit, limit=400
        )
        self.assertEqual(rc, 0, stdout + err)
        book = read_gradebook(out / "gradebook.csv")
        self.assertEqual((book["alice"]["total"], book["alice"]["status"]), ("20", "graded"))
        self.assertEqual(book["bomb"]["91-hostsum"], "0")
        self.assertIn("91-hostsum: not graded", book["bomb"]["notes"])
        lab = json.loads((out / "bomb" / "results.json").read_text())["extra_data"]["labs"]
        self.assertEqual(lab["91-hostsum"]["status"], "not graded")
        self.assertIn(
            "the check of hostsum.cu's compiled symbols did not finish",
            lab["91-hostsum"]["message"],
        )
        table = (out / "bomb" / "grade.log").read_text()
        self.assertIn("NOT GRADED: 0 points for the lab", table)
        self.assertIn("c++filt did not finish within", lab["91-hostsum"]["message"])


# ---- what the assembler reads ---------------------------------------------------------------


class PreprocessedScan(unittest.TestCase):
    def refused(self, text, *words):
        message = includes.scan_preprocessed(text, "oddeven.cu")
        self.assertIsNotNone(message, text)
        for word in words:
            self.assertIn(word, message)

    def test_a_pasted_incbin_is_refused(self):
        # What this test stands on: the source never spells it, and its scan passes.
        text = (HOST / "incbin_pasted" / "hostsum.cu").read_text()
        self.assertIsNone(includes.scan_source(text, "hostsum.cu"))
        self.assertNotIn("incbin", text.lower())
        rc, out, err, results, _ = grade(
            self, HOST / "incbin_pasted", out=STATE["out"] / "incbin_pasted"
        )
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual((lab["status"], lab["score"]), (COMPILE_ERROR, 0), out + err)
        self.assertIn(
            "hostsum.cu spells incbin once the preprocessor has expanded its macros", lab["message"]
        )
        self.assertNotIn("printf", json.dumps(results))  # nothing of the file it copied

    def test_what_the_preprocessor_may_leave(self):
        self.refused('__asm__(".incbin" " \\"/etc/passwd\\"");', "incbin")
        self.refused('__asm__(".inc"\n# 40 "oddeven.cu"\n"bin x");', "incbin")  # joined
        self.refused('__asm__(".in\\x63" "bin x");', "incbin")
        self.refused('__asm__(u8R"d(.in)d" "cbin x");', "incbin")
        self.refused('int a = 1\'000; __asm__(".inc" "lude \\"x.s\\"");', ".include")
        self.refused('__asm__(".mac" "ro m\\n.endm");', ".macro")
        self.refused('#pragma ident "x"\n#ident ".incbin"\n', "incbin")
        self.refused("int INCBIN_SIZE;", "incbin")
        # Literals that are not joined, and ones that only look like directives.
        for text in (
            'f(".inc"); g("lude");',
            'char c = \'"\'; f(".in" /**/);',
            '# 1 "/usr/include/stdio.h" 1 3 4\nint x = 1\'0;',
            'printf("see .includes and .macros_x");',
        ):
            self.assertIsNone(includes.scan_preprocessed(text, "oddeven.cu"), text)

    def test_a_folder_of_kept_files(self):
        # Each file in the grader's process, and in a process of its own (as the grader
        # scans): the same verdicts.
        def here(folder, filename):
            found = (
                includes.scan_kept_file(path, filename) for path in includes.kept_files(folder)
            )
            return next((problem for problem in found if problem), None)

        for scan in (here, includes.scan_preprocessed_folder):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                (folder / "oddeven.cpp4.ii").write_text("int x = 1;\n")
                (folder / "oddeven.ptx").write_text('.incbin "never read"\n')  # not preprocessed
                self.assertIsNone(scan(folder, "oddeven.cu"))
                (folder / "oddeven.compute_90.cpp1.ii").write_text('asm(".inc" "bin x");\n')
                self.assertIn("incbin", scan(folder, "oddeven.cu"))
                os.unlink(folder / "oddeven.compute_90.cpp1.ii")
                os.mkfifo(folder / "oddeven.cudafe1.cpp")  # a FIFO neither hangs nor passes
                with alarm(10, "scanning a FIFO"):
                    self.assertIn("not a regular file", scan(folder, "oddeven.cu"))


# ---- control characters ---------------------------------------------------------------------


class ControlCharacters(unittest.TestCase):
    def test_a_forged_fail_line_shows_no_control_character(self):
        out = STATE["out"] / "forged_escapes"
        rc, stdout, err, results, _ = grade(self, HOST / "forged_escapes", "-v", out=out)
        self.assertEqual(rc, 1, stdout + err)
        self.assertEqual(results["score"], 0)
        # The table's message is the runner's note on the result channel, not the forged line.
        self.assertNotIn("10 / 10 points", stdout)
        self.assertIn("should be 5365, got -1", stdout)
        self.assertIn("total 0 / 10 points", stdout)
        for where, text in (
            ("the table", stdout),
            ("grade.log", (out / "grade.log").read_text()),
            *((f"results.json: {s[:60]!r}", s) for s in strings(results)),
        ):
            self.assertIsNone(CONTROL.search(text), f"{where}: {CONTROL.findall(text)}")
        raw = (out / "logs" / "91-hostsum" / "1.1_total.small.log").read_text()
        self.assertIn("\x1b[1A", raw)  # the log keeps what was printed

    def test_printable(self):
        cases = {
            "a\x1b[1A\x1b[2Kb\rc": "abc",
            "x\x1b]0;title\x07y": "xy",
            "p\x9b31mq\x85r\u202es\x00t\x7f\x08": "pqrst",
            "tab\tand\nline": "tab\tand\nline",
            "crlf\r\nx": "crlf\nx",
            "e\x1b": "e",
            "o\x1b]2;no end\nz": "o\nz",
        }
        for text, want in cases.items():
            self.assertEqual(report.printable(text), want, repr(text))
        self.assertEqual(report.printable("a\tb\nc", multiline=False), "a b c")

    def lab_result(self, message):
        lab = SimpleNamespace(
            id="91-hostsum", student_file="hostsum.cu", rubric=SimpleNamespace(speed=None)
        )
        rule = SimpleNamespace(
            bonus=False, in_rubric=True, points=10.0, visibility="visible", test_visibility={}
        )
        suite = SuiteResult(
            "1.1_total",
            rule,
            [
                TestRun(
                    test=TestInfo("1.1_total", "small"),
                    status=FAILED,
                    message=message,
                    output=f"FAIL 1.1_total/small\n    {message}\n\x1b[31mred\x1b[0m\r\n",
                )
            ],
        )
        return LabResult(lab=lab, status=GRADED, suites={"1.1_total": suite})

    def test_every_report_and_the_gradebook(self):
        forged = "\x1b[1A\x1b[2K== 91-hostsum: 10 / 10 points\x1b]0;t\x07\r"
        sub = SubmissionResult(
            name="alice",
            path="/",
            labs=[self.lab_result(forged)],
            notes=[f"note {forged}"],
            isolation="bwrap\x1b[2K",
        )
        for verbose in (False, True):
            self.assertIsNone(CONTROL.search(report.submission_table(sub, verbose)))
        for text in strings(report.results_json(sub)):
            self.assertIsNone(CONTROL.search(text), repr(text))
        with tempfile.TemporaryDirectory() as tmp:
            broken = SubmissionResult(name="bob", path="/", error=f"not graded: {forged}")
            path = report.write_gradebook(
                Path(tmp) / "gradebook.csv", [sub, broken], ["91-hostsum"]
            )
            with open(path, newline="") as f:
                text = f.read()
            self.assertIsNone(CONTROL.search(text.replace("\r\n", "")), repr(text))
            self.assertIn("10 / 10 points", text)


# ---- the gradebook after every student, files written whole -------------------------------


class FakeGrader:
    """Stands in for SubmissionGrader: alice is graded; SIGTERM comes while bob is (what
    run.py does then: every test process killed, and Interrupted raised)."""

    def __init__(
        self, context, name, folder, out_dir, gpu_id=None, work_dir=None, slot=0, **sharing
    ):
        self.name, self.folder = name, folder

    def grade(self):
        if self.name == "bob":
            run.stop_everything()
            raise Interrupted()
        if self.name != "alice":
            raise AssertionError(f"{self.name} graded after the run was stopped")
        lab = SimpleNamespace(id="91-hostsum")
        result = LabResult(lab=lab, status=GRADED)
        result.suites["1.1_total"] = SuiteResult(
            "1.1_total",
            SimpleNamespace(bonus=False, points=10.0),
            [TestRun(test=TestInfo("1.1_total", "small"), status=run.PASSED)],
        )
        return SubmissionResult(
            name=self.name, path=str(self.folder), labs=[result], isolation="test"
        )


class Gradebook(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kitgrader-hardening-"))
        self.tmp.chmod(0o755)  # a class run fails closed unless the sandbox's uids get in
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.addCleanup(run._stopping.clear)  # grade_class stops everything when interrupted

    def test_written_after_every_student(self):
        klass = self.tmp / "class"
        for name in ("alice", "bob", "carol"):
            (klass / name).mkdir(parents=True)
        out = self.tmp / "out"
        out.mkdir()
        saved = (classroom.SubmissionGrader, classroom.write_submission)
        classroom.SubmissionGrader = FakeGrader
        classroom.write_submission = lambda *args, **kwargs: ""
        context = SimpleNamespace(labs=[SimpleNamespace(id="91-hostsum")])
        try:
            with self.assertRaises(Interrupted):
                classroom.grade_class(
                    context, classroom.submissions_in(klass), out, [None], 1, lambda line: None
                )
        finally:
            classroom.SubmissionGrader, classroom.write_submission = saved
        book = read_gradebook(out / "gradebook.csv")
        self.assertEqual((book["alice"]["status"], book["alice"]["91-hostsum"]), ("graded", "10"))
        self.assertEqual(
            (book["bob"]["status"], book["bob"]["notes"]), ("not graded", "not graded: interrupted")
        )
        self.assertEqual(
            (book["carol"]["status"], book["carol"]["notes"]),
            ("not graded", "not graded: grading stopped"),
        )
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["gradebook.csv"])

    def test_a_stopped_class_run_keeps_what_it_graded(self):
        klass = self.tmp / "class"
        shutil.copytree(HOST / "good", klass / "alice")
        shutil.copytree(HOST / "host_hang", klass / "zed")  # its hanging test waits 200 s
        out = self.tmp / "out"
        proc = start_grade(klass, "--class", "--jobs", "1", "--time-limit", "200", out=out)
        try:
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline:
                book = (out / "gradebook.csv").exists() and read_gradebook(out / "gradebook.csv")
                if book and book.get("alice", {}).get("status") == "graded":
                    break
                time.sleep(0.5)
            else:
                self.fail("no gradebook with alice's grade while zed was being graded")
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
        finally:
            kill_group(proc)
        self.assertEqual(proc.returncode, 130)
        book = read_gradebook(out / "gradebook.csv")
        self.assertEqual((book["alice"]["status"], book["alice"]["total"]), ("graded", "20"))
        self.assertEqual(book["zed"]["status"], "not graded")
        self.assertIn("not graded", book["zed"]["notes"])

    def test_files_are_written_whole_or_not_at_all(self):
        """A write that fails half way (here: a file size limit, as a full disk would) leaves
        the file as it was, and no temporary file."""
        script = textwrap.dedent(
            f"""\
            import resource, signal, sys
            sys.path.insert(0, {str(GRADING)!r})
            from kitgrader import report
            from kitgrader.results import SubmissionResult
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            out = sys.argv[1]
            small = SubmissionResult(name="alice", path="/", notes=["short"])
            report.write_gradebook(out + "/gradebook.csv", [small], ["91-hostsum"])
            report.write_submission(small, out)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            big = SubmissionResult(name="alice", path="/", notes=["long " * 2000])
            failed = 0
            for write in (lambda: report.write_gradebook(out + "/gradebook.csv", [big] * 3,
                                                         ["91-hostsum"]),
                          lambda: report.write_submission(big, out)):
                try:
                    write()
                except OSError:
                    failed += 1
            print(failed)
            """
        )
        before = {}
        proc = subprocess.run(
            [sys.executable, "-c", script, str(self.tmp)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(proc.stdout.strip(), "2", proc.stderr)
        for name in ("gradebook.csv", "results.json", "grade.log"):
            before[name] = (self.tmp / name).read_text()
            self.assertIn("short", before[name])
            self.assertNotIn("long", before[name])
        json.loads(before["results.json"])
        self.assertEqual(
            sorted(p.name for p in self.tmp.iterdir()),
            ["grade.log", "gradebook.csv", "results.json"],
        )


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-hardening",
            "limits on what the grader derives, what it shows (no GPU needed)",
            globals(),
        )
    )
