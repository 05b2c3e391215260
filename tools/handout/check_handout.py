#!/usr/bin/env python3
"""make check's proof that the student package works without the instructor's half, on a
machine without a GPU. It unpacks BUILD/handout/NAME.tar.gz (make handout) into a fresh folder
and checks:
  - solutions/, the grader's own tests and hidden tests are not in it;
  - no file of it holds a line of a solution block (a line between BEGIN SOLUTION and
    SKELETON or END SOLUTION in solutions/, that the lab's skeleton does not also have);
  - in it, `make`, `make help`, `make docs` and `make clean` work; every lab's test binary
    lists its tests; `make grade` builds and stops with the no-GPU message (make exits 2, the
    grader 3); the grader run without the GPU check shows the student-mode speed line.
usage: tools/handout/check_handout.py BUILD_DIR [NAME]     (KIT_CHECK_ARCH: default sm_90)
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BLOCK = re.compile(r"/\*\s*BEGIN SOLUTION\b.*?\*/(.*?)/\*\s*(?:SKELETON|END SOLUTION)\s*\*/", re.S)
ARCH = os.environ.get("KIT_CHECK_ARCH", "sm_90")
results = []


def check(ok, what):
    results.append(ok)
    print(f"{'ok  ' if ok else 'FAIL'} handout: {what}", flush=True)
    return ok


def _lines(path):
    return {line.strip() for line in path.read_text(errors="replace").splitlines()}


def solution_lines():
    """Every line of a solution block, stripped, that says something about the solution: not
    a brace or a lone keyword, not a line the solution has outside its blocks too (what the
    skeleton keeps), and not an idiom of the kit's public code (common/, tests/, tools/,
    emulation/ but its fixtures, the labs' headers and drivers, the other labs' skeletons and
    given headers, and the lab's own given header unless it holds a whole block), such as
    `__syncthreads();` or a test's CPU reference of one phase. A skeleton, a given header or a handout that quotes a solution, or
    a solution file that travels, is caught."""
    public = set()
    for folder in ("common", "tests", "tools", "emulation"):
        for path in (ROOT / folder).rglob("*"):
            # (emulation/fixtures/ quote the solution and stay out of the package)
            if (
                path.is_file()
                and path.suffix in (".c", ".h", ".cu", ".cpp")
                and "fixtures" not in path.relative_to(ROOT).parts
            ):
                public |= _lines(path)
    for path in list((ROOT / "labs").glob("*/*.h")) + list((ROOT / "labs").glob("*/*_main.c")):
        public |= _lines(path)
    lines = {}
    # The lab's student files (NAME.cu and the bonus's NAME_bonus.cu), no other.
    solutions = [
        folder / f"{folder.name.split('-', 1)[1]}{part}.cu"
        for folder in sorted((ROOT / "solutions").glob("[0-9][0-9]-*"))
        for part in ("", "_bonus")
    ]
    for solution in solutions:
        if not solution.is_file():
            continue
        text = solution.read_text()
        others, given = set(), set()
        for skeleton in [*(ROOT / "labs").glob("*/*.cu"), *(ROOT / "labs").glob("*/*.cuh")]:
            if skeleton.parent.name != solution.parent.name:
                others |= _lines(skeleton)
            elif skeleton.suffix == ".cuh":
                given |= _lines(skeleton)
        # Lines outside the blocks of either of the lab's files are what the skeletons show.
        outside = {
            line.strip()
            for sibling in solutions
            if sibling.parent == solution.parent and sibling.is_file()
            for line in BLOCK.sub("", sibling.read_text()).splitlines()
        }
        for block in BLOCK.findall(text):
            telling = [
                line.strip()
                for line in block.splitlines()
                if len(re.sub(r"\W", "", line)) >= 6
                and line.strip() not in public | others | outside
            ]
            # The lab's own given header is public code: a line it shares with a block (a
            # loop over RADIX_ITEMS_PER_THREAD, say) is an idiom, unless it holds the whole block.
            copied = len(telling) >= 3 and all(line in given for line in telling)
            for line in telling:
                if copied or line not in given:
                    lines[line] = f"{solution.relative_to(ROOT)}"
    return lines


def fresh_env():
    """The environment without what the calling make passes down (its command line, such as
    BUILD=..., travels in MAKEFLAGS and in the environment into the package's make)."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BUILD", "LAB")
    }


def make(kit, *args, expect=0):
    proc = subprocess.run(
        ["make", "--no-print-directory", f"CUDA_ARCH={ARCH}", *args],
        cwd=kit,
        capture_output=True,
        text=True,
        timeout=1800,
        env=fresh_env(),
    )
    out = proc.stdout + proc.stderr
    if proc.returncode != expect:
        print(out[-3000:])
    return proc.returncode == expect, out


def main():
    build = Path(sys.argv[1]).resolve()
    name = sys.argv[2] if len(sys.argv) > 2 else "gpu-sorting-kit"
    tarball = build / "handout" / f"{name}.tar.gz"
    if not check(tarball.is_file(), f"{tarball} exists (make handout)"):
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="kit-handout-check-"))
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(tmp, filter="data")
        kit = tmp / name
        files = [p for p in kit.rglob("*") if p.is_file()]
        relative = [str(p.relative_to(kit)) for p in files]
        check(
            not [
                r
                for r in relative
                if r.startswith(("solutions/", "grading/tests/", "tests/hidden/"))
            ],
            "no solutions/, grading/tests/ or tests/hidden/",
        )
        secret = solution_lines()
        leaks = []
        for path in files:
            if path.suffix in (
                ".png",
                ".svg",
                ".woff",
                ".otf",
                ".eot",
                ".ttf",
                ".gz",
            ) or "handout-html/mathjax" in str(path):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if line.strip() in secret:
                    leaks.append(
                        f"{path.relative_to(kit)}:{number}: {line.strip()} "
                        f"(from {secret[line.strip()]})"
                    )
        for leak in leaks[:10]:
            print("     " + leak)
        check(
            not leaks and len(secret) > 0,
            f"no line of the {len(secret)} lines of solution "
            f"blocks is in the package's {len(files)} files",
        )
        check(make(kit, "help")[0], "make help")
        check(make(kit, "-j2", "all")[0], f"make (CUDA_ARCH={ARCH})")
        ok, out = make(kit, "ptxas", "LAB=03")
        named = re.search(r"^bitonic_merge_shared_kernel\(.*\n    used \d+ registers", out, re.M)
        check(ok and named is not None, "make ptxas LAB=03 names each kernel with its registers")
        labs = sorted(p.name for p in (kit / "labs").iterdir() if re.match(r"\d\d-", p.name))
        for lab in labs:
            binary = kit / "build" / "student" / f"test_{lab.replace('-', '_')}"
            proc = subprocess.run([binary, "-l"], capture_output=True, text=True)
            check(
                proc.returncode == 0 and proc.stdout.count("\n") > 0,
                f"{binary.name} -l lists {proc.stdout.count(chr(10))} tests",
            )
        ok, out = make(kit, "grade", expect=2)
        check(
            ok and "grading needs an NVIDIA GPU" in out,
            "make grade builds and stops with the no-GPU message (make 2, grader 3)",
        )
        proc = subprocess.run(
            [
                sys.executable,
                "grading/grade",
                "--no-gpu-check",
                "--out",
                str(tmp / "graded"),
                "labs",
            ],
            cwd=kit,
            capture_output=True,
            text=True,
            timeout=1800,
            env=fresh_env(),
        )
        check(
            "speed: measured when your instructor grades" in proc.stdout,
            "without solutions/ the table says speed is measured when the instructor grades",
        )
        # The emulation from the package, with no CUDA Toolkit anywhere it could look: the
        # skeleton's [emulate] tests run and fail (make 2, the table printed, no crash).
        no_cuda = {**fresh_env(), "PATH": "/usr/bin:/bin"}
        proc = subprocess.run(
            ["make", "--no-print-directory", "emulate", "LAB=01", "CUDA_HOME=/nonexistent"],
            cwd=kit,
            capture_output=True,
            text=True,
            timeout=1800,
            env=no_cuda,
        )
        out = proc.stdout + proc.stderr
        check(
            proc.returncode == 2 and "emulated: 0 passed" in out and "nvcc" not in out,
            "make emulate LAB=01 without the CUDA Toolkit: the skeleton's emulated tests "
            "run and fail",
        )
        check(
            not list(kit.glob("emulation/fixtures")),
            "no emulation/fixtures/ (they quote " "the solution)",
        )
        check(make(kit, "docs")[0], "make docs")
        ok, _ = make(kit, "clean")
        check(ok and not (kit / "build").exists(), "make clean")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(results)
    print(f"check-handout: {passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
