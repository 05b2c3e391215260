"""What the grader's test files share: where the kit is, the --build folder, the host fixtures
as a student hands them in, and how a run ends (unittest, then one line that make check's
summary adds up, `LABEL: N passed, N failed, N skipped`, and an exit status).

A test file starts with

    sys.dont_write_bytecode = True  # no __pycache__ in the kit
    import testkit  # noqa: E402  (grading/tests/testkit.py)
    from testkit import GRADING, ROOT, TESTS  # noqa: E402

and can then import kitgrader (GRADING is on sys.path)."""
import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
import unittest
from pathlib import Path

import fixture_patch

TESTS = Path(__file__).resolve().parent
GRADING = TESTS.parent
ROOT = GRADING.parent
FIXTURE_KIT = TESTS / "fixture_kit"
if str(GRADING) not in sys.path:
    sys.path.insert(0, str(GRADING))

_HOSTS = {}  # the host fixtures' folder, written once


def host_fixtures():
    """A folder holding every host fixture (grading/tests/fixtures/host/) as the submission it
    stands for (fixture_patch.write_hosts: each NAME.change.cu written as NAME.cu), written
    once per process in a temporary folder, removed at exit unless KIT_KEEP_TEST_OUTPUT is
    set."""
    if "folder" not in _HOSTS:
        top = Path(tempfile.mkdtemp(prefix="kit-host-fixtures-"))
        top.chmod(0o755)  # the sandbox's uids must reach a submission, as in the kit's tree
        if not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
            atexit.register(shutil.rmtree, top, ignore_errors=True)
        _HOSTS["folder"] = fixture_patch.write_hosts(top / "host")
    return _HOSTS["folder"]


def build_folder(root=ROOT):
    """The --build folder (default ROOT/build, resolved) and the other arguments, unittest's."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--build", default=str(Path(root) / "build"))
    args, rest = parser.parse_known_args()
    return Path(args.build).resolve(), rest


class _TimedResult(unittest.TextTestResult):
    """unittest's verbose result, which also keeps each test's wall time (the slowest are
    named at the end: where make check's minutes go)."""

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.times = getattr(self, "times", [])
        self.times.append((time.monotonic() - self._started, test.id().split(".", 1)[-1]))


def run_and_count(label, rest):
    """Runs the calling module's tests (unittest options in rest); returns the exit status."""
    runner = unittest.TextTestRunner(resultclass=_TimedResult, verbosity=2)
    program = unittest.main(
        module="__main__", argv=[sys.argv[0], "-v", *rest], testRunner=runner, exit=False
    )
    result = program.result
    failed = len(result.failures) + len(result.errors)
    times = sorted(getattr(result, "times", []), reverse=True)
    if times:
        total = sum(seconds for seconds, _ in times)
        slowest = ", ".join(f"{name} {seconds:.0f} s" for seconds, name in times[:3])
        print(f"{label}: {total:.0f} s in all; slowest: {slowest}")
    print(
        f"{label}: {result.testsRun - failed - len(result.skipped)} passed, {failed} "
        f"failed, {len(result.skipped)} skipped"
    )
    return 0 if result.wasSuccessful() else 1


def main(label, about, module, needs=()):
    """What each grader test script's main() does: reads --build into the script's BUILD
    (module: its globals()), stops with exit 2 when a part it needs (a path in the build
    folder) is not built, says what it tests, runs its tests and counts them."""
    build, rest = build_folder()
    module["BUILD"] = build
    for part in needs:
        if not os.access(build / part, os.R_OK):
            print(f"{label}: {build / part} is missing: run make first", file=sys.stderr)
            return 2
    print(f"{label}: {about}", flush=True)
    return run_and_count(label, rest)
