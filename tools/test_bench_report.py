#!/usr/bin/env python3
"""check-host: tools/bench_report.py on rows shaped as common/bench_csv.c writes them (the
header and a row of test_common's bench_csv suite): the charts are drawn, the table's ratios
are the rows' own, and rows it cannot trust are refused."""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOL = Path(__file__).resolve().parent / "bench_report.py"
HEADER = ("device,driver,commit,lab,tier,n,distribution,ms,gkeys_s,cub_radix_ms,cub_merge_ms,"
          "std_sort_ms,floor_ms\n")


def row(lab, tier, n, ms, radix, merge, cpu, floor=""):
    return (f'"GPU ""X"", rev 2",13000,abc1234,{lab},{tier},{n},uniform,{ms:.4f},'
            f"{n / (ms * 1e6):.4f},{radix:.4f},{merge:.4f},{cpu:.4f},{floor}\n")


class BenchReport(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-report-"))

    def run_tool(self, *csv_texts):
        paths = []
        for i, text in enumerate(csv_texts):
            path = self.tmp / f"bench{i}.csv"
            path.write_text(text)
            paths.append(str(path))
        return subprocess.run([sys.executable, str(TOOL), str(self.tmp / "out"), *paths],
                              capture_output=True, text=True)

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

    def test_rows_it_cannot_trust_are_refused(self):
        cases = (("n,ms\n1,2\n", "header"),
                 (HEADER, "no rows"),
                 (HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(
                     ",0.5000,", ",fast,", 1), "line 2"),
                 (HEADER + row("radix", "keys", 1 << 20, 0.5, 0.2, 0.4, 60).replace(
                     ",0.5000,", ",0.0000,", 1), "positive"))
        for text, words in cases:
            result = self.run_tool(text)
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertIn(words, result.stderr)


if __name__ == "__main__":
    if not shutil.which("gnuplot"):
        print("check-bench-report: SKIPPED (no gnuplot here: make deps installs gnuplot-nox)")
        sys.exit(0)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(BenchReport)
    outcome = unittest.TextTestRunner(verbosity=1).run(suite)
    failed = len(outcome.failures) + len(outcome.errors)
    print(f"check-bench-report: {outcome.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
