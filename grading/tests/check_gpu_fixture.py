#!/usr/bin/env python3
"""Grades one GPU fixture with grading/grade and checks what it expects (run_gpu_fixtures.sh).

usage: check_gpu_fixture.py [--build BUILD] [--out OUT] FIXTURE_DIR
Prints one line: `PASS name: ...` or `FAIL name: what was wrong`; exit 0 or 1 (2: it could
not grade at all, e.g. no GPU).

FIXTURE_DIR holds expect.json and the fixture's Lab 01 student file: an oddeven.cu of its own,
or a change.cu, the reference solution with one change (fixture_patch.py, beside this file,
says how it is written). Either way the file graded is written to OUT/submission/oddeven.cu
first; a change that no longer applies to the solution is a FAIL naming the fixture.
expect.json:
    about                      one line on what the fixture shows
    lab                        the lab it is a submission of (default 01-oddeven); its student
                               file and solution are that lab's
    grade                      grade this folder of the kit instead (e.g. "solutions", "labs")
    options                    more grading/grade options (e.g. ["--sanitize"])
    lab_status                 graded | forbidden | compile error | ...
    lab_message_has            text the lab's message must contain
    score_between              [low, high] for the lab's score
    max_score                  the lab's maximum
    tests                      {"SUITE/TEST": {"status": "passed"|"failed", "output_has": "..."}}
    suites_pass                suites whose every test must pass
    suites_zero                suites whose every test must fail (none of their points)
    some_test_output_matches   a regular expression some test's output must match
    speed_below_max / speed_full / speed_output_has
    speed_points               the speed points exactly (no speed entry counts as 0)
    sanitizer                  {"found": bool, "score": points, "output_has": [...]}; {} only
                               asks that the sanitizer ran
    in_class                   what is expected instead when the fixture is graded in a class
                               that shares the GPU (grading/tests/bench_class.py), e.g. a
                               memory hog stopped at its share; not checked here
    object_check               "clean" or "refused": what the grader's checks of the compiled
                               object (allowlist, forbidden symbols) find; checked without a GPU
                               by test_gpu_fixtures_build.py, not here
A key not listed here is an error (a misspelt expectation would be a check that never runs).
"""

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_LAB = "01-oddeven"
sys.path.insert(0, str(Path(__file__).resolve().parent))
import fixture_patch  # noqa: E402  (grading/tests/fixture_patch.py)

EXPECT_KEYS = {
    "about",
    "lab",
    "grade",
    "options",
    "lab_status",
    "lab_message_has",
    "score_between",
    "max_score",
    "tests",
    "suites_pass",
    "suites_zero",
    "some_test_output_matches",
    "speed_below_max",
    "speed_full",
    "speed_output_has",
    "speed_points",
    "sanitizer",
    "object_check",
    "in_class",
}


def check(expect, results):
    """The list of what is wrong (empty when the fixture behaved as expected)."""
    problems = []
    lab_id = expect.get("lab", DEFAULT_LAB)
    lab = results["extra_data"]["labs"].get(lab_id)
    if lab is None:
        return [f"no {lab_id} in results.json"]
    tests = {
        t["name"][len(lab_id) + 1 :]: t for t in results["tests"] if t["name"].startswith(lab_id)
    }
    if "lab_status" in expect and lab["status"] != expect["lab_status"]:
        problems.append(
            f"lab status {lab['status']!r}, expected {expect['lab_status']!r}"
            f" ({lab['message'][:200]})"
        )
    if "lab_message_has" in expect and expect["lab_message_has"] not in lab["message"]:
        problems.append(f"lab message lacks {expect['lab_message_has']!r}: {lab['message'][:200]}")
    if "score_between" in expect:
        low, high = expect["score_between"]
        if not low - 1e-6 <= lab["score"] <= high + 1e-6:
            problems.append(f"score {lab['score']}, expected {low} to {high}")
    if "max_score" in expect and abs(lab["max_score"] - expect["max_score"]) > 1e-6:
        problems.append(f"max score {lab['max_score']}, expected {expect['max_score']}")
    for name, want in expect.get("tests", {}).items():
        got = tests.get(name)
        if got is None:
            problems.append(f"no test {name}")
            continue
        if "status" in want and got["status"] != want["status"]:
            problems.append(f"{name}: {got['status']}, expected {want['status']}")
        if "output_has" in want and want["output_has"] not in got["output"]:
            problems.append(f"{name}: output lacks {want['output_has']!r}: {got['output'][:200]}")
    for suite in expect.get("suites_pass", []):
        bad = [n for n, t in tests.items() if n.startswith(suite + "/") and t["status"] != "passed"]
        if bad or not any(n.startswith(suite + "/") for n in tests):
            problems.append(
                f"suite {suite}: not all passed ({', '.join(bad) or 'no tests'}: "
                + (tests[bad[0]]["output"][:160] if bad else "")
                + ")"
            )
    for suite in expect.get("suites_zero", []):
        passed = [
            n for n, t in tests.items() if n.startswith(suite + "/") and t["status"] == "passed"
        ]
        if passed or not any(n.startswith(suite + "/") for n in tests):
            problems.append(
                f"suite {suite}: expected every test to fail, but "
                + (
                    f"{len(passed)} passed ({', '.join(passed[:3])})"
                    if passed
                    else "it has no tests"
                )
            )
    if "some_test_output_matches" in expect:
        pattern = re.compile(expect["some_test_output_matches"])
        if not any(pattern.search(t["output"]) for t in tests.values()):
            problems.append(f"no test output matches {pattern.pattern!r}")
    speed = tests.get("speed")
    if any(k in expect for k in ("speed_below_max", "speed_full", "speed_output_has")):
        if speed is None:
            problems.append("no speed entry in results.json")
        else:
            if expect.get("speed_below_max") and not speed["score"] < speed["max_score"]:
                problems.append(
                    f"speed {speed['score']}/{speed['max_score']}: expected a drop "
                    f"({speed['output']})"
                )
            if expect.get("speed_full") and not (
                speed["max_score"] > 0 and speed["score"] >= speed["max_score"]
            ):
                problems.append(
                    f"speed {speed['score']}/{speed['max_score']}: expected full "
                    f"({speed['output']})"
                )
            if "speed_output_has" in expect and expect["speed_output_has"] not in speed["output"]:
                problems.append(
                    f"speed output lacks {expect['speed_output_has']!r}: " f"{speed['output']}"
                )
    if "speed_points" in expect:
        points = speed["score"] if speed else 0
        if abs(points - expect["speed_points"]) > 1e-6:
            problems.append(
                f"speed {points} points, expected {expect['speed_points']}"
                + (f" ({speed['output'][:200]})" if speed else "")
            )
    if "sanitizer" in expect:
        want, got = expect["sanitizer"], tests.get("compute-sanitizer")
        if got is None:
            problems.append("no compute-sanitizer entry in results.json")
        else:
            found = got["status"] == "failed"
            if "found" in want and found != want["found"]:
                problems.append(
                    f"sanitizer found={found}, expected {want['found']}: " f"{got['output'][:300]}"
                )
            if "score" in want and abs(got["score"] - want["score"]) > 1e-6:
                problems.append(f"sanitizer score {got['score']}, expected {want['score']}")
            for text in want.get("output_has", []):
                if text not in got["output"]:
                    problems.append(f"sanitizer output lacks {text!r}: {got['output'][:300]}")
    return problems


def summary(results, lab_id=DEFAULT_LAB):
    lab = results["extra_data"]["labs"][lab_id]
    tests = {
        t["name"][len(lab_id) + 1 :]: t for t in results["tests"] if t["name"].startswith(lab_id)
    }
    words = [f"{lab['score']:g}/{lab['max_score']:g} ({lab['status']})"]
    failed = [n for n, t in tests.items() if t["status"] == "failed" and "/" in n]
    if failed:
        words.append(
            f"{len(failed)} tests failed, first {failed[0]}: "
            + " ".join(tests[failed[0]]["output"].split())[:100]
        )
    for extra in ("speed", "compute-sanitizer"):
        if extra in tests:
            words.append(f"{extra}: " + " ".join(tests[extra]["output"].split())[:140])
    return "; ".join(words)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixture")
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--out")
    args = parser.parse_args()
    fixture = Path(args.fixture).resolve()
    name = fixture.name
    expect = json.loads((fixture / "expect.json").read_text())
    unknown = sorted(set(expect) - EXPECT_KEYS)
    if unknown:
        print(f"FAIL {name}: expect.json has keys this checker does not know: {unknown}")
        return 1
    out = Path(args.out or Path(args.build) / "gpu-fixtures" / name)
    lab = expect.get("lab", DEFAULT_LAB)
    if "grade" in expect:
        submission = ROOT / expect["grade"]
    else:
        submission = out / "submission"
        try:
            fixture_patch.write(fixture, submission / fixture_patch.lab_student_file(lab))
        except fixture_patch.FixtureError as err:
            print(f"FAIL {name}: its student file cannot be written: {err}")
            return 1
    command = [
        sys.executable,
        str(ROOT / "grading" / "grade"),
        "-q",
        "--build",
        args.build,
        "--lab",
        lab,
        "--out",
        str(out),
        *expect.get("options", []),
        str(submission),
    ]
    start = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - start
    (out / "stdout.txt").parent.mkdir(parents=True, exist_ok=True)
    (out / "stdout.txt").write_text(proc.stdout + proc.stderr)
    results_path = out / "results.json"
    if proc.returncode not in (0, 1) or not results_path.exists():
        print(
            f"FAIL {name}: the grader exited {proc.returncode}: "
            + " ".join((proc.stderr or proc.stdout).split())[-300:]
        )
        return proc.returncode if proc.returncode in (2, 3) else 1
    results = json.loads(results_path.read_text())
    problems = check(expect, results)
    verdict = "PASS" if not problems else "FAIL"
    detail = "; ".join(problems) if problems else summary(results, lab)
    print(f"{verdict} {name} ({seconds:.0f} s): {detail}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
