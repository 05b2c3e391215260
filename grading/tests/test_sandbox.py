#!/usr/bin/env python3
"""Tests of the grader's sandbox (grading/kitgrader/sandbox.py, grading/runtime/sandbox_exec.c).

usage: python3 grading/tests/test_sandbox.py [--build BUILD] [unittest options, test names]

They need BUILD/tools/sandbox_exec (make builds it) and are meant for a machine like the CI
one: root, bubblewrap installed, no GPU needed. Each escape the sandbox promises to stop is
tried for real from inside, and where it helps a control run without the sandbox shows that
the attempt itself works. Nothing is compiled; the programs run inside are the system's
(sh, bash, dd, head, id). About 10 s in all.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
from testkit import ROOT  # noqa: E402

from kitgrader import GraderError, run, sandbox  # noqa: E402
from kitgrader.sandbox import Isolation, Limits  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
IS_ROOT = os.geteuid() == 0
RUN_TIMEOUT_S = 20
# A loop that appends to a file every 0.1 s, for 30 s at most: when the sandbox fails to end
# it, the failed test leaves nothing running for long.
LOOP = "i=0; while [ $i -lt 300 ]; do echo x >> {}; i=$((i+1)); sleep 0.1; done"


def launcher():
    return str(BUILD / "tools" / "sandbox_exec")


class SandboxTest(unittest.TestCase):
    """A folder under BUILD (so the sandbox's uid can reach it) with ro/, rw/ and hidden/ in it."""

    @classmethod
    def setUpClass(cls):
        cls.top = Path(tempfile.mkdtemp(prefix="sandbox-test-", dir=BUILD))
        cls.top.chmod(0o755)
        for name in ("ro", "rw", "hidden"):
            (cls.top / name).mkdir()
        (cls.top / "ro" / "readme").write_text("kit\n")
        (cls.top / "hidden" / "secret").write_text("answer\n")
        cls.iso = sandbox.detect(launcher(), binds=[cls.top / "ro"], preferred="auto")
        sandbox.prepare_writable(cls.iso, cls.top / "rw")

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", "--", str(cls.top)], check=False)

    def argv(self, script, iso=None, shell="/usr/bin/sh", **options):
        options.setdefault("ro", [(self.top / "ro", "/kit")])
        options.setdefault("rw", [(self.top / "rw", "/work")])
        options.setdefault("cwd", "/work")
        return sandbox.command(iso or self.iso, [shell, "-c", script], **options)

    def sh(self, script, iso=None, shell="/usr/bin/sh", **options):
        """Runs a shell script in the sandbox; the CompletedProcess, text output."""
        return subprocess.run(
            self.argv(script, iso, shell, **options),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            start_new_session=True,
        )

    def kind(self, name):
        return sandbox.detect(launcher(), binds=[self.top / "ro"], preferred=name)


class Detect(SandboxTest):
    def test_picks_the_strongest_kind(self):
        self.assertEqual(self.iso.kind, "bwrap-nobody" if IS_ROOT else "bwrap")
        self.assertIn("bubblewrap", self.iso.text)
        again = sandbox.detect(launcher(), binds=[self.top / "ro"], preferred="auto")
        self.assertIs(again, self.iso, "detect() is cached per arguments")

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_a_bind_uid_65534_cannot_read_rules_out_bwrap_nobody(self):
        private = self.top / "private"
        private.mkdir(mode=0o700, exist_ok=True)
        iso = sandbox.detect(launcher(), binds=[private], preferred="auto")
        self.assertEqual(iso.kind, "bwrap-root")
        with self.assertRaisesRegex(GraderError, "bwrap-nobody.*cannot read"):
            sandbox.detect(launcher(), binds=[private], preferred="bwrap-nobody")

    def test_forced_kinds_work_or_say_why(self):
        works = ["bwrap-nobody", "bwrap-root", "nobody", "none"] if IS_ROOT else ["bwrap", "none"]
        for name in sandbox.KINDS:
            with self.subTest(kind=name):
                if name not in works:
                    with self.assertRaisesRegex(GraderError, f"'{name}' works only when"):
                        self.kind(name)
                    continue
                iso = self.kind(name)
                self.assertEqual(iso.kind, name)
                if name in ("nobody", "none"):  # nothing bound: the paths outside
                    done = self.sh(f"id -u; cat {self.top}/ro/readme", iso=iso, cwd="/")
                else:
                    done = self.sh("id -u; cat /kit/readme", iso=iso)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(done.stdout, f"{iso.uid}\nkit\n")
        with self.assertRaisesRegex(GraderError, "unknown sandbox 'chroot'"):
            self.kind("chroot")

    def test_kit_sandbox_environment_variable(self):
        os.environ["KIT_SANDBOX"] = "none"
        try:
            iso = sandbox.detect(launcher(), binds=[self.top / "ro"])
        finally:
            del os.environ["KIT_SANDBOX"]
        self.assertEqual(iso.kind, "none")
        self.assertIn("unisolated", iso.text)

    def test_a_missing_bind_is_the_graders_error(self):
        with self.assertRaisesRegex(GraderError, "missing"):
            sandbox.detect(launcher(), binds=[self.top / "no-such-folder"])


class Views(SandboxTest):
    """What the sandboxed code sees of the file system."""

    def test_folders_not_bound_are_not_there(self):
        secret = self.top / "hidden" / "secret"
        probe = (
            f"for p in {secret} {ROOT}/solutions /root /home /opt /etc/passwd; do "
            "test -e $p && echo SEEN $p; done; cat /kit/readme"
        )
        done = self.sh(probe)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "kit\n")
        control = self.sh(f"cat {secret}", iso=self.kind("none"), cwd="/")  # the probe itself works
        self.assertEqual(control.stdout, "answer\n")

    def test_only_the_loaders_files_from_etc(self):
        done = self.sh("ls /etc")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("passwd", done.stdout)
        self.assertIn("ld.so.cache", done.stdout)
        self.assertLessEqual(
            set(done.stdout.split()), {"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives"}
        )

    def test_a_read_only_bind_cannot_be_written(self):
        done = self.sh(
            "echo x > /kit/new; echo y >> /kit/readme; rm -f /kit/readme; " "mkdir /kit/d; ls /kit"
        )
        self.assertEqual(done.stdout, "readme\n")
        self.assertEqual((self.top / "ro" / "readme").read_text(), "kit\n")
        self.assertFalse((self.top / "ro" / "new").exists())

    def test_a_writable_bind_can_be_written(self):
        done = self.sh("echo hi > /work/out && mkdir -p /work/d && echo ok > d/f")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual((self.top / "rw" / "out").read_text(), "hi\n")
        self.assertEqual((self.top / "rw" / "d" / "f").read_text(), "ok\n")

    def test_tmp_is_private(self):
        with tempfile.NamedTemporaryFile(dir="/tmp", prefix="host-") as host:
            name = os.path.basename(host.name)
            mark = f"inside-{name}"  # a name no other run uses
            done = self.sh(f"test -e /tmp/{name} && echo SEEN; echo x > /tmp/{mark}; ls /tmp")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, f"{mark}\n")
        self.assertFalse(Path("/tmp", mark).exists())
        self.assertEqual(self.sh("ls -A /tmp").stdout, "", "each run gets a fresh /tmp")

    def test_environment_is_clean(self):
        os.environ["KIT_TEST_LEAK"] = "secret"
        try:
            done = self.sh("env | sort", env={"LAB": "01"})
        finally:
            del os.environ["KIT_TEST_LEAK"]
        names = {line.split("=", 1)[0] for line in done.stdout.splitlines()}
        self.assertEqual(names, {"HOME", "LAB", "PATH", "PWD", "TMPDIR"})


class Processes(SandboxTest):
    def test_uid_is_the_slots_own_without_capabilities(self):
        done = self.sh("id -u; id -g; grep CapEff /proc/self/status")
        uid = str(sandbox.uid_for_slot(0)) if IS_ROOT else str(os.getuid())
        gid = uid if IS_ROOT else str(os.getgid())
        self.assertEqual(done.stdout.split(), [uid, gid, "CapEff:", "0000000000000000"])

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_bwrap_root_is_65534_inside_without_capabilities(self):
        done = self.sh("id -u; grep CapEff /proc/self/status", iso=self.kind("bwrap-root"))
        self.assertEqual(done.stdout.split(), ["65534", "CapEff:", "0000000000000000"])

    def test_no_network(self):
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(4)
            port = server.getsockname()[1]
            connect = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"
            done = self.sh(connect, shell="/usr/bin/bash")
            self.assertNotIn("CONNECTED", done.stdout)
            self.assertNotEqual(done.returncode, 0)
            control = self.sh(
                connect, iso=self.kind("none"), shell="/usr/bin/bash", cwd=str(self.top)
            )
            self.assertIn("CONNECTED", control.stdout, control.stderr)

    def grows(self, path):
        """Whether a file grows over half a second."""
        before = path.stat().st_size
        time.sleep(0.5)
        return path.stat().st_size > before

    def test_detached_processes_end_with_the_command(self):
        grow = self.top / "rw" / "grow"
        done = self.sh(
            f"setsid sleep 30 & setsid sh -c '{LOOP.format('/work/grow')}' & " "sleep 0.5"
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertGreater(grow.stat().st_size, 0, "the loop ran")
        self.assertFalse(self.grows(grow), "a detached loop outlived its sandbox")
        self.assertNotIn(b"sleep\x0030\x00", cmdlines_of_uid(self.iso.uid))

    def test_killing_the_process_group_kills_the_sandbox(self):
        grow = self.top / "rw" / "grow-killed"
        proc = subprocess.Popen(
            self.argv(f"setsid sh -c '{LOOP.format('/work/grow-killed')}' & sleep 30"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 10
            while not (grow.exists() and grow.stat().st_size > 0) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertTrue(self.grows(grow), "the loop runs")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # what run.py does at a time limit
            proc.wait()
        time.sleep(0.2)
        self.assertFalse(self.grows(grow), "the sandbox outlived its launcher")

    def test_the_result_channel_passes_through(self):
        argv = self.argv('echo "$KIT_RESULT_TOKEN 1 0 0" >&"$KIT_RESULT_FD"')
        result = run.run_limited(argv, time_limit=RUN_TIMEOUT_S, channel=True)
        self.assertEqual(result.exit_code, 0, result.output)
        self.assertEqual(result.channel_lines(), [f"{result.token} 1 0 0"])


class Limiting(SandboxTest):
    def test_file_size_limit(self):
        done = self.sh("head -c 300000 /dev/zero > /work/big", limits=Limits(file_size=100000))
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual((self.top / "rw" / "big").stat().st_size, 100000)

    def test_cpu_limit_ends_a_busy_loop(self):
        start = time.monotonic()
        done = self.sh("while :; do :; done", limits=Limits(cpu_s=1))
        self.assertNotEqual(done.returncode, 0)
        self.assertLess(time.monotonic() - start, 10)

    def test_address_space_limit_makes_a_big_allocation_fail(self):
        big = "dd if=/dev/zero of=/dev/null bs=512M count=1 2>&1"
        done = self.sh(big, limits=Limits(address_space=256 << 20))
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("memory exhausted", done.stdout)
        control = self.sh(big)
        self.assertEqual(control.returncode, 0, control.stdout)

    @unittest.skipUnless(IS_ROOT, "needs root: the limit applies to the sandbox's uid only")
    def test_processes_limit(self):
        # A fork bomb's first steps: 20 sleeping children, where the sandbox may have 12.
        many = "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 2 & done"
        done = self.sh(many, limits=Limits(processes=12))
        self.assertIn("fork", done.stderr.lower())
        control = self.sh(many)
        self.assertNotIn("fork", control.stderr.lower())


class Launcher(unittest.TestCase):
    """sandbox_exec itself, and the argv of each kind."""

    def launch(self, *words):
        return subprocess.run(
            [launcher(), *words], capture_output=True, text=True, timeout=RUN_TIMEOUT_S
        )

    def test_bad_usage_exits_125(self):
        for words in (
            ["--bogus", "--", "/usr/bin/true"],
            ["--cpu", "x", "--", "/usr/bin/true"],
            ["--uid", "0", "--gid", "0", "--", "/usr/bin/true"],
            ["--uid", "65534", "--", "/usr/bin/true"],
            ["--cpu", "1"],
            ["--", "/no/such/program"],
            ["--chdir", "/no/such/dir", "--", "true"],
        ):
            with self.subTest(words=words):
                done = self.launch(*words)
                self.assertEqual(done.returncode, 125)
                self.assertTrue(done.stderr.startswith("sandbox_exec: "), done.stderr)
        self.assertEqual(self.launch("--", "/usr/bin/true").returncode, 0)

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_uid_drop_and_limits(self):
        done = self.launch(
            "--uid",
            "65534",
            "--gid",
            "65534",
            "--nofile",
            "50",
            "--",
            "sh",
            "-c",
            "id -u; id -G; ulimit -n; ulimit -Hn",
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["65534", "65534", "50", "50"])

    def shape(self, kind, **options):
        iso = Isolation(
            kind=kind,
            text="",
            bwrap="/usr/bin/bwrap" if "bwrap" in kind else None,
            uid=65534,
            sandbox_exec=launcher(),
        )
        limits = Limits(cpu_s=1.5, address_space=1 << 30, processes=64)
        argv = sandbox.command(iso, ["prog", "arg"], cwd="/w", limits=limits, **options)
        split = argv.index("--")
        return argv[:split], argv[split + 1 :]

    def test_argv_shapes(self):
        for kind in sandbox.KINDS:
            with self.subTest(kind=kind):
                mine, rest = self.shape(kind, ro=[("/a", "/kit")])
                self.assertEqual(mine[0], launcher())
                self.assertNotIn("setpriv", mine + rest)
                self.assertEqual(mine[mine.index("--cpu") + 1], "2")
                self.assertEqual(mine[mine.index("--as") + 1], str(1 << 30))
                dropped = kind in ("bwrap-nobody", "nobody")
                self.assertEqual("--uid" in mine, dropped)
                self.assertEqual("--nproc" in mine, dropped)
                self.assertIn("--clearenv", mine)
                if kind.startswith("bwrap"):
                    self.assertEqual(rest[0], "/usr/bin/bwrap")
                    self.assertEqual(rest[-3:], ["--", "prog", "arg"])
                    self.assertIn("--unshare-all", rest)
                    self.assertIn("--die-with-parent", rest)
                    self.assertEqual("--uid" in rest, kind == "bwrap-root")
                    self.assertEqual(rest[rest.index("--chdir") + 1], "/w")
                    self.assertNotIn("/etc", rest)
                    self.assertNotIn("/opt", rest)
                else:
                    self.assertEqual(rest, ["prog", "arg"])
                    self.assertEqual(mine[mine.index("--chdir") + 1], "/w")
                    self.assertIn("--setsid", mine)
                    self.assertIn("--no-new-privs", mine)

    def test_gpu_shape(self):
        mine, rest = self.shape("bwrap-nobody", gpu=True)
        self.assertIn("CUDA_VISIBLE_DEVICES", mine)
        self.assertEqual(rest[rest.index("/sys") - 1], "--ro-bind")
        for device in sandbox.gpu_device_files(None):  # this machine's GPU, if it has one
            self.assertIn(device, rest)
        mine, rest = self.shape("bwrap-nobody")
        self.assertNotIn("/sys", rest)
        self.assertNotIn("CUDA_VISIBLE_DEVICES", mine)


def cmdlines_of_uid(uid):
    """The command lines of every process of a uid, joined."""
    found = b""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found += (entry / "cmdline").read_bytes() + b"\n"
        except OSError:
            pass
    return found


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "test_sandbox", "the grader's sandbox", globals(), needs=["tools/sandbox_exec"]
        )
    )
