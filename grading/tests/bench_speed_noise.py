#!/usr/bin/env python3
"""Benchmark (GPU): the reference solution timed against itself by the grader's speed run.

usage: bench_speed_noise.py [--build BUILD] [--runs N] [--labs 01,04] [--out FILE]

For each lab with speed points, links the reference's executor as the grader does and runs
the timed driver (speed.measure, the rubric's args, in the grader's sandbox) N times with
the reference on both sides. An identical file should come out at 1.00x; the spread of the
ratios is the noise a student's speed points carry. Prints one line per lab (the ratios, the
worst distance from 1) and writes them as JSON to --out. A benchmark, not a test: it asserts
nothing (docs/instructor.md, "Speed points", reports its figures).
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grading"))

from kitgrader import build, gpu, speed  # noqa: E402
from kitgrader.discover import Kit, discover_labs  # noqa: E402
from kitgrader.grader import GradingContext, Options, timed_binary  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--labs", default="", help="lab numbers, comma-separated (default all)")
    parser.add_argument("--out", help="write the ratios here as JSON")
    parser.add_argument(
        "--rounds",
        type=int,
        default=speed.ROUNDS,
        help="rounds per side (the grader's: speed.ROUNDS)",
    )
    parser.add_argument("--reps", help="timed runs per round, instead of the rubric's --reps")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every round")
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="leave the timed run's processes unpinned (the grader pins them)",
    )
    args = parser.parse_args()
    kit = Kit.at(ROOT, build=args.build)
    wanted = {w.zfill(2) for w in args.labs.split(",") if w}
    labs = [
        lab
        for lab in discover_labs(kit)
        if lab.rubric.speed and (not wanted or lab.id[:2] in wanted)
    ]
    work = Path(args.build) / "bench-speed-noise"
    context = GradingContext(kit, labs, Options(), work)
    context.prepare()
    env = gpu.gpu_env(None)
    env["KIT_GPU_FACTS"] = gpu.require_gpu(kit, env).facts
    iso = context.isolation.for_slot(0, None)
    report = {}
    for lab in labs:
        executor = context._link_reference(context.plans[lab.id])
        rule = lab.rubric.speed
        driver_args = list(rule.args)
        if args.reps and "--reps" in driver_args:
            driver_args[driver_args.index("--reps") + 1] = args.reps
        command = build.executor_command(iso, executor, rule.time_limit_s)
        ratios, started = [], time.monotonic()
        for _ in range(args.runs):
            measured = speed.measure(
                timed_binary(lab),
                driver_args,
                command,
                command,
                env,
                rule.time_limit_s,
                rounds=args.rounds,
                cpu_rule=lab.rubric.cpu,
                pin=not args.no_pin,
            )
            if args.verbose:
                print(
                    "\n".join(
                        line
                        for line in measured.log.splitlines()
                        if line.startswith(("round", "trimmed"))
                    ),
                    flush=True,
                )
            ratios.append(round(measured.ratio, 3) if measured.measured else None)
        worst = max((abs(r - 1) for r in ratios if r is not None), default=None)
        report[lab.id] = {
            "ratios": ratios,
            "worst": worst,
            "seconds_per_run": (time.monotonic() - started) / args.runs,
        }
        print(
            f"{lab.id}: reference against itself {ratios}, worst {worst}"
            f" ({report[lab.id]['seconds_per_run']:.1f} s a run)",
            flush=True,
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
