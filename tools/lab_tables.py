#!/usr/bin/env python3
"""lab_tables: the tables of labs in README.md and docs/mainpage.md, written from labs/.

    python3 tools/lab_tables.py           rewrite both tables
    python3 tools/lab_tables.py --check   exit 1 (and say which) when one is out of date

Each lab's handout (labs/NN-name/README.md) starts with its title and, on the next line, an
HTML comment `<!-- summary: what the student builds -->`. The tables sit between the lines
`<!-- lab-table:begin -->` and `<!-- lab-table:end -->` of each page; a lab added with its
handout shows up in both by running this (make check runs --check). Exit 2 when a handout
has no summary or a page has no markers.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- lab-table:begin -->", "<!-- lab-table:end -->"
TITLE = re.compile(r"^# Lab (?P<num>\d\d): (?P<title>.*?) \{#(?P<anchor>lab\d\d)\}$")
SUMMARY = re.compile(r"^<!-- summary: (?P<text>.*) -->$")


def labs():
    """(folder name, number, title, anchor, summary) of each lab, in order."""
    found = []
    for handout in sorted(ROOT.glob("labs/[0-9][0-9]-*/README.md")):
        lines = handout.read_text(encoding="utf-8").splitlines()
        title = TITLE.match(lines[0]) if lines else None
        summary = SUMMARY.match(lines[1]) if len(lines) > 1 else None
        if not title or not summary:
            raise SystemExit(
                f"lab_tables: {handout.relative_to(ROOT)} must start with "
                "'# Lab NN: title {#labNN}' and '<!-- summary: ... -->'"
            )
        found.append(
            (handout.parent.name, title["num"], title["title"], title["anchor"], summary["text"])
        )
    return found


def readme_table(found):
    rows = ["| lab | what you build |", "|---|---|"]
    rows += [f"| [{name}](labs/{name}/README.md) | {text} |" for name, _, _, _, text in found]
    return rows


def mainpage_table(found):
    rows = ["| lab | what you build | handout |", "|---|---|---|"]
    rows += [
        f'| {num} {title} | {text} | \\ref {anchor} "handout" |'
        for _, num, title, anchor, text in found
    ]
    return rows


def with_table(path, rows):
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"lab_tables: {path.relative_to(ROOT)} has no {BEGIN} ... {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + "\n".join(rows) + "\n" + END + tail


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = labs()
    stale = []
    for page, table in (
        (ROOT / "README.md", readme_table),
        (ROOT / "docs/mainpage.md", mainpage_table),
    ):
        wanted = with_table(page, table(found))
        if wanted != page.read_text(encoding="utf-8"):
            stale.append(str(page.relative_to(ROOT)))
            if not check:
                page.write_text(wanted, encoding="utf-8")
    if check:
        for page in stale:
            print(
                f"lab_tables: the table of labs in {page} is out of date: run "
                "python3 tools/lab_tables.py"
            )
        print(f"check-lab-tables: {2 - len(stale)} passed, {len(stale)} failed")
        return 1 if stale else 0
    for page in stale:
        print(f"lab_tables: wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
