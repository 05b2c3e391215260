#!/usr/bin/env python3
"""The Gradescope bridge's end in Gradescope's container: grade on the course's GPU host.

run_autograder runs this when the course's settings name a GPU host (GPU_HOST in the zip's
config/gradescope.conf, from `make gradescope GRADESCOPE_CONFIG=FILE`; the key and the host's
pinned key beside it): the submission goes to the GPU host over ssh, as a tar
archive on stdin, with the host's key pinned and the course's key, whose only use there is
grading (bridge_host.py, the forced command). The host grades it with the kit's grader and
sends back results.json, which becomes Gradescope's.

The time: Gradescope stops an autograder at the assignment's limit (GRADESCOPE_LIMIT_MIN,
40 minutes by default). The grader there gets that, less a margin for the transfers and for
the answer written here, as its --max-time: a submission that cannot finish in time gets the
grader's own message for the tests it could not run, never a silent 0.

When the host does not grade it, the student still gets feedback and a clear score of 0:
"not graded yet", and why, telling a host that did not answer (down, unreachable, silent, a
refused key; a connection its sshd dropped before the login is tried again, as on deadline
night) from a host that answered and could not grade it now (busy past the time: its queue,
bridge_queue.py; no GPU; the archive refused), and what the kit
in the container could check (the grader's intake checks and the emulated tests, which need
no GPU; no points). The instructor regrades those submissions later (docs/instructor.md).
Before anything of the submission runs here, the bridge's key is deleted from the container
(forget_key): no sandbox mode, however weak, leaves a student's code a key to read; and under
KIT_SANDBOX=none nothing of it runs here at all.

usage: bridge.py --config config/gradescope.conf --submission DIR --results DIR --work DIR --kit KIT
       bridge.py --check --config gradescope.conf     (make gradescope-check: the link alone)
Exit status: 0 (results.json is written in every case); with --check, 0 the link works, 1 the
host answered but cannot grade, 2 it did not answer (check_link).
"""
import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

MARGIN_S = 300  # of Gradescope's limit: the transfers, the host's start, the answer here
MAX_ANSWER_BYTES = 32 * 2**20
SETTINGS = (
    "GPU_HOST",
    "GPU_PORT",
    "GPU_USER",
    "KEY_FILE",
    "KNOWN_HOSTS_FILE",
    "GRADESCOPE_LIMIT_MIN",
    "CONNECT_TIMEOUT_S",
    "KIT_SANDBOX",
    "KIT_CUDA_ARCH",
)


def read_config(path):
    """gradescope.conf: NAME=VALUE lines (# comments), the course's settings
    (gradescope.conf.example); the files it names are beside it."""
    config = {"GPU_PORT": "22", "GRADESCOPE_LIMIT_MIN": "40", "CONNECT_TIMEOUT_S": "20"}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or name.strip() not in SETTINGS:
            raise ValueError(f"{path}:{number}: not one of the settings ({', '.join(SETTINGS)})")
        config[name.strip()] = value.strip()
    return config


def check_bridge(config, path):
    """The settings a bridge needs, or ValueError naming the one missing."""
    for name in ("GPU_HOST", "GPU_USER", "KEY_FILE", "KNOWN_HOSTS_FILE"):
        if not config.get(name):
            raise ValueError(f"{path}: {name} is not set")
    for name in ("GPU_PORT", "GRADESCOPE_LIMIT_MIN", "CONNECT_TIMEOUT_S"):
        if not config[name].isdigit():
            raise ValueError(f"{path}: {name}={config[name]} is not a whole number")


def pack(submission):
    """The submission's plain files as a tar.gz archive (links and the rest left out)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(Path(submission).rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.add(path, arcname=str(path.relative_to(submission)), recursive=False)
    return buffer.getvalue()


def key_copy(work):
    """Where ssh reads the key from: a folder only this user may enter (ssh wants a key file
    that no one else may read, and the zip's may have lost its mode)."""
    return work / "bridge-key" / "key"


def ssh_command(config, conf_dir, work, seconds):
    """ssh to the GPU host: the key and the pinned host key from the zip, no agent, no
    forwarding, no terminal, no password prompt; the request is the time alone."""
    key = key_copy(work)
    key.parent.mkdir(mode=0o700, exist_ok=True)
    key.parent.chmod(0o700)
    with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out, open(
        conf_dir / config["KEY_FILE"], "rb"
    ) as source:
        shutil.copyfileobj(source, out)
    timeout = config["CONNECT_TIMEOUT_S"]
    return [
        "ssh",
        "-T",
        "-i",
        str(key),
        "-p",
        config["GPU_PORT"],
        "-F",
        "/dev/null",
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "IdentityAgent=none",
        "-o",
        f"UserKnownHostsFile={conf_dir / config['KNOWN_HOSTS_FILE']}",
        "-o",
        "GlobalKnownHostsFile=/dev/null",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        f"ConnectTimeout={timeout}",
        "-o",
        "ServerAliveInterval=15",
        "-o",
        "ServerAliveCountMax=8",
        "-o",
        "ForwardAgent=no",
        "-o",
        "ForwardX11=no",
        "-o",
        "ClearAllForwardings=yes",
        "-o",
        "LogLevel=ERROR",
        f"{config['GPU_USER']}@{config['GPU_HOST']}",
        f"grade {seconds}",
    ]


# ssh's words when the host's sshd dropped the connection before the login (its MaxStartups
# on deadline night): worth another try, unlike a host that refuses or does not answer.
DROPPED = ("kex_exchange_identification", "Connection closed by", "Connection reset by")
CONNECT_TRIES = 6


def run_ssh(command, data, timeout):
    """ssh's CompletedProcess, tried again (after 2, 4, 8... s) while the host's sshd drops
    the connection before the login; TimeoutExpired past `timeout` in all."""
    deadline = time.monotonic() + timeout
    for attempt in range(CONNECT_TRIES):
        done = subprocess.run(
            command,
            input=data,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=max(1, deadline - time.monotonic()),
        )
        said = done.stderr.decode(errors="replace")
        pause = 2 ** (attempt + 1) * (0.5 + random.random())
        if (
            done.returncode != 255
            or not any(word in said for word in DROPPED)
            or time.monotonic() + pause + 60 > deadline
        ):
            return done
        time.sleep(pause)
    return done


def ask_host(config, conf_dir, submission, work):
    """(results.json's data, the grader's table, True) from the GPU host; else (None, why
    not, whether the host answered: False when it could not be reached or said nothing)."""
    limit = int(config["GRADESCOPE_LIMIT_MIN"]) * 60
    seconds = limit - MARGIN_S
    if seconds < 60:
        return (
            None,
            (f"GRADESCOPE_LIMIT_MIN={config['GRADESCOPE_LIMIT_MIN']} leaves no time to " "grade"),
            False,
        )
    command = ssh_command(config, conf_dir, work, seconds)
    try:
        done = run_ssh(command, pack(submission), limit - MARGIN_S // 2)
    except subprocess.TimeoutExpired:
        return None, "it did not answer within Gradescope's time limit", False
    except OSError as err:
        return None, f"ssh could not run here ({err})", False
    said = done.stderr.decode(errors="replace").strip().splitlines()
    if done.returncode != 0:  # 255: ssh's own failure; else the host's end refused or failed
        return None, "; ".join(said[-2:]) or f"ssh exit {done.returncode}", done.returncode != 255
    if len(done.stdout) > MAX_ANSWER_BYTES:
        return None, "its answer was too large", True
    try:
        with tarfile.open(fileobj=io.BytesIO(done.stdout), mode="r:gz") as archive:
            files = {
                m.name: archive.extractfile(m).read()
                for m in archive.getmembers()
                if m.isfile() and m.name in ("results.json", "grade.txt", "status")
            }
    except (tarfile.TarError, EOFError) as err:
        return None, f"its answer was not readable ({err})", True
    table = files.get("grade.txt", b"").decode(errors="replace")
    if "results.json" not in files:  # no GPU, or busy: a regrade later, as for a host down
        lines = [line.strip() for line in table.strip().splitlines() if line.strip()]
        said = [line for line in lines if line.startswith("NOT GRADED")] or lines[-1:]
        return None, said[-1] if said else "no results", True
    try:
        return json.loads(files["results.json"]), table, True
    except ValueError:
        return None, "its results.json was not readable", True


def forget_key(config, conf_dir, work):
    """Takes the bridge's key out of this container before any submission code runs here (the
    checks below build and run it): the copy ssh used and the zip's own, which no later step
    needs (Gradescope grades each submission in a fresh container). Whatever uid or sandbox
    that code gets, no byte of the key is left to read."""
    paths = [key_copy(work)]
    if config and config.get("KEY_FILE"):
        paths.append(conf_dir / config["KEY_FILE"])
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def checked_here(kit, submission, work):
    """What the kit in this container can check with no GPU: the grader's intake checks and
    the emulated tests (no points), as text; or why it could not. Never unisolated: under
    KIT_SANDBOX=none the submission's code would run as this container's root."""
    if os.environ.get("KIT_SANDBOX", "").strip() == "none":
        return (
            "(nothing was run here: this autograder's sandbox is 'none', and a submission's "
            "code does not run unisolated beside the link to the GPU host)"
        )
    if not (kit / "build" / "grading.env").exists():
        return "(the kit in this container is not built, so nothing could be checked here)"
    try:
        done = subprocess.run(
            [
                sys.executable,
                str(kit / "grading" / "grade"),
                "-q",
                "--build",
                str(kit / "build"),
                "--out",
                str(work / "local"),
                str(submission),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=1200,
            env=dict(os.environ, KIT_GRADESCOPE="1"),
        )
    except subprocess.TimeoutExpired:
        return "(the checks here did not finish in time)"
    lines = [
        line
        for line in done.stdout.splitlines()
        if not line.startswith(("results:", "isolation:", "time "))
    ]
    return "\n".join(lines).replace(str(submission) + "/", "")


def check_link(config_path):
    """make gradescope-check: asks the GPU host, with the course's settings and key, what it
    would grade with (bridge_host.py's `check`), and says it in a few lines. Exit 0 the host
    answered and lists a GPU (or grades through Slurm), 1 it answered without a usable GPU, 2
    it did not answer (or the settings are wrong)."""
    try:
        config = read_config(config_path)
        check_bridge(config, config_path)
    except (OSError, ValueError) as err:
        print(f"gradescope-check: the settings are not usable: {err}")
        return 2
    with tempfile.TemporaryDirectory() as work:
        command = ssh_command(config, Path(config_path).parent, Path(work), 0)
        command[-1] = "check"
        try:
            done = run_ssh(command, b"", 120)
        except subprocess.TimeoutExpired:
            done = None
    host = f"{config['GPU_USER']}@{config['GPU_HOST']}:{config['GPU_PORT']}"
    if done is None or done.returncode == 255:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] if done else []
        print(
            f"gradescope-check: the host did not answer ({host}): "
            f"{said[0] if said else 'no answer in 120 s'}"
        )
        return 2
    text = done.stdout.decode(errors="replace").strip()
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        print(
            f"gradescope-check: the host answered ({host}) but refused the check: {said} "
            "(is its bridge_host.py older than this kit's? It must take 'check')"
        )
        return 1
    print(f"gradescope-check: the host answered ({host}):")
    print("\n".join("  " + line for line in text.splitlines()))
    usable = (
        any(
            line.startswith("GPUs: ") and not line.startswith("GPUs: none")
            for line in text.splitlines()
        )
        and "built: yes" in text
    )
    print(
        "gradescope-check: "
        + (
            "the link works: submissions will be graded there"
            if usable
            else "the host answered, but cannot grade (no usable GPU, or "
            "its kit is not built): see the lines above"
        )
    )
    return 0 if usable else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="only ask the host whether it "
        "would grade (make gradescope-check); needs --config alone",
    )
    parser.add_argument("--config", required=True)
    for name in ("--submission", "--results", "--work", "--kit"):
        parser.add_argument(name)
    args = parser.parse_args()
    if args.check:
        return check_link(args.config)
    missing = [n for n in ("submission", "results", "work", "kit") if not getattr(args, n)]
    if missing:
        parser.error("the arguments --%s are required" % ", --".join(missing))
    work, results = Path(args.work), Path(args.results)
    work.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    config = None
    try:
        config = read_config(args.config)
        check_bridge(config, args.config)
        data, table, answered = ask_host(
            config, Path(args.config).parent, Path(args.submission), work
        )
        why = (
            f"the course's GPU host answered, but could not grade it now ({table})"
            if answered
            else f"the course's GPU host did not answer ({table})"
        )
    except (OSError, ValueError) as err:
        data, table = None, str(err)
        why = (
            f"the autograder's link to the course's GPU host is not set up ({err}): tell "
            "your instructor"
        )
    finally:
        forget_key(config, Path(args.config).parent, work)
    if data is not None:
        print(table)
    else:
        print(f"not graded yet: {why}")
        here = checked_here(Path(args.kit), Path(args.submission), work)
        data = {
            "score": 0.0,
            "tests": [],
            "stdout_visibility": "visible",
            "output": (
                f"Not graded yet: {why}. Your submission is kept: your instructor "
                "will grade it when the host is back, and this score of 0 is not "
                "your grade.\n\nMeanwhile, what could be checked here, without a "
                "GPU (no points):\n" + here
            ),
        }
    (results / "results.json").write_text(json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
