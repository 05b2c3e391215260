#!/usr/bin/env python3
"""make gradescope: build/gradescope/autograder.zip, in Gradescope's autograder format.

At the zip's root: setup.sh (run once when Gradescope builds the image: `make deps`, `make`)
and run_autograder (run for each submission: the kit's grader on /autograder/submission,
results in /autograder/results/results.json). The kit itself is in kit/: every file of the
kit's Git checkout (or tree), solutions/ and hidden tests included (speed points are measured
against the reference), less the grader's own tests and fixtures, CI and build outputs. The
kit is built by setup.sh on the image, not here, so the zip holds no binaries.

The course's settings (gradescope.conf.example: the GPU host of the bridge, its key and pinned
host key, the sandbox, the architecture) go in config/ when GRADESCOPE_CONFIG names the file:
the file itself, and the files it names beside it.

usage: [GRADESCOPE_CONFIG=FILE] grading/gradescope/make_autograder.py BUILD_DIR [FOLDER]
(FOLDER: where autograder.zip goes, BUILD_DIR/gradescope by default; make check writes its own
test zip in BUILD_DIR/gradescope-check, never over the course's)
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
        listed = subprocess.run(
            ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        listed = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    return sorted(p for p in listed if not p.startswith(LEFT_OUT) and (root / p).is_file())


def add(archive, source, name, mode=None):
    """`source` as `name` in the zip: mode 755 or 644 (as executable or not), or `mode`."""
    info = zipfile.ZipInfo.from_file(source, name)
    if mode is None:
        mode = 0o755 if os.access(source, os.X_OK) else 0o644
    info.external_attr = (mode | 0o100000) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, Path(source).read_bytes())


def config_files(conf):
    """(source, name in the zip, mode) of the course's settings and the files they name (the
    private key readable by its owner alone); exits with a sentence when one is missing."""
    conf = Path(conf).resolve()
    if not conf.is_file():
        sys.exit(f"gradescope: GRADESCOPE_CONFIG={conf}: no such file")
    files = [(conf, "config/gradescope.conf", 0o644)]
    settings = dict(
        line.split("=", 1)
        for line in conf.read_text().splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    )
    if settings.get("GPU_HOST", "").strip():
        for name in ("KEY_FILE", "KNOWN_HOSTS_FILE"):
            value = settings.get(name, "").strip()
            path = conf.parent / value
            if not value or not path.is_file():
                sys.exit(f"gradescope: {conf}: {name}={value}: no such file beside it")
            files.append(
                (path, f"config/{Path(value).name}", 0o600 if name == "KEY_FILE" else 0o644)
            )
    return files


def main():
    root = HERE.parent.parent
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(sys.argv[1]) / "gradescope"
    out.mkdir(parents=True, exist_ok=True)
    target = out / "autograder.zip"
    files = kit_files(root)
    conf = os.environ.get("GRADESCOPE_CONFIG")
    extra = config_files(conf) if conf else []
    with zipfile.ZipFile(target.with_suffix(".tmp"), "w") as archive:
        add(archive, HERE / "setup.sh", "setup.sh")
        add(archive, HERE / "run_autograder", "run_autograder")
        for path in files:
            add(archive, root / path, f"kit/{path}")
        for source, name, mode in extra:
            add(archive, source, name, mode)
    target.with_suffix(".tmp").replace(target)
    print(
        f"gradescope: {target} ({target.stat().st_size // 1024} KiB, {len(files)} files of "
        "the kit"
        + (
            f", the course's settings from {conf}"
            if conf
            else ", no course settings: GRADESCOPE_CONFIG=FILE adds them"
        )
        + (
            "): make check's own test zip (the one to upload is make gradescope's)"
            if len(sys.argv) > 2
            else "): upload it as the assignment's autograder (docs/instructor.md)"
        )
    )


if __name__ == "__main__":
    main()
