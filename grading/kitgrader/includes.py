"""What a student file may include: the lab's header, the kit's common/, CUDA and the system.

The compiler reads whatever a source names, and its error messages quote what it read, so an
`#include "/path/to/the/solution"` or an assembler `.incbin` would hand the student a file the
grader keeps from them. Two checks, because neither is enough alone:
  * scan_source(), before anything compiles: no absolute or `..` include paths, no
    `#include_next`, `#embed` or `#pragma GCC dependency`, and no `incbin` (nor the assembler's
    `.include` and macros, which can spell it) anywhere, even split over string literals;
  * check_dependencies(), on the list of files the compiler really read (nvcc -M or -MD -MF):
    every one must lie under an allowed folder once links are resolved. This one catches what
    a scan cannot see, such as an include whose name comes from a macro;
  * scan_preprocessed(), on what the compile's preprocessor made of the source (nvcc -keep
    keeps it: the host pass, which the assembler ends up reading, and each device pass): no
    incbin anywhere and no assembler directive that reads files in a string literal, once
    macros are expanded, so `inc##bin` pasted or stringified is caught too. The raw scan stays
    for its early, clear messages; this one is what the assembler is given.
The sandbox keeps the files that matter out of reach anyway; these checks give an honest
mistake a clear message and a dishonest one nothing to read.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from . import GraderError

WHAT_TO_DO = (
    "include only the lab's header, the kit's common/ headers and CUDA or system "
    "headers, by name"
)
DIRECTIVE = re.compile(r"^\s*(?:#|%:|\?\?=)\s*([A-Za-z_]\w*)(.*)$")
INCLUDE_PATH = re.compile(r"^\s*(?:<([^>]*)>|\"([^\"]*)\")")
PRAGMA_DEPENDENCY = re.compile(r"\bGCC\s+dependency\b")
PRAGMA_OPERATOR = re.compile(r"_Pragma\s*\(\s*(?:u8|[uUL])?R?\"\s*GCC\s+dependency")
# Assembler directives that read a file or build one's name: a lab file needs none of them.
ASSEMBLER = re.compile(r"\.(include|macro|irpc?|altmacro)\b", re.IGNORECASE)
ADJACENT_LITERALS = re.compile(r"\"\s*\"")
ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]+|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{1,3})")
RAW_STRING = re.compile(r"(?:u8|[uUL])?R\"([^()\\\s]{0,16})\(")


# ---- before compiling ---------------------------------------------------------------------


def scan_source(text, filename):
    """Why the grader will not compile this source, or None."""
    if "incbin" in text.lower():
        return _incbin(filename)
    lines = _logical_lines(text)
    code = _strip_comments("\n".join(line for _, line in lines))
    for (number, _), line in zip(lines, code.split("\n")):
        problem = _directive_problem(line)
        if problem:
            return f"{filename}, line {number}: {problem}: {WHAT_TO_DO}"
    # What the assembler reads is the string literals, joined and with escapes decoded:
    # ".inc" "bin", ".in\x63bin" and R"(.incbin)" all spell the directive.
    joined = ADJACENT_LITERALS.sub("", code)
    strings = "".join(_literals(code))
    if "incbin" in joined.lower() or "incbin" in strings.lower():
        return _incbin(filename)
    match = ASSEMBLER.search(strings)
    if match:
        return (
            f"{filename} has the assembler directive {match.group(0)}, which reads or "
            f"builds other files: {WHAT_TO_DO}"
        )
    return None


def _incbin(filename):
    return (
        f"{filename} spells incbin, which makes the assembler copy a file into the "
        f"program: {WHAT_TO_DO}"
    )


def _literals(code):
    """The contents of the string literals of comment-free code, escapes decoded."""
    i, n = 0, len(code)
    while i < n:
        raw = RAW_STRING.match(code, i) if code[i] in "uULR" else None
        if raw and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            end = code.find(")" + raw.group(1) + '"', raw.end())
            end = n if end < 0 else end
            yield code[raw.end() : end]
            i = end + len(raw.group(1)) + 2
        elif code[i] in "\"'":
            end = _literal_end(code, i)
            if code[i] == '"':
                yield ESCAPE.sub(lambda m: _escape_char(m.group(1)), code[i + 1 : end - 1])
            i = end
        else:
            i += 1


def _escape_char(code):
    """The character of an escape: \\x63, \\143 and \\u0063 are all c."""
    value = int(code[1:], 16) if code[0] in "xuU" else int(code, 8)
    return chr(min(value, 0x10FFFF))


def _logical_lines(text):
    """(first physical line number, text) of each line once backslash-newlines are joined,
    as the preprocessor sees them (gcc also joins a backslash followed by spaces, and CRLF)."""
    lines = []
    pending, start = [], 1
    for number, physical in enumerate(text.split("\n"), 1):
        if not pending:
            start = number
        trimmed = physical.rstrip(" \t\r\f\v")
        if trimmed.endswith("\\"):
            pending.append(trimmed[:-1])
            continue
        lines.append((start, "".join(pending) + physical))
        pending = []
    if pending:
        lines.append((start, "".join(pending)))
    return lines


def _strip_comments(text):
    """The text with comments replaced by a space (newlines kept, so lines still count) and
    string, character and raw string literals kept as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        raw = RAW_STRING.match(text, i) if text[i] in "uULR" else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + raw.group(1) + '"', raw.end())
            end = n if end < 0 else end + len(raw.group(1)) + 2
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            out.append(" ")
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(" " + "\n" * text.count("\n", i, end))
            i = end
        elif text[i] in "\"'":
            end = _literal_end(text, i)
            out.append(text[i:end])
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _literal_end(text, start):
    """Where a string or character literal ends (at its closing quote, or at the end of its
    line when it has none)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] not in (quote, "\n"):
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text)) if i < len(text) and text[i] == quote else i


def _directive_problem(line):
    if PRAGMA_OPERATOR.search(line):
        return '_Pragma("GCC dependency") reads another file'
    match = DIRECTIVE.match(line)
    if not match:
        return None
    name, rest = match.group(1), match.group(2)
    if name == "include_next":
        return "#include_next reaches past the include folders"
    if name == "embed":
        return "#embed copies a file into the program"
    if name == "pragma" and PRAGMA_DEPENDENCY.search(rest):
        return "#pragma GCC dependency reads another file"
    if name in ("include", "import"):
        path = INCLUDE_PATH.match(rest)
        if path:
            return _path_problem(path.group(1) if path.group(1) is not None else path.group(2))
    return None


def _path_problem(path):
    if path.startswith("/"):
        return f"#include of the absolute path {path}"
    if ".." in path.split("/"):
        return f"#include of {path}, which climbs out of the include folders with .."
    return None


# ---- what the preprocessor made of it --------------------------------------------------------

# Preprocessed text: no comments or continued lines left, but line markers (# 12 "file" 2),
# which may sit between two string literals the compiler joins.
LINEMARKER = re.compile(r'^#\s*[0-9]+\s+"(?:\\.|[^"\\\n])*"[ 0-9]*$', re.M)
PP_TOKEN = re.compile(
    r'(?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\((?P<body>.*?)\)(?P=delim)")'
    r'|(?P<string>(?:u8|[uUL])?"(?P<chars>(?:\\.|[^"\\\n])*)")'
    r"|(?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)"  # 1'000 is no char
    r"|(?P<char>(?:u8|[uUL])?'(?:\\.|[^'\\\n])*')"
    r"|(?P<word>[A-Za-z_]\w*)",
    re.S,
)
SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
ANY_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]+|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{1,3}|.)", re.S)
PREPROCESSED_SUFFIXES = (".ii", ".cudafe1.cpp")  # what nvcc -keep leaves that holds the source
MAX_PREPROCESSED_BYTES = 256 << 20  # an honest lab file with every CUDA header: about 13 MiB


def scan_preprocessed(text, filename):
    """Why the grader will not take this preprocessed text of filename, or None: incbin
    anywhere, or an assembler directive that reads or builds files in a string literal (the
    literals the compiler joins taken together, escapes decoded)."""
    if "incbin" in text.lower():
        return _incbin_expanded(filename)
    for literal in _joined_literals(text):
        if "incbin" in literal.lower():
            return _incbin_expanded(filename)
        match = ASSEMBLER.search(literal)
        if match:
            return (
                f"{filename} has the assembler directive {match.group(0)} once the "
                f"preprocessor has expanded its macros: a lab file needs none, and it "
                f"reads or builds other files: {WHAT_TO_DO}"
            )
    return None


def kept_files(folder):
    """The preprocessed files nvcc -keep left in folder, in name order."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [entry.path for entry in entries if entry.name.endswith(PREPROCESSED_SUFFIXES)]


def scan_kept_file(path, filename):
    """scan_preprocessed() on one file that nvcc -keep left, or why it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return f"{filename}: the grader could not read what the preprocessor made of it"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            return f"{filename}: what the preprocessor made of it is not a regular file"
        if info.st_size > MAX_PREPROCESSED_BYTES:
            return (
                f"{filename} preprocesses to more than "
                f"{MAX_PREPROCESSED_BYTES >> 20} MiB: {WHAT_TO_DO}"
            )
        text = f.read(MAX_PREPROCESSED_BYTES + 1).decode("utf-8", "replace")
    return scan_preprocessed(text, filename)


# The scan in Python processes of their own, one per file: it is pure Python (0.4 s a lab
# here, 1.2 s for Lab 01's three files of 4 MB, more on a GPU host's slower cores), and the
# labs of a submission, compiled at once from threads of the grader's one process, scanned one
# after another on its interpreter lock.
_SCAN_APART = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from kitgrader.includes import scan_kept_file; "
    "sys.stdout.write(scan_kept_file(sys.argv[2], sys.argv[3]) or '')"
)


def scan_preprocessed_folder(folder, filename):
    """scan_preprocessed() on every preprocessed file nvcc -keep left in folder (the compile
    ran in the sandbox, so each is opened without following links and must be a regular
    file of at most MAX_PREPROCESSED_BYTES: scan_kept_file), each in a process of its own
    (-I: no user site, no PYTHON* variables), side by side; the first problem in name order.
    Should a process fail, its file is scanned here: no file is taken unscanned."""
    package_parent = str(Path(__file__).resolve().parent.parent)
    scans = []
    for path in kept_files(folder):
        try:
            scans.append(
                (
                    path,
                    subprocess.Popen(
                        [sys.executable, "-I", "-c", _SCAN_APART, package_parent, path, filename],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                    ),
                )
            )
        except OSError:
            scans.append((path, None))
    problems = []
    for path, process in scans:
        said = None
        if process is not None:
            try:
                out, _ = process.communicate(timeout=600)
                said = out.decode("utf-8", "replace") if process.returncode == 0 else None
            except subprocess.SubprocessError:
                process.kill()
                process.communicate()
        problems.append(scan_kept_file(path, filename) if said is None else said or None)
    return next((problem for problem in problems if problem), None)


def _incbin_expanded(filename):
    return (
        f"{filename} spells incbin once the preprocessor has expanded its macros (a "
        f"pasted or stringified name is the directive all the same), which makes the "
        f"assembler copy a file into the program: {WHAT_TO_DO}"
    )


def _joined_literals(text):
    """The string literals of preprocessed text, escapes decoded, those the compiler joins
    (next to each other, line markers between them aside) taken together."""
    text = LINEMARKER.sub("", text)
    pending, end = [], 0
    for token in PP_TOKEN.finditer(text):
        if token.group("raw") is not None:
            literal = token.group("body")
        elif token.group("string") is not None:
            literal = ANY_ESCAPE.sub(_any_escape, token.group("chars"))
        else:
            if pending:
                yield "".join(pending)
                pending = []
            continue
        if pending and text[end : token.start()].strip():
            yield "".join(pending)
            pending = []
        pending.append(literal)
        end = token.end()
    if pending:
        yield "".join(pending)


def _any_escape(match):
    code = match.group(1)
    if code[0] in "xuU" and len(code) > 1 or code[0] in "01234567":
        return _escape_char(code)
    return SIMPLE_ESCAPES.get(code, code)


# ---- what the compiler read ----------------------------------------------------------------


def allowed_roots(lab_dir, common_dir, nvcc, cc="gcc"):
    """The folders a student file's includes may come from, links resolved: the lab's folder,
    common/, CUDA's include folders and the C/C++ compiler's system include folders."""
    return list(_roots(str(lab_dir), str(common_dir), str(nvcc), str(cc)))


@functools.lru_cache(maxsize=None)
def _roots(lab_dir, common_dir, nvcc, cc):
    roots = [Path(lab_dir), Path(common_dir)] + _cuda_includes(nvcc) + _system_includes(cc)
    real = []
    for root in roots:
        path = Path(os.path.realpath(root))
        if path.is_dir() and path not in real:
            real.append(path)
    return tuple(real)


@functools.lru_cache(maxsize=None)
def system_roots(cc):
    """The C/C++ compiler's own include folders, links resolved (the emulation's compiles may
    read these, besides the kit's)."""
    return tuple(Path(os.path.realpath(p)) for p in _system_includes(str(cc)) if Path(p).is_dir())


def _cuda_includes(nvcc):
    """CUDA_HOME/include and CUDA_HOME/targets/*/include, from where nvcc lies."""
    found = nvcc if os.sep in nvcc else shutil.which(nvcc)
    if not found:
        raise GraderError(f"{nvcc} not found: cannot tell where CUDA's headers are")
    home = Path(os.path.realpath(found)).parent.parent
    return [home / "include"] + sorted(home.glob("targets/*/include"))


def _system_includes(cc):
    """The compiler's <...> search list, as `cc -xc++ -E -v -` prints it."""
    try:
        proc = subprocess.run(
            [cc, "-xc++", "-E", "-v", "-"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GraderError(f"cannot ask {cc} for its include folders: {err}")
    folders, inside = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here:"):
            inside = True
        elif line.startswith("End of search list."):
            break
        elif inside and line.startswith(" "):
            folders.append(Path(line.strip().split(" (")[0]))
    if not folders:
        raise GraderError(f"{cc} -xc++ -E -v printed no include search list")
    return folders


def parse_dependencies(dep_text):
    """The prerequisites of a make-style dependency file (nvcc -M, or -MD -MF), in order:
    continuations joined, escaped spaces and $$ undone, targets left out."""
    text = dep_text.replace("\\\r\n", " ").replace("\\\n", " ")
    prerequisites = []
    for line in text.splitlines():
        colon = re.search(r"(?<!\\):(?:\s|$)", line)
        if not colon:
            continue
        for token in re.findall(r"(?:\\.|[^\s\\])+", line[colon.end() :]):
            name = re.sub(r"\\(.)", r"\1", token).replace("$$", "$")
            if name not in prerequisites:
                prerequisites.append(name)
    return prerequisites


def check_dependencies(dep_text, source_name, roots, cwd=None, own=()):
    """Why the grader will not take what the compiler read, or None: the first file, other
    than the student's own source (and own: the lab's other student file, compiled with it),
    that lies outside every allowed folder once links are resolved. Relative names are taken
    from cwd (nvcc's folder; the current one if None)."""
    cwd = Path(cwd) if cwd else Path.cwd()
    roots = [Path(os.path.realpath(r)) for r in roots]
    mine = [source_name, *own]
    reals = {os.path.realpath(cwd / name) for name in mine}
    for name in parse_dependencies(dep_text):
        real = Path(os.path.realpath(cwd / name))
        if name in mine or str(real) in reals:
            continue
        if not any(real == root or root in real.parents for root in roots):
            label = " or ".join(Path(n).name for n in reversed(mine))
            return (
                f"{label} includes {name}, which is not a header of the lab, the kit's "
                f"common/, CUDA or the system: {WHAT_TO_DO}"
            )
    return None
