#!/usr/bin/env python3
"""Benchmark (GPU): a class graded on one machine with `grading/grade --class`.

usage: bench_class.py --build BUILD --out OUT [--jobs K] [--test-jobs N] [--refs R]
                      [--grade-opts "..."] [--class-dir DIR] [--compare OTHER_OUT] [--dry-run]

Builds a class in OUT/class/ (unless --class-dir names one): R copies of the reference
solutions (ref01, ...), the shipped skeletons (skeleton), and one submission per GPU fixture
of grading/tests/fixtures/gpu/ that grades one student file (fx_NAME, written as
check_gpu_fixture.py writes it). Grades it with `grading/grade --class -q` into OUT/grades/
(removed first, so every run starts clean; its output in OUT/grade.log) and measures:
  - throughput: wall seconds, seconds per submission, hours for 300 submissions at that rate;
  - utilisation, sampled every second (OUT/utilisation.csv): GPU busy % and memory from
    nvidia-smi, CPU busy % of all cores from /proc/stat;
  - verdicts: each fixture against its expect.json (check_gpu_fixture.check), every ref with
    all points and speed points, the skeleton with 0;
  - the refs' speed ratios per lab (the reference timed against itself: noise around 1.00x).
OUT/summary.json holds the figures. --compare OTHER_OUT lists the tests whose status differs
from another run's OUT/grades (speed entries by score). --dry-run builds the class and prints
the grade command without running it. A benchmark, not a test: timings are reported, never
judged; the exit status is 1 only when a verdict is wrong, 2 when the class was not graded.
"""

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
FIXTURES = TESTS / "fixtures" / "gpu"
sys.path.insert(0, str(TESTS))
import check_gpu_fixture  # noqa: E402  (its check() judges a results.json)
import fixture_patch  # noqa: E402  (writes a fixture's student file)

# expect.json keys that hold only when the fixture is graded with an option: dropped from the
# check when the class run lacks that option (the class shares one set of options).
NEEDS_OPTION = {"--sanitize": ("sanitizer",)}
NOT_CHECKS = {"about", "lab", "options", "object_check", "in_class"}  # keys check() does not judge
SPEED_RATIO = re.compile(r"(\d+(?:\.\d+)?)x the reference's time")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", required=True, help="the kit's build folder")
    p.add_argument("--out", required=True, help="where the class, grades and figures go")
    p.add_argument("--jobs", help="grade --jobs (left to the grader when not given)")
    p.add_argument("--test-jobs", type=int, help="grade --test-jobs")
    p.add_argument("--refs", type=int, default=9, help="copies of the reference (default 9)")
    p.add_argument("--grade-opts", default="", help='more grade options, e.g. "--sanitize"')
    p.add_argument("--class-dir", help="grade this class folder instead of building one")
    p.add_argument("--compare", metavar="OTHER_OUT", help="another run's OUT to compare with")
    p.add_argument("--dry-run", action="store_true", help="build the class, print the command")
    return p.parse_args()


# ---- the class ------------------------------------------------------------------------------


def lab_files():
    """{lab: its student files} for each lab of solutions/ with a rubric: the files the grader
    takes from a submission (the rubric's student_file and bonus_file, as discover.py does)."""
    labs = {}
    for folder in sorted((ROOT / "solutions").iterdir()):
        rubric = ROOT / "grading" / "rubric" / f"{folder.name}.json"
        if folder.is_dir() and rubric.is_file():
            rule = json.loads(rubric.read_text())
            labs[folder.name] = [f for f in (rule["student_file"], rule.get("bonus_file")) if f]
    return labs


def copy_labs(source, submission):
    """submission/LAB/FILE for every student file that source/LAB/ holds."""
    for lab, files in lab_files().items():
        for name in files:
            if (source / lab / name).is_file():
                (submission / lab).mkdir(parents=True, exist_ok=True)
                shutil.copy2(source / lab / name, submission / lab / name)


def single_file_fixtures():
    """(name, folder, expect) of each GPU fixture that grades one student file; those with a
    "grade" key grade a folder of the kit (the refs and skeleton here stand for them)."""
    found = []
    for folder in sorted(p for p in FIXTURES.iterdir() if (p / "expect.json").is_file()):
        expect = json.loads((folder / "expect.json").read_text())
        if "grade" not in expect:
            found.append((folder.name, folder, expect))
    return found


def build_class(class_dir, refs):
    """Writes the class folder afresh; returns the submissions' names, and the fixtures left
    out (a change that no longer applies), as name: reason."""
    shutil.rmtree(class_dir, ignore_errors=True)
    class_dir.mkdir(parents=True)
    names, left_out = [], {}
    for i in range(1, refs + 1):
        names.append(f"ref{i:02d}")
        copy_labs(ROOT / "solutions", class_dir / names[-1])
    names.append("skeleton")
    copy_labs(ROOT / "labs", class_dir / "skeleton")
    for name, folder, expect in single_file_fixtures():
        lab = expect.get("lab", check_gpu_fixture.DEFAULT_LAB)
        target = class_dir / f"fx_{name}" / lab / fixture_patch.lab_student_file(lab)
        try:
            fixture_patch.write(folder, target)
        except fixture_patch.FixtureError as err:
            shutil.rmtree(class_dir / f"fx_{name}", ignore_errors=True)
            left_out[name] = str(err)
            continue
        names.append(f"fx_{name}")
    return names, left_out


# ---- grading, and what the machine did meanwhile ---------------------------------------------


def grade_command(args, class_dir, grades):
    command = [
        sys.executable,
        "grading/grade",
        "--class",
        "-q",
        "--build",
        args.build,
        "--out",
        str(grades),
    ]
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    if args.test_jobs:
        command += ["--test-jobs", str(args.test_jobs)]
    return command + shlex.split(args.grade_opts) + [str(class_dir)]


def run_grader(command, log_path):
    """Runs the grader from the kit root, its output to log_path and (as it comes) the
    terminal; returns its exit code and wall seconds."""
    start = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        for line in proc.stdout:
            log.write(line)
            log.flush()
            print("  " + line, end="", flush=True)
        rc = proc.wait()
    return rc, time.monotonic() - start


def cpu_times():
    """(busy, total) jiffies of all cores: /proc/stat's first line (guest time is already
    counted in user, so only the first eight fields add up)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def gpu_rows():
    """[(index, util %, MiB used, MiB total)] from nvidia-smi; [] without it (or when it
    does not answer: a sample missed is not worth stopping for)."""
    if not shutil.which("nvidia-smi"):
        return []
    try:
        out = subprocess.run(
            [
                "nvidia-smi",
                "--query-gpu=index,utilization.gpu,memory.used," "memory.total",
                "--format=csv,noheader,nounits",
            ],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout
        rows = [[float(x) for x in line.split(",")] for line in out.splitlines() if line]
        return [(int(index), *rest) for index, *rest in rows]
    except (subprocess.SubprocessError, ValueError):
        return []


class Sampler(threading.Thread):
    """Samples CPU and GPU every second until stop() (a thread: the grader runs meanwhile)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.rows, self.done, self.start_time = [], threading.Event(), time.monotonic()

    def run(self):
        last = cpu_times()
        while not self.done.wait(1.0):
            now = cpu_times()
            cpu = 100.0 * (now[0] - last[0]) / max(1, now[1] - last[1])
            last, at = now, round(time.monotonic() - self.start_time, 1)
            gpus = gpu_rows() or [(None, None, None, None)]
            self.rows += [(at, round(cpu, 1), *gpu) for gpu in gpus]

    def stop(self):
        self.done.set()
        self.join()

    def write(self, path):
        with open(path, "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(
                ["time_s", "cpu_busy_pct", "gpu", "gpu_util_pct", "mem_used_mib", "mem_total_mib"]
            )
            out.writerows(self.rows)

    def figures(self):
        util = [r[3] for r in self.rows if r[3] is not None]
        cpu = {r[0]: r[1] for r in self.rows}.values()  # one per sample, not per GPU
        return {
            "samples": len(cpu),
            "gpu_util_mean_pct": round(statistics.mean(util), 1) if util else None,
            "gpu_util_median_pct": round(statistics.median(util), 1) if util else None,
            "gpu_mem_peak_mib": max((r[4] for r in self.rows if r[4] is not None), default=None),
            "cpu_busy_mean_pct": round(statistics.mean(cpu), 1) if cpu else None,
        }


# ---- verdicts ----------------------------------------------------------------------------------


def lab_tests(results, lab):
    return [t for t in results["tests"] if t["name"].startswith(lab + " ")]


def check_ref(results, labs):
    """What is wrong with a ref's grade: each lab of the run graded, every test (speed
    included) passed, all its points, and speed points wherever the rubric gives them."""
    problems = []
    for lab in labs:
        got = results["extra_data"]["labs"].get(lab)
        if got is None:
            problems.append(f"{lab} not graded")
            continue
        if got["status"] != "graded" or got["score"] < got["max_score"] - 1e-6:
            problems.append(f"{lab} {got['score']:g}/{got['max_score']:g} ({got['status']})")
        failed = [t["name"] for t in lab_tests(results, lab) if t["status"] != "passed"]
        if failed:
            problems.append(f"{lab}: {len(failed)} tests failed, first {failed[0]}")
        rubric = json.loads((ROOT / "grading" / "rubric" / f"{lab}.json").read_text())
        if rubric.get("speed", {}).get("points") and not any(
            t["name"] == f"{lab} speed" for t in lab_tests(results, lab)
        ):
            problems.append(f"{lab}: no speed entry")
    return problems


def check_fixture(expect, results, grade_opts, shared):
    """(problems, note): check_gpu_fixture's verdict, without the expectations that need an
    option this class run lacks; None for problems when nothing is left to check. shared: the
    run shared a GPU among submissions, so a fixture's in_class expectations replace its own."""
    if shared and "in_class" in expect:
        expect = {"lab": expect.get("lab", check_gpu_fixture.DEFAULT_LAB), **expect["in_class"]}
    expect, dropped = dict(expect), []
    for option in expect.get("options", []):
        if option not in grade_opts:
            for key in NEEDS_OPTION.get(option, ()):
                if expect.pop(key, None) is not None:
                    dropped.append(f"{key} unchecked without {option}")
    note = "; ".join(dropped)
    if not set(expect) - NOT_CHECKS:
        return None, note
    return check_gpu_fixture.check(expect, results), note


def one_line(problems):
    """check()'s problems as one line of a table (they quote tests' output, several lines)."""
    return "; ".join(" ".join(p.split())[:240] for p in problems)


def verdict(name, results, fixtures, grade_opts, labs, shared):
    """ "OK", "WRONG: why", "SKIP: why" or "-" (a submission this benchmark did not make);
    labs: the labs this run graded (the gradebook's columns: --lab may name fewer)."""
    if name.startswith("fx_") and name[3:] in fixtures:
        if results is None:
            return "WRONG: no results.json"
        problems, note = check_fixture(fixtures[name[3:]], results, grade_opts, shared)
        if problems is None:
            return f"SKIP: {note}"
        if problems:
            return "WRONG: " + one_line(problems)
        return "OK" + (f" ({note})" if note else "")
    if re.fullmatch(r"ref\d+", name) or name == "skeleton":
        if results is None:
            return "WRONG: no results.json"
        if name == "skeleton":
            return "OK" if abs(results["score"]) < 1e-6 else f"WRONG: {results['score']:g} points"
        problems = check_ref(results, labs)
        return ("WRONG: " + one_line(problems)) if problems else "OK"
    return "-"


def speed_ratios(results):
    """{lab: the N.NNx of its speed entry} (labs without a measured ratio left out)."""
    ratios = {}
    for test in results["tests"]:
        lab, _, what = test["name"].partition(" ")
        found = SPEED_RATIO.search(test["output"]) if what == "speed" else None
        if found:
            ratios[lab] = float(found.group(1))
    return ratios


def load_results(grades, name):
    path = grades / name / "results.json"
    return json.loads(path.read_text()) if path.is_file() else None


def compare(grades, other):
    """Differences between two runs' per-test statuses, for the students both graded; speed
    entries by score (their pass/fail is a threshold on a noisy ratio)."""
    diffs = []
    for student in sorted(p.name for p in grades.iterdir() if (p / "results.json").is_file()):
        mine, theirs = load_results(grades, student), load_results(other, student)
        if theirs is None:
            continue
        a, b = ({t["name"]: t for t in r["tests"]} for r in (mine, theirs))
        for test in sorted(set(a) | set(b)):
            x, y = a.get(test), b.get(test)
            if x is None or y is None:
                diffs.append(
                    f"{student} {test}: only in " + ("this run" if y is None else "the other")
                )
            elif test.endswith(" speed"):
                if abs(x["score"] - y["score"]) > 1e-6:
                    diffs.append(f"{student} {test}: {x['score']:g} vs {y['score']:g} points")
            elif x["status"] != y["status"]:
                diffs.append(f"{student} {test}: {x['status']} vs {y['status']}")
    return diffs


def read_gradebook(path):
    """({student: row}, the labs graded: the columns between student and total)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = {row["student"]: row for row in reader}
    return rows, reader.fieldnames[1 : reader.fieldnames.index("total")]


def git_commit():
    """The kit's commit: KIT_COMMIT when set (as for tools/gpu_check.sh: a copy of the kit
    without its .git, or with a stale one), else git's."""
    if os.environ.get("KIT_COMMIT"):
        return os.environ["KIT_COMMIT"]
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---- the run ---------------------------------------------------------------------------------


def prepare_class(args, out):
    """(class folder, its submissions' names, fixtures left out): --class-dir's, or built."""
    if args.class_dir:
        class_dir = Path(args.class_dir).resolve()
        return class_dir, sorted(p.name for p in class_dir.iterdir() if p.is_dir()), {}
    return (out / "class", *build_class(out / "class", args.refs))


def judge(grades, grade_opts, shared):
    """Prints a line per student (score, seconds, verdict); returns the verdicts, and the
    refs' speed ratios per lab as min / median / max. shared: see check_fixture."""
    book, labs = read_gradebook(grades / "gradebook.csv")
    fixtures = {name: expect for name, _, expect in single_file_fixtures()}
    verdicts, ratios = {}, {}
    for name in sorted(book):
        row, results = book[name], load_results(grades, name)
        verdicts[name] = verdict(name, results, fixtures, grade_opts, labs, shared)
        print(
            f"{name:<28} {row['total'] or '-':>6}/{row['max_total'] or '-':<4} "
            f"{row['seconds']:>5} s  {verdicts[name]}"
        )
        if results is not None and re.fullmatch(r"ref\d+", name):
            for lab, ratio in speed_ratios(results).items():
                ratios.setdefault(lab, []).append(ratio)
    return verdicts, {
        lab: {"min": min(r), "median": statistics.median(r), "max": max(r), "n": len(r)}
        for lab, r in sorted(ratios.items())
    }


def print_summary(summary):
    """The last lines: speed ratios, throughput, utilisation, verdicts."""
    print("speed ratios of the refs (min / median / max):")
    for lab, r in summary["ref_speed_ratios"].items():
        print(f"  {lab:<14} {r['min']:.2f}x / {r['median']:.2f}x / {r['max']:.2f}x")
    util, wrong = summary["utilisation"], summary["wrong"]
    print(
        f"commit {summary['commit']}: {summary['submissions']} submissions in "
        f"{summary['wall_s']:.0f} s ({summary['s_per_submission']} s each; 300 would take "
        f"{summary['hours_for_300']} h)"
    )
    print(
        f"GPU util mean {util['gpu_util_mean_pct']}% median {util['gpu_util_median_pct']}%, "
        f"peak memory {util['gpu_mem_peak_mib']} MiB; CPU busy mean {util['cpu_busy_mean_pct']}%"
    )
    if summary["grader_exit"] not in (0, 1):
        print(f"the grader exited {summary['grader_exit']} (3: tests skipped, no GPU)")
    print(
        f"verdicts: {summary['verdicts_ok']} OK, {len(wrong)} wrong"
        + (f" ({', '.join(w.split(':')[0] for w in wrong)})" if wrong else "")
    )


def main():
    args = parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    class_dir, names, left_out = prepare_class(args, out)
    print(f"class {class_dir}: {len(names)} submissions: {', '.join(names)}")
    for name, why in left_out.items():
        print(f"fixture {name} left out: {why}")
    grades = out / "grades"
    command = grade_command(args, class_dir, grades)
    print(f"grade command (from {ROOT}): {shlex.join(command)}")
    if args.dry_run:
        return 0

    shutil.rmtree(grades, ignore_errors=True)  # a clean run: nothing kept from the last one
    sampler = Sampler()
    sampler.start()
    try:
        rc, wall = run_grader(command, out / "grade.log")
    finally:
        sampler.stop()
        sampler.write(out / "utilisation.csv")
    if not (grades / "gradebook.csv").is_file():
        print(f"the grader exited {rc} and wrote no gradebook (see {out / 'grade.log'})")
        return 2
    # The grader's first line says whether submissions shared a GPU (grading/grade's
    # say_sharing): then a fixture's in_class expectations hold.
    log = (out / "grade.log").read_text(errors="replace") if (out / "grade.log").exists() else ""
    verdicts, speed = judge(grades, shlex.split(args.grade_opts), "of its memory" in log)
    diffs = compare(grades, Path(args.compare).resolve() / "grades") if args.compare else None
    if diffs is not None:
        print(f"compared with {args.compare}: {len(diffs)} differences")
        print("".join(f"  {line}\n" for line in diffs), end="")
    n = len(verdicts)
    summary = {
        "submissions": n,
        "grader_exit": rc,
        "wall_s": round(wall, 1),
        "s_per_submission": round(wall / max(1, n), 1),
        "hours_for_300": round(wall / max(1, n) * 300 / 3600, 2),
        "utilisation": sampler.figures(),
        "verdicts_ok": sum(1 for v in verdicts.values() if v.startswith("OK")),
        "verdicts_skipped": sorted(k for k, v in verdicts.items() if v.startswith("SKIP")),
        "wrong": [f"{k}: {v}" for k, v in verdicts.items() if v.startswith("WRONG")],
        "ref_speed_ratios": speed,
        "fixtures_left_out": left_out,
        "compare_differences": diffs,
        "command": shlex.join(command),
        "bench_command": shlex.join(sys.argv),
        "commit": git_commit(),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print_summary(summary)
    print(f"summary: {out / 'summary.json'}; grader output: {out / 'grade.log'}")
    return 1 if summary["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
