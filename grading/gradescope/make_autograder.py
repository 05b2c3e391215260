#!/usr/bin/env python3
"""make gradescope: build/gradescope/autograder.zip, in Gradescope's autograder format.

At the zip's root: setup.sh (run once when Gradescope builds the image: `make deps`, `make`)
and run_autograder (run for each submission: the kit's grader on /autograder/submission,
results in /autograder/results/results.json). The kit itself is in kit/: every file of the
kit's Git checkout (or tree), solutions/ and hidden tests included (speed points are measured
against the reference), less the grader's own tests and fixtures, CI and build outputs. The
kit is built by setup.sh on the image, not here, so the zip holds no binaries.

usage: grading/gradescope/make_autograder.py BUILD_DIR
"""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

LEFT_OUT = ("grading/tests/", ".ci/", "build/")
HERE = Path(__file__).resolve().parent


def kit_files(root):
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                                check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    return sorted(p for p in listed if not p.startswith(LEFT_OUT) and (root / p).is_file())


def add(archive, source, name):
    info = zipfile.ZipInfo.from_file(source, name)
    info.external_attr = ((0o755 if os.access(source, os.X_OK) else 0o644) | 0o100000) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, Path(source).read_bytes())


def main():
    root = HERE.parent.parent
    out = Path(sys.argv[1]) / "gradescope"
    out.mkdir(parents=True, exist_ok=True)
    target = out / "autograder.zip"
    files = kit_files(root)
    with zipfile.ZipFile(target.with_suffix(".tmp"), "w") as archive:
        add(archive, HERE / "setup.sh", "setup.sh")
        add(archive, HERE / "run_autograder", "run_autograder")
        for path in files:
            add(archive, root / path, f"kit/{path}")
    target.with_suffix(".tmp").replace(target)
    print(f"gradescope: {target} ({target.stat().st_size // 1024} KiB, {len(files)} files of "
          "the kit): upload it as the assignment's autograder (docs/instructor.md)")


if __name__ == "__main__":
    main()
