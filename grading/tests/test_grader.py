#!/usr/bin/env python3
"""The grader's own tests (make check-grader): no GPU needed.

usage: python3 grading/tests/test_grader.py [--build BUILD] [unittest options, test names]

End to end, the grader grades the submissions in grading/tests/fixtures/host/ against the
fixture kit in grading/tests/fixture_kit/ (two labs whose tests run on the host), with
--no-gpu-check, and the tests check scores, messages, results.json and the CSV gradebook.
The fixture kit's prebuilt parts are made in a temporary build folder from the real build
(runner, libraries, nvcc flags) plus the fixture labs' tests and solutions. Unit tests cover
the process runner (time limits, process groups, output limits, the result channel), the
rubric reader, the speed formula, the sanitizer report reader and the forbidden-symbol check
of every real lab's solution.
"""

import csv
import ctypes
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
import check_gpu_fixture  # noqa: E402  (grading/tests/check_gpu_fixture.py)
import fixture_patch  # noqa: E402  (grading/tests/fixture_patch.py)
from testkit import FIXTURE_KIT, GRADING, ROOT, TESTS  # noqa: E402

from kitgrader import (
    GraderError,
    build,
    discover,
    forbidden,
    rubric,
    run,  # noqa: E402
    sanitize,
    speed,
)

HOST = testkit.host_fixtures()  # fixtures/host/, written as submissions
FIXTURE_LABS = ["91-hostsum", "92-hostcount", "93-sandbox", "94-devcount", "95-hostbonus"]
BUILD = ROOT / "build"  # the real build; --build changes it
STATE = {}  # the fixture build, made once


# ---- the fixture kit's build ---------------------------------------------------------------


def sh(command, **kwargs):
    proc = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def make_fixture_build():
    """A build folder for the fixture kit: the real build's shared parts, plus the fixture
    labs' test objects and solution test binaries, and a grading.env for one architecture."""
    tmp = Path(tempfile.mkdtemp(prefix="kitgrader-tests-"))
    tmp.chmod(0o755)  # the sandbox's uids must reach the build (a class run fails closed)
    fb = tmp / "build"
    for part in [
        "obj/tests/runner.o",
        "obj/tests/gpu_harness.o",
        "lib/libkit.a",
        "lib/libcunit.a",
        "tools/gpu_probe",
        "obj/grading/runtime/timed_driver.o",
        "obj/common/baselines.o",
        "obj/grading/runtime/remote_client.o",
        "obj/grading/runtime/remote_executor.o",
        "obj/grading/runtime/shared_memory.o",
        "obj/grading/runtime/memory_budget.o",
        "tools/sandbox_exec",
    ]:
        source = BUILD / part
        if not source.exists():
            raise RuntimeError(f"{source} is missing: run make first")
        (fb / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, fb / part)
    env = {}
    for line in (BUILD / "grading.env").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            env[key] = value
    arch = "-arch=sm_80"
    flags = env["NVCCFLAGS"].replace(env["GENCODE"], arch)
    ldlibs = env.get("LDLIBS", "-lm")
    (fb / "grading.env").write_text(
        f"NVCC={env['NVCC']}\nGENCODE={arch}\nNVCCFLAGS={flags}\nLDLIBS={ldlibs}\n"
        + "".join(f"NVCCFLAGS_{lab}=\n" for lab in FIXTURE_LABS)
    )
    cc = os.environ.get("CC", "gcc")
    cuda_include = Path(env["NVCC"]).parent.parent / "include"
    for lab in FIXTURE_LABS:
        number, name = lab.split("-", 1)
        ident = lab.replace("-", "_")
        test_obj = fb / "obj" / "tests" / f"test_{ident}.o"
        sh(
            [
                cc,
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror",
                f"-I{ROOT / 'common'}",
                f"-I{ROOT / 'tests'}",
                f"-I{FIXTURE_KIT / 'labs' / lab}",
                f"-I{cuda_include}",
                "-c",
                str(FIXTURE_KIT / "tests" / f"test_{ident}.c"),
                "-o",
                str(test_obj),
            ]
        )
        # The grader's split of a test (grading/runtime/remote.h): the verdict binary and the
        # executor's half of the call table.
        includes = [
            f"-I{ROOT / 'common'}",
            f"-I{ROOT / 'grading' / 'runtime'}",
            f"-I{FIXTURE_KIT / 'labs' / lab}",
            f"-I{cuda_include}",
        ]
        api = FIXTURE_KIT / "grading" / "calls" / f"api_{ident}.c"
        calls = fb / "obj" / "grading" / "calls"
        calls.mkdir(parents=True, exist_ok=True)
        for variant, extra in (("", []), (".exec", ["-DKIT_REMOTE_EXECUTOR"])):
            sh(
                [
                    cc,
                    "-std=c11",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    *includes,
                    *extra,
                    "-c",
                    str(api),
                    "-o",
                    str(calls / f"api_{ident}{variant}.o"),
                ]
            )
        (fb / "grading").mkdir(exist_ok=True)
        sh(
            [
                cc,
                "-o",
                str(fb / "grading" / f"verdict_{ident}"),
                str(fb / "obj/tests/runner.o"),
                str(fb / "obj/tests/gpu_harness.o"),
                str(test_obj),
                str(calls / f"api_{ident}.o"),
                str(fb / "obj/grading/runtime/remote_client.o"),
                str(fb / "obj/grading/runtime/shared_memory.o"),
                str(fb / "lib/libkit.a"),
                str(fb / "lib/libcunit.a"),
                "-lm",
            ]
        )
        solution_obj = fb / "solution" / "obj" / f"{lab}.o"
        solution_obj.parent.mkdir(parents=True, exist_ok=True)
        # A lab with a bonus file: one translation unit, the bonus file with the lab's file
        # included first, as make compiles it.
        main, bonus = (
            FIXTURE_KIT / "solutions" / lab / f"{name}{part}.cu" for part in ("", "_bonus")
        )
        compiled = [str(bonus), "-include", str(main)] if bonus.exists() else [str(main)]
        sh(
            [
                env["NVCC"],
                *shlex.split(flags),
                f"-I{FIXTURE_KIT / 'labs' / lab}",
                "-c",
                *compiled,
                "-o",
                str(solution_obj),
            ],
            cwd=ROOT,
        )
        sh(
            [
                env["NVCC"],
                arch,
                "-o",
                str(fb / "solution" / f"test_{ident}"),
                str(fb / "obj/tests/runner.o"),
                str(fb / "obj/tests/gpu_harness.o"),
                str(test_obj),
                str(solution_obj),
                str(fb / "lib/libkit.a"),
                str(fb / "lib/libcunit.a"),
                "-lm",
            ]
        )
    return tmp, fb


def setUpModule():
    tmp, fb = make_fixture_build()
    STATE.update(tmp=tmp, build=fb, out=tmp / "out")


def tearDownModule():
    if "tmp" in STATE and not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
        shutil.rmtree(STATE["tmp"], ignore_errors=True)


def grade(submission, *options, out=None, fixture=True, cwd=None):
    """Runs grading/grade on a submission; returns (exit code, stdout, stderr, results, out)."""
    out = Path(out or STATE["out"] / Path(submission).name)
    command = [sys.executable, str(GRADING / "grade"), "-q", "--out", str(out)]
    if fixture:
        command += [
            "--build",
            str(STATE["build"]),
            "--kit-root",
            str(FIXTURE_KIT),
            "--no-gpu-check",
        ]
    command += [*options, str(submission)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=cwd)
    results = None
    if (out / "results.json").exists():
        results = json.loads((out / "results.json").read_text())
    return proc.returncode, proc.stdout, proc.stderr, results, out


def tests_of(results, prefix):
    return {t["name"]: t for t in results["tests"] if t["name"].startswith(prefix)}


# ---- results.json must follow Gradescope's format -------------------------------------------

GRADESCOPE_TEST_KEYS = {
    "name",
    "score",
    "max_score",
    "status",
    "output",
    "visibility",
    "tags",
    "number",
    "output_format",
    "name_format",
    "extra_data",
}
VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}
GRADESCOPE_TOP_KEYS = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}


def check_gradescope(case, results):
    case.assertIsInstance(results, dict)
    for key in ("score", "execution_time", "tests"):
        case.assertIn(key, results)
    case.assertIsInstance(results["score"], (int, float))
    case.assertLessEqual(set(results), GRADESCOPE_TOP_KEYS)  # the specification's keys alone
    case.assertIsInstance(results["extra_data"]["max_score"], (int, float))
    case.assertIsInstance(results["execution_time"], (int, float))
    case.assertIn(results.get("visibility", "visible"), VISIBILITIES)
    case.assertIn(results.get("stdout_visibility", "hidden"), VISIBILITIES)
    case.assertIsInstance(results["output"], str)
    total = max_total = 0.0
    for test in results["tests"]:
        case.assertLessEqual(set(test), GRADESCOPE_TEST_KEYS, test.get("name"))
        case.assertIsInstance(test["name"], str)
        case.assertIsInstance(test["score"], (int, float))
        case.assertIsInstance(test["max_score"], (int, float))
        case.assertIn(test["status"], ("passed", "failed"))
        case.assertIsInstance(test["output"], str)
        case.assertIn(test["visibility"], VISIBILITIES)
        total += test["score"]
        max_total += test["max_score"]
    case.assertAlmostEqual(total, results["score"], places=2)
    case.assertAlmostEqual(max_total, results["extra_data"]["max_score"], places=2)


# ---- end to end, on the fixture kit ---------------------------------------------------------


class GradeFixtureSubmissions(unittest.TestCase):
    def test_good_submission_gets_every_point(self):
        rc, out, err, results, folder = grade(HOST / "good")
        self.assertEqual(rc, 0, out + err)
        check_gradescope(self, results)
        self.assertEqual(results["score"], 20)  # lab 91: 6 + 4; lab 92: one suite, default 10
        self.assertEqual(results["extra_data"]["max_score"], 20)
        self.assertIn("total 20 / 20 points (2 labs)", out)
        self.assertTrue((folder / "grade.log").exists())
        self.assertTrue((folder / "logs" / "91-hostsum" / "1.1_total.small.log").exists())
        hidden = tests_of(results, "91-hostsum 1.2_max/negative")
        self.assertEqual(hidden["91-hostsum 1.2_max/negative"]["visibility"], "hidden")
        self.assertFalse((folder / "work").exists(), "the build folder is removed")

    def test_default_rubric_for_a_lab_without_one(self):
        rc, out, err, results, _ = grade(HOST / "good", "--lab", "92")
        self.assertEqual(rc, 0, out + err)
        lab = results["extra_data"]["labs"]["92-hostcount"]
        self.assertEqual((lab["score"], lab["max_score"]), (10, 10))  # one suite, 10 points
        self.assertNotIn("91-hostsum", results["extra_data"]["labs"])

    def test_compile_error_scores_zero_and_the_other_lab_is_graded(self):
        rc, out, err, results, _ = grade(HOST / "compile_error")
        self.assertEqual(rc, 1, out + err)
        check_gradescope(self, results)
        labs = results["extra_data"]["labs"]
        self.assertEqual(labs["91-hostsum"]["status"], "compile error")
        self.assertEqual(labs["91-hostsum"]["score"], 0)
        self.assertEqual(labs["91-hostsum"]["max_score"], 10)
        self.assertEqual(labs["92-hostcount"]["score"], 10)
        self.assertIn("totl", labs["91-hostsum"]["message"])  # the compiler's own words
        self.assertIn("hostsum.cu", labs["91-hostsum"]["message"])
        self.assertNotIn(str(STATE["out"]), labs["91-hostsum"]["message"])  # no grader paths
        self.assertIn("COMPILE ERROR", out)
        build = tests_of(results, "91-hostsum build")["91-hostsum build"]
        self.assertIn("totl", build["output"])

    def test_submissions_own_files_change_nothing(self):
        rc, out, err, results, _ = grade(HOST / "own_files")
        self.assertEqual(rc, 1, out + err)
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual(lab["status"], "graded", lab["message"])  # its hostsum.h: not used
        self.assertEqual(lab["max_score"], 10)  # its rubric: not used
        self.assertEqual(lab["score"], 6)  # the kit's tests: 1.2_max fails
        tests = tests_of(results, "91-hostsum 1.2_max")
        self.assertEqual(tests["91-hostsum 1.2_max/positive"]["status"], "failed")
        self.assertIn(
            "hostsum_max(n=1000, start=5) should be", tests["91-hostsum 1.2_max/positive"]["output"]
        )

    def test_flat_submission_holding_only_the_file(self):
        # A relative --out (as make grade gives), from another folder: tests still start.
        out = os.path.relpath(STATE["out"] / "flat", Path.cwd())
        rc, out, err, results, _ = grade(HOST / "flat", out=out)
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(list(results["extra_data"]["labs"]), ["91-hostsum"])
        self.assertEqual(results["score"], 6)

    def test_a_file_elsewhere_in_the_submission(self):
        nested = STATE["tmp"] / "nested"
        shutil.rmtree(nested, ignore_errors=True)
        shutil.copytree(HOST / "good", nested / "lab-archive-main" / "labs")
        rc, out, err, results, _ = grade(nested)
        self.assertEqual(results["score"], 20, out + err)  # the one copy of each file
        shutil.copytree(HOST / "flat", nested / "old")  # a second hostsum.cu: ambiguous
        rc, out, err, results, _ = grade(nested, "--lab", "91")
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual(lab["status"], "missing")
        self.assertIn("old/hostsum.cu", lab["message"])

    def test_host_hang_costs_only_the_hanging_test(self):
        start = time.monotonic()
        rc, out, err, results, _ = grade(HOST / "host_hang")
        self.assertLess(time.monotonic() - start, 60)
        tests = tests_of(results, "91-hostsum")
        large = tests["91-hostsum 1.1_total/large"]
        self.assertEqual(large["score"], 0)
        self.assertIn("no answer within 3 s", large["output"])
        self.assertEqual(tests["91-hostsum 1.1_total/small"]["status"], "passed")
        self.assertEqual(tests["91-hostsum 1.2_max/positive"]["status"], "passed")
        self.assertEqual(results["score"], 7)  # 3 + 4
        self.assertIn("TIMEOUT", out)

    def test_crash_costs_only_the_crashing_test(self):
        rc, out, err, results, _ = grade(HOST / "crash")
        tests = tests_of(results, "91-hostsum")
        crashed = tests["91-hostsum 1.2_max/negative"]
        self.assertEqual(crashed["status"], "failed")
        self.assertIn("SIGSEGV", crashed["output"])
        self.assertEqual(results["score"], 8)  # 6 + 2

    def test_flood_of_output_is_stopped_and_capped(self):
        start = time.monotonic()
        rc, out, err, results, folder = grade(HOST / "flood", "--max-output", "1")
        self.assertLess(time.monotonic() - start, 60)
        tests = tests_of(results, "91-hostsum")
        flood = tests["91-hostsum 1.1_total/large"]
        self.assertEqual(flood["status"], "failed")
        self.assertIn("more than 1 MiB of output", flood["output"])
        self.assertLess(len(flood["output"]), 10000)
        log = folder / "logs" / "91-hostsum" / "1.1_total.large.log"
        self.assertLess(log.stat().st_size, 80 * 1024)
        self.assertIn("bytes of output left out", log.read_text())
        self.assertEqual(results["score"], 7)

    def test_printed_pass_lines_do_not_count(self):
        rc, out, err, results, _ = grade(HOST / "fake_pass")
        self.assertEqual(rc, 1)
        self.assertEqual(results["score"], 0)
        for test in tests_of(results, "91-hostsum").values():
            self.assertEqual(test["status"], "failed")
            # The fake summary came from the executor; the verdict process says what happened.
            self.assertIn("the process running your code ended (exit status 0)", test["output"])

    def test_forbidden_sort_is_flagged(self):
        rc, out, err, results, _ = grade(HOST / "forbidden_qsort")
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual((lab["status"], lab["score"]), ("forbidden", 0))
        self.assertIn("qsort", lab["message"])
        self.assertIn("FORBIDDEN", out)

    def test_reaching_for_the_result_channel_is_flagged(self):
        rc, out, err, results, _ = grade(HOST / "forbidden_getenv")
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual((lab["status"], lab["score"]), ("forbidden", 0))
        self.assertIn("getenv", lab["message"])
        self.assertIn("write", lab["message"])

    def test_redefining_a_kit_function_is_flagged(self):
        rc, out, err, results, _ = grade(HOST / "redefine_kit")
        lab = results["extra_data"]["labs"]["91-hostsum"]
        self.assertEqual((lab["status"], lab["score"]), ("forbidden", 0))
        self.assertIn("kit_verify_u32", lab["message"])

    def test_sanitizer_findings_and_deduction(self):
        rc, out, err, results, folder = grade(
            HOST / "good",
            "--lab",
            "91",
            "--sanitize",
            "--sanitizer",
            str(TESTS / "fake_sanitizer.sh"),
        )
        check_gradescope(self, results)
        entry = tests_of(results, "91-hostsum compute-sanitizer")["91-hostsum compute-sanitizer"]
        self.assertEqual(entry["score"], -2)  # the rubric's deduction
        self.assertIn("Invalid __global__ write", entry["output"])
        self.assertIn("hostsum.cu:12", entry["output"])
        self.assertNotIn("/tmp/work", entry["output"])
        self.assertIn("reported 32 times", entry["output"])
        self.assertEqual(results["score"], 8)
        self.assertIn("hostsum.cu:12", out)
        self.assertTrue(list((folder / "logs" / "91-hostsum").glob("memcheck.*.log")))

    def test_time_limit_override_and_max_time(self):
        rc, out, err, results, _ = grade(HOST / "host_hang", "--time-limit", "1", "--lab", "91")
        large = tests_of(results, "91-hostsum 1.1_total/large")["91-hostsum 1.1_total/large"]
        self.assertIn("no answer within 1 s", large["output"])
        rc, out, err, results, _ = grade(HOST / "good", "--max-time", "0.001", "--lab", "91")
        self.assertEqual(results["score"], 0)
        self.assertIn("used up its", json.dumps(results))
        self.assertRegex(out, r"time [0-9.]+ s \(bound [0-9]+ s\)")

    def test_class_folder_gradebook(self):
        klass = STATE["tmp"] / "class"
        shutil.rmtree(klass, ignore_errors=True)
        for student, fixture in (
            ("alice", "good"),
            ("bob", "compile_error"),
            ("carol", "flat"),
            ("erin", "host_hang"),
        ):
            shutil.copytree(HOST / fixture, klass / student)
        (klass / "dave").mkdir()  # submitted nothing
        (klass / "notes.txt").write_text("not a submission\n")
        out = STATE["out"] / "class"
        rc, stdout, err, _, _ = grade(klass, "--class", "--jobs", "2", out=out)
        self.assertEqual(rc, 0, stdout + err)
        with open(out / "gradebook.csv") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["student"] for r in rows], ["alice", "bob", "carol", "dave", "erin"])
        by = {r["student"]: r for r in rows}
        self.assertEqual(list(rows[0])[:4], ["student", "91-hostsum", "92-hostcount", "total"])
        self.assertEqual(
            (by["alice"]["91-hostsum"], by["alice"]["92-hostcount"], by["alice"]["total"]),
            ("10", "10", "20"),
        )
        self.assertEqual((by["bob"]["91-hostsum"], by["bob"]["total"]), ("0", "10"))
        self.assertIn("91-hostsum: compile error", by["bob"]["notes"])
        self.assertEqual((by["carol"]["91-hostsum"], by["carol"]["92-hostcount"]), ("6", "0"))
        self.assertIn("92-hostcount: missing", by["carol"]["notes"])
        self.assertEqual(by["dave"]["total"], "0")
        self.assertEqual(by["erin"]["91-hostsum"], "7")
        for row in rows:
            self.assertEqual(row["max_total"], "20")
            self.assertEqual(row["status"], "graded")
            results = json.loads((out / row["student"] / "results.json").read_text())
            check_gradescope(self, results)
            self.assertTrue((out / row["student"] / "grade.log").exists())
        self.assertIn("gradebook:", stdout)

    def test_usage_errors(self):
        rc, out, err, _, _ = grade(HOST / "good", "--lab", "77")
        self.assertEqual(rc, 2)
        self.assertIn("no such lab", err)
        empty = STATE["tmp"] / "empty"
        empty.mkdir(exist_ok=True)
        rc, out, err, _, _ = grade(empty)
        self.assertEqual(rc, 2)
        self.assertIn("holds no lab's student file", err)
        rc, out, err, _, _ = grade(HOST / "good", "--build", str(STATE["tmp"] / "nowhere"))
        self.assertEqual(rc, 2)
        self.assertIn("run make", err)

    def test_help_documents_the_options(self):
        proc = subprocess.run(
            [sys.executable, str(GRADING / "grade"), "--help"], capture_output=True, text=True
        )
        self.assertEqual(proc.returncode, 0)
        for word in (
            "--class",
            "--lab",
            "--jobs",
            "--sanitize",
            "--out",
            "--no-gpu-check",
            "results.json",
            "gradebook.csv",
            "exit codes",
            "CUDA_VISIBLE_DEVICES",
        ):
            self.assertIn(word, proc.stdout)

    def test_without_a_gpu_the_grader_exits_3_and_scores_nothing(self):
        probe = subprocess.run([str(BUILD / "tools" / "gpu_probe")], capture_output=True)
        if probe.returncode == 0:
            self.skipTest("this machine has a GPU")
        out = STATE["out"] / "no-gpu"
        command = [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--out",
            str(out),
            "--build",
            str(STATE["build"]),
            "--kit-root",
            str(FIXTURE_KIT),
            str(HOST / "good"),
        ]
        env = dict(os.environ)
        env.pop("KIT_GRADER_NO_GPU_CHECK", None)
        proc = subprocess.run(command, capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        # The report says why nothing was scored, after the checks that need no GPU.
        self.assertIn("NOT GRADED: grading needs an NVIDIA GPU", proc.stdout)
        # The fixture kit's host labs: their suites ran as on a GPU host (a GPU test would
        # say "NOT RUN: no GPU ...": the next class's fake-GPU tests see it).
        self.assertIn("tests: 6 passed, 0 failed", proc.stdout)
        # Nothing looks like a grade: what each lab is worth, no score.
        self.assertNotRegex(proc.stdout, r"[0-9.]+ / [0-9.]+ points")
        self.assertIn("total: not graded (up to ", proc.stdout)
        self.assertNotIn("not run: not run", proc.stdout.lower())
        self.assertFalse((out / "results.json").exists())
        # A lab with both: its GPU suite waits for a GPU, its host suite runs.
        command[command.index(str(HOST / "good"))] = str(FIXTURE_KIT / "solutions")
        proc = subprocess.run([*command, "--lab", "94"], capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertRegex(
            proc.stdout,
            r"4\.1_device .* 0/2 +some: NOT RUN: no GPU \(file "
            r"compiled, includes and calls allowed, linked\)",
        )
        self.assertRegex(proc.stdout, r"4\.2_host .* 2/2")


ATTACKER = r"""/* Generated by test_grader.py: a hostile class mate who knows the grading machine's
 * folders, on a lab whose rubric lets it open files and start processes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sandbox.h"

static void attempt(const char *what, int done)
{
    printf("attempt %s: %s\n", what, done ? "DONE" : "blocked");
    fflush(stdout);
}

static int replace(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return f != NULL;
}

extern "C" size_t sandbox_count(const int *values, size_t n)
{
    (void)values;
    (void)n;
    attempt("rename libkit.a", rename("@LIBKIT@", "@LIBKIT@.gone") == 0);
    attempt("replace the verdict binary", replace("@VERDICT@", "#!/bin/sh\nexit 0\n"));
    attempt("replace the executor parts", replace("@EXECUTOR_OBJ@", "junk"));
    FILE *f = fopen("@SOLUTION@", "r");
    char line[256] = "";
    attempt("read the solution", f && fgets(line, sizeof line, f));
    if (f) {
        printf("LEAKED %s", line);
        fclose(f);
    }
    attempt("read /etc/passwd", (f = fopen("/etc/passwd", "r")) != NULL);
    const char *token = getenv("KIT_RESULT_TOKEN");
    attempt("see the result channel", token != NULL);
    if (fork() == 0) { /* a daemon that rewrites the class's gradebook after the run */
        setsid();
        for (int i = 0; i < 60; i++) {
            if (replace("@GRADEBOOK@", "student,total\nb_good,0\n")) {
                printf("DAEMON WROTE\n");
                fflush(stdout);
            }
            usleep(100000);
        }
        _exit(0);
    }
    static char block[1 << 20];
    size_t wrote = 0;
    if ((f = fopen("/tmp/fill", "w")) != NULL) {
        while (wrote < (1ull << 30) && fwrite(block, 1, sizeof block, f) == sizeof block) {
            wrote += sizeof block;
        }
        fclose(f);
    }
    attempt("fill the disk", wrote >= (1ull << 30));
    return 0; /* a wrong answer: this student earns nothing */
}
"""


def digest(path):
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# Lab 91's hostsum_total, right, for the batch tests below (they vary hostsum_max).
HOSTSUM_TOTAL = r"""
extern "C" long long hostsum_total(const int *values, size_t n)
{
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += values[i];
    }
    return total;
}
"""

# hostsum_max variants: 1.2_max's two tests (positive, then negative) run as one batch.
BATCH_MAX = {
    # Right on its first call in a process only: in a batch the second test fails, and must
    # be run again first in a fresh process, where it passes, as it would alone.
    "carries_state": r"""
extern "C" int hostsum_max(const int *values, size_t n)
{
    static int calls;
    int best = values[0];
    for (size_t i = 1; i < n; i++) {
        best = values[i] > best ? values[i] : best;
    }
    return ++calls == 1 ? best : best + 1;
}
""",
    # Each call takes 2 s of the 3 s limit: the batch takes longer than one limit, and every
    # test is within its own.
    "slow_calls": r"""
#include <unistd.h>
extern "C" int hostsum_max(const int *values, size_t n)
{
    int best = values[0];
    for (size_t i = 1; i < n; i++) {
        best = values[i] > best ? values[i] : best;
    }
    sleep(2);
    return best;
}
""",
    # The second test (negative values) never ends: it alone runs out of its time.
    "hangs_second": r"""
extern "C" int hostsum_max(const int *values, size_t n)
{
    volatile int forever = values[0] < 0;
    while (forever) {
    }
    int best = values[0];
    for (size_t i = 1; i < n; i++) {
        best = values[i] > best ? values[i] : best;
    }
    return best;
}
""",
}


class Batches(unittest.TestCase):
    """A suite's short tests share one process and one executor (Grader._run_batch), and
    every verdict stays what the test would get alone."""

    def graded(self, name):
        folder = STATE["tmp"] / f"batch-{name}" / "91-hostsum"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "hostsum.cu").write_text(
            '#include "hostsum.h"\n' + HOSTSUM_TOTAL + BATCH_MAX[name]
        )
        rc, out, err, results, logs = grade(folder.parent, "--lab", "91")
        self.assertIsNotNone(results, out + err)
        return tests_of(results, "91-hostsum 1.2_max"), logs / "logs" / "91-hostsum"

    def test_a_failure_after_a_pass_is_run_again_alone(self):
        tests, logs = self.graded("carries_state")
        self.assertEqual(tests["91-hostsum 1.2_max/positive"]["status"], "passed")
        self.assertEqual(
            tests["91-hostsum 1.2_max/negative"]["status"],
            "passed",
            tests["91-hostsum 1.2_max/negative"]["output"],
        )
        batch = (logs / "batch.1.2_max.1.log").read_text()
        self.assertIn("-t 1.2_max/positive -t 1.2_max/negative", batch)
        self.assertIn("should be", batch)  # it did fail there, with the state of the first
        self.assertIn("ran in one process", (logs / "1.2_max.positive.log").read_text())
        self.assertNotIn("ran in one process", (logs / "1.2_max.negative.log").read_text())

    def test_each_test_of_a_batch_has_its_own_time_limit(self):
        tests, logs = self.graded("slow_calls")
        for name in ("positive", "negative"):
            self.assertEqual(
                tests[f"91-hostsum 1.2_max/{name}"]["status"],
                "passed",
                tests[f"91-hostsum 1.2_max/{name}"]["output"],
            )
        self.assertTrue((logs / "batch.1.2_max.1.log").exists())

    def test_a_hang_in_a_batch_costs_that_test_alone(self):
        start = time.monotonic()
        tests, logs = self.graded("hangs_second")
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(tests["91-hostsum 1.2_max/positive"]["status"], "passed")
        negative = tests["91-hostsum 1.2_max/negative"]
        self.assertEqual(negative["status"], "failed")
        self.assertIn("no answer within 3 s", negative["output"])
        # Judged in the batch, where it had its whole limit: not run a second time.
        self.assertIn("ran in one process", (logs / "1.2_max.negative.log").read_text())


class BonusFile(unittest.TestCase):
    """A lab of two student files (fixture lab 95: hostbonus.cu and hostbonus_bonus.cu, as
    Labs 02-04 keep their bonus TODOs): both taken and compiled as one translation unit; a
    missing or broken bonus file costs the bonus only; a bonus file that breaks a rule costs
    the lab."""

    def graded(self, name):
        rc, out, err, results, _ = grade(HOST / name, "--lab", "95")
        self.assertIsNotNone(results, out + err)
        return results["extra_data"]["labs"]["95-hostbonus"], results, out

    def test_both_files_graded_and_joined(self):
        lab, results, out = self.graded("bonus_good")
        self.assertEqual(lab["status"], "graded", lab["message"])
        self.assertEqual((lab["score"], lab["max_score"]), (15, 10))  # the bonus's +5
        self.assertEqual(results["extra_data"]["notes"], [])

    def test_missing_bonus_file_costs_the_bonus_only(self):
        lab, results, out = self.graded("bonus_missing")
        self.assertEqual(lab["status"], "graded", lab["message"])
        self.assertEqual((lab["score"], lab["max_score"]), (10, 10))
        squares = tests_of(results, "95-hostbonus 5.2_squares")
        self.assertEqual(squares["95-hostbonus 5.2_squares/small"]["status"], "failed")
        notes = " ".join(results["extra_data"]["notes"])
        self.assertIn("no hostbonus_bonus.cu in the submission", notes)
        self.assertIn("note: 95-hostbonus: no hostbonus_bonus.cu", out)

    def test_bonus_file_that_does_not_compile_costs_the_bonus_only(self):
        lab, results, _ = self.graded("bonus_broken")
        self.assertEqual(lab["status"], "graded", lab["message"])
        self.assertEqual((lab["score"], lab["max_score"]), (10, 10))
        notes = " ".join(results["extra_data"]["notes"])
        self.assertIn("hostbonus_bonus.cu did not compile with your hostbonus.cu", notes)
        build = tests_of(results, "95-hostbonus build")
        self.assertFalse(build and build["95-hostbonus build"]["status"] == "failed")

    def test_student_file_that_does_not_compile_is_a_compile_error(self):
        lab, results, _ = self.graded("bonus_main_broken")
        self.assertEqual(lab["status"], "compile error", lab["message"])
        self.assertEqual(lab["score"], 0)
        self.assertIn("totl", lab["message"])
        self.assertIn("hostbonus.cu", lab["message"])

    def test_rules_cover_the_bonus_file(self):
        lab, results, _ = self.graded("bonus_forbidden")
        self.assertEqual(lab["status"], "forbidden", lab["message"])
        self.assertEqual(lab["score"], 0)
        self.assertIn("getenv", lab["message"])
        self.assertIn("hostbonus_bonus.cu", lab["message"])
        lab, results, _ = self.graded("bonus_include_passwd")
        self.assertEqual(lab["score"], 0, lab["message"])
        self.assertIn(lab["status"], ("rejected", "compile error"), lab["message"])
        self.assertNotIn("root:x:0", json.dumps(results))

    def test_time_bound_counts_the_second_compile(self):
        # A bonus file that does not compile, out of time included, is replaced by the kit's
        # copy and the lab compiled again: the bound (and a Slurm task's time) must hold both.
        _, results, _ = self.graded("bonus_good")
        self.assertGreaterEqual(
            results["extra_data"]["time_bound_s"],
            2 * build.COMPILE_TIME_LIMIT_S + 2 * build.LINK_TIME_LIMIT_S,
        )

    def test_a_refusal_of_the_preprocessed_text_names_the_student_file(self):
        # No bonus file: the kit's copy is compiled with the graded file, whose pasted incbin
        # the scan of the preprocessed text finds; the message must not blame the kit's file
        # alone.
        lab, results, _ = self.graded("bonus_incbin_in_main")
        self.assertEqual(lab["score"], 0, lab["message"])
        self.assertIn("incbin", lab["message"])
        self.assertTrue(lab["message"].startswith("hostbonus.cu"), lab["message"])

    def test_several_bonus_files_are_named_in_the_note(self):
        lab, results, _ = self.graded("bonus_two_copies")
        self.assertEqual((lab["score"], lab["max_score"]), (10, 10), lab["message"])
        notes = " ".join(results["extra_data"]["notes"])
        self.assertIn("a/hostbonus_bonus.cu", notes)
        self.assertIn("b/hostbonus_bonus.cu", notes)


class HostileSubmissions(unittest.TestCase):
    """The attacks of the grader's integrity issue, on the fixture kit: a submission earns no
    point it did not earn, reads nothing it must not see, and changes nobody else's grade."""

    def graded(self, name, lab="91-hostsum", *options):
        rc, out, err, results, _ = grade(
            HOST / name,
            *options,
            out=STATE["out"] / "-".join([name, *[o.strip("-") for o in options]]),
        )
        self.assertIsNotNone(results, out + err)
        return results["extra_data"]["labs"][lab], results

    def test_forged_verdicts_score_nothing(self):
        for name in (
            "forge_kit_call",
            "forge_envp",
            "longjmp_runner",
            "fake_pass",
            "forbidden_getenv",
            "symver_getenv",
        ):
            with self.subTest(name):
                lab, results = self.graded(name)
                self.assertEqual(lab["score"], 0, lab["message"])
                self.assertEqual(results["score"], 0)

    def test_calls_off_the_allowlist_are_named(self):
        lab, _ = self.graded("symver_getenv")
        self.assertEqual(lab["status"], "forbidden")
        self.assertIn("getenv", lab["message"])
        lab, _ = self.graded("forge_kit_call")
        self.assertIn("kit_result_channel_send", lab["message"])

    def test_other_files_are_refused_and_never_shown(self):
        secrets = ["root:x:0", "total += values[i]"]
        hostname = Path("/etc/hostname")
        if hostname.is_file() and hostname.read_text().strip():
            secrets.append(hostname.read_text().strip())
        for name in (
            "include_solution",
            "include_passwd",
            "incbin",
            "computed_include",
            "symlink_file",
        ):
            with self.subTest(name):
                lab, results = self.graded(name)
                self.assertEqual(lab["score"], 0, lab["message"])
                self.assertIn(lab["status"], ("rejected", "compile error"), lab["message"])
                text = json.dumps(results)
                for secret in secrets:
                    self.assertNotIn(secret, text)
        # Without a sandbox the compiler can read the file: it must still not be shown.
        for name in ("computed_include", "include_passwd"):
            with self.subTest(f"{name}, no sandbox"):
                lab, results = self.graded(name, "91-hostsum", "--sandbox", "none")
                self.assertEqual(lab["score"], 0, lab["message"])
                text = json.dumps(results)
                for secret in secrets:
                    self.assertNotIn(secret, text)
        lab, _ = self.graded("symlink_file")
        self.assertEqual(lab["status"], "rejected")
        self.assertIn("link", lab["message"])

    def test_a_hostile_class_mate_changes_nobody_elses_grade(self):
        fb, klass = STATE["build"], STATE["tmp"] / "hostile-class"
        out = STATE["out"] / "hostile-class"
        shutil.rmtree(klass, ignore_errors=True)
        (klass / "a_attacker").mkdir(parents=True)
        (klass / "b_good").mkdir()
        kit_files = [
            fb / "lib" / "libkit.a",
            fb / "grading" / "verdict_93_sandbox",
            fb / "obj" / "grading" / "runtime" / "remote_executor.o",
        ]
        source = ATTACKER
        for key, path in (
            ("LIBKIT", kit_files[0]),
            ("VERDICT", kit_files[1]),
            ("EXECUTOR_OBJ", kit_files[2]),
            ("SOLUTION", FIXTURE_KIT / "solutions/93-sandbox/sandbox.cu"),
            ("GRADEBOOK", out / "gradebook.csv"),
        ):
            source = source.replace(f"@{key}@", str(path))
        (klass / "a_attacker" / "sandbox.cu").write_text(source)
        shutil.copy(FIXTURE_KIT / "solutions/93-sandbox/sandbox.cu", klass / "b_good")
        before = [digest(p) for p in kit_files]
        rc, stdout, err, _, _ = grade(klass, "--class", "--lab", "93", out=out)
        self.assertEqual(rc, 0, stdout + err)
        gradebook = (out / "gradebook.csv").read_text()
        by = {r["student"]: r for r in csv.DictReader(gradebook.splitlines())}
        self.assertEqual((by["a_attacker"]["total"], by["b_good"]["total"]), ("0", "10"))
        log = "".join(
            p.read_text(errors="replace") for p in (out / "a_attacker" / "logs").rglob("*.log")
        )
        self.assertIn("attempt rename libkit.a: blocked", log)
        self.assertNotIn(": DONE", log)
        self.assertNotIn("LEAKED", log)
        self.assertNotIn("DAEMON WROTE", log)
        time.sleep(2)  # a daemon that outlived the test would rewrite the gradebook now
        self.assertEqual((out / "gradebook.csv").read_text(), gradebook)
        self.assertEqual([digest(p) for p in kit_files], before)
        self.assertFalse(Path(str(kit_files[0]) + ".gone").exists())

    def test_folder_names_reach_no_shell_and_no_formula(self):
        klass = STATE["tmp"] / "names-class"
        out = STATE["out"] / "names-class"
        shutil.rmtree(klass, ignore_errors=True)
        # A folder name holds no '/', so the command writes PWNED where it runs: the grader
        # runs from the temporary folder, and the sandbox's work folders are under it too.
        names = [
            "x$(touch PWNED)",
            "x`touch PWNED`",
            "gradebook.csv",
            '=HYPERLINK("x","y")',
            "alice",
        ]
        for name in names:
            shutil.copytree(HOST / "good", klass / name)
        rc, stdout, err, _, _ = grade(klass, "--class", out=out, cwd=STATE["tmp"])
        self.assertFalse(list(STATE["tmp"].rglob("PWNED")), "a folder name ran a command")
        with open(out / "gradebook.csv") as f:
            rows = list(csv.DictReader(f))
        cells = [cell for row in rows for cell in row.values()]
        self.assertFalse([c for c in cells if c and c[0] in "=+-@"], cells)
        by = {r["student"].lstrip("'"): r for r in rows}
        self.assertEqual(by["alice"]["total"], "20")
        self.assertEqual(by["x$(touch PWNED)"]["total"], "20")
        self.assertEqual(by["x`touch PWNED`"]["total"], "20")
        self.assertNotEqual(by["gradebook.csv"]["status"], "graded")
        self.assertTrue((out / "gradebook.csv").is_file())


class GradeWithAFakeGpu(unittest.TestCase):
    """The path a GPU machine takes (probe first, probe again after a hang or a crash), with
    a stand-in for build/tools/gpu_probe: the fixture labs' tests need no GPU anyway."""

    def build_with_probe(self, name, script):
        build = STATE["tmp"] / name
        if not build.exists():
            shutil.copytree(STATE["build"], build)
        probe = build / "tools" / "gpu_probe"
        probe.unlink()
        probe.write_text("#!/bin/sh\n" + script)
        probe.chmod(0o755)
        return build

    def grade_with(self, build, submission, name):
        out = STATE["out"] / name
        command = [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--out",
            str(out),
            "--build",
            str(build),
            "--kit-root",
            str(FIXTURE_KIT),
            str(submission),
        ]
        env = dict(os.environ)
        env.pop("KIT_GRADER_NO_GPU_CHECK", None)
        proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        results = out / "results.json"
        return proc, json.loads(results.read_text()) if results.exists() else None, out

    def test_without_a_gpu_the_checks_that_need_none_still_run(self):
        # A student at home: each file is compiled and checked, the verdicts printed, the
        # host suites run, and the grader stops for the GPU (exit 3) with nothing graded.
        build = self.build_with_probe(
            "build-fake-none", 'echo "no usable GPU: none here (a fake probe)"; exit 3\n'
        )
        for submission, status in (
            (HOST / "good", "graded"),
            (HOST / "forbidden_qsort", "forbidden"),
        ):
            proc, results, out = self.grade_with(build, submission, f"fake-none-{submission.name}")
            self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
            self.assertIn("NOT GRADED: grading needs an NVIDIA GPU", proc.stdout)
            self.assertIsNone(results, "not graded: no results.json, nothing like a grade")
            self.assertIn("NOT GRADED", (out / "grade.log").read_text())
            if status == "graded":
                self.assertIn("tests: 6 passed, 0 failed", proc.stdout)
            else:
                self.assertIn("FORBIDDEN", proc.stdout)

    def test_probed_and_probed_again_after_a_hang(self):
        build = self.build_with_probe("build-fake-gpu", 'echo "GPU: a fake GPU"\n')
        proc, results, _ = self.grade_with(build, HOST / "host_hang", "fake-gpu-hang")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertEqual(results["score"], 7)
        self.assertEqual(results["extra_data"]["gpu"], "GPU: a fake GPU")
        self.assertIn("GPU: a fake GPU", proc.stdout)

    def test_compiled_for_the_probed_architecture_alone(self):
        build = self.build_with_probe(
            "build-fake-sm75", 'echo "GPU: a fake GPU (sm_75, 1 SMs, 1.0 GiB)"\n'
        )
        proc, results, out = self.grade_with(build, HOST / "good", "fake-gpu-sm75")
        self.assertEqual(results["score"], 20, proc.stdout + proc.stderr)
        log = (out / "logs" / "91-hostsum" / "build.log").read_text()
        compile_line = next(line for line in log.splitlines() if " -c " in line)
        self.assertIn("arch=compute_75,code=sm_75", compile_line)
        self.assertEqual(compile_line.count("-gencode"), 1, compile_line)

    def test_a_gpu_lost_during_grading_scores_nothing(self):
        counter = STATE["tmp"] / "probe-count"
        counter.write_text("0")
        build = self.build_with_probe(
            "build-lost-gpu",
            (
                f"n=$(($(cat {counter}) + 1)); echo $n > {counter}\n"
                'if [ $n -gt 2 ]; then echo "no usable GPU: it fell off the bus"; exit 3; fi\n'
                'echo "GPU: a fake GPU"\n'
            ),
        )
        proc, results, out = self.grade_with(build, HOST / "host_hang", "lost-gpu")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertIn("fell off the bus", proc.stdout + proc.stderr)
        self.assertIsNone(results)
        self.assertIn("NOT GRADED", (out / "grade.log").read_text())


# ---- the parts, one by one ------------------------------------------------------------------


class MeasuredFromOutside(unittest.TestCase):
    """What earns a point is measured by the grader, never taken from the student's process:
    the GPU's facts (fixture lab 94's GPU suite), whether a test ran, the CPU time used."""

    FACTS = 'echo "facts: ready {free} 8589934592 9 0 132 Fake GPU"; echo "GPU: a fake GPU"\n'

    def _tests_of(self, results, lab="94-devcount"):
        return {
            t["name"][len(lab) + 1 :]: t
            for t in results["tests"]
            if t["name"].startswith(lab + " ") and "/" in t["name"]
        }

    def test_a_process_that_answers_for_a_gpu_passes_no_gpu_test_without_one(self):
        # The hijacker answers "1 device", keeps "device" buffers in host memory and counts
        # on the host; on this GPU-less machine its GPU suite must not pass a single test.
        code, _, _, results, _ = grade(HOST / "hijack_socket", "--lab", "94")
        tests = self._tests_of(results)
        self.assertEqual(
            set(tests),
            {"4.1_device/some", "4.1_device/large_needs_memory", "4.2_host/some", "4.2_host/none"},
        )
        for name in ("4.1_device/some", "4.1_device/large_needs_memory"):
            self.assertEqual(tests[name]["status"], "failed", tests[name]["output"])
            self.assertEqual(tests[name]["score"], 0)

    def test_a_process_that_never_opens_the_gpu_fails_its_gpu_tests(self):
        build = GradeWithAFakeGpu().build_with_probe(
            "build-fake-facts", self.FACTS.format(free=8589934592)
        )
        proc, results, out = GradeWithAFakeGpu().grade_with(
            build, HOST / "hijack_socket", "fake-gpu-hijack"
        )
        self.assertIsNotNone(results, proc.stdout + proc.stderr)
        tests = self._tests_of(results)
        for name in ("4.1_device/some", "4.1_device/large_needs_memory"):
            self.assertEqual(tests[name]["status"], "failed", tests[name]["output"])
            self.assertIn("never opened the GPU", tests[name]["output"])
        # Without a driver the verdict process cannot hold a large test's buffers itself
        # (grading/runtime/shared_memory.h): they live in the executor then, and the log says why.
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError:
            logs = list(out.glob("logs/**/4.1_device.large_needs_memory.log"))
            self.assertEqual(len(logs), 1, logs)
            text = logs[0].read_text()
            self.assertIn("the test's buffers lived in the process running your code", text)
            self.assertIn("cannot load the CUDA driver", text)

    def test_a_test_that_does_not_run_is_not_passed(self):
        # The test skips itself when the GPU has too little free memory, as the grader's probe
        # measured it (here: none): skipped is never passed.
        build = GradeWithAFakeGpu().build_with_probe(
            "build-fake-no-memory", self.FACTS.format(free=0)
        )
        proc, results, _ = GradeWithAFakeGpu().grade_with(
            build, FIXTURE_KIT / "solutions", "fake-gpu-skip"
        )
        self.assertIsNotNone(results, proc.stdout + proc.stderr)
        test = self._tests_of(results)["4.1_device/large_needs_memory"]
        self.assertEqual((test["status"], test["score"]), ("failed", 0), test["output"])
        self.assertIn("not run, so not passed: needs 1 GiB of GPU memory", test["output"])

    def test_cpu_time_over_the_references_fails_the_test(self):
        code, _, _, results, _ = grade(HOST / "cpu_burner", "--lab", "94")
        test = self._tests_of(results)["4.2_host/some"]
        self.assertEqual(test["status"], "failed", test["output"])
        self.assertIn("ms of CPU time", test["output"])
        self.assertIn("the sort must run on the GPU", test["output"])
        other = self._tests_of(results)["4.2_host/none"]
        self.assertEqual(other["status"], "failed", other["output"])
        self.assertIn(
            "not scored: in 4.2_host/some your code did the work on the host", other["output"]
        )
        code, _, _, results, _ = grade(
            FIXTURE_KIT / "solutions", "--lab", "94", out=STATE["out"] / "solution-94"
        )
        for name in ("4.2_host/some", "4.2_host/none"):
            test = self._tests_of(results)[name]
            self.assertEqual(test["status"], "passed", test["output"])

    def test_a_sanitizer_summary_printed_by_the_student_decides_nothing(self):
        # The student's code prints a clean summary and kills its sanitizer: how the sanitizer
        # ended (read by the verdict process, which reaps it) says it did not finish.
        code, out, _, results, _ = grade(
            HOST / "forged_sanitizer_summary",
            "--lab",
            "94",
            "--sanitize",
            "--sanitizer",
            str(TESTS / "fake_sanitizer.sh"),
        )
        entry = next(t for t in results["tests"] if t["name"] == "94-devcount compute-sanitizer")
        self.assertEqual(entry["status"], "failed", entry["output"])
        self.assertIn("did not finish", entry["output"])
        self.assertNotIn("nothing found", entry["output"])


class ProcessRunner(unittest.TestCase):
    def test_time_limit_kills_the_whole_group(self):
        pid_file = STATE["tmp"] / "background.pid"
        start = time.monotonic()
        result = run.run_limited(
            ["sh", "-c", f"sleep 60 & echo $! > {pid_file}; sleep 60"], time_limit=1
        )
        self.assertLess(time.monotonic() - start, 10)
        self.assertTrue(result.timed_out)
        pid = int(pid_file.read_text())
        time.sleep(0.2)
        state = Path(f"/proc/{pid}/stat")
        if state.exists():  # a zombie waiting for its reaper is dead too
            self.assertEqual(state.read_text().split(")")[1].split()[0], "Z")

    def test_leftover_child_holding_the_output_is_killed(self):
        start = time.monotonic()
        result = run.run_limited(["sh", "-c", "(sleep 60; echo late) & echo early"], time_limit=30)
        self.assertLess(time.monotonic() - start, 10)
        self.assertFalse(result.timed_out)
        self.assertEqual((result.exit_code, result.output), (0, "early\n"))

    def test_output_is_capped_and_a_flood_stopped(self):
        result = run.run_limited(["sh", "-c", "yes"], time_limit=30, output_limit=1 << 20)
        self.assertTrue(result.flooded)
        self.assertLess(len(result.output), run.KEEP_BYTES + 200)
        self.assertGreater(result.output_bytes, 1 << 20)

    def test_a_program_that_cannot_start_with_a_channel_closes_each_descriptor_once(self):
        # A second close of the channel's write end would close whatever descriptor another
        # test's thread opened since under that number; here, a file opened just after.
        before = set(os.listdir("/proc/self/fd"))
        result = run.run_limited(["/nonexistent/program"], time_limit=5, channel=True)
        self.assertIn("/nonexistent/program", result.start_error)
        self.assertEqual(set(os.listdir("/proc/self/fd")), before)

    def classify(self, script, test_id="s/t"):
        test = run.TestInfo(*test_id.split("/"))
        result = run.run_limited(["sh", "-c", script], time_limit=10, channel=True)
        return run.classify(test, result, 10)

    def test_result_channel(self):
        ok = 'echo PASS; echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD'
        self.assertEqual(self.classify(ok).status, run.PASSED)
        wrong_token = 'echo "0123456789abcdef 1 0 0" >&$KIT_RESULT_FD'
        self.assertEqual(self.classify(wrong_token).status, run.TAMPERED)
        two_lines = (
            'echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD; '
            'echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD'
        )
        self.assertEqual(self.classify(two_lines).status, run.TAMPERED)
        failed = (
            'echo "$KIT_RESULT_TOKEN note fail s/t tests/x.c:3: expected 1, got 2" '
            '>&$KIT_RESULT_FD; echo "$KIT_RESULT_TOKEN 0 1 0" >&$KIT_RESULT_FD; exit 1'
        )
        outcome = self.classify(failed)
        self.assertEqual((outcome.status, outcome.message), (run.FAILED, "expected 1, got 2"))
        # A failure message printed on the output (which the student's code shares) is not
        # the message: only the runner's note on the channel is.
        forged = (
            'printf "FAIL s/t (1 ms)\\n    tests/x.c:3: \\033[2K10 / 10\\n"; '
            'echo "$KIT_RESULT_TOKEN 0 1 0" >&$KIT_RESULT_FD; exit 1'
        )
        outcome = self.classify(forged)
        self.assertEqual(outcome.status, run.FAILED)
        self.assertNotIn("10 / 10", outcome.message)
        late_note = (
            'echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD; '
            'echo "$KIT_RESULT_TOKEN note cpu 1.0" >&$KIT_RESULT_FD'
        )
        self.assertEqual(self.classify(late_note).status, run.TAMPERED)
        measured = (
            'echo "$KIT_RESULT_TOKEN note cpu 12.5" >&$KIT_RESULT_FD; '
            'echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD'
        )
        outcome = self.classify(measured)
        self.assertEqual((outcome.status, outcome.details["cpu_ms"]), (run.PASSED, 12.5))
        nonzero = 'echo "$KIT_RESULT_TOKEN 1 0 0" >&$KIT_RESULT_FD; exit 4'
        self.assertEqual(self.classify(nonzero).status, run.FAILED)
        printed_only = 'echo "PASS s/t"; echo "1 passed, 0 failed, 0 skipped"'
        self.assertEqual(self.classify(printed_only).status, run.NO_RESULT)
        skipped = (
            'echo "$KIT_RESULT_TOKEN note skip s/t no GPU here" >&$KIT_RESULT_FD; '
            'echo "$KIT_RESULT_TOKEN 0 0 1" >&$KIT_RESULT_FD'
        )
        outcome = self.classify(skipped)
        self.assertEqual((outcome.status, outcome.message), (run.SKIPPED, "no GPU here"))
        self.assertEqual(self.classify("kill -SEGV $$").status, run.CRASHED)

    def test_the_runner_writes_the_channel_and_hides_it(self):
        binary = STATE["build"] / "solution" / "test_91_hostsum"
        test = run.TestInfo("1.1_total", "small")
        outcome, result = run.run_test(binary, test, time_limit=30)
        self.assertEqual(outcome.status, run.PASSED, result.output)
        listed = run.list_tests(binary)
        self.assertEqual(
            [t.id for t in listed],
            ["1.1_total/small", "1.1_total/large", "1.2_max/positive", "1.2_max/negative"],
        )
        self.assertTrue(listed[0].sanitize and not listed[1].sanitize)


class EvidenceRule(unittest.TestCase):
    """evidence.py through grading/grade: a TODO whose judged tests fail counts none of its
    other tests (fixture lab 95, with a rubric that judges 5.1's negative test)."""

    def test_a_todo_whose_judged_test_fails_counts_nothing(self):
        kit = STATE["tmp"] / "kit-evidence"
        shutil.rmtree(kit, ignore_errors=True)
        shutil.copytree(FIXTURE_KIT / "labs", kit / "labs")
        shutil.copytree(FIXTURE_KIT / "grading" / "rubric", kit / "grading" / "rubric")
        rubric_path = kit / "grading" / "rubric" / "95-hostbonus.json"
        spec = json.loads(rubric_path.read_text())
        spec["cpu"] = {"tests": ["5.1_sum/negative"]}
        rubric_path.write_text(json.dumps(spec))
        # Right for positive values only: the small test passes, the judged one fails.
        submission = STATE["tmp"] / "evidence-submission"
        (submission / "95-hostbonus").mkdir(parents=True, exist_ok=True)
        (submission / "95-hostbonus" / "hostbonus.cu").write_text(
            (FIXTURE_KIT / "solutions" / "95-hostbonus" / "hostbonus.cu")
            .read_text()
            .replace("total += values[i];", "total += values[i] > 0 ? values[i] : 0;")
        )
        results = {}
        for name, kit_root in (("judged", kit), ("as shipped", FIXTURE_KIT)):
            out = STATE["out"] / f"evidence-{name.replace(' ', '-')}"
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
                "--lab",
                "95",
                str(submission),
            ]
            proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
            results[name] = tests_of(json.loads((out / "results.json").read_text()), "95")
            self.assertIn(proc.returncode, (0, 1), proc.stdout + proc.stderr)
        small = results["judged"]["95-hostbonus 5.1_sum/small"]
        self.assertEqual((small["status"], small["score"]), ("failed", 0), small["output"])
        self.assertIn(
            "not counted: this TODO's large tests (negative) did not pass", small["output"]
        )
        # Without the judged test, the same file keeps its small test's points.
        shipped = results["as shipped"]["95-hostbonus 5.1_sum/small"]
        self.assertEqual(shipped["status"], "passed", shipped["output"])
        self.assertGreater(shipped["score"], 0)


class RubricFiles(unittest.TestCase):
    def write(self, data):
        path = STATE["tmp"] / "rubric" / "91-hostsum.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data) if not isinstance(data, str) else data)
        return path

    def test_every_rubric_of_the_kit_loads(self):
        for path in sorted((GRADING / "rubric").glob("*.json")):
            lab_id = path.stem
            loaded = rubric.load_rubric(path, lab_id, lab_id.split("-", 1)[1])
            self.assertTrue(loaded.suites, path)

    def test_mistakes_are_named(self):
        cases = [
            ({"suites": {"1.1": {"pionts": 3}}}, "unknown key 'pionts'"),
            ({"suites": {"1.1": {"points": -1}}}, "suites.1.1.points"),
            ({"suites": {"1.1": {"visibility": "secret"}}}, "visibility"),
            ({"speed": {"points": 5}}, "needs 'args'"),
            ({"speed": {"args": [], "full_ratio": 2, "zero_ratio": 1.5}}, "zero_ratio"),
            ({"sanitizer": {"tools": ["leakcheck"]}}, "unknown tool"),
            ("{not json", "cannot read it"),
        ]
        for data, words in cases:
            with self.assertRaises(GraderError) as caught:
                rubric.load_rubric(self.write(data), "91-hostsum", "hostsum")
            self.assertIn(words, str(caught.exception))

    def test_cpu_budget_holds_only_in_the_tests_it_names(self):
        # An honest loop that waits after each of n launches uses many times the reference's
        # CPU time: the budget must be confined to tests where that cannot happen, and a
        # pattern that names no test must not switch it off unseen.
        loaded = rubric.load_rubric(
            self.write(
                {
                    "suites": {"1.1": {"points": 3}},
                    "cpu": {"tests": ["1.1/large_*", "1.3_block/*"], "speed": False},
                }
            ),
            "91-hostsum",
            "hostsum",
        )
        self.assertTrue(loaded.cpu.applies("1.1/large_2_24"))
        self.assertTrue(loaded.cpu.applies("1.3_block/batches"))
        self.assertFalse(loaded.cpu.applies("1.1/small_sizes"))
        self.assertFalse(loaded.cpu.speed)
        self.assertTrue(rubric.CpuRule().applies("any/test"))
        problems = rubric.check_against_tests(loaded, ["1.1"], ["1.1/large_2_24", "1.1/quick"])
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("cpu.tests: '1.3_block/*' matches none", problems[0])
        for bad, words in (({"tests": "1.1/*"}, "cpu.tests"), ({"speed": "no"}, "cpu.speed")):
            with self.assertRaises(GraderError) as caught:
                rubric.load_rubric(self.write({"cpu": bad}), "91-hostsum", "hostsum")
            self.assertIn(words, str(caught.exception))

    def test_how_a_test_runs_never_tells_whether_it_is_judged(self):
        # Where the buffers live and whether a test shares its process follow the test's size
        # (its name says "large"), which the student's code sees anyway from n; two tests of
        # one size, one judged and one not, must run alike (evidence.py).
        from kitgrader.grader import GradingContext, SubmissionGrader

        loaded = rubric.load_rubric(
            self.write(
                {
                    "suites": {"1.1": {"points": 3}},
                    "cpu": {"tests": ["1.1/large_2_24", "1.1/small_judged"]},
                }
            ),
            "91-hostsum",
            "hostsum",
        )
        lab = type("Lab", (), {"rubric": loaded})()
        test = lambda test_id: type("Test", (), {"id": test_id, "name": test_id.split("/")[1]})()
        grader = type("Grader", (), {"env": {"PATH": "/bin"}})()
        context = type("Context", (), {"options": type("Options", (), {"batch_tests": True})()})()
        ways = {}
        for name in ("large_2_24", "large_2_22", "small_judged", "small_sizes", "medium_sizes"):
            env = SubmissionGrader._test_env(grader, lab, test(f"1.1/{name}"))
            ways[name] = (
                env.get("KIT_DATA_PLANE"),
                GradingContext.batch_group(context, lab, test(f"1.1/{name}")),
            )
            self.assertEqual(env["PATH"], "/bin")
        # The large tests share a batch of their own; the verdict holds their buffers.
        self.assertEqual(ways["large_2_24"], (None, "large"))
        self.assertEqual(ways["large_2_24"], ways["large_2_22"])  # judged or not
        self.assertEqual(ways["small_judged"], ("executor", "short"))
        self.assertEqual(ways["small_judged"], ways["small_sizes"])
        # A medium sweep is a job of its own (it would make its suite's batch the longest
        # job), its buffers in the executor like any test that is not large.
        self.assertEqual(ways["medium_sizes"], ("executor", None))
        self.assertNotIn("KIT_DATA_PLANE", grader.env)

    def test_small_tests_count_only_with_their_todos_judged_tests(self):
        from kitgrader import evidence
        from kitgrader.results import SuiteResult
        from kitgrader.run import FAILED, PASSED, TestInfo, TestRun

        loaded = rubric.load_rubric(
            self.write(
                {
                    "suites": {"1.1": {"points": 10}, "1.2": {"points": 10}, "1.3": {"points": 10}},
                    "cpu": {"tests": ["*/large_*"]},
                }
            ),
            "91-hostsum",
            "hostsum",
        )

        def suite(name, statuses):
            return SuiteResult(
                name=name,
                rule=loaded.rule(name),
                runs=[
                    TestRun(test=TestInfo(suite=name, name=test), status=status)
                    for test, status in statuses.items()
                ],
            )

        result = type("Result", (), {})()
        result.suites = {
            # a host sort up to some size: its large test failed, its small ones passed
            "1.1": suite("1.1", {"small": PASSED, "large_2_24": FAILED}),
            "1.2": suite("1.2", {"small": PASSED, "large_2_24": PASSED}),
            "1.3": suite("1.3", {"small": PASSED}),  # no judged test: nothing to gate on
        }
        evidence.gate_on_judged(loaded, result)
        small = result.suites["1.1"].runs[0]
        self.assertEqual(small.status, FAILED)
        self.assertIn("large tests (large_2_24) did not pass", small.message)
        self.assertEqual([r.status for r in result.suites["1.2"].runs], [PASSED, PASSED])
        self.assertEqual(result.suites["1.3"].runs[0].status, PASSED)

    def test_the_timed_run_is_the_evidence_of_a_todo_without_judged_tests(self):
        from kitgrader import evidence

        loaded = rubric.load_rubric(
            self.write(
                {
                    "suites": {"1.1": {"points": 10}, "1.2": {"points": 10}},
                    "cpu": {"tests": ["1.1/one_*"]},
                    "speed": {
                        "points": 10,
                        "args": ["-n", "2^14"],
                        "requires": ["1.1", "1.2"],
                        "floor_ratio": 0.25,
                    },
                }
            ),
            "91-hostsum",
            "hostsum",
        )
        suites = {
            "1.1": type(
                "S",
                (),
                {"runs": [type("R", (), {"test": type("T", (), {"id": "1.1/one_phase"})()})()]},
            )(),
            "1.2": type(
                "S", (), {"runs": [type("R", (), {"test": type("T", (), {"id": "1.2/sizes"})()})()]}
            )(),
        }
        self.assertEqual(evidence.timed_suites(loaded, suites), ["1.2"])
        self.assertTrue(evidence.below_floor(loaded.speed, 0.05))
        self.assertFalse(evidence.below_floor(loaded.speed, 0.6))
        self.assertFalse(evidence.below_floor(loaded.speed, None))
        without = rubric.load_rubric(
            self.write(
                {"suites": {"1.2": {"points": 10}}, "speed": {"points": 10, "args": ["-n", "2^14"]}}
            ),
            "91-hostsum",
            "hostsum",
        )
        self.assertEqual(evidence.timed_suites(without, suites), [])
        for bad in (0, 1.5, "low"):
            with self.assertRaises(GraderError) as caught:
                rubric.load_rubric(
                    self.write(
                        {
                            "suites": {"1.2": {"points": 1}},
                            "speed": {"points": 1, "args": ["-n", "8"], "floor_ratio": bad},
                        }
                    ),
                    "91-hostsum",
                    "hostsum",
                )
            self.assertIn("floor_ratio", str(caught.exception))

    def test_default_rubric(self):
        default = rubric.lab_rubric(STATE["tmp"] / "no-rubrics", "07-new", "new")
        self.assertTrue(default.is_default)
        self.assertEqual(default.student_file, "new.cu")
        self.assertEqual(default.rule("7.1_x").points, rubric.DEFAULT_SUITE_POINTS)
        named = rubric.load_rubric(
            self.write({"suites": {"1.1": {"points": 3}}}), "91-hostsum", "hostsum"
        )
        self.assertEqual(named.rule("1.9_unlisted").points, 0)


class SpeedPoints(unittest.TestCase):
    """speed.py reads a timed run from its result channel alone (fake drivers here; the real
    one with fake executors in TimedDriverRuns)."""

    def fake_driver(self, name, body):
        path = STATE["tmp"] / name
        path.write_text(
            '#!/bin/sh\nnote() { echo "$KIT_RESULT_TOKEN note $*" >&$KIT_RESULT_FD; }\n'
            'result() { echo "$KIT_RESULT_TOKEN $*" >&$KIT_RESULT_FD; }\n' + body
        )
        path.chmod(0o755)
        return path

    def rounds(self, reference, student, cpu=("40.0", "80.0")):
        """Both sides' two rounds as the timed driver notes them, in its order."""
        order = [("reference", 1), ("student", 1), ("student", 2), ("reference", 2)]
        times = {"reference": reference, "student": student}
        used = {"reference": cpu[0], "student": cpu[1]}
        return "".join(
            f"note round {who} {k} {times[who][k - 1]} {times[who][k - 1]} "
            f"{used[who]} 0.5 {times[who][k - 1]}\n"
            for who, k in order
        )

    def measure(self, driver):
        return speed.measure(driver, ["-n", "2^10"], ["student"], ["reference"], None, 10)

    def test_side_time_leaves_out_one_lucky_round_and_weighs_both_modes(self):
        # A round replayed from memory (or lucky) and a disturbed one are left out.
        self.assertAlmostEqual(speed.side_time([10, 10, 0.1, 10, 10, 95]), 10)
        # Runs in two modes (18 or 24 ms): both weigh, so that two sides with the same mix
        # come out equal however the rounds fall, where the median of either is 18 or 24.
        one, other = [24, 18, 24, 18, 24, 18], [18, 18, 24, 24, 18, 24]
        self.assertAlmostEqual(speed.side_time(one), speed.side_time(other))
        self.assertAlmostEqual(speed.side_time(one), 21)
        self.assertAlmostEqual(speed.side_time([3.0, 5.0]), 4.0)  # too few rounds to trim

    def test_timing_through_the_channel(self):
        # The mean of each side's rounds (the best round counted before: 2.0 / 1.0).
        both = self.fake_driver(
            "both", self.rounds(("1.5", "1.000"), ("2.000", "3.5")) + "result ok\n"
        )
        measured = self.measure(both)
        self.assertTrue(measured.measured, measured.log)
        self.assertAlmostEqual(measured.ratio, 2.2)
        self.assertIn("round 2 student: mean 3.500 ms", measured.log)
        printed = self.fake_driver("liar", 'echo "timed_driver: ok"\n')
        measured = self.measure(printed)
        self.assertFalse(measured.measured)
        self.assertIn("could not be timed", measured.message)
        wrong = self.fake_driver(
            "wrong",
            "note run reference 1\nnote run student 1\n"
            "result failed student wrong keys[3] is 7\nexit 1\n",
        )
        self.assertEqual(
            self.measure(wrong).message, "your sort could not be timed: wrong: keys[3] is 7"
        )
        late = self.fake_driver(
            "late",
            self.rounds(("1", "1"), ("1", "1")) + "result failed reference crashed 11\nexit 4\n",
        )
        self.assertIn(
            "the reference solution could not be timed: crashed: SIGSEGV",
            self.measure(late).message,
        )

    def test_a_run_that_ends_without_its_result_is_put_on_the_side_it_was_running(self):
        killed = self.fake_driver(
            "killed",
            "note run reference 1\n"
            + self.rounds(("1", "1"), ("1", "1")).splitlines()[0]
            + "\nnote run student 1\nkill -9 $$\n",
        )
        measured = self.measure(killed)
        self.assertEqual(
            measured.message,
            "your sort could not be timed: crashed: SIGKILL "
            "(killed from outside: out of memory?)",
        )
        early = self.fake_driver("early", "kill -9 $$\n")
        self.assertIn("the reference solution could not be timed", self.measure(early).message)

    def test_a_fast_sort_on_the_host_gets_no_speed_points(self):
        # Fast on the clock (no kernels to wait for), but its process used the CPU time of a
        # sort, as the timed driver measured it from outside.
        host = self.fake_driver(
            "host",
            self.rounds(("1.0", "1.0"), ("0.1", "0.1"), cpu=("40.0", "900.0")) + "result ok\n",
        )
        measured = self.measure(host)
        self.assertFalse(measured.measured, measured.log)
        self.assertIn("the sort must run on the GPU", measured.message)
        unmeasured = self.fake_driver(
            "unmeasured",
            self.rounds(("1.0", "1.0"), ("0.1", "0.1"), cpu=("40.0", "-1")) + "result ok\n",
        )
        measured = self.measure(unmeasured)
        self.assertFalse(measured.measured, measured.log)
        self.assertIn("could not measure", measured.message)

    def test_the_rule(self):
        self.assertEqual(speed.speed_points(0.5, 10), 10)
        self.assertEqual(speed.speed_points(1.25, 10), 10)
        self.assertAlmostEqual(speed.speed_points(2.125, 10), 5)
        self.assertEqual(speed.speed_points(3.0, 10), 0)
        self.assertEqual(speed.speed_points(30, 10), 0)


def fake_gpu_wrapper():
    """The argv words that run a command with a file bound at /dev/nvidia0 (bubblewrap), so
    that a fake executor maps "the GPU" as one with a CUDA context does; None where bubblewrap
    cannot do that here."""
    if "fake_gpu" not in STATE:
        STATE["fake_gpu"] = None
        bwrap, device = shutil.which("bwrap"), STATE["tmp"] / "fake-nvidia0"
        device.touch()
        if bwrap:
            words = [
                bwrap,
                "--bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--bind",
                str(device),
                "/dev/nvidia0",
                "--die-with-parent",
            ]
            probe = subprocess.run([*words, "test", "-f", "/dev/nvidia0"], capture_output=True)
            if probe.returncode == 0:
                STATE["fake_gpu"] = words
    return STATE["fake_gpu"]


class TimedDriverRuns(unittest.TestCase):
    """The kit's real timed driver (Lab 01's) times both sides in one run, each side's executor
    a stand-in (fake_executor.py) that keeps its "device memory" on the host: the order of the
    rounds, one executor per side, the same inputs, and what a side that fails costs."""

    ENV = {
        "KIT_GPU_FACTS": "ready 1000000000 2000000000 9 0 132 Fake GPU",
        "KIT_DATA_PLANE": "executor",
    }

    def setUp(self):
        if not (BUILD / "grading" / "timed_01_oddeven").exists():
            self.skipTest("Lab 01's timed driver is not built")

    def run_speed(
        self, name, reference=(), student=(), limit=20, gpu=False, rounds=None, n="2^10", pin=True
    ):
        wrapper = fake_gpu_wrapper() if gpu else []
        if wrapper is None:
            self.skipTest("bubblewrap cannot bind a stand-in for /dev/nvidia0 here")
        log = STATE["tmp"] / f"speed-{name}.log"
        log.unlink(missing_ok=True)

        def executor(who, behaviour):
            return [
                *wrapper,
                sys.executable,
                str(TESTS / "fake_executor.py"),
                str(log),
                who,
                *behaviour,
            ]

        started = time.monotonic()
        measured = speed.measure(
            BUILD / "grading" / "timed_01_oddeven",
            ["--algo", "global", "-n", n, "--reps", "3"],
            executor("student", student),
            executor("reference", reference),
            dict(os.environ, **self.ENV),
            limit,
            pin=pin,
            **({"rounds": rounds} if rounds else {}),
        )
        events = [line.split() for line in log.read_text().splitlines()] if log.exists() else []
        return measured, events, time.monotonic() - started

    def test_one_run_times_both_sides_on_the_same_inputs(self):
        measured, events, _ = self.run_speed(
            "both", student=["slow=0.02", "linger=0.5"], gpu=True, rounds=4
        )
        self.assertTrue(measured.measured, measured.log)
        self.assertGreater(measured.ratio, 5, measured.log)  # 20 ms against far less
        rounds = [line for line in measured.log.splitlines() if line.startswith("round ")]
        self.assertEqual(
            [r.split(":")[0] for r in rounds],
            [f"round {k} {who}" for k in range(1, 5) for who in ("reference", "student")],
            measured.log,
        )
        # Each executor starts once, and both have started and run their warm-up before
        # anything is timed: no start-up of one side runs while the other is timed.
        self.assertEqual(sorted(e[0] for e in events if e[1] == "hello"), ["reference", "student"])
        sorts = [e for e in events if e[1] == "sort"]
        self.assertEqual([e[0] for e in sorts[:2]], ["reference", "student"])
        self.assertEqual([e[3] for e in sorts[:2]], [sorts[0][3]] * 2)
        # Then the runs alternate, reference, student, student, reference, ...: both sides
        # sample the same spells of the machine.
        self.assertEqual(
            [e[0] for e in sorts[2:]], ["reference", "student", "student", "reference"] * 6
        )
        # Three fresh inputs in each round, the same in round k of both sides: nothing a
        # side keeps from one round serves the next.
        inputs = {who: [e[3] for e in sorts if e[0] == who] for who in ("reference", "student")}
        self.assertEqual(len(inputs["student"]), 13)
        self.assertEqual(len(set(inputs["student"])), 13)
        self.assertEqual(inputs["reference"], inputs["student"])

    def test_one_round_each(self):
        measured, events, _ = self.run_speed("one-round", gpu=True, rounds=1)
        self.assertTrue(measured.measured, measured.log)
        self.assertEqual(len([e for e in events if e[:2] == ["student", "sort"]]), 4)

    def test_a_student_wrong_only_in_its_second_round_gets_no_points(self):
        # The 5th call of the student's executor is the first of its second round (input 4,
        # seed 5): only an executor kept across rounds gets there.
        measured, events, _ = self.run_speed("wrong-late", student=["wrong_from=5"])
        self.assertFalse(measured.measured)
        self.assertIn(
            "your sort could not be timed: wrong: --algo global -n 1024 --dist "
            "uniform --seed 5: ",
            measured.message,
        )
        self.assertEqual(len([e for e in events if e[:2] == ["reference", "sort"]]), 4)

    def test_every_timed_result_is_checked(self):
        # A right answer on 2^20 keys passes; one inversion in the middle, or a sorted answer
        # that lost a key (the fingerprint), is wrong.
        measured, _, _ = self.run_speed("large", gpu=True, rounds=1, n="2^20")
        self.assertTrue(measured.measured, measured.log)
        # Not pinned, the check is shared between this machine's CPUs (at least two), and the
        # middle inversion falls between two shares.
        for how, pin in (("middle", True), ("lost", True), ("middle", False)):
            measured, _, _ = self.run_speed(
                f"large-{how}",
                gpu=True,
                rounds=1,
                n="2^20",
                student=["wrong_from=2", f"wrong_how={how}"],
                pin=pin,
            )
            self.assertFalse(measured.measured, how)
            self.assertIn(
                "your sort could not be timed: wrong: --algo global -n 1048576", measured.message
            )

    def test_a_student_that_crashes(self):
        measured, _, _ = self.run_speed("crash", student=["crash_from=2"])
        self.assertFalse(measured.measured)
        self.assertIn(
            "your sort could not be timed: error: the global sort failed", measured.message
        )

    def test_a_student_that_hangs_costs_one_round_limit(self):
        measured, events, elapsed = self.run_speed("hang", student=["hang_from=3"], limit=2)
        self.assertFalse(measured.measured)
        self.assertEqual(measured.message, "your sort could not be timed: no answer within 2 s")
        self.assertLess(elapsed, 6)  # the whole run's limit is 8 s
        pid = int(next(e[2] for e in events if e[:2] == ["student", "hello"]))
        with self.assertRaises(ProcessLookupError):  # killed, not left behind
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.05)

    def test_a_student_that_floods_its_output(self):
        measured, _, _ = self.run_speed("flood", student=["flood_from=1"])
        self.assertFalse(measured.measured)
        self.assertIn("your sort could not be timed: crashed: SIGKILL", measured.message)

    def test_a_student_that_never_opened_the_gpu(self):
        measured, _, _ = self.run_speed("no-gpu")
        self.assertFalse(measured.measured)
        self.assertIn(
            "your sort could not be timed: wrong: the process running your code never "
            "opened the GPU",
            measured.message,
        )

    def test_a_student_that_burns_cpu_time_gets_no_points(self):
        measured, _, _ = self.run_speed("busy", student=["busy=0.15"], gpu=True)
        self.assertFalse(measured.measured, measured.log)
        self.assertIn("no speed points: your code used", measured.message)

    def test_a_reference_that_fails_is_not_counted(self):
        measured, events, _ = self.run_speed("reference-wrong", reference=["wrong_from=1"])
        self.assertFalse(measured.measured)
        self.assertIn("the reference solution could not be timed: wrong: ", measured.message)
        self.assertFalse(
            [e for e in events if e[:2] == ["student", "sort"]], "the student's code never ran"
        )
        # ... in its last run too, after the student's last (the warm-up and 4 rounds of 3)
        measured, events, _ = self.run_speed(
            "reference-late", reference=["crash_from=13", "across=1"], gpu=True, rounds=4
        )
        self.assertFalse(measured.measured)
        self.assertIn("the reference solution could not be timed: error: ", measured.message)
        self.assertEqual(len([e for e in events if e[:2] == ["student", "sort"]]), 13)


class SanitizerReports(unittest.TestCase):
    def test_racecheck_report(self):
        report = (
            "========= COMPUTE-SANITIZER\n"
            "========= Error: Race reported between Write access at k(unsigned int *)+0x2d0"
            " in /a/b/oddeven.cu:62\n"
            "=========     and Read access at k(unsigned int *)+0x1e0 in /a/b/oddeven.cu:58"
            " [1024 hazards]\n=========\n"
            "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"
        )
        count, findings = sanitize.parse_report(report)
        self.assertEqual(count, 1)
        self.assertIn("oddeven.cu:62", findings[0])
        self.assertIn("oddeven.cu:58", findings[0])
        self.assertNotIn("/a/b", findings[0])

    def test_clean_report(self):
        self.assertEqual(
            sanitize.parse_report(
                "========= COMPUTE-SANITIZER\n" "========= ERROR SUMMARY: 0 errors\n"
            ),
            (0, []),
        )


class GpuFixtures(unittest.TestCase):
    """The GPU fixtures run on a GPU only (run_gpu_fixtures.sh); here, their expectations."""

    KEYS = check_gpu_fixture.EXPECT_KEYS

    def test_every_fixture_says_what_it_expects(self):
        fixtures = sorted((TESTS / "fixtures" / "gpu").iterdir())
        self.assertGreaterEqual(len(fixtures), 8)
        for folder in fixtures:
            expect = json.loads((folder / "expect.json").read_text())
            self.assertLessEqual(set(expect), self.KEYS, folder.name)
            self.assertIn("about", expect)
            if "grade" in expect:
                self.assertTrue((ROOT / expect["grade"] / "01-oddeven").is_dir(), folder.name)
            else:
                self.assertTrue(
                    (folder / "oddeven.cu").is_file() or (folder / "change.cu").is_file(),
                    folder.name,
                )


class HostFixtures(unittest.TestCase):
    """fixtures/host/ as the tests grade it (fixture_patch.write_host): each NAME.change.cu
    written as NAME.cu from the fixture kit's solution, and loud when that solution changes."""

    SOURCE = TESTS / "fixtures" / "host"

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="host-fixtures-"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_each_change_is_written_as_the_file_it_stands_for(self):
        changes = sorted(self.SOURCE.rglob("*" + fixture_patch.HOST_CHANGE))
        self.assertGreaterEqual(len(changes), 30)
        for change in changes:
            with self.subTest(str(change.relative_to(self.SOURCE))):
                where = change.relative_to(self.SOURCE)
                written = (
                    HOST / where.parent / (change.name[: -len(fixture_patch.HOST_CHANGE)] + ".cu")
                )
                text = written.read_text()
                header = change.read_text().split("*/")[0]
                self.assertTrue(text.startswith(header))  # its own comment, not the base's
                for directive in ("/* BASE", "/* REPLACE", "/* WITH */", "/* END */"):
                    self.assertNotIn(directive, text)
        self.assertEqual(list(HOST.rglob("*" + fixture_patch.HOST_CHANGE)), [])

    def test_a_header_alone_is_the_solution_under_it(self):
        solution = (FIXTURE_KIT / "solutions" / "91-hostsum" / "hostsum.cu").read_text()
        written = (HOST / "good" / "91-hostsum" / "hostsum.cu").read_text()
        self.assertEqual(written.split("\n", 1)[1], solution.split("\n", 1)[1])

    def test_a_link_out_of_the_fixture_names_the_same_file(self):
        link = HOST / "symlink_file" / "hostsum.cu"
        self.assertTrue(link.is_symlink())
        self.assertEqual(link.resolve(), (self.SOURCE / "symlink_file" / "hostsum.cu").resolve())

    def test_a_vanished_anchor_fails_naming_the_fixture(self):
        bases = self.tmp / "solutions"
        shutil.copytree(FIXTURE_KIT / "solutions", bases)
        solution = bases / "91-hostsum" / "hostsum.cu"
        solution.write_text(solution.read_text().replace("    return best;\n", "    return 0;\n"))
        with self.assertRaisesRegex(
            fixture_patch.FixtureError, r"fixture flat: .*flat/hostsum\.change\.cu.*found 0 times"
        ):
            fixture_patch.write_host(self.SOURCE / "flat", self.tmp / "flat", bases)
        # A fixture built on flat (BASE flat) fails the same way.
        with self.assertRaisesRegex(fixture_patch.FixtureError, "fixture own_files: .*flat"):
            fixture_patch.write_host(self.SOURCE / "own_files", self.tmp / "own_files", bases)

    def test_a_fault_that_changes_nothing_is_refused(self):
        fixture = self.tmp / "made_up"
        fixture.mkdir()
        (fixture / "hostsum.change.cu").write_text(
            "/* made up */\n/* REPLACE */\n    return best;\n/* WITH */\n    return best;\n"
            "/* END */\n"
        )
        with self.assertRaisesRegex(fixture_patch.FixtureError, "fixture made_up: .*nothing"):
            fixture_patch.write_host(fixture, self.tmp / "out")
        (fixture / "hostsum.change.cu").write_text("/* made up */\nint stray;\n")
        with self.assertRaisesRegex(fixture_patch.FixtureError, "after the header comment"):
            fixture_patch.write_host(fixture, self.tmp / "out2")


class ForbiddenSymbols(unittest.TestCase):
    def test_every_real_solution_and_skeleton_is_clean(self):
        kit = discover.Kit.at(ROOT, build=BUILD)
        labs = discover.discover_labs(kit)
        self.assertTrue(labs)
        for lab in labs:
            if lab.missing_parts():
                continue  # not built (make LAB=...)
            symbols = forbidden.kit_symbols(lab)
            self.assertTrue(symbols.api, lab.id)
            for obj in (lab.solution_obj, BUILD / "student" / "obj" / f"{lab.id}.o"):
                if obj.exists():
                    self.assertEqual(forbidden.check_object(obj, lab, symbols, []), [], obj)

    def test_a_weak_reference_of_the_kit_is_api_or_kit_by_the_solution(self):
        # Lab 02's tests refer weakly to mergesort_sort_host_streams (its 2.5 suite runs only
        # where the lab is linked) and its driver to mergesort_streams_main: the first is the
        # lab's API (the solution defines it), the second the kit's, which a lab may not define.
        kit = discover.Kit.at(ROOT, build=BUILD)
        lab = next((lab for lab in discover.discover_labs(kit) if lab.id == "02-mergesort"), None)
        if lab is None or lab.missing_parts() or not lab.solution_obj.exists():
            self.skipTest("Lab 02 is not built")
        symbols = forbidden.kit_symbols(lab)
        self.assertIn("mergesort_sort_host_streams", symbols.api)
        self.assertNotIn("mergesort_streams_main", symbols.api)
        source = STATE["tmp"] / "defines_streams_main.cu"
        source.write_text(
            'extern "C" int mergesort_streams_main(int c, char **v) '
            "{ (void)c; (void)v; return 0; }\n"
        )
        obj = source.with_suffix(".o")
        env = dict(
            line.split("=", 1)
            for line in (BUILD / "grading.env").read_text().splitlines()
            if "=" in line and not line.startswith("#")
        )
        sh([env["NVCC"], "-c", str(source), "-o", str(obj)])
        found = forbidden.check_object(obj, lab, symbols, [])
        self.assertTrue(any("mergesort_streams_main" in f.why for f in found), found)


class RealKitBuilds(unittest.TestCase):
    """The real labs go through the grader's compile, include check and link in the sandbox
    (no GPU needed for that part): a reference solution that the grader cannot build would
    score 0 on every GPU, and the fixture labs include no header of common/."""

    def test_every_real_solution_compiles_and_links_in_the_sandbox(self):
        out = STATE["out"] / "real-solutions"
        command = [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--no-gpu-check",
            "--out",
            str(out),
            "--build",
            str(BUILD),
            str(ROOT / "solutions"),
        ]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=900)
        self.assertIn(proc.returncode, (1, 3), proc.stdout + proc.stderr)
        results = json.loads((out / "results.json").read_text())
        labs = results["extra_data"]["labs"]
        self.assertTrue(labs)
        for lab_id, lab in labs.items():
            self.assertNotIn(
                lab["status"],
                ("compile error", "link error", "forbidden"),
                f"{lab_id}: {lab.get('message')}",
            )
        speed = [t["output"] for t in results["tests"] if t["name"].endswith(" speed")]
        for text in speed:
            self.assertNotIn("linking the reference failed", text)


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-grader",
            "the grader's own tests (fixture kit, no GPU needed)",
            globals(),
            needs=["grading.env"],
        )
    )
