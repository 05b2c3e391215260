"""Compiling a student's file and linking it with the kit's prebuilt parts.

The grader compiles one file per lab, the student's .cu, with nvcc and exactly the flags the
Makefile uses (it writes them to build/grading.env), in a folder the grader owns that holds
nothing but a copy of that file. Headers come from the kit (-I its labs/NN-name and common/),
never from the submission. Everything else is linked from what `make` built.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import GraderError
from .run import run_limited

COMPILE_TIME_LIMIT_S = 300.0
LINK_TIME_LIMIT_S = 120.0
MESSAGE_BYTES = 6000  # compiler output shown to the student (all of it is in the log)


@dataclass
class Toolchain:
    nvcc: str
    gencode: list
    nvccflags: list
    ldlibs: list
    lab_flags: dict  # lab id -> list of extra flags (NVCCFLAGS_NN-name)

    def flags_for(self, lab_id):
        if lab_id not in self.lab_flags:
            raise GraderError(f"build/grading.env has no flags for lab {lab_id}: run make")
        return self.lab_flags[lab_id]


def load_toolchain(path):
    """Reads build/grading.env: KEY=VALUE lines written by make."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        raise GraderError(f"{path} is missing: run make first (it writes how to compile)")
    values, lab_flags = {}, {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if key.startswith("NVCCFLAGS_"):
            lab_flags[key[len("NVCCFLAGS_"):]] = shlex.split(value)
        else:
            values[key] = value
    for key in ("NVCC", "GENCODE", "NVCCFLAGS"):
        if key not in values:
            raise GraderError(f"{path} has no {key}=: run make again")
    return Toolchain(
        nvcc=find_nvcc(values["NVCC"]),
        gencode=shlex.split(values["GENCODE"]),
        nvccflags=shlex.split(values["NVCCFLAGS"]),
        ldlibs=shlex.split(values.get("LDLIBS", "-lm")),
        lab_flags=lab_flags,
    )


def find_nvcc(written):
    """The nvcc make used, or, on a GPU node where it lives elsewhere, the one found here."""
    if written and os.access(written, os.X_OK):
        return written
    for candidate in (shutil.which("nvcc"),
                      os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise GraderError(f"nvcc not found (make used {written}): install the CUDA Toolkit "
                      "or put its bin/ on PATH")


@dataclass
class Step:
    """A compile or link: ok, what ran, what it said."""

    ok: bool
    command: list
    output: str
    message: str = ""  # for the student: what went wrong, short, paths made readable


def _readable(output, work_dir, kit_root):
    text = output.replace(str(work_dir) + "/", "").replace(str(kit_root) + "/", "")
    if len(text) > MESSAGE_BYTES:
        text = text[:MESSAGE_BYTES] + "\n[... more in the log ...]"
    return text.strip()


def _step(command, cwd, work_dir, kit_root, time_limit, what):
    result = run_limited(command, time_limit=time_limit, cwd=cwd)
    output = result.output
    if result.start_error:
        raise GraderError(f"cannot run {command[0]}: {result.start_error}")
    ok = result.exit_code == 0
    message = ""
    if result.timed_out:
        message = f"{what} took longer than {time_limit:g} s and was stopped"
    elif not ok:
        message = (_readable(output, work_dir, kit_root)
                   or f"{what} failed (exit {result.exit_code})")
    return Step(ok=ok and not result.timed_out, command=[str(c) for c in command],
                output=output, message=message)


def compile_student(tc, lab, source, obj, time_limit=COMPILE_TIME_LIMIT_S):
    """nvcc -c on the copy of the student's file; the -I paths are the kit's."""
    kit = lab.kit
    command = [tc.nvcc, *tc.nvccflags, *tc.flags_for(lab.id), f"-I{lab.dir}",
               f"-I{kit.root / 'common'}", "-c", str(source), "-o", str(obj)]
    return _step(command, kit.root, Path(source).parent, kit.root, time_limit, "compiling")


def link_tests(tc, lab, student_obj, out, time_limit=LINK_TIME_LIMIT_S):
    """The lab's test binary: the kit's runner and suites with the student's object."""
    kit = lab.kit
    command = [tc.nvcc, *tc.gencode, *tc.flags_for(lab.id), "-o", str(out), str(kit.runner_obj),
               str(kit.harness_obj), str(lab.test_obj), str(student_obj), str(kit.libkit),
               str(kit.libcunit), *tc.ldlibs]
    return _step(command, kit.root, Path(out).parent, kit.root, time_limit, "linking")


def link_timed_driver(tc, lab, lab_obj, out, time_limit=LINK_TIME_LIMIT_S):
    """The lab's driver with the grader's timed kit_driver_main (grading/timed_driver.c)."""
    kit = lab.kit
    command = [tc.nvcc, *tc.gencode, *tc.flags_for(lab.id), "-o", str(out), str(lab.main_obj),
               str(lab_obj), str(kit.timed_driver_obj), str(kit.baselines_obj),
               str(kit.libkit), *tc.ldlibs]
    return _step(command, kit.root, Path(out).parent, kit.root, time_limit, "linking the driver")
