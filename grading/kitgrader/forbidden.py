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

The object is the student's, so every tool that reads it (nm, objdump, c++filt) runs in the
sandbox under a time limit, an output cap and a memory cap (run_tool), and the rules match
the names as the linker sees them, mangled: demangling is where a 300-character name becomes
terabytes (a function type nested forty deep, spelled with back-references). Names are
demangled only to be shown to a person, by a bounded c++filt, and cut short. A rubric's own
patterns, written for demangled names, get each name of up to DEMANGLE_MAX_CHARS demangled
the same bounded way. A tool that does not finish within its limits raises CheckFailed: the
lab is not graded, with a message that says why, and grading goes on.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import GraderError, allowlist, sandbox
from .run import run_limited

# Library sorts, as they show in mangled names (see sort_rule): a namespace of its own...
SORT_NAMESPACES = {"thrust": "Thrust", "cub": "CUB"}
STD_SORTING = "the C++ standard library's sorting"
# ...the sorting functions of std:: (and their __-prefixed helpers in libstdc++)...
STD_SORTS = frozenset(
    prefix + name
    for prefix in ("", "__")
    for name in (
        "sort stable_sort partial_sort partial_sort_copy nth_element sort_heap introsort_loop "
        "final_insertion_sort merge_sort_with_buffer inplace_stable_sort insertion_sort "
        "heap_select"
    ).split()
)
STD_RANGES_SORTS = frozenset({"__sort_fn", "__stable_sort_fn"})  # std::ranges::sort
# ...and C names, or the first name of a C++ one (_Z16kit_cpu_..., _ZL16kit_cpu_...).
C_SORTS = [
    (re.compile(r"^(qsort|qsort_r|__qsort_r)$"), "the C library's qsort"),
    (re.compile(r"^(?:_ZL?[0-9]+)?kit_cpu_"), "the kit's CPU reference sorts (cpu_sort.h)"),
    (
        re.compile(r"^(?:_ZL?[0-9]+)?kit_baseline_"),
        "the kit's CUB and std::sort baselines (baselines.h)",
    ),
]

# Tools on a student's object: in the sandbox, with these limits. An honest lab object lists
# in milliseconds; a limit hit is a name or an object built to hang the grader.
TOOL_TIME_LIMIT_S = 30.0
TOOL_OUTPUT_LIMIT = 64 << 20  # bytes a tool may print (nm of an object, objdump -d)
TOOL_MEMORY = 2 << 30  # bytes of address space
DEMANGLE_TIME_LIMIT_S = 10.0  # one c++filt run, for every name it is given
DEMANGLE_OUTPUT_LIMIT = 4 << 20
DEMANGLE_MAX_CHARS = 1024  # longer mangled names are never demangled
DEMANGLE_BATCH_CHARS = 128 << 10  # characters of names per c++filt run
SHOWN_CHARS = 120  # a name in a message is cut to this
MANGLED = re.compile(r"_Z[A-Za-z0-9_.$]+")  # what c++filt is given: nothing it reads as an option
NM_LINE = re.compile(r"^(?:[0-9a-fA-F]+| +) (\S) (.*)$")


class CheckFailed(Exception):
    """A tool on the student's object did not finish within its limits, or failed: the lab
    is not graded (the message says why); the other labs and students go on."""


@dataclass
class Finding:
    symbol: str  # as a person reads it: demangled within limits, cut short
    why: str

    def __str__(self):
        return f"{self.symbol}: {self.why}"


# ---- the rules, on mangled names ----------------------------------------------------------

THUNK = re.compile(r"^_ZT(?:[hv](?:n?[0-9]+_)+|c(?:[hv](?:n?[0-9]+_)+){2})")
SUBSTITUTION_END = re.compile(r"[ST][0-9A-Z]*_$")  # S0_, S_, T_, T1_: a name may follow
LITERAL_VALUE = re.compile(r"(?:L[a-z]n?|fL[0-9]+p)$")  # Li5E, Lin5E, fL0p1_
QUALIFIER_NEXT = re.compile(r"[0-9]|L[0-9]|C[1-5I]|D[0-5]|U[tl]")  # what follows a prefix


@dataclass
class Part:
    """A name spelled in a mangled name: a <length><identifier>, or St (std::)."""

    text: str
    start: int
    end: int


def mangled_parts(name):
    """The identifiers a mangled name spells, left to right, without expanding anything: a
    linear scan, so a name made to explode when demangled costs no more than its length.
    Digits are read as a length unless the grammar puts a number there (S0_, T_, A10_, Li5E,
    C1, .isra.0, ...): a heuristic, exact on what compilers emit, which is all it is for."""
    parts = []
    thunk = THUNK.match(name)
    i, n = (thunk.end() if thunk else 0), len(name)
    while i < n:
        after_part = bool(parts) and parts[-1].end == i
        if name.startswith("St", i):
            parts.append(Part("std", i, i + 2))
            i += 2
            continue
        if not name[i].isdigit():
            i += 1
            continue
        j = i
        while j < n and name[j].isdigit():
            j += 1
        length = int(name[i:j]) if j - i < 7 else 0
        if length and j + length <= n and (after_part or _is_length(name, i)):
            parts.append(Part(name[j : j + length], i, j + length))
            j += length
        i = j
    return parts


def _is_length(name, i):
    """Whether the digits at i are an identifier's length (and not a number of the grammar)."""
    before = name[max(0, i - 12) : i]
    if not before or before[-1] in "STACD.":  # S0_ T1_ A10_ C1 D0 .isra.0
        return False
    if before.endswith(("Dv", "DF", "DB", "DU", "fp", "Ut", "CI")) or LITERAL_VALUE.search(before):
        return False
    if before[-1] == "_":  # a name after S0_ or T_; a discriminator (_0, __12_) otherwise
        return bool(SUBSTITUTION_END.search(before))
    return True


def sort_rule(name):
    """What library sort a symbol (its mangled name, version stripped) belongs to, or None:
    the verdicts of the patterns \\bthrust::, \\bcub::, \\bstd::(__)?sort... on the demangled
    name, read from the mangled one."""
    for pattern, what in C_SORTS:
        if pattern.search(name):
            return what
    if not name.startswith("_Z"):
        return None
    parts = mangled_parts(name)
    for k, part in enumerate(parts):
        if part.text in SORT_NAMESPACES and QUALIFIER_NEXT.match(name, part.end):
            return SORT_NAMESPACES[part.text]
        if part.text != "std":
            continue
        following = [p.text for p in _adjacent(parts, k, 2)]
        if following[:1] and following[0] in STD_SORTS:
            return STD_SORTING
        if following[:1] == ["ranges"] and following[1:] and following[1] in STD_RANGES_SORTS:
            return STD_SORTING
    return None


def _adjacent(parts, k, count):
    """Up to count parts that directly follow parts[k] (std::ranges::__sort_fn)."""
    out = []
    for part in parts[k + 1 : k + 1 + count]:
        if part.start != (out[-1].end if out else parts[k].end):
            break
        out.append(part)
    return out


# ---- tools on objects, under limits -------------------------------------------------------


@dataclass
class Tools:
    """How binutils run: in the sandbox iso (a student's object), or, with iso None, under
    the same limits alone (the kit's own objects, the grader's tests)."""

    launcher: str  # build/tools/sandbox_exec
    iso: object = None  # sandbox.Isolation

    @classmethod
    def for_lab(cls, lab, iso=None):
        launcher = (
            iso.sandbox_exec
            if iso is not None and iso.sandbox_exec
            else lab.kit.build / "tools" / "sandbox_exec"
        )
        if not os.access(launcher, os.X_OK):
            raise GraderError(f"{launcher} is missing: run make first")
        return cls(launcher=str(launcher), iso=iso)


def run_tool(tools, program, args, obj=None, *, time_limit=None, output_limit=None):
    """What `program args [obj]` prints, run under a time limit, an output cap and a memory
    cap (in the sandbox when tools has one). CheckFailed when it does not finish within them
    or fails; GraderError when the program is not installed."""
    time_limit = time_limit or TOOL_TIME_LIMIT_S
    output_limit = output_limit or TOOL_OUTPUT_LIMIT
    found = shutil.which(program)
    if not found:
        raise GraderError(f"{program} not found (binutils): it comes with the compiler nvcc uses")
    path = os.path.realpath(found)
    iso = tools.iso
    if iso is None or (iso.kind.startswith("bwrap") and not path.startswith("/usr/")):
        iso = sandbox.Isolation(kind="none", text="", sandbox_exec=tools.launcher)
    argv, ro = [path, *args], []
    if obj is not None:
        inside = f"/object/{Path(obj).name}" if iso.kind.startswith("bwrap") else str(obj)
        ro = [(str(obj), inside)] if iso.kind.startswith("bwrap") else []
        argv.append(inside)
    # CPU time a little over the clock's limit, so that a tool that computes for ever is
    # stopped by the clock and said to be so.
    limits = sandbox.Limits(
        cpu_s=time_limit + 5,
        address_space=TOOL_MEMORY,
        file_size=1 << 20,
        open_files=64,
        tmp_size=16 << 20,
    )
    command = sandbox.command(iso, argv, ro=ro, cwd="/", limits=limits)
    result = run_limited(
        command, time_limit=time_limit, output_limit=output_limit, keep_bytes=output_limit
    )
    name = Path(program).name
    if result.start_error:
        raise GraderError(f"cannot run {name}: {result.start_error}")
    if result.timed_out:
        raise CheckFailed(f"{name} did not finish within {time_limit:g} s")
    if result.flooded:
        raise CheckFailed(f"{name} printed more than {_size(output_limit)}")
    if result.signal is not None or result.exit_code != 0:
        how = (
            f"was killed by signal {result.signal}"
            if result.signal is not None
            else f"failed (exit {result.exit_code})"
        )
        words = " ".join(result.output[-300:].split())
        raise CheckFailed(
            f"{name} {how} within its limits ({time_limit:g} s, "
            f"{_size(TOOL_MEMORY)} of memory){': ' + words if words else ''}"
        )
    return result.output


def _size(count):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


def _nm(tools, path, *options):
    """(type, name) pairs from nm, names as the linker sees them (never demangled)."""
    pairs = []
    for line in run_tool(tools, "nm", ["--no-demangle", *options], path).split("\n"):
        match = NM_LINE.match(line)
        if match:
            pairs.append((match.group(1), match.group(2)))
    return pairs


def demangled(tools, names, strict=False):
    """{mangled: demangled} for the names c++filt may be given (mangled, at most
    DEMANGLE_MAX_CHARS), each c++filt run under the DEMANGLE_ limits. strict: CheckFailed
    when a run does not finish; otherwise that run's names are left out (shown mangled)."""
    wanted = [
        n for n in dict.fromkeys(names) if len(n) <= DEMANGLE_MAX_CHARS and MANGLED.fullmatch(n)
    ]
    if not wanted or not shutil.which("c++filt"):
        return {}
    batches, size = [[]], 0
    for name in wanted:
        if size + len(name) > DEMANGLE_BATCH_CHARS and batches[-1]:
            batches.append([])
            size = 0
        batches[-1].append(name)
        size += len(name)
    out = {}
    for batch in batches:
        try:
            lines = run_tool(
                tools,
                "c++filt",
                batch,
                time_limit=DEMANGLE_TIME_LIMIT_S,
                output_limit=DEMANGLE_OUTPUT_LIMIT,
            ).split("\n")
        except CheckFailed as err:
            if strict:
                raise CheckFailed(f"demangling the object's symbol names: {err}")
            continue
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) != len(batch):
            if strict:
                raise CheckFailed(
                    "demangling the object's symbol names: c++filt's output "
                    "does not match the names it was given"
                )
            continue
        out.update(zip(batch, lines))
    return out


def shown(name, readable=None):
    """A symbol as a message shows it: demangled when readable has it, cut short."""
    text = (readable or {}).get(name, name)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


# ---- the kit's symbols, and a student's object ---------------------------------------------


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
    callers = [lab.test_obj] + ([lab.main_obj] if lab.main_obj.exists() else [])
    return link_symbols(lab, parts, callers, lab.solution_obj)


def link_symbols(lab, parts, callers, solution_obj):
    """The symbols of the kit's `parts` a student's object is linked with; the API is what
    `callers` (the lab's tests, its driver) use that the parts do not define and the
    solution's object (`solution_obj`) does."""
    tools = Tools.for_lab(lab)
    try:
        strong, weak, used = set(), set(), set()
        for part in parts:
            for kind, name in _nm(tools, part, "-g"):
                # A weak undefined reference (w, v: `#pragma weak f` in a test or a driver) is
                # a use that may go unmet, not a definition: the lab's API when the solution
                # defines it (Lab 02's 2.5 suite), else a kit function a lab may not define.
                if kind in "Uwv":
                    used.add(name)
                elif kind in "VWu":
                    weak.add(name)
                else:
                    strong.add(name)
        # The API: what the lab's tests and driver call and the kit does not define itself.
        wanted = {name for part in callers for kind, name in _nm(tools, part, "-u")}
        api = wanted - strong - weak
        if solution_obj.exists():
            api &= {name for kind, name in _nm(tools, solution_obj, "-g", "--defined-only")}
    except CheckFailed as err:
        raise GraderError(f"reading the kit's own objects for {lab.id}: {err}")
    return KitSymbols(strong=strong, weak=weak, used=used, api=api)


def check_object(obj, lab, symbols, extra_rules=(), iso=None, emulated=False):
    """Every finding in the student's object (empty when it is fine). iso: the sandbox the
    tools run in (None: their limits only). CheckFailed when a tool does not finish within
    its limits. emulated: the object is the emulation's compile of the same files (with
    `symbols` of the emulation's parts): it may also import what those parts define (the
    emulated CUDA runtime) and what the host compiler adds for device code it compiles as C++
    (allowlist.emulation_support), and nothing else: code that only the emulation compiles
    (an #if that nvcc does not take) meets the lab's rules all the same."""
    tools = Tools.for_lab(lab, iso)
    findings = []
    seen = set()

    def add(symbol, why):
        if why not in seen:  # one finding per reason, with the first symbol that shows it
            seen.add(why)
            findings.append(Finding(symbol, why))

    explained = set()  # imports a sort rule already names: said once, in its own words
    names = list(dict.fromkeys(allowlist.strip_version(name) for kind, name in _nm(tools, obj)))
    for name in names:
        what = sort_rule(name)
        if what:
            add(name, f"uses {what}: the lab's sort must be your own code")
            explained.add(name)
    if extra_rules:
        # A rubric's patterns are written for demangled names (nm -C): bounded demangling.
        readable = demangled(tools, names, strict=True)
        for name in names:
            for pattern, what in extra_rules:
                if pattern.search(readable.get(name, name)):
                    add(name, f"uses {what}: the lab's sort must be your own code")
                    explained.add(name)
    allowed = allowlist.allowed(lab)
    imports = allowed
    if emulated:
        imports = (
            allowed
            | symbols.strong
            | symbols.weak
            | {n for n in names if allowlist.emulation_support(n)}
        )
    _check_imports(tools, obj, lab, imports, explained, add)
    _check_definitions(tools, obj, symbols, allowed, add)
    if _has_syscall_instruction(tools, obj):
        add("syscall", "makes raw system calls (inline assembly): a lab file may not")
    readable = demangled(tools, [f.symbol for f in findings])
    return [Finding(shown(f.symbol, readable), f.why) for f in findings]


def _check_imports(tools, obj, lab, allowed, explained, add):
    """Everything imported must be on the lab's allowlist."""
    refused = []
    for kind, name in _nm(tools, obj, "-u"):
        base = allowlist.strip_version(name)
        if base in explained:
            continue
        if base.startswith(("__real_", "__wrap_")):
            add(
                name,
                f"uses {shown(name)}, a name of the grader's own copy wrappers: a lab "
                "file may not reach around them",
            )
        elif base in allowlist.SPECIAL_WHY:
            add(name, f"{allowlist.SPECIAL_WHY[base]}: this lab does not allow it")
        elif base not in allowed and not allowlist.nvcc_generated(base):
            refused.append(base)
        elif base != name:
            add(
                name,
                f"calls {base} through a symbol version ({shown(name)}): a lab file "
                "calls functions by their names",
            )
    if refused:
        readable = demangled(tools, refused[:6])
        names = [shown(n, readable) for n in refused[:6]]
        calls = ", ".join(n if "(" in n else n + "()" for n in names)
        more = f" and {len(refused) - 6} more" if len(refused) > 6 else ""
        add(
            refused[0],
            f"{lab.files_named} calls {calls}{more}, which this lab does not "
            f"allow ({allowlist.what_is_allowed(lab)})",
        )


def _check_definitions(tools, obj, symbols, allowed, add):
    """A lab file defines its API and its own helpers, nothing the kit or the grader links."""
    for kind, name in _nm(tools, obj, "-g", "--defined-only"):
        base = allowlist.strip_version(name)
        if base in symbols.api or base.startswith("__device_stub_"):
            continue
        if base.startswith(("__wrap_", "__real_")):
            add(
                name,
                f"defines {shown(name)}: the grader wraps the copy functions at link "
                "time with names like this, and a lab file may not take their place",
            )
            continue
        if base in allowed:
            add(
                name,
                f"defines {base}, a call a lab file may use but not replace: the "
                "kit and the grader rely on the real one",
            )
            continue
        weak_here = kind in "VWvwu"
        clashes = (
            base in symbols.strong
            or base in symbols.used
            or (base in symbols.weak and not weak_here)
        )
        if weak_here and base in symbols.weak and base not in symbols.strong:
            clashes = False  # the same inline function from a shared header
        if clashes or base == "main":
            add(
                name,
                f"defines {shown(base)}, which the kit's own code uses: a lab file may "
                "define its API and its own helpers, not the kit's functions",
            )


def _has_syscall_instruction(tools, obj):
    if not shutil.which("objdump"):
        return False
    text = run_tool(tools, "objdump", ["-d", "--no-show-raw-insn"], obj)
    return bool(re.search(r"\t(syscall|sysenter|int\s+\$0x80)\b", text))


def summary(findings, student_file):
    lines = [f"{student_file} breaks the lab's rules, so the lab scores 0:"]
    for f in findings[:8]:
        symbol = f.symbol if len(f.symbol) <= 70 else f.symbol[:67] + "..."
        lines.append(f"  - {f.why} [{symbol}]")
    if len(findings) > 8:
        lines.append(f"  - and {len(findings) - 8} more")
    return "\n".join(lines)
