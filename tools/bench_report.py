#!/usr/bin/env python3
"""make bench-report: plots and a table from the rows of the labs' `--bench --csv FILE`;
make docs: the site's Performance page from the results files committed in docs/performance/.

usage: tools/bench_report.py OUT_DIR CSV...
       tools/bench_report.py --page OUT_DIR [CSV...]

Reads every row of the CSV files (columns: common/bench_csv.h) and writes into OUT_DIR:
  lab_NAME.svg   one chart per lab: keys per second against n, log-log, a line per tier
                 (its legend entry gives its speed over CUB's radix sort, the fair baseline),
                 CUB's radix and merge sorts and std::sort measured in the same runs (and
                 CUB's radix sort of pairs, measured beside the tiers that sort pairs), and
                 each tier's floor (its passes at the copy bandwidth) dashed in its colour;
  all_2_24.svg   every lab's tiers at n = 2^24 (a tier measured only below it, such as
                 Lab 01's: at its largest n, named in its label) as bars coloured by lab,
                 each labelled with its speed over CUB, beside CUB's sorts (hatched grey);
  report.md      the same numbers as a table, with where they were measured (device, CUDA
                 driver, commit), and what each tier is.
Files written before the last column, cub_radix_pairs_ms, have the 13 columns before it:
they are read as rows without a CUB sort of pairs, and a table or chart whose rows have
none shows no column or line for it. A file whose rows come from more than one run (device,
driver or commit) is drawn with a warning: its charts mix the runs.
Charts are drawn by gnuplot (Debian's gnuplot-nox; `make deps` installs it) as SVG, so a
browser shows them at any size. Exit codes: 0 done, 2 bad arguments or rows (no CSV, or
one that does not exist: a one-line message), 3 no gnuplot.

With --page (make docs), each CSV is one results file (one run on one GPU: a file whose rows
name more than one device, driver or commit is refused) and OUT_DIR gets performance.md,
the Doxygen page `performance`: per file its device, driver, commit and date (from a
YYYY-MM-DD in the file's name), each tier beside CUB (at 2^24), and per lab a chart, a
table and what its tiers are; then how to measure your own GPU and commit a results file.
The charts are perf_FILE_lab_NAME.svg and perf_FILE_all_2_24.svg in OUT_DIR (Doxygen's
IMAGE_PATH: unique names, as Doxygen copies every image into one folder). No CSV: the page
says that no results are committed yet. No gnuplot: the page has the tables and says why
the charts are missing.
Exit codes: 0 done, 2 bad arguments or rows (a results file that cannot be read stops the
docs: it would otherwise vanish from the page unnoticed).

Numbers (speeds, ratios, floor percentages) are written with three significant digits, so
Lab 01's 0.000206 Gkeys/s or a 0.00139x ratio does not read as 0.00.
"""

from __future__ import annotations

import csv
import math
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

COLUMNS = (
    "device",
    "driver",
    "commit",
    "lab",
    "tier",
    "n",
    "distribution",
    "ms",
    "gkeys_s",
    "cub_radix_ms",
    "cub_merge_ms",
    "std_sort_ms",
    "floor_ms",
    "cub_radix_pairs_ms",
)
# The headers this tool reads: today's, and that of the files written before the last column.
HEADERS = (COLUMNS, COLUMNS[:-1])
N_2_24 = 1 << 24
# What says which run a row comes from: one run is one device, one driver and one commit.
RUN_COLUMNS = ("device", "driver", "commit")


class BadRows(Exception):
    pass


def read_rows(paths):
    rows = []
    for path in paths:
        try:
            f = open(path, newline="")
        except OSError as err:  # the file's name and why, not Python's errno text
            raise BadRows(f"{path}: {(err.strerror or str(err)).lower()}") from None
        with f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) not in HEADERS:
                raise BadRows(f"{path}: the header is not common/bench_csv.h's columns")
            for line, row in enumerate(reader, start=2):
                if None in row:  # DictReader's key for fields beyond the header's
                    raise BadRows(f"{path}, line {line}: more fields than the header has")
                try:
                    row["n"] = int(row["n"])
                    for key in ("ms", "cub_radix_ms", "cub_merge_ms", "std_sort_ms"):
                        row[key] = float(row[key])
                    for key in ("floor_ms", "cub_radix_pairs_ms"):  # empty or absent: none
                        row[key] = float(row[key]) if row.get(key) else None
                except ValueError as err:
                    raise BadRows(f"{path}, line {line}: {err}") from None
                if row["n"] <= 0 or row["ms"] <= 0:
                    raise BadRows(f"{path}, line {line}: n and ms must be positive")
                row["file"] = str(path)  # not a column: which file, for mixed_runs
                rows.append(row)
    if not rows:
        raise BadRows("no rows: run a driver with --bench --csv FILE first")
    return rows


def mixed_runs(rows, path):
    """None when every row of one file comes from one run; else a sentence naming what
    differs (the drivers append, so a file not emptied first holds rows of two runs)."""
    differ = []
    for column in RUN_COLUMNS:
        values = sorted({row[column] for row in rows})
        if len(values) > 1:
            differ.append(f"{len(values)} {column}s ({', '.join(values)})")
    if not differ:
        return None
    return (
        f"{path}: rows of more than one run: {'; '.join(differ)}; keep one run per file "
        "(split it by commit, or measure again into an empty file)"
    )


def gkeys(n, ms):
    """Billions of keys per second for n keys in ms milliseconds."""
    return n / (ms * 1e6) if ms and ms > 0 else None


def keys_per_s(n, ms):
    """Keys per second for n keys in ms milliseconds (the charts' axis unit)."""
    return n / (ms * 1e-3) if ms and ms > 0 else None


def sig3(value):
    """value with three significant digits (whole numbers from 100 up), never in exponent
    form, trailing zeros dropped: 34.4, 0.74, 0.000206, 1235. Two fixed decimals printed
    Lab 01's speeds and its ratios to CUB as 0.00."""
    if value == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def ratio(a, b):
    """How many times faster than the baseline: the baseline's time a over the lab's b."""
    if not a or not b:
        return "-"
    return f"{sig3(a / b)}x"


def floor_share(row):
    """The floor's time over the lab's, in percent ("-" for a tier without a floor)."""
    return f"{sig3(100 * row['floor_ms'] / row['ms'])}%" if row["floor_ms"] else "-"


def power_of_two(n):
    """2^24 for a power of two (gnuplot text, not enhanced), else the number."""
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def _quoted(text):
    """text as a gnuplot string in single quotes (a quote doubled)."""
    return "'" + str(text).replace("'", "''") + "'"


def _series(points):
    return "\n".join(f"{x} {y:.6g}" for x, y in sorted(points) if y) + "\ne\n"


# What each tier is: lab -> tier (the driver's --algo name, as labs/NN-NAME/NAME_main.c's
# table lists it) -> (the TODOs it runs, the `todo` field of that table; what it is, in the
# words of the handout's `--algo` row and TODO headings). A tier of the table missing here,
# or a TODO that no longer matches, fails tools/test_bench_report.py.
TIERS = {
    "oddeven": {
        "global": (
            "1.1/1.2",
            "the sort as n launches, one phase each over global memory " "(oddeven_sort())",
        ),
        "block": (
            "1.3",
            "one block, in shared memory, n up to 2048 " "(oddeven_sort_block_batch())",
        ),
        "cooperative": (
            "1.4",
            "bonus: one launch, a grid-wide barrier between phases " "(oddeven_sort_cooperative())",
        ),
    },
    "mergesort": {
        "keys": ("2.1-2.4", "the sort, its three tiers together (mergesort_sort_keys())"),
        "pairs": ("2.1-2.4", "the same with a value per key (mergesort_sort_pairs())"),
        "thread": (
            "2.1",
            "every pass by tier 1 alone, one thread per merge (n up to 2^22): "
            "times the tier on its own, slow by design",
        ),
        "path": (
            "2.3",
            "every pass by tier 3 alone, merge path from width 1: times the tier "
            "on its own, slow by design",
        ),
        "reg-keys": ("2.6", "bonus: merges in registers (mergesort_sort_keys_reg())"),
        "reg-pairs": (
            "2.6",
            "bonus: merges in registers, a value per key " "(mergesort_sort_pairs_reg())",
        ),
    },
    "bitonic": {
        "pairs": ("3.1-3.4", "the sort with a value per key (bitonic_sort_pairs())"),
        "keys": ("3.1-3.4", "the sort of keys (bitonic_sort_keys())"),
        "multistride-pairs": (
            "3.5",
            "bonus: multistride passes, about a third of the passes "
            "over global memory (bitonic_sort_multistride_pairs())",
        ),
        "multistride-keys": (
            "3.5",
            "bonus: multistride passes, keys only " "(bitonic_sort_multistride_keys())",
        ),
    },
    "radix": {
        "keys": ("4.1-4.4", "4-bit digits on scan (radix_sort_keys())"),
        "pairs": ("4.1-4.4", "the same with a value per key (radix_sort_pairs())"),
        "i32": ("4.1-4.4", "signed keys through the bit flip (radix_sort_i32())"),
        "f32": ("4.1-4.4", "float keys through the bit flip (radix_sort_f32())"),
        "split": ("4.1-4.2", "the 32-split baseline, one bit per pass (radix_sort_split())"),
        "onesweep": (
            "4.6",
            "bonus: onesweep, keys read and written once per pass " "(radix_sort_onesweep_keys())",
        ),
        "onesweep_pairs": (
            "4.6",
            "bonus: onesweep with a value per key " "(radix_sort_onesweep_pairs())",
        ),
    },
    "quicksort": {
        "cdp": ("5.2-5.4", "the tree of launches by dynamic parallelism (quicksort_sort())"),
        "loop": (
            "5.2-5.4",
            "the same partitions launched from a host loop " "(quicksort_sort_host_loop())",
        ),
        "simple": ("5.1", "the simple version, a thread per partition (quicksort_simple())"),
    },
}


def tier_notes(lab, tiers):
    """["`tier` (TODO x): what it is"] for each of tiers that TIERS knows, in the driver's
    order; a tier it does not know (rows of another kit's version) goes without a note."""
    known = TIERS.get(lab, {})
    return [
        f"`{tier}` (TODO {todo}): {what}" for tier, (todo, what) in known.items() if tier in tiers
    ]


# The baselines of a chart: name, column, grey, gnuplot dash type.
BASELINES = (
    ("CUB radix sort", "cub_radix_ms", "#202020", 3),
    ("CUB radix sort (pairs)", "cub_radix_pairs_ms", "#202020", 4),
    ("CUB merge sort", "cub_merge_ms", "#707070", 3),
    ("std::sort (1 core)", "std_sort_ms", "#a8a8a8", 3),
)


def baseline_times(rows, key):
    """n -> a baseline's time (column key) from the first row of that n that has one."""
    times = {}
    for row in rows:
        if row.get(key):
            times.setdefault(row["n"], row[key])
    return times


def has_pairs(rows):
    """Whether any row has CUB's radix sort of pairs (a tier of pairs, a file that has it)."""
    return any(row.get("cub_radix_pairs_ms") for row in rows)


def fair_cub(row):
    """(name, ms) of the CUB sort a row is compared with: CUB's radix sort, of pairs for a
    tier that carries values (it moves twice the bytes), as the drivers' --bench does."""
    if row.get("cub_radix_pairs_ms"):
        return "CUB radix pairs", row["cub_radix_pairs_ms"]
    return "CUB radix", row["cub_radix_ms"]


def compared_rows(rows):
    """One row per (lab, tier, distribution), the one the every-lab chart and table show: at
    2^24, else the largest n below it (Lab 01's sizes, a tier with a limit), else the
    smallest above."""
    chosen = {}
    for row in rows:
        key = (row["lab"], row["tier"], row["distribution"])
        # Sorts first: 2^24, then below it from the largest, then above from the smallest.
        rank = (
            (0, 0) if row["n"] == N_2_24 else (1, -row["n"]) if row["n"] < N_2_24 else (2, row["n"])
        )
        if key not in chosen or rank < chosen[key][0]:
            chosen[key] = (rank, row)
    return [row for _, row in chosen.values()]


def lab_chart(lab, rows):
    """The gnuplot script of one lab's chart: keys/s against n, log-log, SI-style ticks."""
    title, page_id = lab_heading(lab)
    title = title if page_id else f"Lab {lab}"  # a lab the kit lacks: its name, unescaped
    tiers = sorted({row["tier"] for row in rows})
    at = {(row["tier"], row["distribution"]): row for row in compared_rows(rows)}
    plots, data = [], []
    any_floor = False
    for color, tier in enumerate(tiers, start=1):  # a tier and its floor in one colour
        mine = [row for row in rows if row["tier"] == tier]
        # The legend says how the tier compares with CUB at 2^24 (or the n it was measured
        # at), so the reader gets the number without reading it off a log axis.
        shown = [r for key, r in at.items() if key[0] == tier]
        name = tier
        if len(shown) == 1:  # rows of several distributions: the table has each ratio
            row = shown[0]
            cub, cub_ms = fair_cub(row)
            name += f" ({ratio(cub_ms, row['ms'])} {cub}"
            name += ")" if row["n"] == N_2_24 else f" at n = {power_of_two(row['n'])})"
        plots.append(
            f"'-' using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc {color} "
            f"title {_quoted(name)} noenhanced"
        )
        data.append(_series((row["n"], keys_per_s(row["n"], row["ms"])) for row in mine))
        floors = [
            (row["n"], keys_per_s(row["n"], row["floor_ms"])) for row in mine if row["floor_ms"]
        ]
        if floors:  # no legend entry each: one entry below says what dashed means
            plots.append(f"'-' using 1:2 with lines dt 2 lc {color} notitle")
            data.append(_series(floors))
            any_floor = True
    if any_floor:
        plots.append(
            "NaN with lines dt 2 lc rgb '#000000' title 'dashed: each tier''s "
            "floor (its passes at copy bandwidth)'"
        )
    for name, key, grey, dash in BASELINES:
        times = baseline_times(rows, key)
        if times:  # CUB's sort of pairs only where a tier of pairs measured it
            plots.append(
                f"'-' using 1:2 with linespoints lw 3 dt {dash} pt 6 ps 0.6 "
                f"lc rgb '{grey}' title '{name}'"
            )
            data.append(_series((n, keys_per_s(n, ms)) for n, ms in times.items()))
    return (
        f"set title {_quoted(title + ': keys per second')} noenhanced\n"
        "set logscale x 2\nset format x '2^{%L}'\nset xlabel 'n (keys)'\n"
        # keys/s on a base-10 axis written 1M, 10M, 1G: a base-2 axis of billions wrote
        # its ticks as 0.00390625
        "set logscale y 10\nset format y '%.0s%c'\nset ylabel 'keys per second'\n"
        # The legend under the plot: beside it, it took half the width. One line more
        # than gnuplot counts, so that its first entry clears the x axis's label.
        "set key outside below left Left reverse height 1\nset grid\n"
        f"plot {', '.join(plots)}\n" + "".join(data)
    )


# The labs' colours on the every-lab chart (Okabe and Ito's, told apart by colour-blind
# readers too); CUB is hatched dark grey, so a baseline never looks like a lab.
LAB_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442")
CUB_COLOUR = "#303030"


def lab_colour(lab, index):
    """A lab's colour by its number (Lab 02 has one colour on every chart, whichever labs a
    results file holds); a lab the kit lacks by its place on the chart."""
    key = lab_sort_key(lab)
    number = int(key[:2]) - 1 if not key.startswith("99-") else len(TIERS) + index
    return LAB_COLOURS[number % len(LAB_COLOURS)]


def all_labs_chart(rows):
    """Every (lab, tier) as a horizontal bar of keys/s on a log axis (Lab 01 is thousands of
    times slower than the others: a linear axis hides it), coloured by lab, at the n of
    compared_rows, each labelled on the right with its speed over its CUB sort; above them
    CUB's radix sort (of keys, and of pairs where a row has it) and merge sort, hatched.
    Returns (script, number of bars)."""
    chosen = compared_rows(rows)
    several = len({row["distribution"] for row in chosen}) > 1
    cub_n = N_2_24 if any(row["n"] == N_2_24 for row in chosen) else max(row["n"] for row in chosen)
    at_cub_n = [row for row in rows if row["n"] == cub_n]
    # Entries top to bottom: (left label, keys/s, right label, colour or None for CUB); None
    # is a gap between groups.
    entries = []
    for name, key, _, _ in BASELINES:
        times = baseline_times(at_cub_n, key)
        if times and key != "std_sort_ms":  # CUB's sorts: std::sort is not on this chart
            where = "" if cub_n == N_2_24 else f", n = {power_of_two(cub_n)}"
            speed = keys_per_s(cub_n, times[cub_n])
            entries.append(
                (f"{name} (baseline{where})", speed, f"{sig3(speed / 1e9)} Gkeys/s", None)
            )
    labs = sorted({row["lab"] for row in chosen}, key=lab_sort_key)
    for index, lab in enumerate(labs):
        entries.append(None)
        for row in sorted(
            (r for r in chosen if r["lab"] == lab), key=lambda r: (r["tier"], r["distribution"])
        ):
            left = f"{lab} {row['tier']}"
            if several:
                left += f" ({row['distribution']})"
            if row["n"] != N_2_24:
                left += f", n = {power_of_two(row['n'])}"
            cub, cub_ms = fair_cub(row)
            speed = keys_per_s(row["n"], row["ms"])
            right = f"{sig3(speed / 1e9)} Gkeys/s, {ratio(cub_ms, row['ms'])} {cub}"
            entries.append((left, speed, right, lab_colour(lab, index)))
    top = len(entries) - 1
    speeds = [e[1] for e in entries if e]
    # Bars start at the power of ten below the slowest (strictly below: no bar of length 0).
    low = 10 ** (math.ceil(math.log10(min(speeds))) - 1)
    high = 10 ** math.ceil(math.log10(max(speeds)))
    left_tics, right_tics, lab_bars, cub_bars = [], [], [], []
    for i, entry in enumerate(entries):
        if entry is None:
            continue
        y = top - i  # gnuplot's y grows upwards: the first entry at the top
        label, speed, right, colour = entry
        left_tics.append(f"{_quoted(label)} {y}")
        right_tics.append(f"{_quoted(right)} {y}")
        bar = f"{speed:.6g} {y} {low:.6g} {speed:.6g} {y - 0.35} {y + 0.35}"
        if colour:
            lab_bars.append(f"{bar} {int(colour[1:], 16)}")
        else:
            cub_bars.append(bar)
    plots = []
    data = []
    if cub_bars:
        plots.append(
            f"'-' using 1:2:3:4:5:6 with boxxyerror fs pattern 2 border "
            f"lc rgb '{CUB_COLOUR}' fc rgb '{CUB_COLOUR}' notitle"
        )
        data.append("\n".join(cub_bars) + "\ne\n")
    # A box's fill takes fc, not lc: the 7th column is each bar's lab colour.
    plots.append(
        "'-' using 1:2:3:4:5:6:7 with boxxyerror fs solid 0.8 border "
        "lc rgb '#404040' fc rgb variable notitle"
    )
    data.append("\n".join(lab_bars) + "\ne\n")
    script = (
        "set title 'Each tier beside CUB: keys per second at n = 2^{24}, or at the tier''s "
        "largest n (in its label)'\n"
        "set logscale x 10\nset format x '%.0s%c'\nset xlabel 'keys per second (log scale)'\n"
        f"set xrange [{low:.6g}:{high:.6g}]\nset yrange [-1:{top + 1}]\n"
        "set grid x\nunset key\nset border 3\n"
        f"set ytics nomirror scale 0 noenhanced ({', '.join(left_tics)})\n"
        f"set y2tics nomirror scale 0 noenhanced ({', '.join(right_tics)})\n"
        f"set y2range [-1:{top + 1}]\nset xtics nomirror\n"
        f"plot {', '.join(plots)}\n" + "".join(data)
    )
    return script, len(speeds)


def table(rows):
    """report.md: where it was measured, one line per measured size, what each tier is."""
    where = sorted({(row["device"], row["driver"], row["commit"]) for row in rows})
    pairs = has_pairs(rows)
    heads = (
        ["lab", "tier", "n", "ms", "Gkeys/s", "lab / CUB radix"]
        + (["lab / CUB radix pairs"] if pairs else [])
        + ["lab / CUB merge", "floor %"]
    )
    lines = [
        "Measured on "
        + "; ".join(f"{d} (CUDA driver {v}, kit commit {c})" for d, v, c in where)
        + ".",
        "",
        "Speeds and ratios have three significant digits; lab / CUB is the lab's speed "
        "over CUB's (1x: as fast, 0.5x: half as fast); floor % is the tier's floor (its "
        "passes at the copy bandwidth) over its time.",
        "",
        "| " + " | ".join(heads) + " |",
        "|" + "---|" * len(heads),
    ]
    for row in sorted(rows, key=lambda r: (lab_sort_key(r["lab"]), r["tier"], r["n"])):
        cells = [
            row["lab"],
            row["tier"],
            str(row["n"]),
            f"{row['ms']:.3f}",
            sig3(gkeys(row["n"], row["ms"])),
            ratio(row["cub_radix_ms"], row["ms"]),
        ]
        if pairs:
            cells.append(ratio(row["cub_radix_pairs_ms"], row["ms"]))
        cells += [ratio(row["cub_merge_ms"], row["ms"]), floor_share(row)]
        lines.append("| " + " | ".join(cells) + " |")
    notes = []
    for lab in sorted({row["lab"] for row in rows}, key=lab_sort_key):
        for note in tier_notes(lab, {row["tier"] for row in rows if row["lab"] == lab}):
            notes.append(f"- {lab} {note}")
    if notes:
        lines += ["", "What each tier is (the driver's `--algo`):", ""] + notes
    return "\n".join(lines) + "\n"


# ---- make docs: the Performance page ------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = "docs/performance"
# Characters Doxygen reads as commands or markup, written with its escapes; other punctuation
# of a CSV field that Markdown could take as markup becomes a space (a device's name is
# letters, digits, spaces and a little punctuation).
_DOXYGEN_ESCAPED = set('\\@&$#<>%"|')
_PLAIN = set(" .,()+:/=-'")


def doxygen_text(text, heading=False):
    """A CSV field written so that a Doxygen Markdown page shows it as it is (in a heading,
    where Doxygen shows an escaped | as it is written, without its |)."""
    out = []
    for ch in str(text):
        if ch.isalnum() or ch in _PLAIN:
            out.append(ch)
        elif ch in _DOXYGEN_ESCAPED and not (heading and ch == "|"):
            out.append("\\" + ch)
        else:
            out.append(" ")
    return " ".join("".join(out).split()) or "(none)"


def slug(text):
    """Letters, digits and _ only: a Doxygen anchor or an image's file name."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def show_n(n):
    return f"2<sup>{n.bit_length() - 1}</sup>" if n & (n - 1) == 0 else str(n)


def driver_version(text):
    """cudaDriverGetVersion's 13000 as "13.0 (13000)"; anything else as it is."""
    if text.isdigit() and int(text) >= 1000:
        v = int(text)
        return f"{v // 1000}.{v % 1000 // 10} ({v})"
    return doxygen_text(text)


def lab_folders(lab):
    """labs/NN-NAME for a lab by its driver's name (none for a name that is not a word)."""
    return sorted(ROOT.glob(f"labs/[0-9][0-9]-{lab}")) if re.fullmatch(r"\w+", lab) else []


def lab_heading(lab):
    """(title, page id) of a lab by its driver's name, from labs/NN-NAME/README.md's first
    line (`# Lab 04: radix sort built on scan {#lab04}`); (lab, None) when there is none."""
    for readme in (
        folder / "README.md" for folder in lab_folders(lab) if (folder / "README.md").is_file()
    ):
        first = readme.read_text(errors="replace").split("\n", 1)[0]
        found = re.match(r"#\s+(.*?)\s*\{#(\w+)\}\s*$", first)
        if found:
            return found.group(1), found.group(2)
    return doxygen_text(lab), None


def lab_sort_key(lab):
    found = lab_folders(lab)
    return found[0].name if found else "99-" + lab


def results_date(path):
    found = re.search(r"(\d{4}-\d{2}-\d{2})", Path(path).stem)
    return found.group(1) if found else None


def last_of_each(rows, path):
    """One row per (lab, tier, distribution, n): a file that holds two runs keeps the later."""
    kept = {}
    for row in rows:
        key = (row["lab"], row["tier"], row["distribution"], row["n"])
        if key in kept:
            print(
                f"bench_report: {path}: {key[0]} {key[1]} n = {key[3]} measured twice; the "
                "later row is shown",
                file=sys.stderr,
            )
        kept[key] = row
    return list(kept.values())


PAGE_INTRO = """\
# Performance {#performance}

[TOC]

How fast the labs' reference solutions sort on real GPUs, beside CUB's radix sort and merge
sort and one CPU core's `std::sort` measured in the same run on the same keys. Every number
on this page comes from a results file committed in `docs/performance/` (the rows of the
labs' drivers' `--bench --csv FILE`, columns in bench_csv.h); `make docs` draws the page from
those files, on any machine (no GPU needed).

How to read the tables: n keys, 32-bit, uniform random, unless a row says otherwise; *ms* is
the median of the run's repetitions, on the GPU, without host-device copies; *Gkeys/s* is
billions of keys per second (n / time). The *vs* columns are speed ratios, the baseline's
time over the lab's: 1x is as fast as the baseline, 0.5x half its speed. Speeds, ratios and
floors have three significant digits (Lab 01 sorts a few hundred thousand keys per second:
0.000206 Gkeys/s, not 0.00). A tier that sorts key-value pairs moves twice the bytes of a
sort of keys: its fair baseline is *vs CUB radix pairs*, CUB's radix sort of the same keys
each with a 32-bit value (a column only in files that have it, - for a tier of keys).
*floor* is the time the tier's passes over memory would take at the device's copy
bandwidth, over the lab's time (100\\%: the sort moves its bytes as fast as a copy; only
tiers that declare their passes have one). Under each lab's table, what each tier is: its
`--algo` name, the TODOs it runs, and what it does; some tiers run one part of the sort alone
(Lab 02's `thread` and `path`), slow by design, to time that part.

On each lab's chart, keys per second against n (both axes logarithmic): a line per tier,
named with its speed over CUB's radix sort (of pairs, for a tier of pairs) at
2<sup>24</sup>, its floor dashed in its colour, CUB and `std::sort` in greys. The chart
*Each tier beside CUB* has a bar per tier at 2<sup>24</sup>, or at its largest n when it was
not measured there (Lab 01's sort does about n<sup>2</sup>/2 compare-exchanges: its sizes
stop at 2<sup>16</sup>), coloured by lab, on a logarithmic axis, each labelled with its speed
over CUB's sort of the same n; CUB's sorts are the hatched grey bars at the top.
"""

PAGE_HOWTO = """\
## Measure your own GPU {#perf_regenerate}

On a machine with an NVIDIA GPU, from the kit's root (the binaries may be built elsewhere,
see \\ref instructor_build):

```sh
make -j8 CUDA_ARCH=native all            # or sm_90 and friends: the GPU you measure
rm -f build/gpu-check/bench.csv          # the drivers append: start from an empty file
make gpu-check GPU_CHECK_STEPS=bench     # every lab's --bench, rows in build/gpu-check/bench.csv
make bench-report BENCH_CSV=build/gpu-check/bench.csv   # charts and table: build/bench-report/
```

One lab, one tier: its driver (the student package has no reference solution:
`build/student/bin/radix` measures your own code), then the report of its rows:

```sh
export KIT_COMMIT=$(git rev-parse --short HEAD)   # else the commit column says unknown
build/solution/bin/radix --bench --algo keys --reps 5 --csv mine.csv
make bench-report BENCH_CSV=mine.csv
```

Lab 05's `--bench` prints its own table (three distributions and the seed article's
algorithm); its rows are those of uniform keys, one per version (simple, cdp, loop) and n.

The rows at 2<sup>20</sup> keys take well under a millisecond each: there one slow moment of
the machine shows, in the lab's time and CUB's of the same row (as in the H100 file's radix
i32 and onesweep_pairs rows at 2<sup>20</sup>). Read a tier's speed at 2<sup>24</sup> and
2<sup>26</sup>, or run it again.

## Commit a results file {#perf_commit}

Copy the rows of one run, on one GPU, to `docs/performance/DEVICE-YYYY-MM-DD.csv` (the date
in the name is the one this page shows), commit it, and rebuild the site:

```sh
cp build/gpu-check/bench.csv docs/performance/h100-2026-11-24.csv
git add docs/performance/h100-2026-11-24.csv
git commit -m "Performance: H100 results of 2026-11-24"
make docs                                # the page: build/docs/html/performance.html
```

Commit measured rows only, never edited ones: the device, driver and commit columns say
where they come from. One run per file: a file whose rows name two commits (a lab measured
again and its rows appended) stops `make docs`; give the second run a file of its own,
`DEVICE-YYYY-MM-DD-WHAT.csv` when it is of the same day (as
`h100-2026-11-24-mergesort.csv`). A file that cannot be read stops `make docs` with its
name and line.
"""


def write_page(out, paths, gnuplot):
    """performance.md and its charts in out, from the results files paths."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for path in paths:
        rows = read_rows([path])
        mixed = mixed_runs(rows, path)
        if mixed:  # one section names one device, driver and commit: never a blend of runs
            raise BadRows(mixed)
        rows = last_of_each(rows, path)
        files.append((results_date(path) or "", Path(path).name, path, rows))
    files.sort(key=lambda f: (f[0], f[1]), reverse=True)  # the newest first
    text = [PAGE_INTRO]
    if not files:
        text.append(
            f"""\
## Results {{#perf_results}}

No results file is committed yet: `{RESULTS_DIR}/` holds no `*.csv`. \\ref perf_regenerate
says how to measure a GPU, and \\ref perf_commit how to add its file here.
"""
        )
    elif not gnuplot:
        print(
            "bench_report: no gnuplot: the Performance page has its tables but no charts "
            "(make deps installs gnuplot-nox)",
            file=sys.stderr,
        )
    used = set()
    for date, name, path, rows in files:
        tag = base = "perf_" + slug(Path(path).stem)
        k = 2
        while tag in used:
            tag, k = f"{base}_{k}", k + 1
        used.add(tag)
        text.append(results_section(tag, date, path, rows, gnuplot, out))
    text.append(PAGE_HOWTO)
    (out / "performance.md").write_text("\n".join(text))
    return files


def results_section(tag, date, path, rows, gnuplot, out):
    """One results file: where it was measured, each tier beside CUB, then each lab."""
    devices = sorted({row["device"] for row in rows})
    drivers = sorted({row["driver"] for row in rows})
    commits = sorted({row["commit"] for row in rows})
    dists = sorted({row["distribution"] for row in rows})
    title = ", ".join(doxygen_text(d, heading=True) for d in devices)
    title += f", {date}" if date else ""
    # Two runs of one day on one GPU (a lab measured again) differ by their commit.
    title += ", commit " + ", ".join(doxygen_text(c, heading=True) for c in commits)
    plural = "" if len(rows) == 1 else "s"
    lines = [
        f"## {title} {{#{tag}}}",
        "",
        f"- results file: `{Path(path).as_posix()}` ({len(rows)} row{plural})",
        "- device: " + "; ".join(doxygen_text(d) for d in devices),
        "- CUDA driver (`cudaDriverGetVersion`): " + "; ".join(driver_version(d) for d in drivers),
        "- kit commit: "
        + "; ".join(
            f"`{doxygen_text(c)}`" if doxygen_text(c) == c else doxygen_text(c) for c in commits
        ),
        "- measured on: " + (date if date else "not in the file's name (see \\ref perf_commit)"),
        "- keys: " + ", ".join(doxygen_text(d) for d in dists),
        "",
    ]
    if not gnuplot:
        lines += [
            "No charts: gnuplot was not found when these pages were built (`make deps` "
            "installs gnuplot-nox); the tables below hold every number.",
            "",
        ]
    by_lab = defaultdict(list)
    for row in rows:
        by_lab[row["lab"]].append(row)
    lines += [
        f"### Each tier beside CUB {{#{tag}_all}}",
        "",
        "Each tier at n = 2<sup>24</sup>, or at its largest n when it was not measured "
        "there; its ratios are to CUB's sorts of the same n in the same run.",
        "",
    ]
    if gnuplot:
        script, bars = all_labs_chart(rows)
        draw(gnuplot, script, out / f"{tag}_all_2_24.svg", bars_size(bars))
        lines += [
            f'\\image html {tag}_all_2_24.svg "Each tier beside CUB: keys per '
            'second, each labelled with its speed over CUB"',
            "",
        ]
    lines += lab_table(compared_rows(rows), with_lab=True)
    for lab in sorted(by_lab, key=lab_sort_key):
        mine = by_lab[lab]
        heading, page_id = lab_heading(lab)
        lines += [f"### {heading} {{#{tag}_{slug(lab)}}}", ""]
        if page_id:
            lines += [f"The lab's handout: \\ref {page_id}.", ""]
        if gnuplot:
            draw(gnuplot, lab_chart(lab, mine), out / f"{tag}_lab_{slug(lab)}.svg", LAB_SIZE)
            name = re.sub(r"[^\w .:-]", " ", lab)  # a caption: no quote, no command
            lines += [
                f'\\image html {tag}_lab_{slug(lab)}.svg "{name}: keys per second '
                'against n, beside CUB and std::sort"',
                "",
            ]
        lines += lab_table(mine, with_lab=False)
        notes = tier_notes(lab, {row["tier"] for row in mine})
        if notes:
            lines += ["The tiers (the driver's `--algo`):", ""]
            lines += [f"- {note}" for note in notes] + [""]
    return "\n".join(lines)


def lab_table(rows, with_lab):
    """Markdown table lines: a row per (tier, n), ratios to the run's own baselines."""
    several = len({row["distribution"] for row in rows}) > 1
    pairs = has_pairs(rows)
    heads = (
        (["lab"] if with_lab else [])
        + ["tier", "n", "ms", "Gkeys/s", "vs CUB radix"]
        + (["vs CUB radix pairs"] if pairs else [])
        + ["vs CUB merge", "vs std::sort (1 core)", "floor"]
    )
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in sorted(
        rows, key=lambda r: (lab_sort_key(r["lab"]), r["tier"], r["distribution"], r["n"])
    ):
        tier = doxygen_text(row["tier"])
        if several:
            tier += f" ({doxygen_text(row['distribution'])})"
        floor = floor_share(row).replace("%", "\\%")  # a bare % is a Doxygen command
        cells = (
            ([doxygen_text(row["lab"])] if with_lab else [])
            + [
                tier,
                show_n(row["n"]),
                f"{row['ms']:.3f}",
                sig3(gkeys(row["n"], row["ms"])),
                ratio(row["cub_radix_ms"], row["ms"]),
            ]
            + ([ratio(row["cub_radix_pairs_ms"], row["ms"])] if pairs else [])
            + [ratio(row["cub_merge_ms"], row["ms"]), ratio(row["std_sort_ms"], row["ms"]), floor]
        )
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


# A lab chart's size: tall, as its legend (up to a dozen entries) sits under the plot.
LAB_SIZE = (900, 640)


def bars_size(bars):
    """The every-lab chart's (width, height): about 22 pixels a bar, and wide, as the labels
    on both sides of the bars take half of it."""
    return 1200, max(520, 160 + 22 * bars)


def draw(gnuplot, script, svg, size=(900, 520)):
    head = f"set terminal svg size {size[0]},{size[1]} dynamic enhanced font 'sans,12'\n"
    result = subprocess.run(
        [gnuplot], input=head + f"set output '{svg}'\n" + script, capture_output=True, text=True
    )
    if result.returncode != 0 or not svg.is_file():
        raise BadRows(f"gnuplot could not draw {svg.name}: {result.stderr.strip()[-400:]}")


def page_main(argv):
    """--page OUT_DIR [CSV...]: the Performance page (make docs)."""
    if len(argv) < 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    try:
        files = write_page(out, argv[1:], shutil.which("gnuplot"))
    except (BadRows, OSError) as err:
        print(f"bench_report: {err}", file=sys.stderr)
        return 2
    print(
        f"bench_report: the Performance page from {len(files)} results file"
        f"{'' if len(files) == 1 else 's'}: {out}/performance.md"
    )
    return 0


# What make bench-report needs when it has no rows (BENCH_CSV empty, or gpu-check's file not
# written yet): one line that says what to pass, rather than Python's "[Errno 2]".
NO_ROWS_HINT = (
    "pass the benchmark rows to draw: make bench-report BENCH_CSV=FILE... (files "
    "a driver's --bench --csv FILE wrote; make gpu-check GPU_CHECK_STEPS=bench "
    "writes build/gpu-check/bench.csv)"
)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--page":
        return page_main(argv[2:])
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, paths = Path(argv[1]), argv[2:]
    if not paths:
        print(f"bench_report: no CSV file given; {NO_ROWS_HINT}", file=sys.stderr)
        return 2
    missing = [path for path in paths if not Path(path).exists()]
    if missing:
        print(f"bench_report: {', '.join(missing)}: no such file; {NO_ROWS_HINT}", file=sys.stderr)
        return 2
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print(
            "bench_report: needs gnuplot (apt install gnuplot-nox, or make deps)", file=sys.stderr
        )
        return 3
    try:
        rows = read_rows(paths)
        for path in paths:  # drawn all the same (a working file), but the reader is told
            mixed = mixed_runs([row for row in rows if row["file"] == str(path)], path)
            if mixed:
                print(f"bench_report: warning: {mixed}; its charts mix the runs", file=sys.stderr)
        out.mkdir(parents=True, exist_ok=True)
        by_lab = defaultdict(list)
        for row in rows:
            by_lab[row["lab"]].append(row)
        for lab, mine in sorted(by_lab.items()):
            draw(gnuplot, lab_chart(lab, mine), out / f"lab_{lab}.svg", LAB_SIZE)
        script, bars = all_labs_chart(rows)
        draw(gnuplot, script, out / "all_2_24.svg", bars_size(bars))
        (out / "report.md").write_text(table(rows))
    except (BadRows, OSError) as err:
        print(f"bench_report: {err}", file=sys.stderr)
        return 2
    print(
        f"bench_report: {len(rows)} rows, {len(by_lab)} labs: {out}/report.md and "
        f"{len(by_lab) + 1} charts"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
