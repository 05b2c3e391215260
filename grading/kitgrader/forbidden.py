"""What a lab's object file may not use or define, read from its symbols with nm.

Four kinds of findings, each of which scores the lab 0 with a message saying why:
  * a library sort instead of the student's own: Thrust, CUB, qsort, std::sort and friends,
    the kit's own CPU sorts and baselines (a rubric may add patterns of its own);
  * importing anything the lab's allowlist does not name (allowlist.py): a sorting lab needs
    the CUDA runtime, printing, memory and math, and the grader's result channel and its count
    of device-to-host copies rely on the absence of everything else. An allowlist, not a
    deny-list, because there is always one more call that opens a file;
  * defining a symbol the kit's own code uses (a function of the runner, the verifier, CUnit,
    the C library...), a call of the allowlist, or a name of the grader's link-time wrappers
    (__wrap_*, __real_*): each would replace the kit's or the grader's version in the test
    program. A lab file may define its API and its own helpers, nothing the kit links;
  * raw system calls in inline assembly (a heuristic: objdump finds the instruction).
A sort written by hand on the host is not visible in symbols: read the code for that.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from . import GraderError, allowlist

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

    explained = set()  # imports a sort rule already names: said once, in its own words
    for kind, name in _nm(obj, "-C"):
        name = allowlist.strip_version(name)
        for pattern, what in list(SORTS) + list(extra_rules):
            if pattern.search(name):
                add(name, f"uses {what}: the lab's sort must be your own code")
                explained.add(name)
    allowed = allowlist.allowed(lab)
    _check_imports(obj, lab, allowed, explained, add)
    _check_definitions(obj, symbols, allowed, add)
    if _has_syscall_instruction(obj):
        add("syscall", "makes raw system calls (inline assembly): a lab file may not")
    return findings


def _imports(obj):
    """(name, shown) of every undefined symbol: the name as the linker sees it, and as the
    student wrote it (demangled). nm -p keeps the symbol table's order, so both listings
    pair up line by line."""
    raw = [name for kind, name in _nm(obj, "-u", "-p")]
    shown = [name for kind, name in _nm(obj, "-u", "-p", "-C")]
    if len(shown) != len(raw):
        shown = raw
    return list(zip(raw, shown))


def _check_imports(obj, lab, allowed, explained, add):
    """Everything imported must be on the lab's allowlist."""
    refused = []
    for name, shown in _imports(obj):
        base = allowlist.strip_version(name)
        if allowlist.strip_version(shown) in explained:
            continue
        if base.startswith(("__real_", "__wrap_")):
            add(name, f"uses {name}, a name of the grader's own copy wrappers: a lab file "
                      "may not reach around them")
        elif base in allowlist.SPECIAL_WHY:
            add(name, f"{allowlist.SPECIAL_WHY[base]}: this lab does not allow it")
        elif base not in allowed and not allowlist.nvcc_generated(base):
            refused.append(allowlist.strip_version(shown))
        elif base != name:
            add(name, f"calls {base} through a symbol version ({name}): a lab file calls "
                      "functions by their names")
    if refused:
        calls = ", ".join(n if "(" in n else n + "()" for n in refused[:6])
        more = f" and {len(refused) - 6} more" if len(refused) > 6 else ""
        add(refused[0], f"{lab.student_file} calls {calls}{more}, which this lab does not "
                        f"allow ({allowlist.what_is_allowed(lab)})")


def _check_definitions(obj, symbols, allowed, add):
    """A lab file defines its API and its own helpers, nothing the kit or the grader links."""
    for kind, name in _nm(obj, "-g", "--defined-only"):
        base = allowlist.strip_version(name)
        if base in symbols.api or base.startswith("__device_stub_"):
            continue
        if base.startswith(("__wrap_", "__real_")):
            add(name, f"defines {name}: the grader wraps the copy functions at link time "
                      "with names like this, and a lab file may not take their place")
            continue
        if base in allowed:
            add(name, f"defines {base}, a call a lab file may use but not replace: the "
                      "kit and the grader rely on the real one")
            continue
        weak_here = kind in "VWvwu"
        clashes = base in symbols.strong or base in symbols.used or (
            base in symbols.weak and not weak_here)
        if weak_here and base in symbols.weak and base not in symbols.strong:
            clashes = False  # the same inline function from a shared header
        if clashes or base == "main":
            add(name, f"defines {base}, which the kit's own code uses: a lab file may define "
                      "its API and its own helpers, not the kit's functions")


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
