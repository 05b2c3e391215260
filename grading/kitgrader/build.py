"""Compiling a student's file, linking it into the lab's executor, and the executor's command.

The grader compiles one file per lab, the student's .cu, with nvcc and exactly the flags the
Makefile uses (it writes them to build/grading.env), in the sandbox (sandbox.py), in a folder
the grader owns that holds nothing but a copy of that file. The sandbox sees the kit's
labs/NN-name/ and common/ (read-only, as /kit/...), the system and CUDA under /usr, and that
folder (as /work): not solutions/, the tests, the grader or any other submission. Before the
compile, nvcc lists the headers the file pulls in, and a header from anywhere else refuses it
(includes.py).
The compile keeps what its preprocessor made of the file (nvcc -keep), and the grader scans
that, what the assembler is given, for incbin and its kin before it takes the object.

The student's object is linked, also in the sandbox, into the lab's executor (grading/runtime/remote.h):
the kit's dispatcher and the lab's call table, with the copy functions wrapped so the
dispatcher counts what reaches the host. The verdict binaries hold no student code: make built
them (build/grading/).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import GraderError
from . import includes, sandbox
from .run import run_limited

COMPILE_TIME_LIMIT_S = 300.0
LINK_TIME_LIMIT_S = 120.0
GIB = 1 << 30
# A compile may use this much memory, write files this big: enough for nvcc on a lab file for
# every architecture; a compile-time bomb (an include of /dev/zero, a recursion) hits them.
COMPILE_LIMITS = sandbox.Limits(
    cpu_s=COMPILE_TIME_LIMIT_S,
    address_space=8 * GIB,
    file_size=512 << 20,
    processes=256,
    open_files=1024,
    tmp_size=2 * GIB,
)
# The executor: CUDA needs address space, so heap and writable memory are limited instead.
RUN_LIMITS = dict(
    data=16 * GIB, file_size=64 << 20, processes=512, open_files=4096, tmp_size=256 << 20
)
# Copies the dispatcher counts (grading/runtime/remote_executor.c): every function the allowlist lets a
# lab file use to copy from the device to the host.
WRAPPED_COPIES = ("cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyFromSymbol")
# The allocations, counted against the slot's share of a shared GPU (memory_budget.c).
WRAPPED_ALLOCATIONS = ("cudaMalloc", "cudaFree", "cudaDeviceSetLimit")
INSIDE_KIT = "/kit"  # the kit's read-only parts, in the sandbox
INSIDE_WORK = "/work"  # the lab's work folder, in the sandbox
INSIDE_EXECUTOR = "/lab/executor"
MESSAGE_BYTES = 6000  # compiler output shown to the student (all of it is in the log)


@dataclass
class Toolchain:
    nvcc: str
    gencode: list
    nvccflags: list
    ldlibs: list
    lab_flags: dict  # lab id -> list of extra flags (NVCCFLAGS_NN-name)

    def for_gpu(self, sm):
        """The same toolchain building for one architecture (e.g. "sm_90"): the grader knows
        the GPU it grades on, so a student's file is compiled once, not once per architecture
        of the fat list make uses (several times faster). The reference's object, built by
        make, holds code for that architecture too, so speed compares like with like."""
        if not re.fullmatch(r"sm_[0-9]+[a-z]?", sm or ""):
            return self
        one = ["-gencode", f"arch=compute_{sm[3:]},code={sm}"]
        return Toolchain(
            nvcc=self.nvcc,
            gencode=one,
            nvccflags=_without_architectures(self.nvccflags) + one,
            ldlibs=self.ldlibs,
            lab_flags=self.lab_flags,
        )

    def flags_for(self, lab_id):
        if lab_id not in self.lab_flags:
            raise GraderError(f"build/grading.env has no flags for lab {lab_id}: run make")
        return self.lab_flags[lab_id]


def _without_architectures(flags):
    """nvcc flags less the ones that choose GPU architectures (-gencode X, -arch=X, ...)."""
    kept, skip = [], False
    for flag in flags:
        if skip:
            skip = False
        elif flag in (
            "-gencode",
            "--generate-code",
            "-arch",
            "--gpu-architecture",
            "-code",
            "--gpu-code",
        ):
            skip = True
        elif not flag.startswith(
            (
                "-gencode=",
                "--generate-code=",
                "-arch=",
                "--gpu-architecture=",
                "-code=",
                "--gpu-code=",
            )
        ):
            kept.append(flag)
    return kept


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
            lab_flags[key[len("NVCCFLAGS_") :]] = shlex.split(value)
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
    for candidate in (
        shutil.which("nvcc"),
        os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise GraderError(
        f"nvcc not found (make used {written}): install the CUDA Toolkit " "or put its bin/ on PATH"
    )


@dataclass
class Step:
    """A compile or link: ok, what ran, what it said."""

    ok: bool
    command: list
    output: str
    message: str = ""  # for the student: what went wrong, short, paths made readable
    refused: bool = False  # the file broke an include rule (not a compile error)


def _readable(output, work_dir, kit_root):
    text = output
    for folder in (work_dir, kit_root, INSIDE_WORK, INSIDE_KIT):
        text = text.replace(str(folder) + "/", "")
    if len(text) > MESSAGE_BYTES:
        text = text[:MESSAGE_BYTES] + "\n[... more in the log ...]"
    return text.strip()


def sandbox_setup_failure(result):
    """The launcher's or bubblewrap's own words when a sandboxed step never started, else "".

    The launcher (outer or inner) exits 125 after one `sandbox_exec: ...` line; bubblewrap
    exits 1 after one `bwrap: ...` line (no namespace, no memory, EAGAIN, a bind that
    failed) before anything it starts could print. Nothing a compile of the student's file
    prints starts so (compilers name the file first), so neither can be mistaken for, or
    passed off as, a compile error."""
    if result.timed_out or result.flooded or result.signal is not None:
        return ""
    lines = [line.strip() for line in result.output.strip().splitlines() if line.strip()]
    if result.exit_code == sandbox.EXIT_SANDBOX:
        said = [line for line in lines if line.startswith("sandbox_exec: ")]
        return said[-1] if said else "sandbox_exec: exit status 125"
    if result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("bwrap: "):
        return lines[0]
    return ""


def sandbox_words(output):
    """Whether a line of a test's output starts as the launcher's or bubblewrap's do (the
    executor's setup failed, or the student's code prints so: check_starts() tells)."""
    return any(line.startswith(("sandbox_exec: ", "bwrap: ")) for line in output.splitlines())


def _step(command, cwd, work_dir, kit_root, time_limit, what):
    result = run_limited(command, time_limit=time_limit, cwd=cwd)
    output = result.output
    if result.start_error:
        raise GraderError(f"cannot run {command[0]}: {result.start_error}")
    failure = sandbox_setup_failure(result)
    if failure:
        raise sandbox.SandboxFailed(f"the sandbox for {what} could not start: {failure}")
    ok = result.exit_code == 0
    message = ""
    if result.timed_out:
        message = f"{what} took longer than {time_limit:g} s and was stopped"
    elif not ok:
        message = (
            _readable(output, work_dir, kit_root) or f"{what} failed (exit {result.exit_code})"
        )
    return Step(
        ok=ok and not result.timed_out,
        command=[str(c) for c in command],
        output=output,
        message=message,
    )


def _inside(iso, outside, inside):
    """A path as the sandboxed command sees it (fallback kinds see the real one)."""
    return inside if iso.kind.startswith("bwrap") else str(outside)


def _cuda_binds(tc):
    """The CUDA Toolkit, when it lives outside /usr (bound where it is)."""
    home = Path(tc.nvcc).resolve().parent.parent
    return [] if str(home).startswith("/usr/") else [(str(home), str(home))]


def source_binds(lab):
    """What a compile sees of the kit: the lab's header folder and common/."""
    kit = lab.kit
    return [
        (str(kit.root / "common"), f"{INSIDE_KIT}/common"),
        (str(lab.dir), f"{INSIDE_KIT}/labs/{lab.id}"),
    ]


def compile_student(tc, iso, lab, source, obj, roots, time_limit=COMPILE_TIME_LIMIT_S, first=None):
    """nvcc -c in the sandbox, then the check of every header it read.

    source and obj are in the lab's work folder; roots are the folders headers may come from
    (as the sandbox sees them: includes.allowed_roots()). first, in the same folder: the
    student file compiled before source in the same translation unit (nvcc -include), as
    make compiles a lab with a bonus file (the bonus file is source). Returns a Step; a
    header from elsewhere is a failed Step whose message says which.
    """
    work = Path(source).parent
    # What the preprocessor makes of the source (nvcc -keep): scanned before the object is
    # taken, because the assembler reads the expanded text, not the source (includes.py).
    kept = work / "preprocessed"
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir()
    sandbox.prepare_writable(iso, work)
    kit_in = _inside(iso, lab.kit.root, INSIDE_KIT)
    src_in = _inside(iso, source, f"{INSIDE_WORK}/{Path(source).name}")
    first_in = _inside(iso, first, f"{INSIDE_WORK}/{Path(first).name}") if first else None
    include_first = ["-include", first_in] if first_in else []
    obj_in = _inside(iso, obj, f"{INSIDE_WORK}/{Path(obj).name}")
    deps = work / "deps.d"
    deps_in = _inside(iso, deps, f"{INSIDE_WORK}/deps.d")
    flags = [
        *tc.nvccflags,
        *tc.flags_for(lab.id),
        f"-I{_inside(iso, lab.dir, f'{INSIDE_KIT}/labs/{lab.id}')}",
        f"-I{_inside(iso, lab.kit.root / 'common', f'{INSIDE_KIT}/common')}",
    ]
    ro, rw = source_binds(lab) + _cuda_binds(tc), [(str(work), INSIDE_WORK)]

    def boxed(argv):
        return sandbox.command(iso, argv, ro=ro, rw=rw, cwd=kit_in, limits=COMPILE_LIMITS)

    def header_problem():
        text = deps.read_text(errors="replace") if deps.is_file() else ""
        # nvcc names a header relative to its working folder when it can (common/x.h, not
        # /kit/common/x.h), so names are read from where it ran: kit_in, as it saw it.
        return includes.check_dependencies(
            text, src_in, roots, cwd=kit_in, own=[first_in] if first_in else []
        )

    # One nvcc run compiles and lists the headers it read (-MD); the object is used only if
    # every header came from an allowed folder.
    kept_in = _inside(iso, kept, f"{INSIDE_WORK}/{kept.name}")
    step = _step(
        boxed(
            [
                tc.nvcc,
                *flags,
                "-keep",
                "-keep-dir",
                kept_in,
                "-MD",
                "-MF",
                deps_in,
                "-c",
                src_in,
                *include_first,
                "-o",
                obj_in,
            ]
        ),
        lab.kit.root,
        work,
        lab.kit.root,
        time_limit,
        "compiling",
    )
    # The preprocessed text is both files' when first is given, and either may have made
    # what it holds (the student file's macros expand in it too): both are named.
    label = lab.files_named if first else Path(source).name
    problem = includes.scan_preprocessed_folder(kept, label)
    shutil.rmtree(kept, ignore_errors=True)
    if problem:
        Path(obj).unlink(missing_ok=True)
        return Step(
            ok=False, command=step.command, output=step.output, message=problem, refused=True
        )
    if not step.ok and not iso.kind.startswith("bwrap"):
        # Without bubblewrap the compiler sees the whole machine, and its error message could
        # quote a file it had no business reading: list the headers alone (nvcc -M) and check
        # them before the message is shown. (In bubblewrap nothing secret is there to quote.)
        listing = _step(
            boxed([tc.nvcc, *flags, "-M", src_in, *include_first, "-o", deps_in]),
            lab.kit.root,
            work,
            lab.kit.root,
            time_limit,
            "compiling",
        )
        problem = header_problem() if listing.ok else None
        if problem:
            return Step(ok=False, command=step.command, output="", message=problem, refused=True)
    if step.ok:
        problem = header_problem()
        if problem:
            Path(obj).unlink(missing_ok=True)
            return Step(
                ok=False, command=step.command, output=step.output, message=problem, refused=True
            )
    return step


def executor_parts(lab):
    """What the grader links a student's object with, besides the CUDA runtime."""
    kit = lab.kit
    return [
        kit.obj("grading", "runtime", "remote_executor.o"),
        kit.obj("grading", "runtime", "shared_memory.o"),
        kit.obj("grading", "runtime", "memory_budget.o"),
        kit.obj("grading", "calls", f"api_{lab.symbol_id}.exec.o"),
        kit.libkit,
    ]


def link_executor(tc, iso, lab, obj, out, time_limit=LINK_TIME_LIMIT_S):
    """The lab's executor: the dispatcher, the call table and the student's object."""
    work = Path(out).parent
    parts = [(str(p), f"{INSIDE_KIT}/parts/{p.name}") for p in executor_parts(lab)]
    wraps = [
        w for name in WRAPPED_COPIES + WRAPPED_ALLOCATIONS for w in ("-Xlinker", f"--wrap={name}")
    ]
    argv = [
        tc.nvcc,
        *tc.gencode,
        *tc.flags_for(lab.id),
        "-o",
        _inside(iso, out, f"{INSIDE_WORK}/{Path(out).name}"),
        *[_inside(iso, outside, inside) for outside, inside in parts],
        _inside(iso, obj, f"{INSIDE_WORK}/{Path(obj).name}"),
        *wraps,
        *tc.ldlibs,
    ]
    sandbox.prepare_writable(iso, work)
    command = sandbox.command(
        iso,
        argv,
        ro=parts + _cuda_binds(tc),
        rw=[(str(work), INSIDE_WORK)],
        cwd=_inside(iso, work, INSIDE_WORK),
        limits=COMPILE_LIMITS,
    )
    step = _step(command, lab.kit.root, work, lab.kit.root, time_limit, "linking")
    sandbox.reclaim(iso, work)  # nothing that runs later as the sandbox may replace the executor
    return step


def executor_command(
    iso, executor, time_limit, wrapper=(), wrapper_binds=(), memory_budget_mib=None
):
    """The argv that runs a linked executor in the sandbox `iso` (a slot's: its uid, its
    GPU's device file; CUDA_VISIBLE_DEVICES comes from the environment it is started with).
    The executor runs under seccomp's run profile; a wrapper that runs it, such as
    compute-sanitizer (its own files bound by wrapper_binds), under the tool profile, since
    it must start the executor. memory_budget_mib: the most GPU memory its allocations may
    hold (a shared GPU: memory_budget.c), None for no bound."""
    env = {"CUDA_MODULE_LOADING": "EAGER"}
    if memory_budget_mib:
        env["KIT_GPU_MEMORY_BUDGET_MIB"] = str(int(memory_budget_mib))
    limits = sandbox.Limits(cpu_s=time_limit + 10, **RUN_LIMITS)
    ro = [(str(executor), INSIDE_EXECUTOR), *wrapper_binds]
    # Every kernel is loaded when the context is made, before the executor says it is ready
    # (grading/runtime/remote_executor.c): loading is then nobody's CPU time, not the student's, and
    # the same for every solution however many kernels it has.
    return sandbox.command(
        iso,
        [*wrapper, _inside(iso, executor, INSIDE_EXECUTOR)],
        ro=ro,
        cwd="/tmp",
        gpu=True,
        limits=limits,
        env=env,
        seccomp="tool" if wrapper else "run",
    )
