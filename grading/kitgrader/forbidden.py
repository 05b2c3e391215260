"""What a lab's object file may not use or define, read from its symbols with nm.

Three kinds of findings, each of which scores the lab 0 with a message saying why:
  * a library sort instead of the student's own: Thrust, CUB, qsort, std::sort and friends,
    the kit's own CPU sorts and baselines (a rubric may add patterns of its own);
  * calls that could let the code reach around the tests: reading the environment, opening
    files or descriptors, starting or signalling processes, raw system calls. A sorting lab
    needs none of them, and the grader's result channel relies on their absence;
  * defining a symbol the kit's own code uses (a function of the runner, the verifier, CUnit,
    the C library...), which would replace the kit's version in the test program. A lab file
    may define its API and its own helpers, nothing the kit links.
A sort written by hand on the host is not visible in symbols: read the code for that.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from . import GraderError

SORTS = [
    (re.compile(r"\bthrust::"), "Thrust"),
    (re.compile(r"\bcub::"), "CUB"),
    (re.compile(r"^(qsort|qsort_r|__qsort_r)$"), "the C library's qsort"),
    (re.compile(r"\bstd::(__)?(sort|stable_sort|partial_sort|partial_sort_copy|nth_element|"
                r"sort_heap|introsort_loop|final_insertion_sort|merge_sort_with_buffer|"
                r"inplace_stable_sort|insertion_sort|heap_select)\b"),
     "the C++ standard library's sorting"),
    (re.compile(r"\bstd::ranges::__(stable_)?sort_fn"), "the C++ standard library's sorting"),
    (re.compile(r"^kit_cpu_"), "the kit's CPU reference sorts (cpu_sort.h)"),
    (re.compile(r"^kit_baseline_"), "the kit's CUB and std::sort baselines (baselines.h)"),
]

REACHING_AROUND = {
    "read or change the environment":
        "getenv secure_getenv setenv unsetenv putenv clearenv environ __environ _environ",
    "open files or use file descriptors":
        "open open64 openat openat64 creat creat64 fopen fopen64 freopen freopen64 fdopen "
        "close close_range dup dup2 dup3 fcntl fcntl64 ioctl write pwrite pwrite64 writev "
        "pwritev send sendto sendmsg socket socketpair pipe pipe2 mkfifo mmap mmap64 mprotect",
    "start, signal or end processes, load libraries or make system calls":
        "fork vfork clone clone3 execl execle execlp execv execve execvp execvpe fexecve "
        "system popen posix_spawn posix_spawnp daemon kill killpg tgkill raise signal "
        "sigaction setsid setpgid setpgrp prctl ptrace _exit _Exit quick_exit at_quick_exit "
        "dlopen dlsym dlvsym process_vm_writev syscall",
}
CALL_WHY = {name: what for what, names in REACHING_AROUND.items() for name in names.split()}
CXX_FILES = re.compile(r"\bstd::basic_(i|o)?fstream\b|\bstd::basic_filebuf\b")


@dataclass
class Finding:
    symbol: str
    why: str

    def __str__(self):
        return f"{self.symbol}: {self.why}"


def _nm(path, *options):
    """(type, name) pairs from nm; names demangled when asked with -C."""
    nm = shutil.which("nm")
    if not nm:
        raise GraderError("nm not found (binutils): it comes with the compiler nvcc uses")
    proc = subprocess.run([nm, *options, str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise GraderError(f"nm {path} failed: {proc.stderr.strip()}")
    pairs = []
    for line in proc.stdout.splitlines():
        parts = line.split(None, 2) if not line.startswith(" ") else line.split(None, 1)
        if len(parts) == 3:
            pairs.append((parts[1], parts[2]))
        elif len(parts) == 2:
            pairs.append((parts[0], parts[1]))
    return pairs


@dataclass
class KitSymbols:
    """What the kit's parts of a lab's programs define and use, and the lab's API."""

    strong: set
    weak: set
    used: set
    api: set


def kit_symbols(lab):
    """Reads the symbols of everything the grader links a student's object with."""
    kit = lab.kit
    parts = [kit.runner_obj, kit.harness_obj, lab.test_obj, kit.libkit, kit.libcunit]
    if lab.main_obj.exists():
        parts.append(lab.main_obj)
    for optional in (kit.timed_driver_obj, kit.baselines_obj):
        if optional.exists():
            parts.append(optional)
    strong, weak, used = set(), set(), set()
    for part in parts:
        for kind, name in _nm(part, "-g"):
            if kind == "U":
                used.add(name)
            elif kind in "VWvwu":
                weak.add(name)
            else:
                strong.add(name)
    # The API: what the lab's tests and driver call and the kit does not define itself.
    callers = [lab.test_obj] + ([lab.main_obj] if lab.main_obj.exists() else [])
    wanted = {name for part in callers for kind, name in _nm(part, "-u")}
    api = wanted - strong - weak
    if lab.solution_obj.exists():
        api &= {name for kind, name in _nm(lab.solution_obj, "-g", "--defined-only")}
    return KitSymbols(strong=strong, weak=weak, used=used, api=api)


def check_object(obj, lab, symbols, extra_rules=()):
    """Every finding in the student's object (empty when it is fine)."""
    findings = []
    seen = set()

    def add(symbol, why):
        if why not in seen:  # one finding per reason, with the first symbol that shows it
            seen.add(why)
            findings.append(Finding(symbol, why))

    demangled = _nm(obj, "-C")
    for kind, name in demangled:
        for pattern, what in list(SORTS) + list(extra_rules):
            if pattern.search(name):
                add(name, f"uses {what}: the lab's sort must be your own code")
        if CXX_FILES.search(name):
            add(name, "opens files (C++ file streams): a lab file may not")
    for kind, name in _nm(obj, "-u"):
        if name in CALL_WHY:
            add(name, f"calls {name}(): a lab file may not {CALL_WHY[name]}")
    for kind, name in _nm(obj, "-g", "--defined-only"):
        if name in symbols.api or name.startswith("__device_stub_"):
            continue
        weak_here = kind in "VWvwu"
        clashes = name in symbols.strong or name in symbols.used or (
            name in symbols.weak and not weak_here)
        if weak_here and name in symbols.weak and name not in symbols.strong:
            clashes = False  # the same inline function from a shared header
        if clashes or name in CALL_WHY or name == "main":
            add(name, f"defines {name}, which the kit's own code uses: a lab file may define "
                      "its API and its own helpers, not the kit's functions")
    if _has_syscall_instruction(obj):
        add("syscall", "makes raw system calls (inline assembly): a lab file may not")
    return findings


def _has_syscall_instruction(obj):
    objdump = shutil.which("objdump")
    if not objdump:
        return False
    proc = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(obj)], capture_output=True,
                          text=True)
    return bool(re.search(r"\t(syscall|sysenter|int\s+\$0x80)\b", proc.stdout))


def summary(findings, student_file):
    lines = [f"{student_file} breaks the lab's rules, so the lab scores 0:"]
    for f in findings[:8]:
        symbol = f.symbol if len(f.symbol) <= 70 else f.symbol[:67] + "..."
        lines.append(f"  - {f.why} [{symbol}]")
    if len(findings) > 8:
        lines.append(f"  - and {len(findings) - 8} more")
    return "\n".join(lines)
