"""The grader's test files end the same way: run unittest, then one line that make check's
summary adds up (`LABEL: N passed, N failed, N skipped`), and an exit status."""
import sys
import unittest


def run_and_count(label, rest):
    """Runs the calling module's tests (unittest options in rest); returns the exit status."""
    program = unittest.main(module="__main__", argv=[sys.argv[0], "-v", *rest], exit=False)
    result = program.result
    failed = len(result.failures) + len(result.errors)
    print(f"{label}: {result.testsRun - failed - len(result.skipped)} passed, {failed} "
          f"failed, {len(result.skipped)} skipped")
    return 0 if result.wasSuccessful() else 1
