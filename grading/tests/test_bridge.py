#!/usr/bin/env python3
"""The Gradescope bridge, end to end (make check-gradescope; root, with OpenSSH).

usage: python3 grading/tests/test_bridge.py [--build BUILD] [unittest options, test names]

A real sshd on 127.0.0.1 (its own port, host key and config, started and stopped here) plays
the course's GPU host: the client key's line in its authorized_keys forces
grading/gradescope/bridge_host.py, as docs/instructor.md tells the instructor to set it up.
Gradescope's container is a faithful tree (source/kit, source/config/gradescope.conf with the
key and the pinned host key, submission/, results/) that grading/gradescope/run_autograder
runs in. The host grades the fixture kit's labs (no GPU needed: KIT_GRADER_NO_GPU_CHECK=1 in
the forced command) with the fixture build of test_grader.py. Checked: a graded submission's
results.json is the one a local `grade` of the same files writes, and follows Gradescope's
specification; a host that is down, or that never answers, gives "not graded yet" and a 0,
never a silent one; a submission over the time limit says so; the key runs nothing but the
grading (a shell and a port forward are refused).
"""
import io
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import unittest
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "gradescope"))
import testkit  # noqa: E402
import test_grader  # noqa: E402  (its fixture build)
from check_autograder import spec_problems  # noqa: E402
from testkit import FIXTURE_KIT, GRADING, ROOT  # noqa: E402

SSHD = "/usr/sbin/sshd"
STATE = {}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sshd(tmp, build, env="", options=""):
    """sshd on a free port, with a host key and a client key of its own; the client key may
    only run bridge_host.py (with `options`, and the variables `env` sets: test_slurm.py's
    --mode slurm). Returns (process, port, client key, known_hosts)."""
    for name in ("host_key", "client_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp / name)], check=True
        )
    port = free_port()
    spool = tmp / "spool"
    command = (
        f"env KIT_GRADER_NO_GPU_CHECK=1 {env} {sys.executable} "
        f"{ROOT / 'grading' / 'gradescope' / 'bridge_host.py'} --spool {spool} "
        f"--build {build} --kit-root {FIXTURE_KIT} {options}"
    )
    (tmp / "authorized_keys").write_text(
        f'restrict,command="{command}" {(tmp / "client_key.pub").read_text()}'
    )
    (tmp / "sshd_config").write_text(
        f"""Port {port}
ListenAddress 127.0.0.1
HostKey {tmp / 'host_key'}
PidFile {tmp / 'sshd.pid'}
AuthorizedKeysFile {tmp / 'authorized_keys'}
PermitRootLogin forced-commands-only
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitTTY no
PermitUserEnvironment no
"""
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # its privilege separation folder
    with open(tmp / "sshd.log", "w") as log:
        proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(tmp / "sshd_config")],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    host_key = (tmp / "host_key.pub").read_text().split()
    (tmp / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    return proc, port, tmp / "client_key", tmp / "known_hosts"


def setUpModule():
    if os.geteuid() != 0 or not os.access(SSHD, os.X_OK):
        raise unittest.SkipTest("needs root and OpenSSH's server (tools/deps.sh bridge)")
    tmp, build = test_grader.make_fixture_build()
    test_grader.STATE.update(tmp=tmp, build=build, out=tmp / "out")
    sshd, port, key, known = start_sshd(tmp, build)
    STATE.update(tmp=tmp, build=build, sshd=sshd, port=port, key=key, known=known)


def tearDownModule():
    if "sshd" in STATE:
        STATE["sshd"].terminate()
        STATE["sshd"].wait()
    if "tmp" in STATE and not os.environ.get("KIT_KEEP_TEST_OUTPUT"):
        shutil.rmtree(STATE["tmp"], ignore_errors=True)


def container(name, submission, **settings):
    """A Gradescope tree: source/kit (this kit), source/config (the course's settings, the
    key, the pinned host key), submission/ (a copy of `submission`)."""
    root = STATE["tmp"] / "gradescope" / name
    shutil.rmtree(root, ignore_errors=True)
    (root / "source" / "config").mkdir(parents=True)
    (root / "source" / "kit").symlink_to(ROOT)
    shutil.copytree(submission, root / "submission")
    shutil.copy(STATE["key"], root / "source" / "config" / "bridge_key")
    shutil.copy(STATE["known"], root / "source" / "config" / "known_hosts")
    conf = {
        "GPU_HOST": "127.0.0.1",
        "GPU_PORT": str(STATE["port"]),
        "GPU_USER": "root",
        "KEY_FILE": "bridge_key",
        "KNOWN_HOSTS_FILE": "known_hosts",
        "GRADESCOPE_LIMIT_MIN": "40",
        "CONNECT_TIMEOUT_S": "5",
    }
    conf.update(settings)
    (root / "source" / "config" / "gradescope.conf").write_text(
        "".join(f"{k}={v}\n" for k, v in conf.items())
    )
    return root


def run_autograder(root, timeout=900):
    proc = subprocess.run(
        ["bash", str(GRADING / "gradescope" / "run_autograder")],
        env=dict(os.environ, AUTOGRADER_ROOT=str(root)),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    results = root / "results" / "results.json"
    return proc, json.loads(results.read_text()) if results.exists() else None


def local_results(build, submission, out, env=None):
    """results.json of a local grade of `submission` (the fixture kit's labs, no GPU check)."""
    subprocess.run(
        [
            sys.executable,
            str(GRADING / "grade"),
            "-q",
            "--build",
            str(build),
            "--kit-root",
            str(FIXTURE_KIT),
            "--no-gpu-check",
            "--out",
            str(out),
            str(submission),
        ],
        capture_output=True,
        env=env,
    )
    return json.loads((out / "results.json").read_text())


def assert_same_grade(case, data, local):
    """The bridge's results.json grades as the local one does: the score and every test's."""
    case.assertGreater(local["score"], 0)
    case.assertEqual(data["score"], local["score"], data.get("output"))
    case.assertEqual(
        [(t["name"], t["score"]) for t in data["tests"]],
        [(t["name"], t["score"]) for t in local["tests"]],
    )


def ssh(*words, request="grade 60", data=b""):
    command = [
        "ssh",
        "-T",
        "-F",
        "/dev/null",
        "-i",
        str(STATE["key"]),
        "-p",
        str(STATE["port"]),
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        f"UserKnownHostsFile={STATE['known']}",
        "-o",
        "StrictHostKeyChecking=yes",
        *words,
        "root@127.0.0.1",
    ] + ([request] if request else [])
    return subprocess.run(command, input=data, capture_output=True, timeout=120)


class Bridge(unittest.TestCase):
    def test_graded_on_the_host_as_a_local_grade_would(self):
        submission = test_grader.HOST / "good"
        proc, data = run_autograder(container("good", submission))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIsNotNone(data, proc.stdout + proc.stderr)
        self.assertEqual(spec_problems(data), [])
        assert_same_grade(
            self, data, local_results(STATE["build"], submission, STATE["tmp"] / "local-good")
        )
        self.assertNotIn(str(STATE["tmp"] / "spool"), json.dumps(data))  # the host's folders
        # cleaned: no grading's folder is left, only the queue's own
        self.assertEqual([p.name for p in (STATE["tmp"] / "spool").iterdir()], ["queue"])
        self.assertEqual(list((STATE["tmp"] / "spool" / "queue" / "tickets").iterdir()), [])

    def test_a_host_that_is_down_gives_not_graded_yet(self):
        proc, data = run_autograder(
            container("down", test_grader.HOST / "good", GPU_PORT=str(free_port()))
        )
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(data["score"], 0.0)
        self.assertTrue(
            data["output"].startswith("Not graded yet: the course's GPU host did " "not answer"),
            data["output"],
        )
        self.assertIn("this score of 0 is not your grade", data["output"])
        self.assertEqual(spec_problems(data), [])

    def test_a_host_that_never_answers_gives_not_graded_yet(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # accepts, and says nothing
        port = silent.getsockname()[1]
        held = []
        threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
        try:
            start = time.monotonic()
            proc, data = run_autograder(
                container(
                    "silent", test_grader.HOST / "good", GPU_PORT=str(port), CONNECT_TIMEOUT_S="3"
                )
            )
            self.assertLess(time.monotonic() - start, 120)
        finally:
            silent.close()
            for connection, _ in held:
                connection.close()
        self.assertEqual(data["score"], 0.0)
        self.assertIn("Not graded yet", data["output"])
        self.assertIn("timed out", data["output"])

    def test_a_submission_over_the_time_limit_says_so(self):
        # The container asks for 1 s: the host's grader runs with --max-time 1, and the tests
        # it had no time left for say so (never a silent 0).
        archive = subprocess.run(
            ["tar", "-czf", "-", "-C", str(test_grader.HOST / "host_hang"), "."],
            capture_output=True,
            check=True,
        ).stdout
        proc = ssh(request="grade 1", data=archive)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with tarfile.open(fileobj=io.BytesIO(proc.stdout), mode="r:gz") as answer:
            data = json.loads(answer.extractfile("results.json").read())
        said = [t.get("output", "") for t in data["tests"]]
        self.assertTrue(any("used up its 1 s of grading time" in text for text in said), said)

    def test_the_key_runs_nothing_but_the_grading(self):
        shell = ssh(request="bash -c id")
        self.assertEqual(shell.returncode, 2)
        self.assertIn(b"refused: this key only grades", shell.stderr)
        self.assertNotIn(b"uid=", shell.stdout)
        forward = ssh("-o", "ExitOnForwardFailure=yes", "-R", "0:127.0.0.1:22", request="grade 5")
        self.assertNotEqual(forward.returncode, 0)
        self.assertIn(b"forwarding", forward.stderr.lower())
        path = ssh(request="grade 5; id")
        self.assertEqual(path.returncode, 2)
        self.assertNotIn(b"uid=", path.stdout)

    def test_a_class_at_once_is_graded_in_order_one_at_a_time(self):
        # Deadline night: 50 containers send their submission at once. The host grades them
        # one at a time (one GPU), in the order they came, each within its time; each student
        # reads their place and wait. (A submission the intake refuses: its grading is short.)
        journal = STATE["tmp"] / "spool" / "queue" / "journal.tsv"
        journal.unlink(missing_ok=True)
        roots = [
            container(f"class-{i:02d}", test_grader.HOST / "include_passwd") for i in range(50)
        ]
        with ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(run_autograder, roots))
        lines = journal.read_text().splitlines()
        self.assertEqual(
            len(lines),
            50,
            [
                data["output"][:300]
                for _, data in answers
                if not data["output"].startswith("queue:")
            ],
        )
        rows = [line.split("\t") for line in lines]
        by_arrival = sorted(rows, key=lambda row: row[2])  # tickets are named by arrival
        starts = [float(row[1]) for row in by_arrival]
        self.assertEqual(starts, sorted(starts))  # graded in the order they came
        spans = sorted((float(row[1]), float(row[1]) + float(row[6].split()[2])) for row in rows)
        for (_, end), (start, _) in zip(spans, spans[1:]):
            self.assertLessEqual(start, end + 0.5)  # never two at once... (clock granularity)
            self.assertGreaterEqual(start, end - 0.05)
        for proc, data in answers:
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertRegex(
                data["output"],
                r"^queue: place \d+ on arrival \(\d+ ahead of it, "
                r"1 grading at once on this host\); .*waited ",
            )
        said = " ".join(data["output"] for _, data in answers)
        self.assertIn("; expected ", said)  # once gradings were measured
        waits = [float(row[5].split()[1]) for row in rows]
        print(
            f"\n  50 at once: waits {min(waits):.1f}-{max(waits):.1f} s, "
            f"last graded {max(end for _, end in spans) - min(s for s, _ in spans):.1f} s "
            "after the first began",
            file=sys.stderr,
        )

    def test_the_link_is_checked_in_one_command(self):
        # make gradescope-check: the course's settings, against the host; this test host
        # answers without a GPU, and a port with nothing behind it does not answer.
        root = container("check", test_grader.HOST / "good")
        conf = root / "source" / "config" / "gradescope.conf"
        check = subprocess.run(
            ["make", "-s", "gradescope-check", f"GRADESCOPE_CONFIG={conf}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=180,
        )
        self.assertEqual(check.returncode, 2, check.stdout)  # make's: the command's 1
        self.assertIn("the host answered (root@127.0.0.1", check.stdout)
        self.assertIn("queue: 0 waiting", check.stdout)
        self.assertIn("GPUs: none", check.stdout)
        self.assertIn("cannot grade", check.stdout)
        down = container("check-down", test_grader.HOST / "good", GPU_PORT=str(free_port()))
        check = subprocess.run(
            [
                sys.executable,
                str(GRADING / "gradescope" / "bridge.py"),
                "--check",
                "--config",
                str(down / "source" / "config" / "gradescope.conf"),
            ],
            capture_output=True,
            text=True,
            timeout=180,
        )
        self.assertEqual(check.returncode, 2, check.stdout)
        self.assertIn("the host did not answer", check.stdout)
        self.assertIn("Connection refused", check.stdout)

    def test_an_archive_with_links_or_escapes_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "link").symlink_to("/etc/passwd")
            archive = subprocess.run(
                ["tar", "-czf", "-", "-C", folder, "."], capture_output=True, check=True
            ).stdout
        proc = ssh(request="grade 5", data=archive)
        self.assertEqual(proc.returncode, 2)
        self.assertIn(b"only plain files and folders", proc.stderr)


# Two Lab 01 submissions that reach for the bridge's key (the zip's copy, and ssh's copy in
# the grader's work folder) where only the emulation's compiler reads them: one includes it
# (the compiler's error would quote its first line; the include scan refuses it first), the
# other prints every line it can open, and then fails, so that the grader keeps its output.
KEY_INCLUDER = """
#if !defined(__NVCC__)
#include "%s"
#endif
"""
KEY_THIEF = """
#if !defined(__NVCC__)
#include <stdio.h>
#include <stdlib.h>
static int steal_key(void)
{
    const char *paths[] = {%s};
    int stole = 0;
    for (const char *path : paths) {
        FILE *f = fopen(path, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            printf("stolen: %%s", line);
            fprintf(stderr, "stolen: %%s", line);
            stole = 1;
        }
        if (f) {
            fclose(f);
        }
    }
    if (stole) {
        exit(1); /* the test binary fails: the grader keeps what it printed */
    }
    return 0;
}
static int stolen = steal_key();
#endif
"""


class KeySecret(unittest.TestCase):
    """The bridge's private key never reaches a submission's code in the container: when the
    host does not grade it, the container's fallback builds and runs the submission in
    emulation; by then the key is gone, in every sandbox mode, and under 'none' nothing runs.
    In the zip, the key is its owner's alone."""

    def test_the_zip_holds_the_key_as_its_owners_alone(self):
        folder = STATE["tmp"] / "zip-config"
        folder.mkdir(exist_ok=True)
        shutil.copy(STATE["key"], folder / "bridge_key")
        (folder / "bridge_key").chmod(0o644)
        shutil.copy(STATE["known"], folder / "known_hosts")
        (folder / "gradescope.conf").write_text(
            "GPU_HOST=gpu.example.edu\nGPU_USER=kitgrader\nKEY_FILE=bridge_key\n"
            "KNOWN_HOSTS_FILE=known_hosts\n"
        )
        subprocess.run(
            [
                sys.executable,
                str(GRADING / "gradescope" / "make_autograder.py"),
                str(folder / "build"),
            ],
            check=True,
            capture_output=True,
            env=dict(os.environ, GRADESCOPE_CONFIG=str(folder / "gradescope.conf")),
        )
        with zipfile.ZipFile(folder / "build" / "gradescope" / "autograder.zip") as z:
            modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
        self.assertEqual(modes["config/bridge_key"], 0o600)
        self.assertEqual(modes["config/known_hosts"], 0o644)

    def test_no_sandbox_mode_lets_a_submission_read_the_key(self):
        key_lines = [
            line
            for line in Path(STATE["key"]).read_text().splitlines()
            if line and not line.startswith("-----")
        ]
        for kind, how in itertools.product(("auto", "nobody", "none"), ("include", "read")):
            with self.subTest(sandbox=kind, how=how):
                name = f"thief-{kind}-{how}"
                root = STATE["tmp"] / "gradescope" / name
                config = root / "source" / "config"
                paths = [config / "bridge_key", root / "work" / "bridge-key" / "key"]
                thief = (
                    KEY_INCLUDER % paths[0]
                    if how == "include"
                    else KEY_THIEF % ", ".join(f'"{p}"' for p in paths)
                )
                with tempfile.TemporaryDirectory() as folder:
                    source = (ROOT / "solutions" / "01-oddeven" / "oddeven.cu").read_text()
                    (Path(folder) / "oddeven.cu").write_text(source + thief)
                    root = container(name, folder, GPU_PORT=str(free_port()), KIT_SANDBOX=kind)
                (config / "bridge_key").chmod(0o644)  # as an older zip left it
                proc, data = run_autograder(root)
                self.assertIn("Not graded yet", data["output"])
                if kind != "none" and how == "read":
                    # the fallback took it to the emulation, whose intake refuses the calls
                    # that open a file (a GPU grade refuses them too)
                    self.assertIn("emulation: not run:", data["output"])
                    self.assertIn("fopen()", data["output"])
                # what the student reads, and every log the grader kept in the container
                said = (
                    json.dumps(data)
                    + proc.stdout
                    + proc.stderr
                    + "".join(
                        p.read_text(errors="replace")
                        for p in (root / "work").rglob("*")
                        if p.is_file() and not p.is_symlink() and p not in paths
                    )
                )
                for line in key_lines:
                    self.assertNotIn(line, said)
                self.assertFalse(any(p.exists() for p in paths))


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-bridge", "the Gradescope bridge over a real sshd on localhost", globals()
        )
    )
