#!/usr/bin/env python3
"""make check's proof that the autograder zip works (a zip of its own,
build/gradescope-check/autograder.zip, made without the course's settings: the course's
build/gradescope/autograder.zip is never written over), without a GPU: it unpacks
the zip into a fake /autograder tree under a temporary folder (AUTOGRADER_ROOT points the
scripts there), runs setup.sh (make deps, make; KIT_CHECK_ARCH, default sm_90, for speed),
puts the skeletons of every lab in submission/, runs run_autograder, and checks the
results/results.json it writes against the fields Gradescope's specification requires: a
score of 0 and an output saying that grading needs a GPU.
usage: grading/gradescope/check_autograder.py BUILD_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TOP_KEYS = {
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
TEST_KEYS = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}
results = []


def check(ok, what):
    results.append(bool(ok))
    print(f"{'ok  ' if ok else 'FAIL'} gradescope: {what}", flush=True)
    return ok


def spec_problems(data):
    """What in a results.json does not follow Gradescope's autograder specification."""
    problems = [f"unknown key {k}" for k in data if k not in TOP_KEYS]
    if "score" not in data and not all("score" in t for t in data.get("tests", [])):
        problems.append("no score: neither a top-level score nor a score in every test")
    if "score" in data and not isinstance(data["score"], (int, float)):
        problems.append("score is not a number")
    for key in ("visibility", "stdout_visibility"):
        if key in data and data[key] not in VISIBILITIES:
            problems.append(f"{key} {data[key]!r}")
    if not isinstance(data.get("tests", []), list):
        problems.append("tests is not a list")
    for test in data.get("tests", []):
        problems += [f"test key {k}" for k in test if k not in TEST_KEYS]
        if test.get("visibility", "visible") not in VISIBILITIES:
            problems.append(f"test visibility {test['visibility']!r}")
    return problems


def main():
    build = Path(sys.argv[1]).resolve()
    archive = build / "gradescope-check" / "autograder.zip"
    if not check(archive.is_file(), f"{archive} exists (make check-gradescope writes it)"):
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="kit-gradescope-check-"))
    os.chmod(tmp, 0o755)
    try:
        fake = tmp / "autograder"
        source = fake / "source"
        with zipfile.ZipFile(archive) as z:
            names = z.namelist()
            check(
                {"setup.sh", "run_autograder"} <= set(names),
                "setup.sh and run_autograder at " "the zip's root",
            )
            check(
                any(n.startswith("kit/solutions/") for n in names)
                and not any(n.startswith("kit/grading/tests/") for n in names),
                "the kit with solutions/, without the grader's own tests",
            )
            z.extractall(source)
            for info in z.infolist():  # zipfile does not restore modes; Gradescope's unzip does
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    os.chmod(source / info.filename, mode)
        # Without what the calling make passes down (MAKEFLAGS would carry BUILD=... along).
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BUILD", "LAB")
        }
        env.update(
            AUTOGRADER_ROOT=str(fake), KIT_CUDA_ARCH=os.environ.get("KIT_CHECK_ARCH", "sm_90")
        )
        setup = subprocess.run(
            ["bash", str(source / "setup.sh")],
            env=env,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if not check(setup.returncode == 0, "setup.sh builds the kit"):
            print((setup.stdout + setup.stderr)[-3000:])
            return 1
        submission = fake / "submission"
        submission.mkdir()
        for skeleton in sorted((ROOT / "labs").glob("[0-9][0-9]-*/*.cu")):
            shutil.copy(skeleton, submission)
        run = subprocess.run(
            [str(source / "run_autograder")], env=env, capture_output=True, text=True, timeout=3600
        )
        check(run.returncode == 0, "run_autograder exits 0 (Gradescope reads results.json)")
        result_file = fake / "results" / "results.json"
        if not check(result_file.is_file(), "results/results.json written"):
            print((run.stdout + run.stderr)[-3000:])
            return 1
        data = json.loads(result_file.read_text())
        problems = spec_problems(data)
        check(
            not problems,
            "results.json follows the specification" + (f": {problems}" if problems else ""),
        )
        check(data.get("score") == 0, f"score 0 (got {data.get('score')})")
        check(
            "needs an NVIDIA GPU" in data.get("output", ""),
            "the output says that grading needs a GPU",
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(results)
    print(f"check-gradescope: {passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
