#!/usr/bin/env python3
"""Several submissions on one GPU (grading/kitgrader/sharing.py), without a GPU: make
check-grader.

usage: python3 grading/tests/test_sharing.py [--build BUILD] [unittest options, test names]

Covered:
  * the GPU's turns: timed work waits for the tests running, keeps new ones waiting, and the
    tests go on after it;
  * the memory watch, from canned nvidia-smi answers: a slot over its budget loses its largest
    processes, and only its own; the note its test gets; which other tests run again;
    a process's slot found through real process ancestry (run.owner_of);
  * each slot's GPU and budget, the progress line;
  * a class run with several submissions on one "GPU" gives the gradebook of one at a time,
    each test that failed there run again with the GPU alone.
"""

import csv
import shutil
import subprocess
import sys
import threading
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
from testkit import FIXTURE_KIT, GRADING, ROOT  # noqa: E402
import test_grader  # noqa: E402  (the fixture kit's build)

from kitgrader import run, sharing  # noqa: E402
from kitgrader.classroom import Progress, slot_gpus  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
HOST = testkit.host_fixtures()  # fixtures/host/, written as submissions


class Turns(unittest.TestCase):
    def test_alone_waits_for_tests_and_holds_new_ones(self):
        turns, order = sharing.GpuTurns(), []
        first_in, let_go = threading.Event(), threading.Event()

        def test(name, hold=None):
            with turns.shared():
                order.append(f"{name} starts")
                if hold:
                    first_in.set()
                    let_go.wait(5)
                order.append(f"{name} ends")

        def timed():
            with turns.alone():
                order.append("timed starts")
                time.sleep(0.1)
                order.append("timed ends")

        running = threading.Thread(target=test, args=("a", True))
        running.start()
        first_in.wait(5)
        speed = threading.Thread(target=timed)
        speed.start()
        time.sleep(0.1)  # the timed work now waits for test a
        later = threading.Thread(target=test, args=("b",))
        later.start()
        time.sleep(0.1)  # test b waits for the timed work, which waits for test a
        self.assertEqual(order, ["a starts"])
        let_go.set()
        for thread in (running, speed, later):
            thread.join(5)
        self.assertEqual(
            order, ["a starts", "a ends", "timed starts", "timed ends", "b starts", "b ends"]
        )

    def test_a_window_gathers_the_timed_work(self):
        # gather 2: one thread wanting the GPU alone lets tests go on starting until a second
        # wants it too (or max_wait passes); then both have it, one after the other, and the
        # tests go on.
        turns, order = sharing.GpuTurns(gather=2, max_wait=30), []
        let_go = threading.Event()

        def test(name, hold=False):
            with turns.shared():
                order.append(f"{name} starts")
                if hold:
                    let_go.wait(10)
                order.append(f"{name} ends")

        def timed(name):
            with turns.alone():
                order.append(f"{name} timed")

        def start(target, *args):
            thread = threading.Thread(target=target, args=args)
            thread.start()
            time.sleep(0.2)
            return thread

        threads = [start(test, "a", True), start(timed, "x"), start(test, "b")]
        self.assertEqual(order, ["a starts", "b starts", "b ends"])  # b was not held back
        threads += [start(timed, "y"), start(test, "c")]
        self.assertEqual(order, ["a starts", "b starts", "b ends"])  # the window: c waits
        let_go.set()
        for thread in threads:
            thread.join(10)
        self.assertEqual(order[3], "a ends")
        self.assertEqual(sorted(order[4:6]), ["x timed", "y timed"])
        self.assertEqual(order[6:], ["c starts", "c ends"])

    def test_a_window_opens_after_max_wait(self):
        turns, done = sharing.GpuTurns(gather=5, max_wait=0.5), threading.Event()
        holding = threading.Event()

        def test():
            with turns.shared():
                holding.set()
                done.wait(10)

        def timed():
            with turns.alone():
                pass

        tester = threading.Thread(target=test)
        tester.start()
        holding.wait(5)
        thread = threading.Thread(target=timed)
        started = time.monotonic()
        thread.start()
        time.sleep(2.0)  # the window is open since max_wait: a new test waits
        later = threading.Event()

        def late_test():
            with turns.shared():
                later.set()

        blocked = threading.Thread(target=late_test)
        blocked.start()
        self.assertFalse(later.wait(0.3))
        self.assertTrue(thread.is_alive())  # the timed work waits for the running test
        done.set()
        thread.join(10)
        blocked.join(10)
        self.assertGreater(time.monotonic() - started, 0.5)
        tester.join(10)

    def test_alone_when_needed_takes_one_turn_or_none(self):
        turns = sharing.GpuTurns()
        quiet = sharing.AloneWhenNeeded(turns)
        quiet.close()  # never needed: no turn was taken, so tests may start
        with turns.shared():
            pass
        quiet()
        quiet()  # the same turn
        started = threading.Event()

        def test():
            with turns.shared():
                started.set()

        thread = threading.Thread(target=test)
        thread.start()
        self.assertFalse(started.wait(0.2))  # held alone until close()
        quiet.close()
        self.assertTrue(started.wait(5))
        thread.join(5)


class Watch(unittest.TestCase):
    # Two slots' test groups (leaders 100 and 200) on GPU 0, each with an executor below it.
    PARENTS = {101: 100, 102: 101, 201: 200, 301: 1}

    def setUp(self):
        with run._running_lock:
            run._running.update({100: "slot 1", 200: "slot 2"})
        self.killed = []

    def tearDown(self):
        with run._running_lock:
            run._running.pop(100, None)
            run._running.pop(200, None)

    def watch(self, processes):
        return sharing.MemoryWatch(
            {"0": 10000},
            query=lambda: processes,
            kill=self.killed.append,
            parent_of=self.PARENTS.get,
        )

    def test_a_slot_over_budget_loses_its_largest_process(self):
        # slot 1: 102 (9000 MiB) and 100 (2500): over 10000, so 102 goes and 100 stays;
        # slot 2 (9500) is within its budget; 301 is nobody's (another user's job).
        watch = self.watch(
            [("0", 102, 9000), ("0", 100, 2500), ("0", 201, 9500), ("0", 301, 50000)]
        )
        started = time.monotonic()
        events = watch.check()
        self.assertEqual(self.killed, [102])
        self.assertEqual(
            [(e.owner, e.used_mib, e.budget_mib) for e in events], [("slot 1", 11500, 10000)]
        )
        note = watch.over_budget_note("slot 1", started - 1)
        self.assertIn("11500 MiB of GPU memory, more than the 10000 MiB", note)
        self.assertEqual(watch.over_budget_note("slot 2", started - 1), "")
        self.assertEqual(watch.over_budget_note("slot 1", time.monotonic() + 10), "")
        # slot 2's test that failed meanwhile runs again; slot 1's own does not.
        self.assertTrue(watch.disturbed("slot 2", "0", started - 1))
        self.assertFalse(watch.disturbed("slot 1", "0", started - 1))
        self.assertFalse(watch.disturbed("slot 2", "1", started - 1))  # another GPU
        self.assertFalse(watch.disturbed("slot 2", "0", time.monotonic() + 10))

    def test_within_budget_nothing_happens(self):
        watch = self.watch([("0", 102, 6000), ("0", 201, 9999), ("1", 100, 90000)])
        self.assertEqual(watch.check(), [])  # GPU 1 has no budget: a slot alone on it
        self.assertEqual(self.killed, [])

    def test_owner_found_through_real_ancestry(self):
        # A group started by run_limited for "slot 7": its grandchild is found to be slot 7's.
        out = {}

        def start():
            out["result"] = run.run_limited(
                ["sh", "-c", "sh -c 'sleep 3' & wait"], time_limit=10, owner="slot 7"
            )

        thread = threading.Thread(target=start)
        thread.start()
        deadline = time.monotonic() + 5
        grandchild = None
        while grandchild is None and time.monotonic() < deadline:
            found = subprocess.run(["pgrep", "-x", "sleep"], capture_output=True, text=True)
            for pid in map(int, found.stdout.split()):
                if run.owner_of(pid) == "slot 7":
                    grandchild = pid
            time.sleep(0.05)
        self.assertIsNotNone(grandchild)
        thread.join(10)
        self.assertIsNone(run.owner_of(grandchild))  # the group is gone: nobody's


class HowMany(unittest.TestCase):
    def test_slots_and_budgets(self):
        self.assertEqual(slot_gpus(["0", "1"], 5), ["0", "1", "0", "1", "0"])
        self.assertEqual(
            sharing.budgets_for(["0", "1", "0"], {"0": 80000, "1": 80000}), {"0": 36000}
        )  # GPU 1 has one slot: no budget

    def test_progress_line(self):
        now = [0.0]
        progress = Progress(30, clock=lambda: now[0])
        now[0] = 120.0
        self.assertEqual(
            progress.one_done(), "progress: 1/30 done, 0.5 per minute, about " "58 min left"
        )
        now[0] = 240.0
        for _ in range(28):
            line = progress.one_done()
        self.assertEqual(line, "progress: 29/30 done, 7.2 per minute, about 8 s left")


class SideBySide(unittest.TestCase):
    """A class of five on one "GPU" (no GPU check): three at a time give the gradebook of one
    at a time, and a progress line after each student."""

    @classmethod
    def setUpClass(cls):
        test_grader.BUILD = BUILD
        cls.tmp, cls.build = test_grader.make_fixture_build()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def grade(self, jobs):
        klass = self.tmp / "class"
        if not klass.exists():
            for k, fixture in enumerate(("good", "compile_error", "host_hang", "flat", "good")):
                shutil.copytree(HOST / fixture, klass / f"s{k}")
        out = self.tmp / f"jobs{jobs}"
        proc = subprocess.run(
            [
                sys.executable,
                str(GRADING / "grade"),
                "-q",
                "--class",
                "--out",
                str(out),
                "--build",
                str(self.build),
                "--kit-root",
                str(FIXTURE_KIT),
                "--no-gpu-check",
                "--time-limit",
                "2",
                "--jobs",
                str(jobs),
                str(klass),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(out / "gradebook.csv", newline="") as f:
            rows = [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]
        return proc.stdout, rows

    def test_three_at_once_as_one_at_a_time(self):
        one_out, one = self.grade(1)
        three_out, three = self.grade(3)
        self.assertEqual(three, one)
        # a test that failed on the shared GPU ran again with it alone, and only there
        again = "run again with the GPU alone"
        for jobs, want in ((1, False), (3, True)):
            said = "".join(
                p.read_text(errors="replace")
                for p in (self.tmp / f"jobs{jobs}" / "s2").rglob("*.log")
            )
            self.assertEqual(again in said, want, jobs)
        self.assertIn("grading 3 submission(s) at once", three_out)
        self.assertEqual(three_out.count("progress: "), 5)
        self.assertIn("progress: 5/5 done", three_out)


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-sharing",
            "several submissions on one GPU: turns, memory "
            "budgets, how many at once, progress (no GPU needed)",
            globals(),
        )
    )
