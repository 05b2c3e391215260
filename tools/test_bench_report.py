#!/usr/bin/env python3
"""check-host: tools/bench_report.py on rows shaped as common/bench_csv.c writes them (the
header and a row of test_common's bench_csv suite): the charts are drawn, the table's ratios
are the rows' own, and rows it cannot trust are refused; CUB's radix sort of pairs (the last
column) is shown where rows have it, and files of the 13 columns before it still read; and
its --page mode, make docs' Performance page: it names each results file's device, driver,
commit and date, gives every lab present its chart and table, and builds with no results
file, with the committed results files, and without gnuplot. What a reader needs from the
charts: axes ticked 1M, 1G (not 0.00390625), every lab on the chart of all of them (Lab 01
too) with CUB drawn unlike any lab, one legend entry for the floors, the ratio to CUB beside
each tier, small numbers with their digits, and what each tier is (the names of the labs'
drivers). A file of more than one run is refused by the page and drawn with a warning by
make bench-report, and make bench-report without a file says in one line what to pass."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOL = Path(__file__).resolve().parent / "bench_report.py"
ROOT = TOOL.parent.parent
HEADER = (
    "device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,cub_radix_ms,cub_merge_ms,"
    "std_sort_ms,floor_ms,cub_radix_pairs_ms\n"
)


def row(
    lab,
    tier,
    n,
    ms,
    radix,
    merge,
    cpu,
    floor="",
    device='"GPU ""X"", rev 2"',
    pairs="",
    commit="abc1234",
):
    return (
        f"{device},13000,{commit},{lab},{tier},{n},uniform,{ms:.4f},"
        f"{n / (ms * 1e6):.4f},{radix:.4f},{merge:.4f},{cpu:.4f},{floor},{pairs}\n"
    )


def svg_texts(svg):
    """The strings an SVG of gnuplot shows (tick labels, titles, legend), tags removed."""
    return [re.sub(r"<[^>]+>", "", text) for text in re.findall(r"<text>(.*?)</text>", svg)]


def svg_titles(svg):
    """The legend entries of a gnuplot SVG: its plots' <title>s, less the gnuplot_plot_N that
    gnuplot gives a plot without a title (notitle: no legend entry)."""
    titles = re.findall(r"<g id=\"gnuplot_plot_\d+\" ><title>(.*?)</title>", svg)
    return [t for t in titles if not re.fullmatch(r"gnuplot_plot_\d+", t)]


def svg_fills(svg):
    """The fills of the filled boxes of a gnuplot SVG (the bars), in drawing order."""
    return re.findall(r"<polygon\s+fill\s*=\s*'([^']+)'", svg)


# Rows of Lab 01 as its driver writes them: sizes up to 2^16 only (n^2/2 compare-exchanges),
# a few hundred thousand keys per second: 2^16 keys in 297.48 ms is 0.000220 Gkeys/s, and
# CUB's 0.414 ms over it is 0.00139x.
ODDEVEN = row("oddeven", "global", 1 << 16, 297.4834, 0.4140, 0.1538, 14.4878) + row(
    "oddeven", "block", 1 << 11, 0.3391, 0.0141, 0.0158, 0.0880
)


def older(text):
    """text (a header and rows) as the kit wrote it before cub_radix_pairs_ms: 13 columns."""
    return "".join(line.rsplit(",", 1)[0] + "\n" for line in text.splitlines())


def load_tool():
    spec = importlib.util.spec_from_file_location("bench_report", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BenchReport(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-report-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_tool(self, *csv_texts):
        paths = []
        for i, text in enumerate(csv_texts):
            path = self.tmp / f"bench{i}.csv"
            path.write_text(text)
            paths.append(str(path))
        return subprocess.run(
            [sys.executable, str(TOOL), str(self.tmp / "out"), *paths],
            capture_output=True,
            text=True,
        )

    def run_page(self, files, env=None):
        """--page out NAME... with files {NAME: text}, written in self.tmp/performance/."""
        folder = self.tmp / "performance"
        folder.mkdir(exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text)
        result = subprocess.run(
            [
                sys.executable,
                str(TOOL),
                "--page",
                "out",
                *(f"performance/{name}" for name in files),
            ],
            cwd=self.tmp,
            capture_output=True,
            text=True,
            env=env,
        )
        page = self.tmp / "out" / "performance.md"
        return result, page.read_text() if page.is_file() else ""

    def test_charts_and_table_from_two_files(self):
        radix = (
            HEADER
            + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60, "0.1000")
            + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500")
        )
        merge = HEADER + row("mergesort", "pairs", 1 << 24, 3.0, 0.5, 0.9, 1200)
        result = self.run_tool(radix, merge)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.tmp / "out"
        # A tier's legend entry carries its ratio to CUB at 2^24: 0.5 ms over 1.5 ms.
        for name, words in (
            ("lab_radix.svg", ("keys (0.333x CUB radix)", "floor", "CUB radix sort")),
            ("lab_mergesort.svg", ("pairs (0.167x CUB radix)", "std::sort")),
            ("all_2_24.svg", ("radix keys", "mergesort pairs", "CUB merge")),
        ):
            text = (out / name).read_text()
            self.assertIn("<svg", text, name)
            for word in words:
                self.assertIn(word, text, f"{name} names {word}")
        report = (out / "report.md").read_text()
        self.assertIn('Measured on GPU "X", rev 2 (CUDA driver 13000, kit commit abc1234)', report)
        # 2^24 keys in 1.5 ms: 11.2 Gkeys/s; CUB radix 0.5 ms: 0.333x; merge 0.9 ms: 0.6x;
        # floor 0.25 of 1.5: 16.7% (three significant digits, trailing zeros dropped)
        self.assertIn("| radix | keys | 16777216 | 1.500 | 11.2 | 0.333x | 0.6x | 16.7% |", report)
        self.assertIn("| mergesort | pairs | 16777216 | 3.000 | 5.59 | 0.167x | 0.3x | - |", report)

    def pairs_rows(self):
        """Lab 04's keys (no CUB pairs) and onesweep_pairs (CUB pairs 1.5 ms at 2^24)."""
        return (
            HEADER
            + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500")
            + row("radix", "onesweep_pairs", 1 << 20, 0.2, 0.1, 0.4, 60, pairs="0.1500")
            + row("radix", "onesweep_pairs", 1 << 24, 2.0, 0.5, 0.9, 1200, "0.5000", pairs="1.5000")
        )

    def test_cub_pairs_where_the_rows_have_it(self):
        result = self.run_tool(self.pairs_rows())
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.tmp / "out"
        for name in ("lab_radix.svg", "all_2_24.svg"):
            self.assertIn("CUB radix sort (pairs)", (out / name).read_text(), name)
        report = (out / "report.md").read_text()
        self.assertIn("| lab / CUB radix | lab / CUB radix pairs | lab / CUB merge |", report)
        # CUB pairs 1.5 ms over the lab's 2.0 ms: 0.75x; a tier of keys has none: -
        self.assertIn(
            "| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | 0.75x | " "0.45x | 25% |",
            report,
        )
        self.assertIn(
            "| radix | keys | 16777216 | 1.500 | 11.2 | 0.333x | - | 0.6x | 16.7% |", report
        )
        # A tier of pairs is named with its fair baseline, CUB's radix sort of pairs.
        self.assertIn(
            "onesweep_pairs (0.75x CUB radix pairs)",
            svg_titles((out / "lab_radix.svg").read_text()),
        )
        result, page = self.run_page({"h200-2026-12-01.csv": self.pairs_rows()})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| vs CUB radix | vs CUB radix pairs | vs CUB merge |", page)
        self.assertIn(
            "| onesweep pairs | 2<sup>24</sup> | 2.000 | 8.39 | 0.25x | 0.75x | 0.45x "
            "| 600x | 25\\% |",
            page,
        )
        self.assertIn("| keys | 2<sup>24</sup> | 1.500 | 11.2 | 0.333x | - | 0.6x | 800x |", page)
        self.assertIn(
            "CUB radix sort (pairs)",
            (self.tmp / "out" / "perf_h200_2026_12_01_lab_radix.svg").read_text(),
        )

    def test_files_without_the_pairs_column_still_read(self):
        result = self.run_tool(older(self.pairs_rows()))
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.tmp / "out"
        for name in ("lab_radix.svg", "all_2_24.svg"):
            text = (out / name).read_text()
            self.assertIn("CUB radix sort", text, name)
            self.assertNotIn("(pairs)", text, name)
        report = (out / "report.md").read_text()
        self.assertNotIn("pairs |", report.split("\n")[2])  # the table's header
        self.assertIn(
            "| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | 0.45x | 25% |", report
        )
        # One table of rows of both shapes (a newer file beside an older one): - where none.
        merged = self.run_tool(
            older(self.pairs_rows()),
            HEADER + row("radix", "pairs", 1 << 24, 4.0, 0.5, 0.9, 1200, pairs="2.0000"),
        )
        self.assertEqual(merged.returncode, 0, merged.stderr)
        report = (out / "report.md").read_text()
        self.assertIn(
            "| radix | pairs | 16777216 | 4.000 | 4.19 | 0.125x | 0.5x | 0.225x | - |", report
        )
        self.assertIn(
            "| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | - | 0.45x " "| 25% |",
            report,
        )

    def test_committed_results_files_make_the_page(self):
        """make docs draws every file of docs/performance/, the older 13 columns included."""
        committed = sorted((ROOT / "docs" / "performance").glob("*.csv"))
        self.assertTrue(committed, "docs/performance/ has results files")
        result = subprocess.run(
            [sys.executable, str(TOOL), "--page", str(self.tmp / "out"), *map(str, committed)],
            capture_output=True,
            text=True,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (self.tmp / "out" / "performance.md").read_text()
        tool = load_tool()
        for path in committed:
            self.assertIn(f"`{path.as_posix()}`", page)
            # One run per file, as docs/performance/README.md asks (the page refuses others).
            self.assertIsNone(tool.mixed_runs(tool.read_rows([path]), path.name))
        with open(committed[0]) as f:
            if "cub_radix_pairs_ms" not in f.readline():
                self.assertNotIn("vs CUB radix pairs", page.split("## Measure")[0])

    def test_rows_it_cannot_trust_are_refused(self):
        cases = (
            ("n,ms\n1,2\n", "header"),
            (HEADER, "no rows"),
            (HEADER + row("radix", "pairs", 1 << 20, 0.5, 0.2, 0.4, 60, pairs="quick"), "line 2"),
            (
                older(HEADER) + row("radix", "pairs", 1 << 20, 0.5, 0.2, 0.4, 60, pairs="0.3000"),
                "more fields than the header",
            ),
            (
                HEADER
                + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(",0.5000,", ",fast,", 1),
                "line 2",
            ),
            (
                HEADER
                + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(
                    ",0.5000,", ",0.0000,", 1
                ),
                "positive",
            ),
        )
        for text, words in cases:
            result = self.run_tool(text)
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertIn(words, result.stderr)

    H100 = "NVIDIA H100 80GB HBM3"

    def results(self):
        """An H100 file of two labs, an undated file of another GPU with a lab the kit lacks."""
        h100 = (
            HEADER
            + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60, "0.1000", device=self.H100)
            + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500", device=self.H100)
            + row("oddeven", "global", 1024, 0.08, 0.02, 0.036, 0.08, device=self.H100)
        )
        box = HEADER + row("fancy", "one", 1 << 24, 3.0, 0.5, 0.9, 1200)
        return {"lab-box.csv": box, "h100-2026-11-24.csv": h100}

    def test_page_names_each_file_and_gives_every_lab_its_chart_and_table(self):
        result, page = self.run_page(self.results())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("2 results files", result.stdout)
        self.assertTrue(page.startswith("# Performance {#performance}\n"), page[:80])
        # The dated file first, with where and when it was measured, and at which commit
        # (two runs of one day and GPU differ by it).
        h100 = page.index(
            "## NVIDIA H100 80GB HBM3, 2026-11-24, commit abc1234 " "{#perf_h100_2026_11_24}"
        )
        box = page.index('## GPU \\"X\\", rev 2, commit abc1234 {#perf_lab_box}')
        self.assertLess(h100, box)
        for words in (
            "- results file: `performance/h100-2026-11-24.csv` (3 rows)",
            "- device: NVIDIA H100 80GB HBM3",
            "- CUDA driver (`cudaDriverGetVersion`): 13.0 (13000)",
            "- kit commit: `abc1234`",
            "- measured on: 2026-11-24",
            "- results file: `performance/lab-box.csv` (1 row)",
            "- measured on: not in the file's name",
        ):
            self.assertIn(words, page)
        # Every lab present: a section (the kit's labs by number, with their handout), a
        # chart that exists, a table with the row's own ratios.
        sections = re.findall(r"^### (.*) \{#(\w+)\}$", page, re.M)
        self.assertEqual(
            sections,
            [
                ("Each tier beside CUB", "perf_h100_2026_11_24_all"),
                ("Lab 01: odd-even transposition sort", "perf_h100_2026_11_24_oddeven"),
                ("Lab 04: radix sort built on scan", "perf_h100_2026_11_24_radix"),
                ("Each tier beside CUB", "perf_lab_box_all"),
                ("fancy", "perf_lab_box_fancy"),
            ],
        )
        self.assertIn("\\ref lab01", page)
        self.assertIn("\\ref lab04", page)
        images = re.findall(r'^\\image html (\S+) "[^"]*"$', page, re.M)
        self.assertEqual(
            sorted(images),
            sorted(
                [
                    "perf_h100_2026_11_24_all_2_24.svg",
                    "perf_h100_2026_11_24_lab_oddeven.svg",
                    "perf_h100_2026_11_24_lab_radix.svg",
                    "perf_lab_box_all_2_24.svg",
                    "perf_lab_box_lab_fancy.svg",
                ]
            ),
        )
        for image in images:
            self.assertIn("<svg", (self.tmp / "out" / image).read_text(), image)
        # 2^24 keys in 1.5 ms: 11.2 Gkeys/s; CUB radix 0.5 ms: 0.333x; merge 0.9 ms: 0.6x;
        # std::sort 1200 ms: 800x; floor 0.25 ms of 1.5: 16.7%
        self.assertIn(
            "| keys | 2<sup>24</sup> | 1.500 | 11.2 | 0.333x | 0.6x | 800x | 16.7\\% |", page
        )
        self.assertIn("| radix | keys | 2<sup>24</sup> | 1.500 | 11.2 |", page)  # at 2^24
        # Lab 01, measured below 2^24 only, is on the table of every lab all the same.
        self.assertIn("| oddeven | global | 2<sup>10</sup> | 0.080 | 0.0128 |", page)
        self.assertIn("| global | 2<sup>10</sup> | 0.080 | 0.0128 | 0.25x | 0.45x | 1x | - |", page)
        self.assertIn("| one | 2<sup>24</sup> | 3.000 | 5.59 | 0.167x | 0.3x | 400x | - |", page)
        # What each tier is, under its lab's table; a lab the kit lacks has no note.
        self.assertIn("- `global` (TODO 1.1/1.2): the sort as n launches", page)
        self.assertIn("- `keys` (TODO 4.1-4.4): ", page)
        self.assertEqual(page.count("The tiers (the driver's `--algo`):"), 2)
        self.assertNotIn("No results file", page)
        self.assertIn("make gpu-check GPU_CHECK_STEPS=bench", page)
        self.assertIn("make bench-report BENCH_CSV=", page)

    def test_page_without_results_says_so(self):
        result, page = self.run_page({})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("No results file is committed yet", page)
        self.assertNotIn("\\image", page)
        for words in (
            "## Measure your own GPU {#perf_regenerate}",
            "## Commit a results file {#perf_commit}",
            "make gpu-check GPU_CHECK_STEPS=bench",
            "make bench-report BENCH_CSV=",
            "docs/performance/h100-2026-11-24.csv",
        ):
            self.assertIn(words, page)

    def test_page_without_gnuplot_keeps_the_tables(self):
        env = dict(os.environ, PATH=str(self.tmp / "nowhere"))
        result, page = self.run_page(self.results(), env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no gnuplot", result.stderr)
        self.assertIn("No charts: gnuplot was not found", page)
        self.assertNotIn("\\image", page)
        self.assertIn("| keys | 2<sup>24</sup> | 1.500 | 11.2 |", page)
        self.assertEqual(list((self.tmp / "out").glob("*.svg")), [])

    def test_page_refuses_a_results_file_it_cannot_read(self):
        result, page = self.run_page(
            {"good.csv": self.results()["lab-box.csv"], "bad-2026-01-01.csv": "n,ms\n1,2\n"}
        )
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn("bad-2026-01-01.csv: the header", result.stderr)

    def test_page_shows_the_later_of_two_rows_of_one_size(self):
        twice = (
            HEADER
            + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60)
            + row("radix", "keys", 1 << 20, 0.25, 0.2, 0.4, 60)
        )
        result, page = self.run_page({"twice.csv": twice})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("measured twice", result.stderr)
        self.assertIn("| keys | 2<sup>20</sup> | 0.250 |", page)
        self.assertNotIn("| keys | 2<sup>20</sup> | 0.500 |", page)

    def test_small_numbers_keep_their_digits(self):
        tool = load_tool()
        for value, text in (
            (0.000206, "0.000206"),
            (0.0000206, "0.0000206"),
            (34.377, "34.4"),
            (0.6, "0.6"),
            (0.74, "0.74"),
            (1.0, "1"),
            (1234.6, "1235"),
        ):
            self.assertEqual(tool.sig3(value), text, value)
        self.assertEqual(tool.ratio(0.414, 297.4834), "0.00139x")
        result = self.run_tool(HEADER + ODDEVEN)
        self.assertEqual(result.returncode, 0, result.stderr)
        report = (self.tmp / "out" / "report.md").read_text()
        # 2^16 keys in 297.48 ms: 0.000220 Gkeys/s; CUB radix 0.414 ms: 0.00139x; CUB merge
        # 0.1538 ms: 0.000517x. Two fixed decimals printed 0.00 and 0.00x here.
        self.assertIn(
            "| oddeven | global | 65536 | 297.483 | 0.00022 | 0.00139x | 0.000517x " "| - |", report
        )
        self.assertNotIn(" 0.00 ", report)
        self.assertNotIn(" 0.00x ", report)

    def test_axes_are_ticked_with_readable_numbers(self):
        """keys/s ticked 100k, 1M, 1G: a base-2 axis of billions printed 0.00390625."""
        result = self.run_tool(
            HEADER + ODDEVEN + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500")
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in ("lab_oddeven.svg", "lab_radix.svg", "all_2_24.svg"):
            ticks = [
                t
                for t in svg_texts((self.tmp / "out" / name).read_text())
                if re.fullmatch(r"[\d.]+[kMG]?", t)
            ]
            self.assertTrue(ticks, name)
            for tick in ticks:  # whole numbers with an SI prefix, or 2 and its exponent
                self.assertRegex(tick, r"^\d+[kMG]?$", f"{name}: tick {tick}")
            self.assertTrue({"1M", "1G"} & set(ticks), f"{name}: {ticks}")

    def test_every_lab_on_the_chart_of_all_and_cub_unlike_them(self):
        rows = (
            HEADER
            + ODDEVEN
            + self.pairs_rows().split("\n", 1)[1]
            + row("mergesort", "keys", 1 << 24, 2.754, 0.4673, 0.8642, 2232.9)
        )
        result = self.run_tool(rows)
        self.assertEqual(result.returncode, 0, result.stderr)
        svg = (self.tmp / "out" / "all_2_24.svg").read_text()
        texts = svg_texts(svg)
        # Lab 01 has no row at 2^24: its tiers at their largest n, said in the label, with
        # their ratio to CUB's sort of that n.
        for words in (
            "oddeven global, n = 2^16",
            "oddeven block, n = 2^11",
            "0.00022 Gkeys/s, 0.00139x CUB radix",
            "radix onesweep_pairs",
            "8.39 Gkeys/s, 0.75x CUB radix pairs",
            "mergesort keys",
            "CUB radix sort (baseline)",
            "CUB radix sort (pairs) (baseline)",
            "CUB merge sort (baseline)",
        ):
            self.assertIn(words, texts)
        fills = svg_fills(svg)
        cub = [f for f in fills if f.startswith("url(")]  # hatched: a pattern, not a colour
        labs = [f for f in fills if not f.startswith("url(")]
        self.assertEqual(len(cub), 3, fills)  # CUB radix, radix of pairs, merge
        self.assertEqual(len(labs), 2 + 2 + 1, fills)  # a bar per tier of each lab
        self.assertEqual(len(set(labs)), 3, "a colour per lab")

    def test_one_legend_entry_for_every_floor(self):
        rows = HEADER + "".join(
            row("mergesort", tier, n, ms * n / (1 << 20), 0.09, 0.1, 120, f"{ms / 4:.4f}")
            for tier, ms in (("keys", 0.3), ("path", 4.6), ("thread", 245.0), ("reg-keys", 0.3))
            for n in (1 << 20, 1 << 24)
        )
        result = self.run_tool(rows)
        self.assertEqual(result.returncode, 0, result.stderr)
        titles = svg_titles((self.tmp / "out" / "lab_mergesort.svg").read_text())
        self.assertEqual(len([t for t in titles if "floor" in t]), 1, titles)
        # The four tiers, each with its ratio to CUB, then the floor, then three baselines.
        self.assertEqual(len(titles), 4 + 1 + 3, titles)
        self.assertIn("path (0.00122x CUB radix)", titles)  # 0.09 ms over 73.6 ms at 2^24

    def test_every_tier_of_the_drivers_is_explained(self):
        """bench_report.TIERS names every --algo of labs/*/NAME_main.c with its TODO."""
        tool = load_tool()
        drivers = {}
        for main in sorted(ROOT.glob("labs/[0-9][0-9]-*/*_main.c")):
            text = main.read_text()
            name = re.search(r'\.name = "(\w+)"', text)
            algos = re.search(r"\.algos = \{(.*?)\},\s*\.default_n", text, re.S)
            if name and algos:
                drivers[name.group(1)] = dict(
                    re.findall(r'\{"([\w-]+)",\s*\w+,\s*[^,]+,\s*"([^"]+)"', algos.group(1))
                )
        self.assertEqual(len(drivers), 5, drivers)
        self.assertEqual(
            {
                lab: {tier: todo for tier, (todo, _) in tiers.items()}
                for lab, tiers in tool.TIERS.items()
            },
            drivers,
        )
        result = self.run_tool(HEADER + row("mergesort", "path", 1 << 24, 47.0, 0.47, 0.87, 2661))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(
            "- mergesort `path` (TODO 2.3): every pass by tier 3 alone",
            (self.tmp / "out" / "report.md").read_text(),
        )

    def mixed(self):
        """Lab 04 at one commit, Lab 02 measured again at another, appended to one file."""
        return (
            HEADER
            + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, commit="70e31fb")
            + row("mergesort", "keys", 1 << 24, 2.754, 0.47, 0.86, 2232, commit="644d711")
        )

    def test_a_file_of_two_runs_is_refused_by_the_page_and_warned_of_by_the_report(self):
        result, page = self.run_page({"h100-2026-11-24.csv": self.mixed()})
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn(
            "h100-2026-11-24.csv: rows of more than one run: 2 commits " "(644d711, 70e31fb)",
            result.stderr,
        )
        self.assertEqual(page, "")
        result = self.run_tool(self.mixed())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("warning: ", result.stderr)
        self.assertIn("2 commits (644d711, 70e31fb)", result.stderr)
        # Two files of one run each, of two commits: each file is one run, no warning.
        first, second = self.mixed().splitlines(keepends=True)[1:]
        result = self.run_tool(HEADER + first, HEADER + second)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("warning", result.stderr)

    def test_bench_report_without_a_file_says_what_to_pass(self):
        missing = self.tmp / "gpu-check" / "bench.csv"
        for args, words in (
            ([], "no CSV file given"),
            ([str(missing)], f"{missing}: no such file"),
        ):
            result = subprocess.run(
                [sys.executable, str(TOOL), str(self.tmp / "out"), *args],
                capture_output=True,
                text=True,
            )
            self.assertEqual(result.returncode, 2, result.stdout)
            self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
            self.assertIn(words, result.stderr)
            self.assertIn("make bench-report BENCH_CSV=FILE", result.stderr)
            self.assertNotIn("Errno", result.stderr)
        if not shutil.which("make"):
            return
        # As a user meets it: make bench-report, before gpu-check wrote its file. The env
        # of an enclosing make (make check) is left out, so that this make is a fresh one.
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BENCH_CSV")
        }
        result = subprocess.run(
            [
                "make",
                "-s",
                "--no-print-directory",
                "-C",
                str(ROOT),
                "bench-report",
                f"BUILD={self.tmp / 'build'}",
            ],
            capture_output=True,
            text=True,
            env=env,
        )
        self.assertNotEqual(result.returncode, 0, result.stdout)
        ours = [line for line in result.stderr.splitlines() if line.startswith("bench_report")]
        self.assertEqual(len(ours), 1, result.stderr)
        self.assertIn("gpu-check/bench.csv: no such file", ours[0])
        self.assertIn("BENCH_CSV=FILE", ours[0])
        self.assertNotIn("Traceback", result.stderr)

    def test_doxygen_text_escapes_what_doxygen_would_read(self):
        tool = load_tool()
        self.assertEqual(tool.doxygen_text("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3")
        self.assertEqual(
            tool.doxygen_text('a<b> #1 & 5% @x $y \\z "q" | r'),
            'a\\<b\\> \\#1 \\& 5\\% \\@x \\$y \\\\z \\"q\\" \\| r',
        )
        self.assertEqual(tool.doxygen_text("x | y", heading=True), "x y")
        self.assertEqual(tool.doxygen_text("_a_ *b* `c` [d]"), "a b c d")
        self.assertEqual(tool.doxygen_text(""), "(none)")
        self.assertEqual(tool.slug("H100-2026-11-24"), "h100_2026_11_24")


if __name__ == "__main__":
    if not shutil.which("gnuplot"):
        print("check-bench-report: SKIPPED (no gnuplot here: make deps installs gnuplot-nox)")
        sys.exit(0)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(BenchReport)
    outcome = unittest.TextTestRunner(verbosity=1).run(suite)
    failed = len(outcome.failures) + len(outcome.errors)
    print(f"check-bench-report: {outcome.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
