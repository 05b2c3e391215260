#!/usr/bin/env python3
"""check_layout: the kit's maps against what is there (make check-layout, a step of make check).

    python3 tools/check_layout.py [KIT_ROOT]   exit 0: every map true; 1: what is wrong, a line each

Three maps are checked:
  1. the layout table of README.md and of docs/mainpage.md (between `<!-- layout:begin -->`
     and `<!-- layout:end -->`, the same table in both): every folder of the kit down to two
     levels (`grading/runtime/`; a lab's folder as `labs/NN-name/`) has a row, and every row
     names a folder that is there. A row whose text says "if any" or "never committed" may
     name a folder that is absent; in a student package (no solutions/) so may one that says
     "instructors' kit only";
  2. the list of modules in grading/kitgrader/__init__.py's docstring: every module has a
     line, and every line names a module;
  3. `make help`: it names every target of the Makefile's .PHONY list.
In a student package (no solutions/) README.md is the package's own, without the table, and
make help lists the students' targets only: only docs/mainpage.md and kitgrader are checked.
The folders are those git tracks a file in (in a git checkout), else those on disk; build/
and hidden folders other than .ci/ are not the kit's.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- layout:begin -->", "<!-- layout:end -->"
MAPS = ("README.md", "docs/mainpage.md")
LAB_FOLDER = re.compile(r"^(labs|solutions)/\d\d-[A-Za-z0-9_]+$")
ROW = re.compile(r"^\| `(?P<path>[^`]+)/` \|(?P<text>.*)\|(?P<who>[^|]*)\|$")
MAY_BE_ABSENT = ("if any", "never committed")
INSTRUCTORS_ONLY = "instructors' kit only"
MODULE_LINE = re.compile(r"^    (?P<name>[a-z_]+)\s{2,}\S")


def kit_files(root):
    """The kit's files, relative to root."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.decode()
        return [Path(p) for p in listed.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        return [p.relative_to(root) for p in root.rglob("*") if p.is_file()]


def kit_folders(files):
    """Folders holding the kit's files, two levels deep at most, a lab's as NN-name."""
    folders = set()
    for path in files:
        parts = path.parts[:-1]
        if not parts or parts[0] == "build" or (parts[0].startswith(".") and parts[0] != ".ci"):
            continue
        for depth in (1, 2):
            if len(parts) >= depth:
                folder = "/".join(parts[:depth])
                folders.add(
                    re.sub(r"/\d\d-[A-Za-z0-9_]+$", "/NN-name", folder)
                    if LAB_FOLDER.match(folder)
                    else folder
                )
    return folders


def map_rows(root, page):
    """{folder: text} of a page's layout table; a problem string where it has none."""
    text = (root / page).read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        return f"{page}: no layout table (the lines {BEGIN} and {END})"
    table = text.split(BEGIN, 1)[1].split(END, 1)[0]
    rows = {}
    for line in table.strip().splitlines()[2:]:
        match = ROW.match(line.strip())
        if not match:
            return f"{page}: a layout row not of the form | `folder/` | what | who |: {line}"
        rows[match["path"]] = match["text"] + match["who"]
    return rows


def check_maps(root, folders, student_package):
    problems, tables = [], []
    # The student package's README.md is its own (tools/handout/README.md), without the table.
    for page in MAPS[1:] if student_package else MAPS:
        rows = map_rows(root, page)
        if isinstance(rows, str):
            problems.append(rows)
            continue
        tables.append(rows)
        for folder in sorted(folders - rows.keys()):
            problems.append(f"{page}: the folder {folder}/ is not in the layout table")
        for folder, text in sorted(rows.items()):
            present = folder in folders or (root / folder).is_dir()
            absent_ok = any(words in text for words in MAY_BE_ABSENT) or (
                student_package and INSTRUCTORS_ONLY in text
            )
            if not present and not absent_ok:
                problems.append(f"{page}: the layout table names {folder}/, which is not here")
    if len(tables) == 2 and tables[0] != tables[1]:
        problems.append(f"{MAPS[0]} and {MAPS[1]} hold different layout tables: make them one")
    return problems


def check_kitgrader(root):
    package = root / "grading" / "kitgrader"
    doc = (package / "__init__.py").read_text(encoding="utf-8").split('"""')[1]
    listed = {m["name"] for m in map(MODULE_LINE.match, doc.splitlines()) if m}
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    where = "grading/kitgrader/__init__.py"
    return [
        f"{where}: the module {name} is not in its list" for name in sorted(modules - listed)
    ] + [
        f"{where}: its list names {name}, which is not a module"
        for name in sorted(listed - modules)
    ]


def check_help(root):
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", makefile, re.M)
    if not phony:
        return ["Makefile: no .PHONY list"]
    targets = set(phony.group(1).replace("\\\n", " ").split()) - {"FORCE"}
    shown = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"], cwd=root, capture_output=True, text=True
    ).stdout
    named = set(re.findall(r"\bmake ([a-z][a-z-]*)", shown)) | (
        {"all"} if re.search(r"^\s+make\s{2,}", shown, re.M) else set()
    )
    return [f"make help does not list the target {t}" for t in sorted(targets - named)]


def problems_of(root):
    """Every way the kit at root is not what its maps say."""
    student_package = not (root / "solutions").is_dir()
    # The student package's make help lists the students' targets only.
    return (
        check_maps(root, kit_folders(kit_files(root)), student_package)
        + check_kitgrader(root)
        + ([] if student_package else check_help(root))
    )


def main():
    problems = problems_of(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT)
    for problem in problems:
        print(f"check-layout: {problem}")
    if problems:
        return 1
    print("check-layout: the layout tables, kitgrader's module list and make help are true")
    return 0


if __name__ == "__main__":
    sys.exit(main())
