#!/usr/bin/env python3
"""The grader's policy as the kernel enforces it (make check-grader): no GPU needed.

usage: python3 grading/tests/test_policy.py [--build BUILD] [unittest options, test names]

Covered, each tried for real where it can be:
  * seccomp (grading/runtime/sandbox_exec.c --seccomp): a small C program, compiled here with gcc,
    tries fork, a raw fork, execve, an AF_INET socket, signals to init, its parent and its
    group, ptrace, unshare, setsid and mount, and makes a thread and raise()s a signal, under the
    run profile (alone, and in bubblewrap through sandbox.command()) and the tool profile;
    exec with a guessed path pointer dies;
  * a sandbox uid per grading slot: a class run with --jobs 2 where one student takes every
    process the sandbox lets them have (fixtures/host/process_hog) and their class mates
    still compile and score, in the default sandbox and in `nobody`;
  * only the slot's GPU's device file: the choice from canned nvidia-smi and /proc text;
  * a sandbox that cannot start is the grader's error, never a compile error;
  * fail closed: a class or Gradescope run refuses weaker isolation unless it is named, and
    solutions/ and hidden tests are taken away from the sandbox's uid where it sees the disk.
Needs root and bubblewrap for the parts that say so (the CI machine has both).
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
from testkit import FIXTURE_KIT, GRADING, ROOT  # noqa: E402

from kitgrader import GraderError, build, sandbox  # noqa: E402
from kitgrader.run import ProcessResult  # noqa: E402
from kitgrader.sandbox import Isolation, Limits  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
IS_ROOT = os.geteuid() == 0
HAS_BWRAP = sandbox.find_bwrap() is not None
HOST = testkit.host_fixtures()  # fixtures/host/, written as submissions
RUN_TIMEOUT_S = 30
STATE = {}

# Each attempt prints "NAME ok" or "NAME ERRNO"; the modes that must die (exec, guess, abort)
# print nothing when the sandbox does its job.
PROGRAM = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *what, long result)
{
    printf("%s %s\n", what, result < 0 ? strerrorname_np(errno) : "ok");
    fflush(stdout);
}

static volatile sig_atomic_t got_signal;
static void on_usr1(int sig) { got_signal = sig; }
static void *thread_main(void *arg) { return arg; }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "attempts";
    if (strcmp(mode, "attempts") == 0) {
        pid_t child = fork();
        if (child == 0) _exit(0);
        if (child > 0) waitpid(child, NULL, 0);
        report("fork", child);
        long raw = syscall(SYS_fork);
        if (raw == 0) _exit(0);
        if (raw > 0) waitpid((pid_t)raw, NULL, 0);
        report("raw_fork", raw);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        report("socket_inet", fd);
        if (fd >= 0) close(fd);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        report("socket_unix", fd);
        if (fd >= 0) close(fd);
        int pair[2];
        report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
        report("kill_init", kill(1, 0));
        report("kill_parent", kill(getppid(), 0));
        report("kill_group", kill(0, 0));
        report("kill_self", kill(getpid(), 0));
        report("ptrace", ptrace(PTRACE_PEEKDATA, getppid(), NULL, NULL));
        report("unshare", unshare(CLONE_NEWUSER));
        report("setsid", setsid());
        pthread_t thread;
        int err = pthread_create(&thread, NULL, thread_main, NULL);
        if (err == 0) err = pthread_join(thread, NULL);
        errno = err;
        report("thread", err ? -1 : 0);
        signal(SIGUSR1, on_usr1);
        int raised = raise(SIGUSR1);
        report("raise", raised == 0 && got_signal == SIGUSR1 ? 0 : -1);
        return 0;
    }
    if (strcmp(mode, "mount") == 0 && argc > 2) { /* a tmpfs on an empty folder of the test */
        report("mount", mount("none", argv[2], "tmpfs", 0, NULL));
        return 0;
    }
    if (strcmp(mode, "abort") == 0) {
        abort();
    }
    if (strcmp(mode, "exec") == 0) {
        char *args[] = {"/usr/bin/true", NULL};
        execve(args[0], args, NULL);
        report("exec", -1);
        return 1;
    }
    if (strcmp(mode, "guess") == 0) { /* a page at a random address, as the launcher's */
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, 0) != sizeof r) return 1;
        uintptr_t at = (uintptr_t)((r & ((1ull << 46) - 1)) | (1ull << 32)) & ~(uintptr_t)4095;
        char *page = mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (page == MAP_FAILED) { report("guess_map", -1); return 1; }
        strcpy(page, "/usr/bin/true");
        char *args[] = {page, NULL};
        execve(page, args, NULL);
        report("guess", -1);
        return 1;
    }
    if (strcmp(mode, "execveat") == 0) {
        char *args[] = {"/usr/bin/true", NULL};
        syscall(SYS_execveat, -100 /* AT_FDCWD */, args[0], args, NULL, 0);
        report("execveat", -1);
        return 1;
    }
    if (strcmp(mode, "forkexec") == 0) {
        pid_t child = fork();
        if (child == 0) {
            execl("/usr/bin/echo", "echo", "child ran", (char *)NULL);
            _exit(127);
        }
        int status = -1;
        if (child > 0) waitpid(child, &status, 0);
        report("forkexec", child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1);
        int pair[2];
        report("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
        report("socket_inet", socket(AF_INET, SOCK_STREAM, 0));
        report("ptrace", ptrace(PTRACE_PEEKDATA, getppid(), NULL, NULL));
        report("unshare", unshare(CLONE_NEWUSER));
        return 0;
    }
    return 2;
}
"""


def launcher():
    return str(BUILD / "tools" / "sandbox_exec")


def setUpModule():
    # Under BUILD, so that the sandbox's uids can reach it (as test_sandbox.py's folders).
    top = Path(tempfile.mkdtemp(prefix="policy-test-", dir=BUILD))
    top.chmod(0o755)
    STATE["top"] = top
    if shutil.which(os.environ.get("CC", "gcc")):
        source = top / "attempts.c"
        source.write_text(PROGRAM)
        done = subprocess.run(
            [
                os.environ.get("CC", "gcc"),
                "-O",
                "-pthread",
                "-o",
                str(top / "attempts"),
                str(source),
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            STATE["program"] = top / "attempts"
        else:
            STATE["program_error"] = done.stderr[-500:]


def tearDownModule():
    if "fixture_tmp" in STATE and not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
        shutil.rmtree(STATE["fixture_tmp"], ignore_errors=True)
    if "top" in STATE:
        subprocess.run(["rm", "-rf", "--", str(STATE["top"])], check=False)


def program():
    if "program" not in STATE:
        raise unittest.SkipTest(
            f"no C compiler for the test program: " f"{STATE.get('program_error', 'gcc not found')}"
        )
    return str(STATE["program"])


def attempts(output):
    """{"fork": "EPERM", "thread": "ok", ...} from the program's lines."""
    return dict(line.split(" ", 1) for line in output.splitlines() if line.count(" ") == 1)


DENIED_IN_RUN = (
    "fork",
    "raw_fork",
    "socket_inet",
    "kill_init",
    "kill_parent",
    "kill_group",
    "ptrace",
    "unshare",
    "setsid",
)
# AF_UNIX sockets: the CUDA driver's initialisation needs one (cudaErrorOperatingSystem).
ALLOWED_IN_RUN = ("kill_self", "thread", "raise", "socket_unix", "socketpair")


# ---- seccomp --------------------------------------------------------------------------------


class Seccomp(unittest.TestCase):
    def launch(self, *words, timeout=RUN_TIMEOUT_S):
        return subprocess.run(
            [launcher(), *words],
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )

    def test_run_profile_denies_processes_exec_signals_sockets_ptrace(self):
        done = self.launch("--seccomp", "run", "--", program(), "attempts")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        seen = attempts(done.stdout)
        for name in DENIED_IN_RUN:
            self.assertEqual(seen.get(name), "EPERM", f"{name}: {done.stdout}")
        for name in ALLOWED_IN_RUN:
            self.assertEqual(seen.get(name), "ok", f"{name}: {done.stdout}")
        # The control: the same attempts without the filter get through (ptrace finds no
        # tracee, ESRCH; setsid fails only for a group leader).
        control = self.launch("--", program(), "attempts")
        seen = attempts(control.stdout)
        for name in (
            "fork",
            "raw_fork",
            "socket_inet",
            "socketpair",
            "kill_parent",
            "thread",
            "raise",
        ):
            self.assertEqual(seen.get(name), "ok", f"control {name}: {control.stdout}")
        self.assertEqual(seen.get("ptrace"), "ESRCH", control.stdout)

    def test_run_profile_execs_the_program_and_no_other(self):
        for mode in ("exec", "guess", "execveat"):
            with self.subTest(mode):
                done = self.launch("--seccomp", "run", "--", program(), mode)
                self.assertEqual(done.returncode, -signal.SIGSYS, done.stdout + done.stderr)
                self.assertNotIn(mode, done.stdout)
        control = self.launch("--", program(), "exec")
        self.assertEqual(control.returncode, 0, control.stdout + control.stderr)
        # Found on PATH as execvp() finds it, and exec'd: the launcher's own exec is allowed.
        done = self.launch("--seccomp", "run", "--setenv", "PATH", "/usr/bin", "--", "echo", "hi")
        self.assertEqual((done.returncode, done.stdout), (0, "hi\n"), done.stderr)

    def test_abort_still_works(self):
        done = self.launch("--seccomp", "run", "--", program(), "abort")
        self.assertEqual(done.returncode, -signal.SIGABRT, done.stdout + done.stderr)

    @unittest.skipUnless(IS_ROOT, "needs root: mount is refused to other users anyway")
    def test_mount_is_denied_even_to_root(self):
        target = STATE["top"] / "mountpoint"
        target.mkdir(exist_ok=True)
        try:
            done = self.launch("--seccomp", "run", "--", program(), "mount", str(target))
            self.assertEqual(attempts(done.stdout).get("mount"), "EPERM", done.stdout)
        finally:
            subprocess.run(["umount", str(target)], capture_output=True)

    def test_tool_profile_allows_fork_exec_and_unix_sockets(self):
        done = self.launch("--seccomp", "tool", "--", program(), "forkexec")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("child ran", done.stdout)
        seen = attempts(done.stdout)
        self.assertEqual((seen.get("forkexec"), seen.get("socketpair")), ("ok", "ok"), done.stdout)
        for name in ("socket_inet", "ptrace", "unshare"):
            self.assertEqual(seen.get(name), "EPERM", f"{name}: {done.stdout}")
        run = self.launch("--seccomp", "run", "--", program(), "forkexec")
        self.assertEqual(attempts(run.stdout).get("forkexec"), "EPERM", run.stdout)

    def test_a_bad_profile_is_a_setup_failure(self):
        done = self.launch("--seccomp", "everything", "--", "/usr/bin/true")
        self.assertEqual(done.returncode, 125)
        self.assertTrue(done.stderr.startswith("sandbox_exec: --seccomp"), done.stderr)

    @unittest.skipUnless(HAS_BWRAP, "needs bubblewrap")
    def test_run_profile_inside_bubblewrap(self):
        folder = str(Path(program()).parent)
        iso = sandbox.detect(launcher(), binds=[folder], preferred="auto")
        self.assertTrue(iso.kind.startswith("bwrap"), iso.text)

        def boxed(*words, seccomp="run"):
            argv = sandbox.command(
                iso,
                ["/t/attempts", *words],
                ro=[(folder, "/t")],
                cwd="/tmp",
                seccomp=seccomp,
                limits=Limits(processes=64),
            )
            return (
                subprocess.run(
                    argv,
                    capture_output=True,
                    text=True,
                    timeout=RUN_TIMEOUT_S,
                    start_new_session=True,
                ),
                argv,
            )

        done, argv = boxed("attempts")
        inner = argv[argv.index(sandbox.INSIDE_LAUNCHER) :]
        self.assertEqual(inner[inner.index("--seccomp") + 1], "run")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        seen = attempts(done.stdout)
        for name in DENIED_IN_RUN:
            self.assertEqual(seen.get(name), "EPERM", f"{name}: {done.stdout}")
        for name in ALLOWED_IN_RUN:
            self.assertEqual(seen.get(name), "ok", f"{name}: {done.stdout}")
        # Killed by SIGSYS: bubblewrap reports it as 128 + the signal.
        self.assertIn(boxed("exec")[0].returncode, (-signal.SIGSYS, 128 + signal.SIGSYS))
        done, _ = boxed("forkexec", seccomp="tool")
        self.assertIn("child ran", done.stdout, done.stderr)

    def test_which_commands_get_which_profile(self):
        iso = Isolation(
            kind="bwrap-nobody",
            text="",
            bwrap="/usr/bin/bwrap",
            uid=sandbox.uid_for_slot(0),
            sandbox_exec=launcher(),
        ).for_slot(0, "")
        run = build.executor_command(iso, "/w/executor", 10)
        tool = build.executor_command(iso, "/w/executor", 10, wrapper=["/cs", "--tool"])
        for argv, profile in ((run, "run"), (tool, "tool")):
            inner = argv[argv.index(sandbox.INSIDE_LAUNCHER) :]
            self.assertEqual(inner[inner.index("--seccomp") + 1], profile)
            self.assertEqual(argv.count("--seccomp"), 1)
        compile_argv = sandbox.command(iso, ["nvcc", "-c", "x.cu"])
        self.assertNotIn("--seccomp", compile_argv)
        # Without bubblewrap the outer launcher installs it.
        plain = dataclass_replace(iso, kind="nobody", bwrap=None)
        argv = build.executor_command(plain, "/w/executor", 10)
        self.assertEqual(argv[argv.index("--seccomp") + 1], "run")
        self.assertLess(argv.index("--seccomp"), argv.index("--"))


def dataclass_replace(iso, **changes):
    import dataclasses

    return dataclasses.replace(iso, **changes)


# ---- a uid per grading slot -------------------------------------------------------------------


class Slots(unittest.TestCase):
    def test_two_graders_at_once_never_share_a_uid(self):
        # Another grader on this machine holds slot 0's uid: this one's slot 0 takes another,
        # so the other's end-of-slot kill and process limit cannot reach this one's code.
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time; sys.path.insert(0, sys.argv[1]); "
                "from kitgrader import sandbox; print(sandbox.leased_uid(0), flush=True); "
                "time.sleep(60)",
                str(GRADING),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            theirs = int(holder.stdout.readline())
            mine = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import sys; sys.path.insert(0, sys.argv[1]); "
                    "from kitgrader import sandbox; print(sandbox.leased_uid(0))",
                    str(GRADING),
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            self.assertEqual(mine.returncode, 0, mine.stderr)
            self.assertNotEqual(int(mine.stdout), theirs)
        finally:
            holder.kill()
            holder.wait()

    def test_each_slot_has_a_uid_of_its_own(self):
        iso = Isolation(
            kind="bwrap-nobody",
            text="",
            bwrap="/usr/bin/bwrap",
            uid=sandbox.uid_for_slot(0),
            sandbox_exec=launcher(),
        )
        uids = {iso.for_slot(slot).uid for slot in range(4)}
        self.assertEqual(len(uids), 4)
        self.assertNotIn(65534, uids)
        argv = sandbox.command(iso.for_slot(3), ["true"], limits=Limits(processes=20))
        outer = argv[: argv.index("--")]
        self.assertEqual(outer[outer.index("--uid") + 1], str(sandbox.uid_base() + 3))
        self.assertEqual(outer[outer.index("--gid") + 1], str(sandbox.uid_base() + 3))
        inner = argv[argv.index(sandbox.INSIDE_LAUNCHER) :]
        self.assertEqual(inner[inner.index("--nproc") + 1], "20")  # per sandbox, inside
        self.assertEqual(
            outer[outer.index("--nproc") + 1], str(20 * sandbox.SANDBOXES_PER_SLOT)
        )  # the slot's uid, outside
        grader = dataclass_replace(iso, kind="bwrap", uid=os.getuid())
        self.assertEqual(grader.for_slot(3).uid, os.getuid())

    def test_uid_base_is_configurable_and_checked(self):
        old = os.environ.get("KIT_SANDBOX_UID_BASE")
        try:
            os.environ["KIT_SANDBOX_UID_BASE"] = "200000"
            self.assertEqual(sandbox.uid_for_slot(5), 200005)
            os.environ["KIT_SANDBOX_UID_BASE"] = "65530"
            with self.assertRaisesRegex(GraderError, "65534"):
                sandbox.uid_for_slot(4)  # nobody's
            os.environ["KIT_SANDBOX_UID_BASE"] = "12"
            with self.assertRaisesRegex(GraderError, "KIT_SANDBOX_UID_BASE"):
                sandbox.uid_for_slot(0)
        finally:
            if old is None:
                os.environ.pop("KIT_SANDBOX_UID_BASE", None)
            else:
                os.environ["KIT_SANDBOX_UID_BASE"] = old

    @unittest.skipUnless(IS_ROOT, "needs root")
    def test_writable_folders_go_to_the_slots_uid_and_back(self):
        iso = sandbox.detect(launcher(), binds=[STATE["top"]], preferred="nobody").for_slot(2)
        work = STATE["top"] / "slot-work"
        work.mkdir(exist_ok=True)
        (work / "file").write_text("x")
        sandbox.prepare_writable(iso, work)
        self.assertEqual({work.stat().st_uid, (work / "file").stat().st_uid}, {iso.uid})
        sandbox.reclaim(iso, work)
        self.assertEqual(work.stat().st_uid, os.getuid())

    @unittest.skipUnless(IS_ROOT and HAS_BWRAP, "needs root and bubblewrap")
    def test_a_hog_in_one_slot_starves_no_class_mate(self):
        for kind in ("auto", "nobody"):
            with self.subTest(sandbox=kind):
                self.hog_class(kind)

    def hog_class(self, kind):
        tmp, fixture_build = fixture()
        klass = tmp / f"hog-class-{kind}"
        out = tmp / "out" / f"hog-class-{kind}"
        shutil.rmtree(klass, ignore_errors=True)
        shutil.copytree(HOST / "process_hog", klass / "a_hog")
        mates = ["b_good", "c_good", "d_good", "e_good"]
        for mate in mates:
            (klass / mate).mkdir(parents=True)
            shutil.copy(FIXTURE_KIT / "solutions" / "93-sandbox" / "sandbox.cu", klass / mate)
        command = [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--out",
            str(out),
            "--build",
            str(fixture_build),
            "--kit-root",
            str(FIXTURE_KIT),
            "--no-gpu-check",
            "--class",
            "--jobs",
            "2",
            "--lab",
            "93",
            "--test-jobs",
            "1",
            "--sandbox",
            kind,
            str(klass),
        ]
        # nobody takes others' permissions off solutions/ (protect_secrets): given back after.
        kit = SimpleNamespace(root=ROOT, labs_root=FIXTURE_KIT / "labs", build=fixture_build)
        modes = {p: p.stat().st_mode & 0o7777 for p in sandbox.secret_paths(kit)}
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(out / "gradebook.csv") as f:
            by = {r["student"]: r for r in csv.DictReader(f)}
        log = "".join(
            p.read_text(errors="replace") for p in (out / "a_hog" / "logs").rglob("*.log")
        )
        self.assertRegex(log, r"hog: \d+ processes and \d+ threads", "the hog ran")
        self.assertEqual(by["a_hog"]["total"], "0")
        for mate in mates:
            self.assertEqual(by[mate]["total"], "10", f"{mate}: {by[mate]['notes']}\n{log}")


def fixture():
    """The fixture kit's build (test_grader.py makes it), once."""
    if "fixture_build" not in STATE:
        import test_grader

        test_grader.BUILD = BUILD
        tmp, fixture_build = test_grader.make_fixture_build()
        tmp.chmod(0o755)  # the sandbox's uids must reach it
        STATE.update(fixture_tmp=tmp, fixture_build=fixture_build)
    return STATE["fixture_tmp"], STATE["fixture_build"]


def grade(submission, *options, env=None, out_name=None):
    """grading/grade on the fixture kit: (exit code, stdout + stderr, results or None)."""
    tmp, fixture_build = fixture()
    out = tmp / "out" / (out_name or Path(submission).name)
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable,
        str(GRADING / "grade"),
        "-q",
        "--out",
        str(out),
        "--build",
        str(fixture_build),
        "--kit-root",
        str(FIXTURE_KIT),
        "--no-gpu-check",
        *options,
        str(submission),
    ]
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})}
    )
    results = None
    if (out / "results.json").exists():
        results = json.loads((out / "results.json").read_text())
    return proc.returncode, proc.stdout + proc.stderr, results


# ---- only the slot's GPU ------------------------------------------------------------------------

SMI = """0, GPU-11111111-aaaa-bbbb-cccc-000000000000, 00000000:1B:00.0
1, GPU-22222222-aaaa-bbbb-cccc-000000000000, 00000000:3B:00.0
2, GPU-33333333-aaaa-bbbb-cccc-000000000000, 00000000:86:00.0
"""
# As /proc/driver/nvidia/gpus/BUS/information says, by bus id (lower case, 4-digit domain):
# the minor numbers need not follow nvidia-smi's order.
INFORMATION = {
    "0000:1b:00.0": "Model: \t\t NVIDIA H100\nDevice Minor: \t 2\n",
    "0000:3b:00.0": "Model: \t\t NVIDIA H100\nDevice Minor: \t 0\n",
    "0000:86:00.0": "Model: \t\t NVIDIA H100\nDevice Minor: \t 1\n",
}
DEVICES = [
    "/dev/nvidia0",
    "/dev/nvidia1",
    "/dev/nvidia2",
    "/dev/nvidiactl",
    "/dev/nvidia-uvm",
    "/dev/nvidia-uvm-tools",
    "/dev/nvidia-modeset",
    "/dev/nvidia-caps",
]
SHARED = ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"]
LISTING = """GPU 0: NVIDIA H100 (UUID: GPU-11111111-aaaa-bbbb-cccc-000000000000)
GPU 1: NVIDIA H100 (UUID: GPU-22222222-aaaa-bbbb-cccc-000000000000)
  MIG 1g.10gb     Device  0: (UUID: MIG-44444444-aaaa-bbbb-cccc-000000000000)
"""


def information(bus):
    key = sandbox.bus_key(bus)
    return next((text for name, text in INFORMATION.items() if sandbox.bus_key(name) == key), "")


class GpuDeviceFiles(unittest.TestCase):
    def select(self, visible, devices=DEVICES, smi=SMI):
        return sandbox.select_gpu_files(visible, devices, smi, information, LISTING)

    def test_index_and_uuid_find_the_gpus_own_device_file(self):
        for visible, node, uuid in (
            ("0", "/dev/nvidia2", "GPU-1111"),
            ("1", "/dev/nvidia0", "GPU-2222"),
            ("GPU-33333333-aaaa-bbbb-cccc-000000000000", "/dev/nvidia1", "GPU-3333"),
        ):
            with self.subTest(visible):
                files, found = self.select(visible)
                self.assertEqual(files, [node] + SHARED)
                self.assertTrue(found.startswith(uuid))

    def test_unknown_gpu_among_several_is_refused_not_all_bound(self):
        for visible in (None, "7", "GPU-unknown"):
            with self.subTest(visible):
                with self.assertRaisesRegex(GraderError, "which of 3 GPU device files"):
                    self.select(visible)
        with self.assertRaisesRegex(GraderError, "which of 3"):
            self.select("0", smi="")  # no nvidia-smi

    def test_one_gpu_node_is_bound_without_asking(self):
        devices = ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"]
        self.assertEqual(self.select(None, devices, "")[0], devices)
        self.assertEqual(self.select("0", devices, "")[0], devices)
        self.assertEqual(self.select("", DEVICES)[0], [], "no GPU: no device file")

    def test_mig_device_gets_its_gpu_and_the_capabilities(self):
        files, uuid = self.select("MIG-44444444-aaaa-bbbb-cccc-000000000000")
        self.assertEqual(files, ["/dev/nvidia0"] + SHARED + ["/dev/nvidia-caps"])
        self.assertTrue(uuid.startswith("MIG-4444"))

    def test_parsers(self):
        self.assertEqual(sandbox.bus_key("00000000:3B:00.0"), sandbox.bus_key("0000:3b:00.0"))
        self.assertIsNone(sandbox.bus_key("N/A"))
        self.assertEqual(sandbox.device_minor(INFORMATION["0000:86:00.0"]), 1)
        self.assertIsNone(sandbox.device_minor("Model: x\n"))

    def test_the_sandbox_binds_that_file_alone_and_names_the_gpu_by_uuid(self):
        iso = Isolation(
            kind="bwrap-nobody",
            text="",
            bwrap="/usr/bin/bwrap",
            uid=sandbox.uid_for_slot(0),
            sandbox_exec=launcher(),
        )
        visible = "test-gpu-1"  # a key of the lookup's cache, filled as the lookup would
        sandbox._gpu_files[visible] = sandbox.select_gpu_files("1", DEVICES, SMI, information)
        try:
            argv = sandbox.command(iso.for_slot(1, visible), ["x"], gpu=True)
        finally:
            del sandbox._gpu_files[visible]
        bound = [argv[i + 1] for i, word in enumerate(argv) if word == "--dev-bind"]
        self.assertEqual(bound, ["/dev/nvidia0"] + SHARED)
        self.assertEqual(
            argv[argv.index("CUDA_VISIBLE_DEVICES", argv.index("--setenv")) + 1],
            "GPU-22222222-aaaa-bbbb-cccc-000000000000",
        )


# ---- a sandbox that cannot start -------------------------------------------------------------


FAKE_BWRAP = """#!/bin/sh
# A bubblewrap that cannot start a compile (as when the machine is out of processes).
for word do
    case "$word" in */nvcc) echo "bwrap: Creating new namespace failed: Resource temporarily \
unavailable" >&2; exit 1;; esac
done
exec {bwrap} "$@"
"""


class SetupFailures(unittest.TestCase):
    def result(self, code, output):
        return ProcessResult(argv=["x"], exit_code=code, output=output)

    def test_what_counts_as_the_sandbox_not_starting(self):
        said = build.sandbox_setup_failure
        self.assertIn("EAGAIN", said(self.result(125, "sandbox_exec: setuid 5: EAGAIN\n")))
        self.assertEqual(
            said(self.result(1, "bwrap: clone: Resource temporarily unavailable\n")),
            "bwrap: clone: Resource temporarily unavailable",
        )
        for code, output in (
            (1, "hostsum.cu(3): error: bwrap: Resource temporarily " "unavailable\n"),
            (1, "bwrap: x\nhostsum.cu(3): error: y\n"),
            (2, "nvcc fatal   : bwrap: no\n"),
            (0, ""),
        ):
            self.assertEqual(said(self.result(code, output)), "", output)

    @unittest.skipUnless(HAS_BWRAP, "needs bubblewrap")
    def test_a_compile_that_could_not_start_is_not_graded_not_a_compile_error(self):
        fake = STATE["top"] / "fake-bwrap"
        fake.write_text(FAKE_BWRAP.format(bwrap=sandbox.find_bwrap()))
        fake.chmod(0o755)
        rc, output, results = grade(
            HOST / "good", "--lab", "91", env={"KIT_BWRAP": str(fake)}, out_name="no-sandbox"
        )
        self.assertEqual(rc, 2, output)
        self.assertIn("NOT GRADED", output)
        self.assertIn(
            "the sandbox for compiling could not start: bwrap: Creating new namespace", output
        )
        self.assertNotIn("compile error", output)


# ---- fail closed ------------------------------------------------------------------------------


class FailClosed(unittest.TestCase):
    def test_the_rule(self):
        for kind, named, refused in (
            ("bwrap-nobody", "auto", False),
            ("bwrap", "auto", False),
            ("bwrap-root", "auto", True),
            ("nobody", "auto", True),
            ("none", "auto", True),
            ("none", "none", False),
            ("nobody", "nobody", False),
            ("bwrap-root", "bwrap-root", False),
        ):
            with self.subTest(kind=kind, named=named):
                iso = Isolation(kind=kind, text="", failures=("bwrap-nobody: no bwrap",))
                if refused:
                    with self.assertRaisesRegex(GraderError, f"--sandbox {kind}") as caught:
                        sandbox.check_fail_closed(iso, named, "a class run")
                    self.assertEqual(caught.exception.exit_code, 2)
                    self.assertIn("install bubblewrap", str(caught.exception))
                else:
                    sandbox.check_fail_closed(iso, named, "a class run")

    @unittest.skipUnless(IS_ROOT, "needs root (the kinds weaker than bwrap-nobody)")
    def test_class_and_gradescope_runs_refuse_none_unless_named(self):
        # No bubblewrap, and an output folder no other uid can enter: only `none` works here.
        closed = STATE["top"] / "closed"
        closed.mkdir(mode=0o700, exist_ok=True)
        klass = STATE["top"] / "closed-class"
        shutil.copytree(HOST / "good", klass / "alice", dirs_exist_ok=True)
        env = {"KIT_BWRAP": "/nonexistent/bwrap"}

        def run(*options, extra=None, target=klass):
            command = [
                sys.executable,
                str(GRADING / "grade"),
                "-q",
                "--out",
                str(closed / "out"),
                "--build",
                str(fixture()[1]),
                "--kit-root",
                str(FIXTURE_KIT),
                "--no-gpu-check",
                "--lab",
                "91",
                *options,
                str(target),
            ]
            full = {k: v for k, v in os.environ.items() if k != "KIT_SANDBOX"}
            return subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=600,
                env={**full, **env, **(extra or {})},
                cwd=str(closed),
            )

        refused = run("--class")
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertIn("a class run: refusing to grade", refused.stderr)
        self.assertIn("'none'", refused.stderr)
        self.assertIn("--sandbox none", refused.stderr)
        self.assertFalse((closed / "out" / "gradebook.csv").exists())
        named = run("--class", "--sandbox", "none")
        self.assertEqual(named.returncode, 0, named.stdout + named.stderr)
        gradescope = run(extra={"KIT_GRADESCOPE": "1"}, target=klass / "alice")
        self.assertEqual(gradescope.returncode, 2, gradescope.stdout + gradescope.stderr)
        self.assertIn("a Gradescope run: refusing", gradescope.stderr)
        single = run(target=klass / "alice")  # a student's own make grade: not refused
        self.assertEqual(single.returncode, 0, single.stdout + single.stderr)

    @unittest.skipUnless(IS_ROOT, "needs root (the nobody kind)")
    def test_solutions_and_hidden_tests_are_taken_from_the_sandboxs_uid(self):
        kit_root = STATE["top"] / "kit"
        for folder in (
            "solutions/01-x",
            "tests/hidden",
            "labs/01-x",
            "build/solution/obj",
            "build/grading",
            "build/obj/solutions",
        ):
            (kit_root / folder).mkdir(parents=True, exist_ok=True)
            (kit_root / folder).chmod(0o755)
        (kit_root / "solutions" / "01-x" / "x.cu").write_text("the answer\n")
        (kit_root / "tests" / "hidden" / "test_01_x_hidden.c").write_text("hidden\n")
        kit = SimpleNamespace(root=kit_root, labs_root=kit_root / "labs", build=kit_root / "build")
        paths = sandbox.secret_paths(kit)
        self.assertEqual(
            {p.relative_to(kit_root).as_posix() for p in paths},
            {"solutions", "tests/hidden", "build/solution", "build/grading", "build/obj/solutions"},
        )
        iso = sandbox.detect(launcher(), binds=[STATE["top"]], preferred="nobody").for_slot(1)
        cat = f"cat {kit_root}/solutions/01-x/x.cu {kit_root}/tests/hidden/test_01_x_hidden.c"
        before = subprocess.run(
            sandbox.command(iso, ["/usr/bin/sh", "-c", cat]),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
        )
        self.assertIn("the answer", before.stdout, "the control: readable before")
        sandbox.protect_secrets(iso, paths)
        after = subprocess.run(
            sandbox.command(iso, ["/usr/bin/sh", "-c", cat]),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
        )
        self.assertNotIn("the answer", after.stdout)
        self.assertNotIn("hidden", after.stdout)
        self.assertEqual((kit_root / "solutions").stat().st_mode & 0o777, 0o750)
        self.assertEqual((kit_root / "solutions" / "01-x" / "x.cu").read_text(), "the answer\n")
        for kind in ("bwrap-nobody", "none"):  # nothing to take: not there, or the grader's
            sandbox.protect_secrets(Isolation(kind=kind, text=""), [kit_root / "labs"])
        self.assertEqual((kit_root / "labs").stat().st_mode & 0o777, 0o755)


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "test_policy",
            "the policy the kernel enforces (seccomp, a uid per slot, the GPU's device file, "
            "fail closed)",
            globals(),
            needs=["tools/sandbox_exec", "grading.env"],
        )
    )
