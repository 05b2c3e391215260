#!/usr/bin/env python3
"""check-host: tools/bench_report.py on rows shaped as common/bench_csv.c writes them (the
header and a row of test_common's bench_csv suite): the charts are drawn, the table's ratios
are the rows' own, and rows it cannot trust are refused; CUB's radix sort of pairs (the last
column) is shown where rows have it, and files of the 13 columns before it still read; and
its --page mode, make docs' Performance page: it names each results file's device, driver,
commit and date, gives every lab present its chart and table, and builds with no results
file, with the committed results files, and without gnuplot."""

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
HEADER = ("device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,cub_radix_ms,cub_merge_ms,"
          "std_sort_ms,floor_ms,cub_radix_pairs_ms\n")


def row(lab, tier, n, ms, radix, merge, cpu, floor="", device='"GPU ""X"", rev 2"', pairs=""):
    return (f'{device},13000,abc1234,{lab},{tier},{n},uniform,{ms:.4f},'
            f"{n / (ms * 1e6):.4f},{radix:.4f},{merge:.4f},{cpu:.4f},{floor},{pairs}\n")


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
        return subprocess.run([sys.executable, str(TOOL), str(self.tmp / "out"), *paths],
                              capture_output=True, text=True)

    def run_page(self, files, env=None):
        """--page out NAME... with files {NAME: text}, written in self.tmp/performance/."""
        folder = self.tmp / "performance"
        folder.mkdir(exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(text)
        result = subprocess.run([sys.executable, str(TOOL), "--page", "out",
                                 *(f"performance/{name}" for name in files)],
                                cwd=self.tmp, capture_output=True, text=True, env=env)
        page = self.tmp / "out" / "performance.md"
        return result, page.read_text() if page.is_file() else ""

    def test_charts_and_table_from_two_files(self):
        radix = HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60, "0.1000") + \
            row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500")
        merge = HEADER + row("mergesort", "pairs", 1 << 24, 3.0, 0.5, 0.9, 1200)
        result = self.run_tool(radix, merge)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.tmp / "out"
        for name, words in (("lab_radix.svg", ("lab keys", "floor of keys", "CUB radix sort")),
                            ("lab_mergesort.svg", ("lab pairs", "std::sort")),
                            ("all_2_24.svg", ("radix keys", "mergesort pairs", "CUB merge"))):
            text = (out / name).read_text()
            self.assertIn("<svg", text, name)
            for word in words:
                self.assertIn(word, text, f"{name} names {word}")
        report = (out / "report.md").read_text()
        self.assertIn('Measured on GPU "X", rev 2 (CUDA driver 13000, kit commit abc1234)', report)
        # 2^24 keys in 1.5 ms: 11.18 Gkeys/s; CUB radix 0.5 ms: 0.33x; floor 0.25 of 1.5: 17%
        self.assertIn("| radix | keys | 16777216 | 1.500 | 11.18 | 0.33x | 0.60x | 17% |", report)
        self.assertIn("| mergesort | pairs | 16777216 | 3.000 | 5.59 | 0.17x | 0.30x | - |",
                      report)

    def pairs_rows(self):
        """Lab 04's keys (no CUB pairs) and onesweep_pairs (CUB pairs 1.5 ms at 2^24)."""
        return HEADER + row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500") + \
            row("radix", "onesweep_pairs", 1 << 20, 0.2, 0.1, 0.4, 60, pairs="0.1500") + \
            row("radix", "onesweep_pairs", 1 << 24, 2.0, 0.5, 0.9, 1200, "0.5000",
                pairs="1.5000")

    def test_cub_pairs_where_the_rows_have_it(self):
        result = self.run_tool(self.pairs_rows())
        self.assertEqual(result.returncode, 0, result.stderr)
        out = self.tmp / "out"
        for name in ("lab_radix.svg", "all_2_24.svg"):
            self.assertIn("CUB radix sort (pairs)", (out / name).read_text(), name)
        report = (out / "report.md").read_text()
        self.assertIn("| lab / CUB radix | lab / CUB radix pairs | lab / CUB merge |", report)
        # CUB pairs 1.5 ms over the lab's 2.0 ms: 0.75x; a tier of keys has none: -
        self.assertIn("| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | 0.75x | "
                      "0.45x | 25% |", report)
        self.assertIn("| radix | keys | 16777216 | 1.500 | 11.18 | 0.33x | - | 0.60x | 17% |",
                      report)
        result, page = self.run_page({"h200-2026-12-01.csv": self.pairs_rows()})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("| vs CUB radix | vs CUB radix pairs | vs CUB merge |", page)
        self.assertIn("| onesweep pairs | 2<sup>24</sup> | 2.000 | 8.39 | 0.25x | 0.75x | 0.45x "
                      "| 600x | 25\\% |", page)
        self.assertIn("| keys | 2<sup>24</sup> | 1.500 | 11.18 | 0.33x | - | 0.60x | 800x |",
                      page)
        self.assertIn("CUB radix sort (pairs)",
                      (self.tmp / "out" / "perf_h200_2026_12_01_lab_radix.svg").read_text())

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
        self.assertIn("| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | 0.45x | 25% |",
                      report)
        # One table of rows of both shapes (a newer file beside an older one): - where none.
        merged = self.run_tool(older(self.pairs_rows()), HEADER + row(
            "radix", "pairs", 1 << 24, 4.0, 0.5, 0.9, 1200, pairs="2.0000"))
        self.assertEqual(merged.returncode, 0, merged.stderr)
        report = (out / "report.md").read_text()
        self.assertIn("| radix | pairs | 16777216 | 4.000 | 4.19 | 0.12x | 0.50x | 0.23x | - |",
                      report)
        self.assertIn("| radix | onesweep_pairs | 16777216 | 2.000 | 8.39 | 0.25x | - | 0.45x "
                      "| 25% |", report)

    def test_committed_results_files_make_the_page(self):
        """make docs draws every file of docs/performance/, the older 13 columns included."""
        committed = sorted((ROOT / "docs" / "performance").glob("*.csv"))
        self.assertTrue(committed, "docs/performance/ has results files")
        result = subprocess.run([sys.executable, str(TOOL), "--page", str(self.tmp / "out"),
                                 *map(str, committed)], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (self.tmp / "out" / "performance.md").read_text()
        for path in committed:
            self.assertIn(f"`{path.as_posix()}`", page)
        with open(committed[0]) as f:
            if "cub_radix_pairs_ms" not in f.readline():
                self.assertNotIn("vs CUB radix pairs", page.split("## Measure")[0])

    def test_rows_it_cannot_trust_are_refused(self):
        cases = (("n,ms\n1,2\n", "header"),
                 (HEADER, "no rows"),
                 (HEADER + row("radix", "pairs", 1 << 20, 0.5, 0.2, 0.4, 60, pairs="quick"),
                  "line 2"),
                 (older(HEADER) + row("radix", "pairs", 1 << 20, 0.5, 0.2, 0.4, 60,
                                      pairs="0.3000"), "more fields than the header"),
                 (HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(
                     ",0.5000,", ",fast,", 1), "line 2"),
                 (HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(
                     ",0.5000,", ",0.0000,", 1), "positive"))
        for text, words in cases:
            result = self.run_tool(text)
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertIn(words, result.stderr)

    H100 = "NVIDIA H100 80GB HBM3"

    def results(self):
        """An H100 file of two labs, an undated file of another GPU with a lab the kit lacks."""
        h100 = HEADER + \
            row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60, "0.1000", device=self.H100) + \
            row("radix", "keys", 1 << 24, 1.5, 0.5, 0.9, 1200, "0.2500", device=self.H100) + \
            row("oddeven", "global", 1024, 0.08, 0.02, 0.036, 0.08, device=self.H100)
        box = HEADER + row("fancy", "one", 1 << 24, 3.0, 0.5, 0.9, 1200)
        return {"lab-box.csv": box, "h100-2026-11-24.csv": h100}

    def test_page_names_each_file_and_gives_every_lab_its_chart_and_table(self):
        result, page = self.run_page(self.results())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("2 results files", result.stdout)
        self.assertTrue(page.startswith("# Performance {#performance}\n"), page[:80])
        # The dated file first, with where and when it was measured.
        h100 = page.index("## NVIDIA H100 80GB HBM3, 2026-11-24 {#perf_h100_2026_11_24}")
        box = page.index('## GPU \\"X\\", rev 2 {#perf_lab_box}')
        self.assertLess(h100, box)
        for words in ("- results file: `performance/h100-2026-11-24.csv` (3 rows)",
                      "- device: NVIDIA H100 80GB HBM3",
                      "- CUDA driver (`cudaDriverGetVersion`): 13.0 (13000)",
                      "- kit commit: `abc1234`", "- measured on: 2026-11-24",
                      "- results file: `performance/lab-box.csv` (1 row)",
                      "- measured on: not in the file's name"):
            self.assertIn(words, page)
        # Every lab present: a section (the kit's labs by number, with their handout), a
        # chart that exists, a table with the row's own ratios.
        sections = re.findall(r"^### (.*) \{#(\w+)\}$", page, re.M)
        self.assertEqual(sections, [
            ("Every lab at n = 2^24", "perf_h100_2026_11_24_all"),
            ("Lab 01: odd-even transposition sort", "perf_h100_2026_11_24_oddeven"),
            ("Lab 04: radix sort built on scan", "perf_h100_2026_11_24_radix"),
            ("Every lab at n = 2^24", "perf_lab_box_all"),
            ("fancy", "perf_lab_box_fancy")])
        self.assertIn("\\ref lab01", page)
        self.assertIn("\\ref lab04", page)
        images = re.findall(r'^\\image html (\S+) "[^"]*"$', page, re.M)
        self.assertEqual(sorted(images), sorted([
            "perf_h100_2026_11_24_all_2_24.svg", "perf_h100_2026_11_24_lab_oddeven.svg",
            "perf_h100_2026_11_24_lab_radix.svg", "perf_lab_box_all_2_24.svg",
            "perf_lab_box_lab_fancy.svg"]))
        for image in images:
            self.assertIn("<svg", (self.tmp / "out" / image).read_text(), image)
        # 2^24 keys in 1.5 ms: 11.18 Gkeys/s; CUB radix 0.5 ms: 0.33x; merge 0.9 ms: 0.60x;
        # std::sort 1200 ms: 800x; floor 0.25 ms of 1.5: 17%
        self.assertIn("| keys | 2<sup>24</sup> | 1.500 | 11.18 | 0.33x | 0.60x | 800x | 17\\% |",
                      page)
        self.assertIn("| radix | keys | 2<sup>24</sup> | 1.500 | 11.18 |", page)  # at 2^24
        self.assertIn("| global | 2<sup>10</sup> | 0.080 | 0.0128 | 0.25x | 0.45x | 1.00x | - |",
                      page)
        self.assertIn("| one | 2<sup>24</sup> | 3.000 | 5.59 | 0.17x | 0.30x | 400x | - |", page)
        self.assertNotIn("No results file", page)
        self.assertIn("make gpu-check GPU_CHECK_STEPS=bench", page)
        self.assertIn("make bench-report BENCH_CSV=", page)

    def test_page_without_results_says_so(self):
        result, page = self.run_page({})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("No results file is committed yet", page)
        self.assertNotIn("\\image", page)
        for words in ("## Measure your own GPU {#perf_regenerate}",
                      "## Commit a results file {#perf_commit}",
                      "make gpu-check GPU_CHECK_STEPS=bench", "make bench-report BENCH_CSV=",
                      "docs/performance/h100-2026-11-24.csv"):
            self.assertIn(words, page)

    def test_page_without_gnuplot_keeps_the_tables(self):
        env = dict(os.environ, PATH=str(self.tmp / "nowhere"))
        result, page = self.run_page(self.results(), env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no gnuplot", result.stderr)
        self.assertIn("No charts: gnuplot was not found", page)
        self.assertNotIn("\\image", page)
        self.assertIn("| keys | 2<sup>24</sup> | 1.500 | 11.18 |", page)
        self.assertEqual(list((self.tmp / "out").glob("*.svg")), [])

    def test_page_refuses_a_results_file_it_cannot_read(self):
        result, page = self.run_page({"good.csv": self.results()["lab-box.csv"],
                                      "bad-2026-01-01.csv": "n,ms\n1,2\n"})
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn("bad-2026-01-01.csv: the header", result.stderr)

    def test_page_shows_the_later_of_two_rows_of_one_size(self):
        twice = HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60) + \
            row("radix", "keys", 1 << 20, 0.25, 0.2, 0.4, 60)
        result, page = self.run_page({"twice.csv": twice})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("measured twice", result.stderr)
        self.assertIn("| keys | 2<sup>20</sup> | 0.250 |", page)
        self.assertNotIn("| keys | 2<sup>20</sup> | 0.500 |", page)

    def test_doxygen_text_escapes_what_doxygen_would_read(self):
        tool = load_tool()
        self.assertEqual(tool.doxygen_text("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3")
        self.assertEqual(tool.doxygen_text('a<b> #1 & 5% @x $y \\z "q" | r'),
                         'a\\<b\\> \\#1 \\& 5\\% \\@x \\$y \\\\z \\"q\\" \\| r')
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
