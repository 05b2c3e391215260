#!/usr/bin/env python3
"""The Gradescope bridge's end on the course's GPU host: the one thing its key may run.

Gradescope's container (grading/gradescope/bridge.py) logs in with a key whose line in the
host user's ~/.ssh/authorized_keys forces this program, with no shell, no forwarding and no
agent (docs/instructor.md, "Gradescope"):

    restrict,command="python3 /opt/kit/grading/gradescope/bridge_host.py --spool /var/spool/kit-bridge" ssh-ed25519 AAAA... gradescope

It reads the submission as a tar archive on stdin, grades it with the kit's grader (here, or
as one Slurm job it waits for: --mode slurm), and writes a tar archive to stdout: results.json
(Gradescope's format), grade.txt (the grader's table, with this host's folders left out) and
status (the grader's exit code). The only request it takes from the container is the time the
grading may take: SSH_ORIGINAL_COMMAND must be `grade SECONDS`; anything else (a shell, another
command) is refused. The archive (16 MiB at most) is read as a stream, each member's header
checked before its data is read (plain files and folders, relative names, 200 members, 16 MiB
each and 64 MiB in all), the grading happens in a folder of its own under --spool, and that
folder is removed when the answer has been sent. Gradings wait their turn for a GPU, in the
order they came (bridge_queue.py: --gpus, --per-gpu; Slurm's queue in --mode slurm): the
student's output starts with their place on arrival, the expected and the real wait; a request
that would wait past its time, or finds --max-waiting requests ahead, is answered "busy" (no
results.json; the container says the host answered and could not grade it now).
Exit status: 0 answered, 2 refused (the reason on stderr), 3 failed here (one line on stderr;
the details in the spool's errors.log).
"""
import argparse
import io
import json
import lzma
import os
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
import zlib
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_queue import Busy, Queue  # noqa: E402

HERE = Path(__file__).resolve().parent
KIT = HERE.parent.parent
MAX_ARCHIVE_BYTES = 16 * 2**20  # what the container may send
MAX_FILES = 200
MAX_FILE_BYTES = 16 * 2**20  # what one file of the submission may hold, unpacked
MAX_TOTAL_BYTES = 64 * 2**20  # and all of them
MAX_SECONDS = 6 * 3600
REQUEST = re.compile(r"grade (\d{1,6})")
LEAST_GRADING_S = 120  # a request whose wait would leave less than this is answered busy
BUSY = 75  # the status of a request the queue could not take (EX_TEMPFAIL)


def refuse(message):
    print(f"bridge_host: refused: {message}", file=sys.stderr)
    sys.exit(2)


def unpack(data, into):
    """The submission's archive into `into`, as a stream (one member at a time, in chunks):
    plain files and folders with relative names only (no links, devices, fifos or sparse
    files, no absolute path or '..'), MAX_FILES members at most, none over MAX_FILE_BYTES,
    MAX_TOTAL_BYTES in all. Each member's header is checked before any of its data is read,
    so an archive that declares more than that is refused at once, whatever it would expand
    to; the first member past a limit ends the reading."""
    count = total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|*") as archive:
            for m in archive:
                count += 1
                if count > MAX_FILES:
                    refuse(f"more than {MAX_FILES} files")
                parts = Path(m.name).parts
                if (
                    m.name.startswith("/")
                    or ".." in parts
                    or not (m.isreg() or m.isdir())
                    or m.issparse()
                ):
                    refuse(f"{m.name!r}: only plain files and folders, with relative names")
                if m.size > MAX_FILE_BYTES:
                    refuse(f"{m.name!r} is over {MAX_FILE_BYTES // 2**20} MiB")
                total += m.size
                if total > MAX_TOTAL_BYTES:
                    refuse(f"the files are over {MAX_TOTAL_BYTES // 2**20} MiB in all")
                target = into / m.name
                if m.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.extractfile(m) as source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out, 2**16)
                target.chmod(0o644)
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError) as err:
        refuse(f"the submission is not a readable tar archive ({type(err).__name__})")
    except OSError as err:  # e.g. a file where a folder of the same name must go
        refuse(f"the submission could not be unpacked ({err.strerror or type(err).__name__})")


def grade_command(args, folder, seconds):
    """The grader's command line (as a list), run here or inside the Slurm job."""
    command = [
        sys.executable,
        str(KIT / "grading" / "grade"),
        "--max-time",
        str(seconds),
        "--out",
        str(folder / "out"),
    ]
    if args.build:
        command += ["--build", args.build]
    if args.kit_root:
        command += ["--kit-root", args.kit_root]
    return command + [str(folder / "submission")]


def run_grader(args, folder, seconds, gpu=""):
    """Grades folder/submission into folder/out (on GPU `gpu` when the queue names one);
    returns (exit code, the grader's output)."""
    env = dict(os.environ, KIT_GRADESCOPE="1")  # fail closed, as on Gradescope itself
    command = grade_command(args, folder, seconds)
    if gpu:
        command[2:2] = ["--gpus", gpu]
    if args.per_gpu > 1:  # sharing configured: the classmates on the GPU are the queue's
        command[2:2] = ["--allow-busy-gpu"]
    margin = 120  # the grader's own start and end around its --max-time
    if args.mode == "slurm":
        log = folder / "slurm.log"
        command = (
            [
                "sbatch",
                "--wait",
                "--parsable",
                "--job-name=kit-gradescope",
                f"--output={log}",
                f"--time={max(1, (seconds + margin) // 60 + 1)}",
                f"--gres={args.gres}",
            ]
            + ([f"--partition={args.partition}"] if args.partition else [])
            + ["--wrap", " ".join(_quote(c) for c in command)]
        )
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            timeout=seconds + margin + (600 if args.mode == "slurm" else 0),
        )
        output, status = done.stdout, done.returncode
    except subprocess.TimeoutExpired:
        output, status = f"the grading did not end within {seconds + margin} s", 124
    if args.mode == "slurm" and (folder / "slurm.log").exists():
        output = (folder / "slurm.log").read_text(errors="replace")
    # The student reads this: this host's folders are not theirs.
    return status, output.replace(str(folder) + "/", "").replace(str(KIT) + "/", "")


def check_link(args):
    """The answer to `check` (make gradescope-check, from the instructor's machine): what this
    end would grade with, in lines of NAME: VALUE, and no submission taken. GPUs: the ones
    nvidia-smi lists, or why none ("none: ..."); queue: how many wait and grade now."""
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
        gpus = [
            line.split(" (UUID")[0]
            for line in listed.stdout.splitlines()
            if line.startswith("GPU ")
        ]
        why = (listed.stderr or listed.stdout).strip().splitlines()[-1:] or ["no GPU listed"]
    except (OSError, subprocess.TimeoutExpired) as err:
        gpus, why = [], [f"nvidia-smi could not run ({type(err).__name__})"]
    if args.mode == "slurm":
        gpus_line = f"on Slurm's nodes (--gres {args.gres}); this login node lists " + (
            ", ".join(gpus) if gpus else "none"
        )
    else:
        gpus_line = "; ".join(gpus) if gpus else f"none: {why[0]}"
    build = Path(args.build) if args.build else KIT / "build"
    lines = [
        f"kit: {KIT}",
        f"built: {'yes' if (build / 'grading.env').is_file() else 'no'} " f"({build})",
        f"mode: {args.mode}",
        f"GPUs: {gpus_line}",
    ]
    if args.mode == "direct":
        queue = Queue(
            Path(args.spool) / "queue",
            [g for g in args.gpus.split(",") if g.strip()],
            args.per_gpu,
            args.max_waiting,
        )
        lines.append(
            f"queue: {queue.waiting()} waiting, {queue.busy_slots()} of {queue.slots} "
            "slots grading"
        )
    print("\n".join(lines))
    return 0


def _quote(word):
    return word if re.fullmatch(r"[\w./:=+-]+", word) else "'" + word.replace("'", "'\\''") + "'"


def answer(folder, status, output, queue_line=""):
    """The tar archive the container reads: results.json (when the grader wrote one; the
    queue's line for the student first in its output), grade.txt, status."""
    buffer = io.BytesIO()
    if queue_line:
        output = f"{queue_line}\n{output}"
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:

        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            archive.addfile(info, io.BytesIO(data))

        results = folder / "out" / "results.json"
        if results.is_file():
            data = results.read_bytes()
            if queue_line:
                try:
                    parsed = json.loads(data)
                    parsed["output"] = f"{queue_line}\n\n{parsed.get('output', '')}".rstrip()
                    data = json.dumps(parsed, indent=2).encode()
                except (ValueError, AttributeError):
                    pass  # the grader's own file, as it is
            add("results.json", data)
        add("grade.txt", output.encode())
        add("status", f"{status}\n".encode())
    sys.stdout.buffer.write(buffer.getvalue())
    sys.stdout.buffer.flush()


def main():
    """serve(), with any failure of this host's own told in one line (exit 3), its details in
    the spool's errors.log for the instructor: never a traceback, with this host's folders, to
    the container."""
    try:
        return serve()
    except SystemExit:
        raise
    except BaseException as err:  # noqa: B036 (KeyboardInterrupt too: one line, no trace)
        spool = _spool_argument()
        if spool:
            try:
                with open(Path(spool) / "errors.log", "a") as log:
                    log.write(
                        f"{time.strftime('%Y-%m-%d %H:%M:%S')} " f"{traceback.format_exc()}\n"
                    )
            except OSError:
                pass
        print(
            f"bridge_host: failed on the GPU host ({type(err).__name__}); the instructor "
            "finds the details in the bridge's errors.log",
            file=sys.stderr,
        )
        return 3


def _spool_argument():
    """--spool's value from the command line, or None."""
    for i, word in enumerate(sys.argv):
        if word == "--spool" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if word.startswith("--spool="):
            return word.split("=", 1)[1]
    return None


def serve():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--spool",
        required=True,
        help="where submissions are graded (each in " "a folder of its own, removed after)",
    )
    parser.add_argument("--mode", choices=("direct", "slurm"), default="direct")
    parser.add_argument("--partition", default="", help="--mode slurm: sbatch --partition")
    parser.add_argument("--gres", default="gpu:1", help="--mode slurm: sbatch --gres")
    parser.add_argument(
        "--gpus",
        default="",
        help="--mode direct: the GPUs to grade on, as "
        "nvidia-smi numbers them (e.g. 0,1); gradings wait their turn for one "
        "(default: one grading at a time, on the GPU the grader picks)",
    )
    parser.add_argument(
        "--per-gpu",
        type=int,
        default=1,
        help="--mode direct: gradings at " "once on one GPU (default 1: each alone on its GPU)",
    )
    parser.add_argument(
        "--max-waiting",
        type=int,
        default=200,
        help="--mode direct: the most "
        "requests that wait; one more is answered busy (default 200)",
    )
    parser.add_argument("--build", help="the kit's build folder (default: the kit's build/)")
    parser.add_argument("--kit-root", help=argparse.SUPPRESS)  # the kit's own tests
    args = parser.parse_args()
    asked = os.environ.get("SSH_ORIGINAL_COMMAND", "").strip()
    if asked == "check":
        return check_link(args)
    request = REQUEST.fullmatch(asked)
    if not request:
        refuse(
            "this key only grades: the request must be 'grade SECONDS' or 'check' (no shell, "
            "no other command)"
        )
    seconds = min(int(request.group(1)), MAX_SECONDS)
    data = sys.stdin.buffer.read(MAX_ARCHIVE_BYTES + 1)
    if len(data) > MAX_ARCHIVE_BYTES:
        refuse(f"the submission is over {MAX_ARCHIVE_BYTES // 2**20} MiB")
    spool = Path(args.spool)
    spool.mkdir(parents=True, exist_ok=True)
    folder = spool / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
    folder.mkdir(mode=0o755)
    try:
        (folder / "submission").mkdir(mode=0o755)
        unpack(data, folder / "submission")
        if args.mode == "slurm":  # Slurm's own queue orders the jobs
            status, output = run_grader(args, folder, seconds)
            answer(folder, status, output)
            return 0
        queue = Queue(
            spool / "queue",
            [g for g in args.gpus.split(",") if g.strip()],
            args.per_gpu,
            args.max_waiting,
        )
        try:
            turn = queue.wait(seconds, min(LEAST_GRADING_S, seconds // 2))
        except Busy as why:
            answer(folder, BUSY, f"NOT GRADED: the GPU host is busy: {why}")
            return 0
        start = time.monotonic()
        try:
            status, output = run_grader(
                args, folder, max(1, int(seconds - turn.waited_s)), turn.gpu
            )
        finally:
            queue.done(turn, time.monotonic() - start)
        answer(folder, status, output, turn.line(queue.slots))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
