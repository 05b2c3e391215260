"""The grader's test files start and end the same way: the --build folder, then unittest, then
one line that make check's summary adds up (`LABEL: N passed, N failed, N skipped`), and an
exit status."""
import argparse
import sys
import unittest
from pathlib import Path


def build_folder(root):
    """The --build folder (default ROOT/build, resolved) and the other arguments, unittest's."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--build", default=str(Path(root) / "build"))
    args, rest = parser.parse_known_args()
    return Path(args.build).resolve(), rest


def run_and_count(label, rest):
    """Runs the calling module's tests (unittest options in rest); returns the exit status."""
    program = unittest.main(module="__main__", argv=[sys.argv[0], "-v", *rest], exit=False)
    result = program.result
    failed = len(result.failures) + len(result.errors)
    print(f"{label}: {result.testsRun - failed - len(result.skipped)} passed, {failed} "
          f"failed, {len(result.skipped)} skipped")
    return 0 if result.wasSuccessful() else 1
