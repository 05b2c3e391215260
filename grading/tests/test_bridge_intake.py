#!/usr/bin/env python3
"""The GPU host's end of the Gradescope bridge takes what it is sent under limits (make
check-grader): no sshd, no root, no GPU.

usage: python3 grading/tests/test_bridge_intake.py [--build BUILD] [unittest options, names]

grading/gradescope/bridge_host.py is run as sshd's forced command runs it (the request in
SSH_ORIGINAL_COMMAND, the archive on stdin), each run under a memory limit and a time limit
that a host without bounds would break. Covered: an archive that declares a member of 100 GiB
in under 1 MiB, or thousands of empty members in a few KiB of xz, is refused at once, with little
memory and nothing left on disk; links, devices, fifos and sparse files are refused; so is
what is not an archive at all; each refusal is one line (exit 2), and a failure of the host's
own is one line too (exit 3), never a traceback or a folder of the host; an honest archive
unpacks whole. And its queue answers "busy" when the queue is full or the wait would leave
too little of the request's time.
"""

import fcntl
import io
import lzma
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zlib
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
from testkit import GRADING  # noqa: E402

sys.path.insert(0, str(GRADING / "gradescope"))
import bridge_host  # noqa: E402

BRIDGE_HOST = GRADING / "gradescope" / "bridge_host.py"
MEMORY_LIMIT = 512 * 2**20  # the host's end must stay far below this, whatever it is sent


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def send(data, spool, request="grade 5"):
    """bridge_host.py as sshd runs it: (exit code, stdout, stderr, seconds)."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(BRIDGE_HOST), "--spool", str(spool)],
        input=data,
        capture_output=True,
        timeout=60,
        env=dict(os.environ, SSH_ORIGINAL_COMMAND=request),
        preexec_fn=_limit_memory,
    )
    return (
        done.returncode,
        done.stdout,
        done.stderr.decode(errors="replace"),
        time.monotonic() - start,
    )


def archive(members, mode="w:gz"):
    """A tar archive of (TarInfo, bytes or None) members, compressed as `mode` says."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def member(name, kind=tarfile.REGTYPE, size=0, **fields):
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    for key, value in fields.items():
        setattr(info, key, value)
    return info


class BridgeIntake(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kit-bridge-intake-"))
        self.spool = self.tmp / "spool"

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def assert_refused(self, data, phrase, request="grade 5"):
        rc, out, err, seconds = send(data, self.spool, request)
        self.assertEqual(rc, 2, err)
        self.assertEqual(out, b"")
        self.assertIn(phrase, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)  # one line, no traceback
        self.assertNotIn("Traceback", err)
        self.assertNotIn(str(self.spool), err)
        self.assertLess(seconds, 30)
        # nothing is left on disk: each grading's folder goes when it ends
        self.assertEqual(list(self.spool.iterdir()) if self.spool.exists() else [], [])
        return err

    def test_a_member_declared_huge_is_refused_before_its_data(self):
        # 100 GiB declared, and 640 MiB of zeros behind it in under 1 MiB of gzip: refused
        # at its header, nothing of it read into memory (the limit is 512 MiB) or written
        header = member("oddeven.cu", size=100 * 2**30).tobuf(format=tarfile.GNU_FORMAT)
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip's format
        zeros = bytes(2**20)
        data = packer.compress(header) + b"".join(packer.compress(zeros) for _ in range(640))
        data += packer.flush()
        self.assertLess(len(data), 2**20)
        self.assert_refused(data, "'oddeven.cu' is over 16 MiB")

    def test_the_total_is_bounded(self):
        big = b"\0" * (15 * 2**20)
        members = [(member(f"f{i}.cu", size=len(big)), big) for i in range(5)]
        self.assert_refused(archive(members), "over 64 MiB in all")

    def test_thousands_of_empty_members_stop_at_the_limit(self):
        members = [(member(f"f{i}"), b"") for i in range(5000)]
        data = archive(members, "w:xz")
        self.assertLess(len(data), 64 * 1024)
        self.assert_refused(data, "more than 200 files")

    def test_links_devices_fifos_and_sparse_files_are_refused(self):
        kinds = {
            "symlink": member("a", tarfile.SYMTYPE, linkname="/etc/passwd"),
            "hard link": member("a", tarfile.LNKTYPE, linkname="/etc/passwd"),
            "device": member("a", tarfile.CHRTYPE, devmajor=1, devminor=3),
            "fifo": member("a", tarfile.FIFOTYPE),
            "sparse": member("a", tarfile.GNUTYPE_SPARSE),
        }
        for what, info in kinds.items():
            with self.subTest(what):
                self.assert_refused(archive([(info, None)], "w"), "only plain files and folders")
        for name in ("/etc/x", "../x", "a/../../x"):
            with self.subTest(name):
                self.assert_refused(
                    archive([(member(name, size=1), b"x")]), "only plain files and folders"
                )

    def test_what_is_not_an_archive_is_refused_in_one_line(self):
        for data in (
            b"",
            b"not an archive at all",
            lzma.compress(b"\x01" * 4096),
            archive([(member("a.cu", size=4), b"abcd")])[:40],
        ):
            with self.subTest(data=data[:16]):
                self.assert_refused(data, "not a readable tar archive")

    def test_a_file_where_a_folder_must_go_is_refused_in_one_line(self):
        data = archive([(member("a", size=1), b"x"), (member("a/b", size=1), b"y")])
        self.assert_refused(data, "could not be unpacked")

    def test_a_failure_of_the_host_is_one_line_without_its_folders(self):
        spool = self.tmp / "a-file"
        spool.write_text("")  # --spool names a file: the host cannot make its folder
        rc, out, err, _ = send(archive([(member("a.cu", size=1), b"x")]), spool)
        self.assertEqual(rc, 3, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn(str(self.tmp), err)

    def test_an_honest_archive_unpacks_whole(self):
        files = {"oddeven.cu": b"__global__ void k() {}\n", "notes/README.txt": b"mine\n"}
        members = [(member("notes", tarfile.DIRTYPE), None)]
        members += [(member(name, size=len(data)), data) for name, data in files.items()]
        into = self.tmp / "into"
        into.mkdir()
        bridge_host.unpack(archive(members), into)
        for name, data in files.items():
            self.assertEqual((into / name).read_bytes(), data)


def answer_files(data):
    """The names and contents of the host's answer (a tar.gz)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read().decode() for m in tar.getmembers()}


class BridgeQueue(unittest.TestCase):
    """The host's queue answers "busy" (no results.json, so the container says the host
    answered and could not grade it now) when it cannot grade a request in its time; the
    real gradings in order are test_bridge.py's (a class of 50 at once over sshd)."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kit-bridge-queue-"))
        self.spool = self.tmp / "spool"
        self.small = archive([(member("oddeven.cu", size=1), b"x")])

    def tearDown(self):
        subprocess.run(["rm", "-rf", str(self.tmp)])

    def busy(self, request, *options):
        done = subprocess.run(
            [sys.executable, str(BRIDGE_HOST), "--spool", str(self.spool), *options],
            input=self.small,
            capture_output=True,
            timeout=60,
            env=dict(os.environ, SSH_ORIGINAL_COMMAND=request),
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        files = answer_files(done.stdout)
        self.assertNotIn("results.json", files)
        self.assertEqual(files["status"].strip(), str(bridge_host.BUSY))
        self.assertTrue(
            files["grade.txt"].startswith("NOT GRADED: the GPU host is busy: "), files["grade.txt"]
        )
        return files["grade.txt"]

    def hold_slot(self):
        """The one slot, taken as a grading holds it."""
        slots = self.spool / "queue" / "slots"
        slots.mkdir(parents=True)
        fd = os.open(slots / "slot-0.lock", os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self.addCleanup(os.close, fd)

    def test_a_full_queue_says_busy_at_once(self):
        said = self.busy("grade 600", "--max-waiting", "0")
        self.assertIn("it takes 0 at most", said)

    def test_a_wait_longer_than_the_time_says_busy_at_once(self):
        self.hold_slot()
        (self.spool / "queue" / "durations").write_text("100\n100\n")
        start = time.monotonic()
        said = self.busy("grade 150")  # a grading needs 75 s of it; 100 s to wait
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("about 1 min 40 s, more than the time it has", said)

    def test_a_wait_that_runs_out_says_busy_then(self):
        self.hold_slot()  # and no grading measured: nothing to expect, so it waits
        start = time.monotonic()
        said = self.busy("grade 4")  # a grading needs 2 s of it
        self.assertGreaterEqual(time.monotonic() - start, 2)
        self.assertIn("the time left would not grade it", said)


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-bridge-intake",
            "the GPU host's end of the Gradescope bridge " "takes what it is sent under limits",
            globals(),
        )
    )
