#!/usr/bin/env python3
"""make bench-report: plots and a table from the rows of the labs' `--bench --csv FILE`.

usage: tools/bench_report.py OUT_DIR CSV...

Reads every row of the CSV files (columns: common/bench_csv.h) and writes into OUT_DIR:
  lab_NAME.svg   one chart per lab: keys per second against n, log-log, a line per tier,
                 CUB's radix and merge sorts and std::sort measured in the same runs, and
                 each tier's floor (its passes at the copy bandwidth) dashed;
  all_2_24.svg   every lab's tiers at n = 2^24 beside CUB's radix and merge sorts;
  report.md      the same numbers as a table, with where they were measured (device, CUDA
                 driver, commit).
Charts are drawn by gnuplot (Debian's gnuplot-nox; `make deps` installs it) as SVG, so a
browser shows them at any size. Exit codes: 0 done, 2 bad arguments or rows, 3 no gnuplot.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

COLUMNS = ("device", "driver", "commit", "lab", "tier", "n", "distribution", "ms", "gkeys_s",
           "cub_radix_ms", "cub_merge_ms", "std_sort_ms", "floor_ms")
N_2_24 = 1 << 24


class BadRows(Exception):
    pass


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise BadRows(f"{path}: the header is not common/bench_csv.h's columns")
            for line, row in enumerate(reader, start=2):
                try:
                    row["n"] = int(row["n"])
                    for key in ("ms", "cub_radix_ms", "cub_merge_ms", "std_sort_ms"):
                        row[key] = float(row[key])
                    row["floor_ms"] = float(row["floor_ms"]) if row["floor_ms"] else None
                except ValueError as err:
                    raise BadRows(f"{path}, line {line}: {err}") from None
                if row["n"] <= 0 or row["ms"] <= 0:
                    raise BadRows(f"{path}, line {line}: n and ms must be positive")
                rows.append(row)
    if not rows:
        raise BadRows("no rows: run a driver with --bench --csv FILE first")
    return rows


def gkeys(n, ms):
    """Billions of keys per second for n keys in ms milliseconds."""
    return n / (ms * 1e6) if ms and ms > 0 else None


def _series(points):
    return "\n".join(f"{x} {y:.6g}" for x, y in sorted(points) if y) + "\ne\n"


def lab_chart(lab, rows):
    """The gnuplot script of one lab's chart."""
    tiers = sorted({row["tier"] for row in rows})
    baselines = {}  # n -> (radix, merge, cpu) from the first row of that n
    for row in rows:
        baselines.setdefault(row["n"], (row["cub_radix_ms"], row["cub_merge_ms"],
                                        row["std_sort_ms"]))
    plots, data = [], []
    for tier in tiers:
        mine = [row for row in rows if row["tier"] == tier]
        plots.append(f"'-' using 1:2 with linespoints lw 2 title 'lab {tier}'")
        data.append(_series((row["n"], gkeys(row["n"], row["ms"])) for row in mine))
        floors = [(row["n"], gkeys(row["n"], row["floor_ms"])) for row in mine if row["floor_ms"]]
        if floors:
            plots.append(f"'-' using 1:2 with lines dt 2 title 'floor of {tier}'")
            data.append(_series(floors))
    for k, name in enumerate(("CUB radix sort", "CUB merge sort", "std::sort (1 core)")):
        plots.append(f"'-' using 1:2 with linespoints dt 3 title '{name}'")
        data.append(_series((n, gkeys(n, times[k])) for n, times in baselines.items()))
    return (f"set title 'Lab {lab}: keys per second'\n"
            "set logscale xy 2\nset format x '2^{%L}'\nset xlabel 'n (keys)'\n"
            "set ylabel 'billions of keys per second'\nset key outside right\nset grid\n"
            f"plot {', '.join(plots)}\n" + "".join(data))


def all_labs_chart(rows):
    """Every (lab, tier) at 2^24, with CUB's two sorts, as horizontal bars; None without any."""
    at = [row for row in rows if row["n"] == N_2_24]
    if not at:
        return None
    bars = [(f"{row['lab']} {row['tier']}", gkeys(row["n"], row["ms"]))
            for row in sorted(at, key=lambda r: (r["lab"], r["tier"]))]
    bars += [("CUB radix sort", gkeys(N_2_24, at[0]["cub_radix_ms"])),
             ("CUB merge sort", gkeys(N_2_24, at[0]["cub_merge_ms"]))]
    data = "\n".join(f'{i} "{name}" {value:.6g}' for i, (name, value) in enumerate(bars))
    return ("set title 'Every lab at n = 2^{24}: billions of keys per second'\n"
            "set style fill solid 0.6\nset boxwidth 0.7\nset grid x\nunset key\n"
            f"set yrange [-1:{len(bars)}]\nset xrange [0:*]\n"
            "plot '-' using (0.5*$3):1:(0.5*$3):(0.35):yticlabels(2) with boxxyerror\n"
            f"{data}\ne\n")


def table(rows):
    """report.md: where it was measured, then one line per measured size."""
    where = sorted({(row["device"], row["driver"], row["commit"]) for row in rows})
    lines = ["Measured on " + "; ".join(f"{d} (CUDA driver {v}, kit commit {c})"
                                        for d, v, c in where) + ".", "",
             "| lab | tier | n | ms | Gkeys/s | lab / CUB radix | lab / CUB merge | floor % |",
             "|---|---|---|---|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: (r["lab"], r["tier"], r["n"])):
        floor = f"{100 * row['floor_ms'] / row['ms']:.0f}%" if row["floor_ms"] else "-"
        lines.append(f"| {row['lab']} | {row['tier']} | {row['n']} | {row['ms']:.3f} | "
                     f"{gkeys(row['n'], row['ms']):.2f} | "
                     f"{row['cub_radix_ms'] / row['ms']:.2f}x | "
                     f"{row['cub_merge_ms'] / row['ms']:.2f}x | {floor} |")
    return "\n".join(lines) + "\n"


def draw(gnuplot, script, svg):
    head = "set terminal svg size 900,520 dynamic enhanced font 'sans,12'\n"
    result = subprocess.run([gnuplot], input=head + f"set output '{svg}'\n" + script,
                            capture_output=True, text=True)
    if result.returncode != 0 or not svg.is_file():
        raise BadRows(f"gnuplot could not draw {svg.name}: {result.stderr.strip()[-400:]}")


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, paths = Path(argv[1]), argv[2:]
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("bench_report: needs gnuplot (apt install gnuplot-nox, or make deps)",
              file=sys.stderr)
        return 3
    try:
        rows = read_rows(paths)
        out.mkdir(parents=True, exist_ok=True)
        by_lab = defaultdict(list)
        for row in rows:
            by_lab[row["lab"]].append(row)
        for lab, mine in sorted(by_lab.items()):
            draw(gnuplot, lab_chart(lab, mine), out / f"lab_{lab}.svg")
        script = all_labs_chart(rows)
        if script:
            draw(gnuplot, script, out / "all_2_24.svg")
        (out / "report.md").write_text(table(rows))
    except (BadRows, OSError) as err:
        print(f"bench_report: {err}", file=sys.stderr)
        return 2
    print(f"bench_report: {len(rows)} rows, {len(by_lab)} labs: {out}/report.md and "
          f"{len(by_lab) + (1 if script else 0)} charts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
