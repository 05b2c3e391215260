#!/usr/bin/env python3
"""fixture_patch: writes a grader fixture's student files from the solution they change.

    grading/tests/fixture_patch.py grading/tests/fixtures/gpu/slow [-o OUT_FILE] [--solution FILE]
    grading/tests/fixture_patch.py grading/tests/fixtures/host/crash -o OUT_FOLDER

Most GPU fixtures (grading/tests/fixtures/gpu/) are the reference solution with one fault.
Such a fixture holds a `change.cu` instead of a copy of the solution: the fixture's header
comment, then the change as edits of solutions/01-oddeven/oddeven.cu, each one anchored to
lines of the solution and, for code a student writes, to the solution's marked blocks (the
BEGIN SOLUTION / END SOLUTION markers tools/skeleton.c reads):

    /**
     * @file oddeven.cu
     * @brief ...what the fixture shows (it replaces the solution's file comment)...
     */
    /* REPLACE IN 1.2 */             these lines, inside a block of TODO 1.2 ...
            CUDA_TRY(oddeven_phase(d_keys, n, (unsigned)phase));
    /* WITH */                       ... become these
            ...
    /* END */

    /* AFTER IN 1.1 */               after these lines, inside a block of TODO 1.1 ...
    /* INSERT */                     ... come these
    /* END */                        (BEFORE ... INSERT ... END the same way)

    /* BEFORE */                     without IN: the lines are outside every marked block
    #include "cuda_check.h"          (includes, helpers, the code around the TODOs)
    /* INSERT */
    ...
    /* END */

`/* SNIPPET NAME */`, a line of an INSERT or WITH, stands for grading/tests/fixtures/snippets/
NAME.cu, code that several hostile fixtures share (driver_copies: the driver API's copies,
reached without importing anything off the allowlist; host_merge_sort: a sort written by hand).

Each directive is a line of its own at column 0; the lines between directives are taken as
they are (blank lines included); blank lines between one END and the next directive are
ignored. `/* BASE NAME */`, as the first directive, starts from the sibling fixture NAME's
student file instead of the solution (then there are no marked blocks and no IN).

The result is what a student would hand in: the markers and skeleton stubs are gone, the
solution's code stays, with the edits applied in order. Anchors must match exactly once, in
the place the edit names: when the solution changes so that an anchor is gone, found twice,
or no longer inside (or outside) the TODO's blocks (a marker moved), the fixture is not
written and the message names the fixture, the edit and what was found. A change that
leaves the solution as it was is refused too.

A fixture with its own oddeven.cu (a file of its own, not a change) is copied as it is.

Host fixtures (grading/tests/fixtures/host/, the submissions test_grader.py and its siblings
grade against the fixture kit) are folders shaped as a student hands them in. Most of their
student files are a solution of the fixture kit (grading/tests/fixture_kit/solutions/) with
one fault, or the solution under a comment of its own; such a file is stored as NAME.change.cu
beside where NAME.cu goes, in the language above, and changes the fixture kit's solution
NAME.cu (no marked blocks there, so no IN). `/* BASE NAME */` starts from the sibling fixture
NAME's own NAME.cu (found at any depth in it) instead. A change of its header comment alone,
with no edit, is the base as it is under that comment: a right file in a fixture whose point
is elsewhere. The rest of a host fixture (files of its own, folders, links) is written as it
is; a link that points out of the fixture points, in the copy, at the same file by its
absolute path. write_host writes one fixture's folder, write_hosts all of them.

Exit status: 0 written, 2 an error (the message on stderr). It lives with the grader's tests,
not in tools/, so that neither the student package nor Gradescope's autograder carries it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
SOLUTION = ROOT / "solutions" / "01-oddeven" / "oddeven.cu"
STUDENT_FILE = "oddeven.cu"
DEFAULT_LAB = "01-oddeven"  # a fixture's expect.json may name another ("lab")
CHANGE_FILE = "change.cu"
HOST_FIXTURES = TESTS / "fixtures" / "host"
HOST_BASES = TESTS / "fixture_kit" / "solutions"  # the solutions host fixtures change
HOST_CHANGE = ".change.cu"  # NAME.change.cu in a host fixture is written as NAME.cu

DIRECTIVE = re.compile(r"^/\* (BASE|REPLACE|AFTER|BEFORE|WITH|INSERT|END|SNIPPET)(?: (.*?))? \*/$")
SNIPPETS = TESTS / "fixtures" / "snippets"  # code several hostile fixtures share
OPENERS = {"REPLACE": "WITH", "AFTER": "INSERT", "BEFORE": "INSERT"}


class FixtureError(Exception):
    """A fixture that cannot be written; the message names the fixture and what is wrong."""


@dataclass
class Line:
    text: str  # with its newline
    todo: str | None  # the TODO id of the marked block it is in; None outside every block


@dataclass
class Edit:
    verb: str  # REPLACE, AFTER or BEFORE
    todo: str | None  # IN <id>, or None: outside the marked blocks
    anchor: list = field(default_factory=list)
    new: list = field(default_factory=list)
    at: int = 0  # line number of the directive in change.cu

    def where(self):
        return f"inside TODO {self.todo}'s blocks" if self.todo else "outside the marked blocks"


def marked_lines(text, path):
    """The solution's code lines with the TODO id of the block each one is in; the marker
    lines and the skeleton's stubs left out (the rules of tools/skeleton.c)."""
    lines, todo, in_stub, opened_at = [], None, False, 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        stripped = line.strip()
        begin = re.match(r"/\* BEGIN SOLUTION (\S+) .*\*/$", stripped)
        if begin:
            if todo is not None:
                raise FixtureError(
                    f"{path}:{number}: BEGIN SOLUTION inside the block opened "
                    f"at line {opened_at}"
                )
            todo, in_stub, opened_at = begin.group(1), False, number
        elif stripped == "/* SKELETON */":
            if todo is None or in_stub:
                raise FixtureError(f"{path}:{number}: SKELETON outside a solution block")
            in_stub = True
        elif stripped == "/* END SOLUTION */":
            if todo is None:
                raise FixtureError(f"{path}:{number}: END SOLUTION without BEGIN SOLUTION")
            todo, in_stub = None, False
        elif not in_stub:
            lines.append(Line(line, todo))
    if todo is not None:
        raise FixtureError(f"{path}: the block opened at line {opened_at} is never closed")
    return lines


def parse_change(text, path, header_only=False):
    """(header lines, base fixture name or None, edits) of a change file; header_only: a
    change with no edit (its header alone) is allowed."""
    lines = text.splitlines(keepends=True)
    header, edits, base = [], [], None
    section = None  # the list the lines go to: None between edits
    expect = None  # the directive that must come next: WITH, INSERT or END
    for number, line in enumerate(lines, 1):
        directive = DIRECTIVE.match(line.rstrip("\n"))
        if not directive:
            if section is not None:
                section.append(line)
            elif not edits and base is None:
                header.append(line)  # before the first directive
            elif line.strip():
                raise FixtureError(
                    f"{path}:{number}: a line outside an edit (edits are "
                    f"REPLACE/WITH/END, AFTER/INSERT/END, BEFORE/INSERT/END)"
                )
            continue
        word, argument = directive.group(1), directive.group(2)
        if word == "SNIPPET":
            if expect != "END" or section is not edits[-1].new:
                raise FixtureError(f"{path}:{number}: SNIPPET only inside an INSERT or WITH")
            snippet = SNIPPETS / f"{argument}.cu"
            if not argument or not snippet.is_file():
                raise FixtureError(f"{path}:{number}: no snippet {snippet}")
            section.extend(snippet.read_text().splitlines(keepends=True))
            continue
        if word == "BASE":
            if edits or base or section is not None:
                raise FixtureError(f"{path}:{number}: BASE must come before every edit")
            base = argument
            continue
        if word in OPENERS:
            if section is not None:
                raise FixtureError(
                    f"{path}:{number}: {word} before the {expect} the edit at "
                    f"line {edits[-1].at} needs"
                )
            scope = re.fullmatch(r"IN (\S+)", argument) if argument else None
            if argument and not scope:
                raise FixtureError(f"{path}:{number}: write `{word} IN <TODO id>` or `{word}`")
            edits.append(Edit(word, scope.group(1) if scope else None, at=number))
            section, expect = edits[-1].anchor, OPENERS[word]
        elif word == expect and word in ("WITH", "INSERT"):
            section, expect = edits[-1].new, "END"
        elif word == expect == "END":
            section, expect = None, None
        else:
            raise FixtureError(
                f"{path}:{number}: {word} where "
                + (f"{expect} was expected" if expect else "an edit must start")
            )
    if section is not None:
        raise FixtureError(f"{path}: the edit at line {edits[-1].at} has no {expect}")
    while header and not header[-1].strip():
        header.pop()
    if not header or not header[0].startswith("/*"):
        raise FixtureError(f"{path}: must start with the fixture's header comment")
    text = "".join(header)
    if not text.rstrip().endswith("*/") or text.find("*/") != len(text.rstrip()) - 2:
        raise FixtureError(f"{path}: a line after the header comment and before the first edit")
    if not edits and not header_only:
        raise FixtureError(f"{path}: no edit (REPLACE, AFTER or BEFORE)")
    return header, base, edits


def occurrences(lines, anchor):
    """Where the anchor's lines start in lines (every place)."""
    texts = [line.text for line in lines]
    size = len(anchor)
    return [i for i in range(len(texts) - size + 1) if texts[i : i + size] == anchor]


def apply(lines, edit, what):
    """Applies one edit to lines in place."""
    if not edit.anchor:
        raise FixtureError(f"{what}: the edit has no lines to find")
    if edit.verb == "REPLACE" and edit.anchor == edit.new:
        raise FixtureError(f"{what}: REPLACE ... WITH the same lines changes nothing")
    found = occurrences(lines, edit.anchor)
    size = len(edit.anchor)
    placed = [i for i in found if all(line.todo == edit.todo for line in lines[i : i + size])]
    if len(placed) != 1:
        detail = f"found {len(placed)} times there"
        if len(found) > len(placed):
            detail += f" and {len(found) - len(placed)} times elsewhere (did a marker move?)"
        raise FixtureError(
            f"{what}: the lines from `{edit.anchor[0].strip()}` must be found "
            f"once {edit.where()} of the base, but were {detail}"
        )
    start = placed[0]
    new = [Line(text, edit.todo) for text in edit.new]
    if edit.verb == "REPLACE":
        lines[start : start + size] = new
    elif edit.verb == "AFTER":
        lines[start + size : start + size] = new
    else:
        lines[start:start] = new


def without_file_comment(lines):
    """lines less the comment they start with (the base's file comment)."""
    if not lines or not lines[0].text.lstrip().startswith("/*"):
        return lines
    for i, line in enumerate(lines):
        if "*/" in line.text:
            return lines[i + 1 :]
    return lines


def base_lines(fixture, base, solution):
    """The lines the edits apply to: the marked solution, or a sibling fixture's file."""
    if base is None:
        return marked_lines(Path(solution).read_text(), solution)
    sibling = fixture.parent / base
    if not sibling.is_dir() or sibling.resolve() == fixture.resolve():
        raise FixtureError(f"BASE {base}: no fixture {sibling}")
    return [Line(text, None) for text in source(sibling, solution).splitlines(keepends=True)]


def changed(change, lines_of, header_only=False):
    """The text a change file writes: its header comment, then the lines of its base, less
    the base's file comment, with its edits applied. lines_of(base) gives the base's lines
    (base: the name of a BASE directive, or None)."""
    header, base, edits = parse_change(change.read_text(), change, header_only)
    lines = lines_of(base)
    before = "".join(line.text for line in lines)
    for edit in edits:
        if edit.todo and base:
            raise FixtureError(
                f"{change}:{edit.at}: IN {edit.todo}: the base {base} has " f"no marked blocks"
            )
        if edit.todo and not any(line.todo == edit.todo for line in lines):
            raise FixtureError(f"{change}:{edit.at}: the base has no block of TODO " f"{edit.todo}")
        apply(
            lines,
            edit,
            f"{change}:{edit.at} ({edit.verb}" + (f" IN {edit.todo})" if edit.todo else ")"),
        )
    body = "".join(line.text for line in lines)
    if edits and body == before:
        raise FixtureError(f"{change}: the edits leave the base as it was")
    return "".join(header) + "".join(line.text for line in without_file_comment(lines))


def fixture_lab(fixture):
    """The lab a GPU fixture is a submission of (its expect.json's "lab", else Lab 01)."""
    expect = Path(fixture) / "expect.json"
    lab = (
        json.loads(expect.read_text()).get("lab", DEFAULT_LAB) if expect.is_file() else DEFAULT_LAB
    )
    return lab


def lab_student_file(lab):
    """A lab's student file, as its rubric names it."""
    return json.loads((ROOT / "grading" / "rubric" / f"{lab}.json").read_text())["student_file"]


def source(fixture, solution=None):
    """The fixture's student file, as text: its own copy of it, or its change.cu applied to
    its lab's solution (or to `solution`)."""
    fixture = Path(fixture)
    lab = fixture_lab(fixture)
    name = lab_student_file(lab)
    solution = solution or ROOT / "solutions" / lab / name
    own, change = fixture / name, fixture / CHANGE_FILE
    if own.is_file() and change.is_file():
        raise FixtureError(f"fixture {fixture.name}: has both {name} and {CHANGE_FILE}")
    if own.is_file():
        return own.read_text()
    if not change.is_file():
        raise FixtureError(f"fixture {fixture.name}: has neither {name} nor {CHANGE_FILE}")
    try:
        return changed(change, lambda base: base_lines(fixture, base, solution))
    except FixtureError as err:
        raise FixtureError(f"fixture {fixture.name}: {err}") from None
    except OSError as err:
        raise FixtureError(f"fixture {fixture.name}: {err}") from None


def write(fixture, out, solution=None):
    """Writes the fixture's student file to out (a file path); returns out."""
    text = source(fixture, solution)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return out


# ---- host fixtures --------------------------------------------------------------------------


def plain_lines(path):
    return [Line(text, None) for text in Path(path).read_text().splitlines(keepends=True)]


def host_source(fixture, change, bases=HOST_BASES):
    """The text of a host fixture's NAME.change.cu: the fixture kit's solution NAME.cu, or
    the BASE sibling's NAME.cu, changed."""
    name = change.name[: -len(HOST_CHANGE)] + ".cu"

    def lines_of(base):
        if base is None:
            found = sorted(Path(bases).glob(f"*/{name}"))
            if len(found) != 1:
                raise FixtureError(
                    f"{change}: {len(found)} solutions named {name} in {bases} "
                    f"(the base must be one)"
                )
            return plain_lines(found[0])
        sibling = fixture.parent / base
        if not sibling.is_dir() or sibling.resolve() == fixture.resolve():
            raise FixtureError(f"BASE {base}: no fixture {sibling}")
        found = sorted(p for p in sibling.rglob("*") if p.name in (name, change.name))
        if len(found) != 1:
            raise FixtureError(
                f"BASE {base}: {len(found)} files {name} in {sibling} (the " f"base must be one)"
            )
        if found[0].name == change.name:
            return [
                Line(text, None)
                for text in host_source(sibling, found[0], bases).splitlines(keepends=True)
            ]
        return plain_lines(found[0])

    return changed(change, lines_of, header_only=True)


def write_host(fixture, out, bases=HOST_BASES):
    """Writes the host fixture's submission, as a student hands it in, to the folder out (made
    here; it must not exist); returns out."""
    fixture, out = Path(fixture).absolute(), Path(out)
    try:
        out.mkdir(parents=True)
        for folder, dirs, files in os.walk(fixture):
            here = Path(folder)
            to = out / here.relative_to(fixture)
            for entry in sorted(dirs + files):
                path = here / entry
                if path.is_symlink():
                    target = os.readlink(path)
                    whole = os.path.normpath(os.path.join(here, target))
                    inside = whole == str(fixture) or whole.startswith(str(fixture) + os.sep)
                    os.symlink(target if inside else whole, to / entry)
                elif path.is_dir():
                    (to / entry).mkdir()
                elif entry.endswith(HOST_CHANGE):
                    written = to / (entry[: -len(HOST_CHANGE)] + ".cu")
                    if (here / written.name).exists():
                        raise FixtureError(f"{path}: {written.name} is there too")
                    written.write_text(host_source(fixture, path, bases))
                else:
                    shutil.copy2(path, to / entry)
    except FixtureError as err:
        raise FixtureError(f"fixture {fixture.name}: {err}") from None
    except OSError as err:
        raise FixtureError(f"fixture {fixture.name}: {err}") from None
    return out


def write_hosts(out, fixtures=HOST_FIXTURES, bases=HOST_BASES):
    """Writes every host fixture (each folder of fixtures) to out/NAME; returns out."""
    for fixture in sorted(Path(fixtures).iterdir()):
        if fixture.is_dir():
            write_host(fixture, Path(out) / fixture.name, bases)
    return Path(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixture", help="a folder of grading/tests/fixtures/gpu/ or .../host/")
    parser.add_argument(
        "-o",
        "--out",
        help="the file to write (default: standard output); for "
        "a host fixture, the folder to write (needed)",
    )
    parser.add_argument(
        "--solution",
        help="the marked solution a GPU fixture's change "
        "applies to (default: its lab's, solutions/LAB/FILE)",
    )
    args = parser.parse_args()
    try:
        if Path(args.fixture).resolve().parent == HOST_FIXTURES:
            if not args.out:
                parser.error("a host fixture is a folder: name one with -o")
            write_host(args.fixture, args.out)
        elif args.out:
            write(args.fixture, args.out, args.solution)
        else:
            sys.stdout.write(source(args.fixture, args.solution))
    except FixtureError as err:
        print(f"fixture_patch: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
