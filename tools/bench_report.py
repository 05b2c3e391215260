#!/usr/bin/env python3
"""make bench-report: plots and a table from the rows of the labs' `--bench --csv FILE`;
make docs: the site's Performance page from the results files committed in docs/performance/.

usage: tools/bench_report.py OUT_DIR CSV...
       tools/bench_report.py --page OUT_DIR [CSV...]

Reads every row of the CSV files (columns: common/bench_csv.h) and writes into OUT_DIR:
  lab_NAME.svg   one chart per lab: keys per second against n, log-log, a line per tier,
                 CUB's radix and merge sorts and std::sort measured in the same runs (and
                 CUB's radix sort of pairs, measured beside the tiers that sort pairs), and
                 each tier's floor (its passes at the copy bandwidth) dashed;
  all_2_24.svg   every lab's tiers at n = 2^24 beside CUB's radix and merge sorts (and its
                 radix sort of pairs where rows have it);
  report.md      the same numbers as a table, with where they were measured (device, CUDA
                 driver, commit).
Files written before the last column, cub_radix_pairs_ms, have the 13 columns before it:
they are read as rows without a CUB sort of pairs, and a table or chart whose rows have
none shows no column or line for it.
Charts are drawn by gnuplot (Debian's gnuplot-nox; `make deps` installs it) as SVG, so a
browser shows them at any size. Exit codes: 0 done, 2 bad arguments or rows, 3 no gnuplot.

With --page (make docs), each CSV is one results file (one run on one GPU) and OUT_DIR gets
performance.md, the Doxygen page `performance`: per file its device, driver, commit and date
(from a YYYY-MM-DD in the file's name), every lab at 2^24, and per lab a chart and a table;
then how to measure your own GPU and commit a results file. The charts are
perf_FILE_lab_NAME.svg and perf_FILE_all_2_24.svg in OUT_DIR (Doxygen's IMAGE_PATH: unique
names, as Doxygen copies every image into one folder). No CSV: the page says that no results
are committed yet. No gnuplot: the page has the tables and says why the charts are missing.
Exit codes: 0 done, 2 bad arguments or rows (a results file that cannot be read stops the
docs: it would otherwise vanish from the page unnoticed).
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

COLUMNS = ("device", "driver", "commit", "lab", "tier", "n", "distribution", "ms", "gkeys_s",
           "cub_radix_ms", "cub_merge_ms", "std_sort_ms", "floor_ms", "cub_radix_pairs_ms")
# The headers this tool reads: today's, and that of the files written before the last column.
HEADERS = (COLUMNS, COLUMNS[:-1])
N_2_24 = 1 << 24


class BadRows(Exception):
    pass


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
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
                rows.append(row)
    if not rows:
        raise BadRows("no rows: run a driver with --bench --csv FILE first")
    return rows


def gkeys(n, ms):
    """Billions of keys per second for n keys in ms milliseconds."""
    return n / (ms * 1e6) if ms and ms > 0 else None


def _quoted(text):
    """text as a gnuplot string in single quotes (a quote doubled)."""
    return "'" + str(text).replace("'", "''") + "'"


def _series(points):
    return "\n".join(f"{x} {y:.6g}" for x, y in sorted(points) if y) + "\ne\n"


# The baselines of a chart: name, column, grey, gnuplot dash type.
BASELINES = (("CUB radix sort", "cub_radix_ms", "#404040", 3),
             ("CUB radix sort (pairs)", "cub_radix_pairs_ms", "#404040", 4),
             ("CUB merge sort", "cub_merge_ms", "#808080", 3),
             ("std::sort (1 core)", "std_sort_ms", "#b0b0b0", 3))


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


def lab_chart(lab, rows):
    """The gnuplot script of one lab's chart."""
    tiers = sorted({row["tier"] for row in rows})
    plots, data = [], []
    for color, tier in enumerate(tiers, start=1):  # a tier and its floor in one colour
        mine = [row for row in rows if row["tier"] == tier]
        plots.append(f"'-' using 1:2 with linespoints lw 2 lc {color} "
                     f"title {_quoted('lab ' + tier)} noenhanced")
        data.append(_series((row["n"], gkeys(row["n"], row["ms"])) for row in mine))
        floors = [(row["n"], gkeys(row["n"], row["floor_ms"])) for row in mine if row["floor_ms"]]
        if floors:
            plots.append(f"'-' using 1:2 with lines dt 2 lc {color} "
                         f"title {_quoted('floor of ' + tier)} noenhanced")
            data.append(_series(floors))
    for name, key, grey, dash in BASELINES:
        times = baseline_times(rows, key)
        if times:  # CUB's sort of pairs only where a tier of pairs measured it
            plots.append(f"'-' using 1:2 with linespoints dt {dash} lc rgb '{grey}' "
                         f"title '{name}'")
            data.append(_series((n, gkeys(n, ms)) for n, ms in times.items()))
    return (f"set title {_quoted(f'Lab {lab}: keys per second')} noenhanced\n"
            "set logscale xy 2\nset format x '2^{%L}'\nset xlabel 'n (keys)'\n"
            "set ylabel 'billions of keys per second'\nset key outside right\nset grid\n"
            f"plot {', '.join(plots)}\n" + "".join(data))


def all_labs_chart(rows):
    """Every (lab, tier) at 2^24 as horizontal bars, with CUB's radix sort (of keys, and of
    pairs where a row has it) and merge sort; None without any."""
    at = [row for row in rows if row["n"] == N_2_24]
    if not at:
        return None
    bars = [(f"{row['lab']} {row['tier']}", gkeys(row["n"], row["ms"]))
            for row in sorted(at, key=lambda r: (r["lab"], r["tier"]))]
    for name, key, _, _ in BASELINES:
        times = baseline_times(at, key)
        if times and key != "std_sort_ms":  # CUB's sorts: std::sort is not on this chart
            bars.append((name, gkeys(N_2_24, times[N_2_24])))
    data = "\n".join(f'{i} "{name.replace(chr(34), chr(39))}" {value:.6g}'
                     for i, (name, value) in enumerate(bars))
    return ("set title 'Every lab at n = 2^{24}: billions of keys per second'\n"
            "set style fill solid 0.6\nset boxwidth 0.7\nset grid x\nunset key\n"
            "set ytics noenhanced\n"
            f"set yrange [-1:{len(bars)}]\nset xrange [0:*]\n"
            "plot '-' using (0.5*$3):1:(0.5*$3):(0.35):yticlabels(2) with boxxyerror\n"
            f"{data}\ne\n")


def table(rows):
    """report.md: where it was measured, then one line per measured size."""
    where = sorted({(row["device"], row["driver"], row["commit"]) for row in rows})
    pairs = has_pairs(rows)
    heads = ["lab", "tier", "n", "ms", "Gkeys/s", "lab / CUB radix"] + \
        (["lab / CUB radix pairs"] if pairs else []) + ["lab / CUB merge", "floor %"]
    lines = ["Measured on " + "; ".join(f"{d} (CUDA driver {v}, kit commit {c})"
                                        for d, v, c in where) + ".", "",
             "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in sorted(rows, key=lambda r: (r["lab"], r["tier"], r["n"])):
        floor = f"{100 * row['floor_ms'] / row['ms']:.0f}%" if row["floor_ms"] else "-"
        cells = [row["lab"], row["tier"], str(row["n"]), f"{row['ms']:.3f}",
                 f"{gkeys(row['n'], row['ms']):.2f}", f"{row['cub_radix_ms'] / row['ms']:.2f}x"]
        if pairs:
            mine = row["cub_radix_pairs_ms"]
            cells.append(f"{mine / row['ms']:.2f}x" if mine else "-")
        cells += [f"{row['cub_merge_ms'] / row['ms']:.2f}x", floor]
        lines.append("| " + " | ".join(cells) + " |")
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


def show_gkeys(value):
    """Two decimals, or three significant digits below 1 (Lab 01's small n)."""
    return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


def ratio(a, b):
    """How many times faster than the baseline: the baseline's time a over the lab's b."""
    if not a or not b:
        return "-"
    value = a / b
    return f"{value:.0f}x" if value >= 100 else f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


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
    for readme in (folder / "README.md" for folder in lab_folders(lab) if
                   (folder / "README.md").is_file()):
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
            print(f"bench_report: {path}: {key[0]} {key[1]} n = {key[3]} measured twice; the "
                  "later row is shown", file=sys.stderr)
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
time over the lab's: 1.00x is as fast as the baseline, 0.50x half its speed. A tier that
sorts key-value pairs moves twice the bytes of a sort of keys: its fair baseline is *vs CUB
radix pairs*, CUB's radix sort of the same keys each with a 32-bit value (a column only in
files that have it, - for a tier of keys).
*floor* is the time the tier's passes over memory would take at the device's copy
bandwidth, over the lab's time (100\\%: the sort moves its bytes as fast as a copy; only
tiers that declare their passes have one). On the charts, keys per second against n (both
axes logarithmic): a line per tier, its floor dashed, CUB and `std::sort` dotted.
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
where they come from. A file that cannot be read stops `make docs` with its name and line.
"""


def write_page(out, paths, gnuplot):
    """performance.md and its charts in out, from the results files paths."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for path in paths:
        rows = last_of_each(read_rows([path]), path)
        files.append((results_date(path) or "", Path(path).name, path, rows))
    files.sort(key=lambda f: (f[0], f[1]), reverse=True)  # the newest first
    text = [PAGE_INTRO]
    if not files:
        text.append(f"""\
## Results {{#perf_results}}

No results file is committed yet: `{RESULTS_DIR}/` holds no `*.csv`. \\ref perf_regenerate
says how to measure a GPU, and \\ref perf_commit how to add its file here.
""")
    elif not gnuplot:
        print("bench_report: no gnuplot: the Performance page has its tables but no charts "
              "(make deps installs gnuplot-nox)", file=sys.stderr)
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
    """One results file: where it was measured, every lab at 2^24, then each lab."""
    devices = sorted({row["device"] for row in rows})
    drivers = sorted({row["driver"] for row in rows})
    commits = sorted({row["commit"] for row in rows})
    dists = sorted({row["distribution"] for row in rows})
    title = ", ".join(doxygen_text(d, heading=True) for d in devices)
    title += f", {date}" if date else ""
    plural = "" if len(rows) == 1 else "s"
    lines = [f"## {title} {{#{tag}}}", "",
             f"- results file: `{Path(path).as_posix()}` ({len(rows)} row{plural})",
             "- device: " + "; ".join(doxygen_text(d) for d in devices),
             "- CUDA driver (`cudaDriverGetVersion`): " + "; ".join(driver_version(d)
                                                                  for d in drivers),
             "- kit commit: " + "; ".join(f"`{doxygen_text(c)}`" if doxygen_text(c) == c
                                          else doxygen_text(c) for c in commits),
             "- measured on: " + (date if date else
                                  "not in the file's name (see \\ref perf_commit)"),
             "- keys: " + ", ".join(doxygen_text(d) for d in dists), ""]
    if not gnuplot:
        lines += ["No charts: gnuplot was not found when these pages were built (`make deps` "
                  "installs gnuplot-nox); the tables below hold every number.", ""]
    by_lab = defaultdict(list)
    for row in rows:
        by_lab[row["lab"]].append(row)
    script = all_labs_chart(rows)
    if script:
        lines += [f"### Every lab at n = 2^24 {{#{tag}_all}}", ""]
        if gnuplot:
            draw(gnuplot, script, out / f"{tag}_all_2_24.svg")
            lines += [f'\\image html {tag}_all_2_24.svg "Every lab\'s tiers at n = 2^24 '
                      'beside CUB, billions of keys per second"', ""]
        lines += lab_table([row for row in rows if row["n"] == N_2_24], with_lab=True)
    for lab in sorted(by_lab, key=lab_sort_key):
        mine = by_lab[lab]
        heading, page_id = lab_heading(lab)
        lines += [f"### {heading} {{#{tag}_{slug(lab)}}}", ""]
        if page_id:
            lines += [f"The lab's handout: \\ref {page_id}.", ""]
        if gnuplot:
            draw(gnuplot, lab_chart(lab, mine), out / f"{tag}_lab_{slug(lab)}.svg")
            name = re.sub(r"[^\w .:-]", " ", lab)  # a caption: no quote, no command
            lines += [f'\\image html {tag}_lab_{slug(lab)}.svg "{name}: billions of keys per '
                      'second against n, beside CUB and std::sort"', ""]
        lines += lab_table(mine, with_lab=False)
    return "\n".join(lines)


def lab_table(rows, with_lab):
    """Markdown table lines: a row per (tier, n), ratios to the run's own baselines."""
    several = len({row["distribution"] for row in rows}) > 1
    pairs = has_pairs(rows)
    heads = (["lab"] if with_lab else []) + ["tier", "n", "ms", "Gkeys/s", "vs CUB radix"] + \
        (["vs CUB radix pairs"] if pairs else []) + ["vs CUB merge", "vs std::sort (1 core)",
                                                      "floor"]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in sorted(rows, key=lambda r: (lab_sort_key(r["lab"]), r["tier"],
                                           r["distribution"], r["n"])):
        tier = doxygen_text(row["tier"])
        if several:
            tier += f" ({doxygen_text(row['distribution'])})"
        floor = f"{100 * row['floor_ms'] / row['ms']:.0f}\\%" if row["floor_ms"] else "-"
        cells = ([doxygen_text(row["lab"])] if with_lab else []) + [
            tier, show_n(row["n"]), f"{row['ms']:.3f}", show_gkeys(gkeys(row["n"], row["ms"])),
            ratio(row["cub_radix_ms"], row["ms"])] + (
            [ratio(row["cub_radix_pairs_ms"], row["ms"])] if pairs else []) + [
            ratio(row["cub_merge_ms"], row["ms"]), ratio(row["std_sort_ms"], row["ms"]), floor]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def draw(gnuplot, script, svg):
    head = "set terminal svg size 900,520 dynamic enhanced font 'sans,12'\n"
    result = subprocess.run([gnuplot], input=head + f"set output '{svg}'\n" + script,
                            capture_output=True, text=True)
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
    print(f"bench_report: the Performance page from {len(files)} results file"
          f"{'' if len(files) == 1 else 's'}: {out}/performance.md")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--page":
        return page_main(argv[2:])
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
