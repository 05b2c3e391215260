#!/usr/bin/env python3
"""Tests of the grader's GPU fixtures (grading/tests/fixtures/gpu/) that need no GPU.

usage: python3 grading/tests/test_gpu_fixtures_build.py [--build BUILD] [unittest options, names]

The fixtures themselves are graded on a GPU (run_gpu_fixtures.sh); here each one's student
file is written (fixture_patch.py: a change.cu applied to the reference solution, or
the fixture's own oddeven.cu) and compiled with nvcc -c and the lab's flags from
BUILD/grading.env, for sm_90 alone, as the grader compiles a student's file. Where a fixture's
expect.json says what the grader's object checks find ("object_check": "clean" or
"refused"), the grader's own check (kitgrader/forbidden.py) runs on the object. And the
writer must fail loudly, naming the fixture, when the solution changes under a change.cu: an
anchor gone, a marker moved. It needs `make` first (grading.env, the kit's objects, the
verdict binary); about 20 s, most of it nvcc.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
import check_gpu_fixture  # noqa: E402  (grading/tests/check_gpu_fixture.py)
import fixture_patch  # noqa: E402  (grading/tests/fixture_patch.py)
from fixture_patch import FixtureError  # noqa: E402
from testkit import ROOT, TESTS  # noqa: E402

from kitgrader import build, discover, forbidden  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
FIXTURES = TESTS / "fixtures" / "gpu"
ARCH = "sm_90"  # one architecture is enough to know the file compiles
COMPILE_TIMEOUT_S = 300


def fixtures():
    return sorted(d for d in FIXTURES.iterdir() if (d / "expect.json").is_file())


def expectation(fixture):
    return json.loads((fixture / "expect.json").read_text())


def student_file(fixture):
    """The text the fixture grades: a folder of the kit (its "grade"), or fixture_patch's."""
    grade = expectation(fixture).get("grade")
    lab = fixture_patch.fixture_lab(fixture)
    if grade:
        return (ROOT / grade / lab / fixture_patch.lab_student_file(lab)).read_text()
    return fixture_patch.source(fixture)


def changed_fixtures():
    """The fixtures written as a change of the solution itself (no BASE)."""
    return [
        d
        for d in fixtures()
        if (d / fixture_patch.CHANGE_FILE).is_file()
        and "/* BASE " not in (d / fixture_patch.CHANGE_FILE).read_text()
    ]


class Built(unittest.TestCase):
    """Every fixture written and compiled once, in parallel, for the tests below."""

    @classmethod
    def setUpClass(cls):
        cls.top = Path(tempfile.mkdtemp(prefix="gpu-fixtures-", dir=BUILD))
        toolchain = build.load_toolchain(BUILD / "grading.env").for_gpu(ARCH)

        def compile_one(fixture):
            lab = fixture_patch.fixture_lab(fixture)
            flags = [*toolchain.nvccflags, *toolchain.flags_for(lab), f"-Ilabs/{lab}", "-Icommon"]
            folder = cls.top / fixture.name
            folder.mkdir()
            source = folder / fixture_patch.lab_student_file(lab)
            try:
                source.write_text(student_file(fixture))
            except FixtureError as err:
                return fixture.name, None, f"not written: {err}"
            obj = folder / "student.o"
            proc = subprocess.run(
                [toolchain.nvcc, *flags, "-c", str(source), "-o", str(obj)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=COMPILE_TIMEOUT_S,
            )
            return fixture.name, obj if proc.returncode == 0 else None, proc.stdout + proc.stderr

        with ThreadPoolExecutor(max_workers=4) as pool:
            cls.results = {
                name: (obj, output) for name, obj, output in pool.map(compile_one, fixtures())
            }

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.top, ignore_errors=True)


class Compiles(Built):
    def test_every_fixture_is_known_to_the_runner(self):
        self.assertGreaterEqual(len(fixtures()), 15)
        for fixture in fixtures():
            with self.subTest(fixture.name):
                expect = expectation(fixture)
                self.assertIn("about", expect)
                self.assertEqual(set(expect) - check_gpu_fixture.EXPECT_KEYS, set())
                own = fixture_patch.lab_student_file(fixture_patch.fixture_lab(fixture))
                sources = [name for name in (own, "change.cu") if (fixture / name).is_file()]
                self.assertEqual(
                    len(sources) + ("grade" in expect),
                    1,
                    f'one student file: {own}, change.cu or "grade"',
                )

    def test_every_fixture_compiles(self):
        for fixture in fixtures():
            with self.subTest(fixture.name):
                obj, output = self.results[fixture.name]
                self.assertIsNotNone(obj, f"{fixture.name} does not compile:\n{output[-3000:]}")

    def test_object_checks(self):
        """What the grader's allowlist and symbol checks find, where expect.json says."""
        kit = discover.Kit.at(ROOT, BUILD)
        labs = {lab.id: lab for lab in discover.discover_labs(kit)}
        symbols = {}
        checked = 0
        for fixture in fixtures():
            want = expectation(fixture).get("object_check")
            obj = self.results[fixture.name][0]
            if want is None or obj is None:
                continue
            lab = labs[fixture_patch.fixture_lab(fixture)]
            if lab.id not in symbols:
                symbols[lab.id] = forbidden.kit_symbols(lab)
            with self.subTest(fixture.name):
                self.assertIn(want, ("clean", "refused"))
                findings = forbidden.check_object(obj, lab, symbols[lab.id], lab.rubric.forbidden)
                if want == "clean":
                    self.assertEqual([str(f) for f in findings], [])
                else:
                    self.assertTrue(findings, "expected the object checks to refuse it")
                checked += 1
        self.assertGreater(checked, 0)


class Changes(unittest.TestCase):
    """fixture_patch.py: what it writes, and that it fails loudly."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="fixture-patch-", dir=BUILD))
        self.solution = fixture_patch.SOLUTION.read_text()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def solution_with(self, old, new):
        """A copy of the solution with one piece of text changed; its path."""
        self.assertEqual(self.solution.count(old), 1, old)
        path = self.tmp / "oddeven.cu"
        path.write_text(self.solution.replace(old, new))
        return path

    def assertFailsNaming(self, fixture, solution, *words):
        with self.assertRaises(FixtureError) as caught:
            fixture_patch.source(FIXTURES / fixture, solution)
        message = str(caught.exception)
        for word in (f"fixture {fixture}",) + words:
            self.assertIn(word, message)

    def test_changed_fixtures_are_the_solution_changed(self):
        self.assertGreaterEqual(len(changed_fixtures()), 8)
        strip = fixture_patch.marked_lines(self.solution, "solution")
        plain = "".join(line.text for line in fixture_patch.without_file_comment(strip))
        for fixture in changed_fixtures():
            with self.subTest(fixture.name):
                text = fixture_patch.source(fixture)
                for marker in ("BEGIN SOLUTION", "END SOLUTION", "/* SKELETON */", "/* END */"):
                    self.assertNotIn(marker, text)
                self.assertNotIn(plain, text)  # something changed
                self.assertTrue(text.startswith("/*"))

    def test_a_moved_marker_fails_naming_the_fixture(self):
        # 1.2's BEGIN moved below its loop: slow's anchor is now outside TODO 1.2's block.
        begin = "    /* BEGIN SOLUTION 1.2 run phases 0 .. n-1, stopping at the first error */\n"
        loop = (
            "    for (size_t phase = 0; phase < n; phase++) {\n"
            "        CUDA_TRY(oddeven_phase(d_keys, n, (unsigned)phase));\n    }\n"
        )
        moved = self.solution_with(begin + loop, loop + begin)
        self.assertFailsNaming("slow", moved, "IN 1.2", "did a marker move?")

    def test_a_vanished_anchor_fails_naming_the_fixture(self):
        comment = "/* The next phase reads keys this phase wrote in other threads' pairs. */\n"
        gone = self.solution_with(" " * 8 + comment, "")
        self.assertFailsNaming("missing_sync", gone, "found 0 times")

    def test_every_anchor_is_checked(self):
        """Changing the first line of any edit's anchor in the solution fails that fixture."""
        for fixture in changed_fixtures():
            _, _, edits = fixture_patch.parse_change(
                (fixture / fixture_patch.CHANGE_FILE).read_text(), fixture.name
            )
            for edit in edits:
                line = edit.anchor[0]
                if self.solution.count(line) != 1:
                    continue  # an anchor in lines an earlier edit wrote, or a repeated line
                with self.subTest(f"{fixture.name}:{edit.at}"):
                    self.assertFailsNaming(
                        fixture.name, self.solution_with(line, line.rstrip() + " /**/\n")
                    )

    def write_fixture(self, change):
        folder = self.tmp / "made_up"
        folder.mkdir(exist_ok=True)
        (folder / fixture_patch.CHANGE_FILE).write_text(change)
        return folder

    def test_a_change_that_changes_nothing_is_refused(self):
        same = (
            "/* REPLACE */\n#define ODDEVEN_BLOCK_THREADS 256\n/* WITH */\n"
            "#define ODDEVEN_BLOCK_THREADS 256\n/* END */\n"
        )
        with self.assertRaisesRegex(FixtureError, "fixture made_up: .*changes nothing"):
            fixture_patch.source(self.write_fixture("/* made up */\n" + same))

    def test_a_snippet_is_pasted_where_it_stands(self):
        snippet = (fixture_patch.SNIPPETS / "driver_copies.cu").read_text()
        text = fixture_patch.source(
            self.write_fixture(
                '/* x */\n/* BEFORE */\n#include "oddeven.h"\n/* INSERT */\nint before;\n'
                "/* SNIPPET driver_copies */\nint after;\n/* END */\n"
            )
        )
        self.assertIn("int before;\n" + snippet + 'int after;\n#include "oddeven.h"', text)

    def test_a_malformed_change_is_refused(self):
        for change, words in [
            ("/* x */\n/* REPLACE */\nx\n/* END */\n", "END where WITH was expected"),
            ("/* x */\n/* AFTER IN 1.1 */\nx\n/* INSERT */\ny\n", "has no END"),
            ("/* x */\nint stray;\n/* REPLACE */\n", "no edit|has no WITH"),
            ("int no_header;\n/* AFTER */\nx\n/* INSERT */\ny\n/* END */\n", "header comment"),
            (
                "/* x */\n/* AFTER IN 9.9 */\nx\n/* INSERT */\ny\n/* END */\n",
                "no block of TODO 9.9",
            ),
            (
                "/* x */\n/* REPLACE */\n/* SNIPPET driver_copies */\n/* WITH */\ny\n/* END */\n",
                "SNIPPET only inside an INSERT or WITH",
            ),
            (
                "/* x */\n/* AFTER */\nx\n/* INSERT */\n/* SNIPPET no_such */\n/* END */\n",
                "no snippet",
            ),
        ]:
            with self.subTest(change):
                with self.assertRaisesRegex(FixtureError, f"fixture made_up: .*({words})"):
                    fixture_patch.source(self.write_fixture(change))

    def test_the_command_line_fails_with_status_2(self):
        moved = self.solution_with(
            "#define ODDEVEN_BLOCK_THREADS 256\n", "#define ODDEVEN_BLOCK_THREADS 255\n"
        )
        proc = subprocess.run(
            [
                sys.executable,
                str(TESTS / "fixture_patch.py"),
                str(FIXTURES / "variation"),
                "--solution",
                str(moved),
            ],
            capture_output=True,
            text=True,
        )
        self.assertEqual(proc.returncode, 2)
        self.assertIn("fixture variation", proc.stderr)
        self.assertEqual(proc.stdout, "")


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "test_gpu_fixtures_build",
            "the grader's GPU fixtures, written and compiled",
            globals(),
            needs=["grading.env"],
        )
    )
