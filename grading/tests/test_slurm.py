#!/usr/bin/env python3
"""Class grading through Slurm (make check-slurm): no GPU needed, root and Debian's Slurm.

usage: python3 grading/tests/test_slurm.py [--build BUILD] [unittest options, test names]

  * unit tests of grading/kitgrader/slurm.py on canned sbatch, squeue and scontrol output;
  * end to end: starts a one-node Slurm cluster (tools/slurm_test_cluster.sh, two fake GPUs as
    the `gpu` GRES), grades a class of fixture-kit submissions (good, wrong, one that hangs in
    a test, a refused name, a name a spreadsheet would take for a formula, a name with a
    space, one whose task crashes) with `--slurm --gres=gpu:1`, cancels one task (its row
    says so, no zero), runs the same command again (only those two are graded), checks the gradebook equals a local
    `--class` run's, deletes one results.json (only that student is graded again), and tears
    the cluster down. Skipped, with the reason, where the cluster cannot run (not root, no
    Slurm installed: tools/deps.sh slurm).
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
import test_grader  # noqa: E402  (the fixture kit's build)
import test_bridge  # noqa: E402  (the Gradescope bridge's test GPU host: an sshd)
from testkit import GRADING, ROOT, TESTS  # noqa: E402

from kitgrader import slurm  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
HOST = testkit.host_fixtures()  # fixtures/host/, written as submissions
CLUSTER = ROOT / "tools" / "slurm_test_cluster.sh"
STATE = {}


class Canned:
    """A stand-in for subprocess.run that answers each command with canned output."""

    def __init__(self, answers):
        self.answers = answers

    def __call__(self, command, **kwargs):
        out, rc, *err = self.answers.get(command[0], ("", 1))
        return subprocess.CompletedProcess(command, rc, out, err[0] if err else "")


class SlurmOutput(unittest.TestCase):
    SCONTROL = (
        "JobId=41 ArrayJobId=40 ArrayTaskId=1 ArrayTaskThrottle=0 JobName=kit-grade "
        "JobState=TIMEOUT Reason=TimeLimit\n"
        "JobId=40 ArrayJobId=40 ArrayTaskId=3-5%2 JobState=PENDING Reason=Resources\n"
        "JobId=42 ArrayJobId=40 ArrayTaskId=0 JobState=COMPLETED Reason=None\n"
        "JobId=43 ArrayJobId=40 ArrayTaskId=2 JobState=RUNNING Reason=None\n"
    )

    def test_array_spec(self):
        self.assertEqual(slurm.array_spec([5, 0, 1, 2, 3, 7, 8]), "0-3,5,7-8")
        self.assertEqual(slurm.array_spec(range(1)), "0")
        self.assertEqual(slurm.parse_array_ids("0-7:2%3"), [0, 2, 4, 6])
        self.assertEqual(slurm.parse_array_ids("N/A"), [])

    def test_sbatch(self):
        self.assertEqual(slurm.parse_sbatch("1234\n"), "1234")
        self.assertEqual(slurm.parse_sbatch("1234;cluster\n"), "1234")
        with self.assertRaises(slurm.GraderError):
            slurm.parse_sbatch("sbatch: error: invalid partition\n")

    def test_scontrol_and_squeue(self):
        self.assertEqual(
            slurm.parse_scontrol(self.SCONTROL),
            {0: "COMPLETED", 1: "TIMEOUT", 2: "RUNNING", 3: "PENDING", 4: "PENDING", 5: "PENDING"},
        )
        self.assertEqual(
            slurm.parse_squeue("40_2 RUNNING\n40_[3-5%2] PENDING\n"),
            {2: "RUNNING", 3: "PENDING", 4: "PENDING", 5: "PENDING"},
        )
        # scontrol's ending states win over squeue's COMPLETING.
        run = Canned({"squeue": ("40_1 COMPLETING\n", 0), "scontrol": (self.SCONTROL, 0)})
        self.assertEqual(slurm.task_states("40", run)[1], "TIMEOUT")
        # Slurm has forgotten the job: every task has ended.
        run = Canned(
            {
                "squeue": ("", 1, "slurm_load_jobs error: Invalid job id specified\n"),
                "scontrol": ("", 1, "slurm_load_jobs error: Invalid job id specified\n"),
            }
        )
        self.assertEqual(slurm.task_states("40", run), {})
        # The controller does not answer: nothing is known (never "every task ended").
        run = Canned(
            {
                "squeue": (
                    "",
                    1,
                    "slurm_load_jobs error: Unable to contact slurm "
                    "controller (connect failure)\n",
                ),
                "scontrol": (
                    "",
                    1,
                    "slurm_load_jobs error: Unable to contact slurm "
                    "controller (connect failure)\n",
                ),
            }
        )
        self.assertIsNone(slurm.task_states("40", run))
        self.assertFalse(slurm.all_ended(None, 3))
        self.assertTrue(slurm.all_ended({}, 3))
        self.assertFalse(slurm.all_ended(slurm.parse_scontrol(self.SCONTROL), 6))

    def test_task_slot(self):
        self.assertEqual(slurm.task_slot({"CUDA_VISIBLE_DEVICES": "3"}, 17), 3)
        self.assertEqual(slurm.task_slot({"CUDA_VISIBLE_DEVICES": "1,2"}, 17), 1)
        self.assertEqual(slurm.task_slot({}, 17), 17)

    def test_script(self):
        text = slurm.sbatch_script(
            ["/kit/grading/grade", "--class", "/x/a b"],
            [0, 1, 3],
            "/out/.slurm/logs/task-%A_%a.log",
            time_min=12,
            partition="gpu",
        )
        self.assertIn("#SBATCH --array=0-1,3\n", text)
        self.assertIn("#SBATCH --gres=gpu:1\n", text)
        self.assertIn("#SBATCH --time=12\n", text)
        self.assertIn("#SBATCH --partition=gpu\n", text)
        self.assertNotIn("--account", text)
        self.assertIn(
            "exec /kit/grading/grade --class '/x/a b' --slurm-task " '"$SLURM_ARRAY_TASK_ID"', text
        )
        with self.assertRaises(slurm.GraderError):
            slurm.sbatch_script(["x"], [0], "/my out/%a.log")

    def test_gradebook_of_ended_tasks(self):
        out = Path(tempfile.mkdtemp(prefix="kit-slurm-unit-"))
        self.addCleanup(shutil.rmtree, out, ignore_errors=True)
        job = {
            "job_id": "40",
            "labs": ["91-hostsum"],
            "log": "/o/task-%A_%a.log",
            "students": ["alice", "bob", "carol", "dave"],
            "entries": [
                {"name": n, "folder": "/c/" + n, "refused": ""}
                for n in ("alice", "bob", "carol", "dave")
            ]
            + [{"name": "-x", "folder": "/c/-x", "refused": "a name that starts with -"}],
        }
        row = ["alice", "10", "10", "10", "graded", "3", "bwrap", ""]
        slurm.write_row(out, "alice", row)
        counts = slurm.gradebook(
            out, job, {0: "COMPLETED", 1: "TIMEOUT", 2: "RUNNING", 3: "PENDING"}, final=False
        )
        self.assertEqual(counts, {"graded": 1, "running": 1, "pending": 1, "failed": 1})
        with open(out / "gradebook.csv") as f:
            by = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual(by["alice"]["total"], "10")
        self.assertEqual((by["bob"]["status"], by["bob"]["total"]), ("not graded", ""))
        self.assertEqual(
            by["bob"]["notes"], "not graded: Slurm task 1 TIMEOUT (log: /o/task-40_1.log)"
        )
        self.assertIn("not graded yet (Slurm task 2 RUNNING)", by["carol"]["notes"])
        self.assertIn("a name that starts with -", by["'-x"]["notes"])
        # The job is forgotten by Slurm: a task without a row has ended without a result.
        slurm.gradebook(out, job, {}, final=True)
        with open(out / "gradebook.csv") as f:
            by = {r["student"]: r for r in csv.DictReader(f)}
        self.assertIn("Slurm task 3 ENDED", by["dave"]["notes"])
        self.assertTrue(slurm.all_ended({0: "COMPLETED"}, 4))  # the others are not listed
        self.assertFalse(slurm.has_result(out, "alice"))  # no results.json
        (out / "alice").mkdir()
        (out / "alice" / "results.json").write_text("{}")
        self.assertTrue(slurm.has_result(out, "alice"))


def cannot_run():
    """Why the cluster cannot run here, or ""."""
    if os.geteuid() != 0:
        return "not root"
    for tool in ("munged", "slurmctld", "slurmd", "sbatch"):
        if not (shutil.which(tool) or Path("/usr/sbin", tool).exists()):
            return f"{tool} not installed (tools/deps.sh slurm)"
    if not (BUILD / "grading.env").exists():
        return f"no build at {BUILD} (run make)"
    return ""


def table(path):
    """The gradebook without its seconds column (times differ from run to run)."""
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def verdicts(path):
    results = json.loads(path.read_text())
    return results["score"], [(t["name"], t["score"], t.get("status")) for t in results["tests"]]


class OnACluster(unittest.TestCase):
    STUDENTS = (
        ("alice", "good"),
        ("bob", "compile_error"),
        ("erin", "host_hang"),
        ("=HYPERLINK(1)", "good"),
        ("frank jr", "flat"),
        ("-rf", "good"),
        ("zoe", "good"),
    )

    @classmethod
    def setUpClass(cls):
        why = cannot_run()
        if why:
            raise unittest.SkipTest(why)
        test_grader.BUILD = BUILD
        cls.tmp, cls.build = test_grader.make_fixture_build()
        cls.cluster = cls.tmp / "cluster"
        cls.env = dict(
            os.environ,
            SLURM_CONF=str(cls.cluster / "slurm.conf"),
            PATH=os.environ.get("PATH", "") + ":/usr/sbin",
        )
        proc = subprocess.run(
            ["bash", str(CLUSTER), "start", str(cls.cluster)],
            capture_output=True,
            text=True,
            timeout=120,
            env=cls.env,
        )
        if proc.returncode != 0:
            cls.tearDownClass()
            raise RuntimeError(f"the test cluster did not start:\n{proc.stdout}{proc.stderr}")
        cls.klass = cls.tmp / "class"
        for name, fixture in cls.STUDENTS:
            shutil.copytree(HOST / fixture, cls.klass / name)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(
            ["bash", str(CLUSTER), "stop", str(cls.cluster)],
            timeout=120,
            env=cls.env,
            capture_output=True,
        )
        if not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def grade(self, out, *options):
        command = [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--class",
            "--out",
            str(out),
            "--build",
            str(self.build),
            "--kit-root",
            str(TESTS / "fixture_kit"),
            "--no-gpu-check",
            "--time-limit",
            "2",
            *options,
            str(self.klass),
        ]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=self.env)

    def test_several_students_per_task(self):
        # --per-task 4: six students in two tasks (4 and 2), graded side by side in each; the
        # gradebook and every verdict as a local run's.
        local, out = self.tmp / "local-per-task", self.tmp / "slurm-per-task"
        proc = self.grade(local)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = self.grade(out, "--slurm", "--per-task", "4", "--jobs", "2")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("2 tasks for 6 students", proc.stdout)
        script = (out / ".slurm" / "grade.sbatch").read_text()
        self.assertIn("#SBATCH --array=0-1\n", script)
        self.assertIn("--per-task 4", script)
        self.assertEqual(table(out / "gradebook.csv"), table(local / "gradebook.csv"))
        for name, _ in self.STUDENTS:
            if name != "-rf":
                self.assertEqual(
                    verdicts(out / name / "results.json"),
                    verdicts(local / name / "results.json"),
                    name,
                )
        # One student's result deleted: graded again, alone in a task of its own.
        (out / "zoe" / "results.json").unlink()
        proc = self.grade(out, "--slurm", "--per-task", "4")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("1 tasks for 1 students", proc.stdout)
        self.assertEqual(table(out / "gradebook.csv"), table(local / "gradebook.csv"))

    def test_gradescope_bridge_through_slurm(self):
        # Gradescope's container (run_autograder) over a real sshd to this login node, whose
        # forced command grades the submission as one Slurm job it waits for: the same
        # results.json as a local grade of the same files.
        if not os.access(test_bridge.SSHD, os.X_OK):
            self.skipTest("no OpenSSH server (tools/deps.sh bridge)")
        env = f"SLURM_CONF={self.env['SLURM_CONF']} PATH={self.env['PATH']}"
        sshd, port, key, known = test_bridge.start_sshd(
            self.tmp, self.build, env=env, options="--mode slurm --gres gpu:1"
        )
        try:
            test_bridge.STATE.update(tmp=self.tmp, port=port, key=key, known=known)
            root = test_bridge.container("slurm", HOST / "good")
            proc, data = test_bridge.run_autograder(root, timeout=300)
        finally:
            sshd.terminate()
            sshd.wait()
        self.assertIsNotNone(data, proc.stdout + proc.stderr)
        test_bridge.assert_same_grade(
            self,
            data,
            test_bridge.local_results(
                self.build, HOST / "good", self.tmp / "local-good", env=self.env
            ),
        )

    def test_class_through_slurm(self):
        local, out = self.tmp / "local", self.tmp / "slurm"
        proc = self.grade(local)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

        # Submitted and left: the job id comes back; erin's task is cancelled before it ends.
        proc = self.grade(out, "--slurm", "--gres=gpu:1", "--detach")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        job = proc.stdout.split()[-1]
        self.assertTrue(job.isdigit(), proc.stdout)
        script = (out / ".slurm" / "grade.sbatch").read_text()
        self.assertIn("#SBATCH --gres=gpu:1", script)
        self.assertIn("#SBATCH --array=0-5\n", script)  # "-rf" is refused, never a task
        students = json.loads((out / ".slurm" / "job.json").read_text())["students"]
        erin = students.index("erin")
        subprocess.run(["scancel", f"{job}_{erin}"], env=self.env, check=True, timeout=30)
        # zoe's task crashes: her folder is gone when it starts (the last task: still pending).
        zoe = students.index("zoe")
        (self.klass / "zoe").rename(self.tmp / "zoe-away")
        proc = subprocess.run(
            [sys.executable, str(GRADING / "grade"), "--gather", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            env=self.env,
        )
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("NOT GRADED: 2 submissions", proc.stdout)
        (self.tmp / "zoe-away").rename(self.klass / "zoe")
        by = {r["student"]: r for r in table(out / "gradebook.csv")}
        self.assertEqual((by["zoe"]["status"], by["zoe"]["total"]), ("not graded", ""))
        self.assertRegex(
            by["zoe"]["notes"],
            rf"^not graded: Slurm task {zoe} FAILED " rf"\(log: .*task-{job}_{zoe}\.log\)$",
        )
        log = out / ".slurm" / "logs" / f"task-{job}_{zoe}.log"
        self.assertIn("no gradable submission", log.read_text())
        self.assertEqual((by["erin"]["status"], by["erin"]["total"]), ("not graded", ""))
        self.assertRegex(
            by["erin"]["notes"],
            rf"^not graded: Slurm task {erin} "
            rf"(CANCELLED|ENDED \(cancelled\?\)) \(log: .*task-{job}_{erin}\.log\)$",
        )
        self.assertEqual(by["alice"]["total"], "20")
        self.assertTrue((out / "alice" / "results.json").exists())

        # The same command again grades erin and zoe alone; the gradebook is the local run's.
        before = {
            name: (out / name / "results.json").stat().st_mtime_ns
            for name in students
            if name not in ("erin", "zoe")
        }
        proc = self.grade(out, "--slurm", "--gres=gpu:1")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("2 tasks", proc.stdout)
        self.assertEqual(table(out / "gradebook.csv"), table(local / "gradebook.csv"))
        self.assertEqual(
            before, {name: (out / name / "results.json").stat().st_mtime_ns for name in before}
        )
        for name in students:  # the same verdicts (times differ)
            self.assertEqual(
                verdicts(out / name / "results.json"), verdicts(local / name / "results.json"), name
            )

        # A results.json deleted: that student alone is graded again.
        (out / "bob" / "results.json").unlink()
        proc = self.grade(out, "--slurm")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("1 tasks", proc.stdout)
        self.assertEqual(table(out / "gradebook.csv"), table(local / "gradebook.csv"))
        proc = self.grade(out, "--slurm")
        self.assertIn("every student has a result", proc.stdout)
        self.assertEqual(table(out / "gradebook.csv"), table(local / "gradebook.csv"))
        self.assertFalse(list(out.glob("**/.*.tmp")))  # every write was whole


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-slurm",
            "class grading through a one-node Slurm cluster (no GPU needed)",
            globals(),
        )
    )
