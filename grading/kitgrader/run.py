"""Running a process under limits, and running one test of a lab through the result channel.

Every process the grader starts runs in a session (so a process group) of its own. When it
runs past its time limit, prints more than its output limit, or ends while something it
started still holds its output open, the whole group is killed with SIGKILL: a kernel that
never ends, a host loop, or a child left behind costs that one test and nothing else.

The result channel: for a test, the grader makes a pipe and a fresh random token, and passes
the pipe's write end and the token in KIT_RESULT_FD and KIT_RESULT_TOKEN. The kit's runner
(tests/runner.c) takes both out of its environment before anything else runs, and writes one
line, `<token> <passed> <failed> <skipped>`, at its very end. A test scores only when its
process exits with status 0 AND that one line arrives with the right token and says 1 passed,
0 failed. What the process prints is kept for the student to read, never scored.
"""

from __future__ import annotations

import os
import re
import secrets
import selectors
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from . import Interrupted

KEEP_BYTES = 64 * 1024  # output kept per process: the first 48 KiB and the last 16 KiB
OUTPUT_LIMIT = 8 * 1024 * 1024  # more output than this and the process is stopped
EXIT_GRACE_S = 2.0  # how long output may stay open after the process itself has ended
CHANNEL_BYTES = 4096  # more than this on the result channel is tampering
KILL_WAIT_S = 60.0  # how long a killed process may take to die (a GPU context to tear down)

# ---- every running process group, so Ctrl-C or SIGTERM can end them all ----------------------

_running = {}  # the leader's pid -> its owner: who asked (a grading slot), or None
_running_lock = threading.Lock()
_stopping = threading.Event()


def stop_everything():
    """Kills every process group the grader started, and makes new runs refuse to start."""
    _stopping.set()
    with _running_lock:
        groups = list(_running)
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def stopping():
    return _stopping.is_set()


def owner_of(pid, parent_of=None):
    """The owner given to run_limited() for the group that started process `pid` (any
    descendant: a sandbox's processes keep their ancestry as the host sees it), or None.
    parent_of(pid) -> its parent's pid (default: /proc), for tests."""
    parent_of = parent_of or _parent_pid
    for _ in range(64):  # a chain no deeper than this: a sandbox adds a few levels
        with _running_lock:
            if pid in _running:
                return _running[pid]
        pid = parent_of(pid)
        if not pid or pid <= 1:
            return None
    return None


def _parent_pid(pid):
    """A process's parent from /proc/PID/stat (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return 0
    # "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; the last ")" ends it.
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


# ---- output kept: head and tail ------------------------------------------------------------


class OutputKeeper:
    """Keeps the first and the last part of a stream, and counts all of it."""

    def __init__(self, keep=KEEP_BYTES):
        self.head_limit = keep * 3 // 4
        self.tail_limit = keep - self.head_limit
        self.head = bytearray()
        self.tail = deque()
        self.tail_bytes = 0
        self.total = 0

    def add(self, data):
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail.append(bytes(data))
            self.tail_bytes += len(data)
            while self.tail and self.tail_bytes - len(self.tail[0]) >= self.tail_limit:
                self.tail_bytes -= len(self.tail.popleft())

    def text(self):
        head = self.head.decode("utf-8", "replace")
        tail = b"".join(self.tail)[-self.tail_limit :] if self.tail else b""
        dropped = self.total - len(self.head) - len(tail)
        if dropped > 0:
            head += f"\n[... {dropped} bytes of output left out ...]\n"
        return head + tail.decode("utf-8", "replace")


# ---- one process under limits ---------------------------------------------------------------


@dataclass
class ProcessResult:
    """What the grader saw of one process."""

    argv: list
    exit_code: int = None  # the status it exited with; None when killed by a signal
    signal: int = None  # the signal that ended it (SIGKILL when the grader killed it)
    timed_out: bool = False  # still running at the time limit
    flooded: bool = False  # printed more than the output limit
    start_error: str = None  # could not be started at all (no such file, ...)
    elapsed: float = 0.0
    output: str = ""  # stdout and stderr together, head and tail kept
    output_bytes: int = 0
    channel: bytes = b""  # what arrived on the result channel
    token: str = None  # the token this run was given
    unkillable: bool = False  # still there KILL_WAIT_S after SIGKILL

    def channel_lines(self):
        return self.channel.decode("utf-8", "replace").splitlines()


def run_limited(
    argv,
    *,
    time_limit,
    cwd=None,
    env=None,
    channel=False,
    keep_bytes=KEEP_BYTES,
    output_limit=OUTPUT_LIMIT,
    channel_bytes=CHANNEL_BYTES,
    per_test=False,
    owner=None,
):
    """Runs argv with stdin closed, stdout and stderr captured together, in a new session.

    time_limit: seconds before the whole process group is killed; with per_test (a runner
    given a batch of tests), counted again from each test's `start` note on the channel, so
    every test of the batch has the limit it would have alone. channel: make a result channel
    (KIT_RESULT_FD, KIT_RESULT_TOKEN) that takes up to channel_bytes. Never raises for the
    program's behaviour. owner: who the process works for (a grading slot); owner_of() finds
    it from any process the group starts, e.g. for the GPU memory watch (sharing.py).
    """
    if _stopping.is_set():
        raise Interrupted()
    result = ProcessResult(argv=[str(a) for a in argv])
    env, read_fd, write_fd = _child_environment(env, channel, result)
    start = time.monotonic()
    proc = _start_process(result, cwd, env, read_fd, write_fd)
    if proc is None:
        return result
    with _running_lock:
        _running[proc.pid] = owner
    keeper = OutputKeeper(keep_bytes)
    channel_data = bytearray()
    try:
        _collect(
            proc,
            read_fd,
            keeper,
            channel_data,
            start + time_limit,
            output_limit,
            result,
            channel_bytes,
            time_limit if per_test else None,
        )
    finally:
        _end_group(proc, result)
        if read_fd is not None:
            _drain(read_fd, channel_data, channel_bytes)
            os.close(read_fd)
    result.elapsed = time.monotonic() - start
    _record_exit(result, proc, keeper, channel_data)
    if _stopping.is_set():
        raise Interrupted()
    return result


def _child_environment(env, channel, result):
    """The child's environment: no KIT_RESULT_FD or KIT_RESULT_TOKEN it would inherit, and
    with `channel` a new pipe and token of its own (the token also goes into `result`).
    Returns (env, read_fd, write_fd); both ends are None without a channel."""
    env = dict(os.environ if env is None else env)
    env.pop("KIT_RESULT_FD", None)
    env.pop("KIT_RESULT_TOKEN", None)
    if not channel:
        return env, None, None
    read_fd, write_fd = os.pipe()
    result.token = secrets.token_hex(16)
    env["KIT_RESULT_FD"] = str(write_fd)
    env["KIT_RESULT_TOKEN"] = result.token
    return env, read_fd, write_fd


def _start_process(result, cwd, env, read_fd, write_fd):
    """The process, in a session of its own; None (and result.start_error) when it could not
    start. The channel's write end is closed here either way: the child holds its own copy."""
    try:
        return subprocess.Popen(
            result.argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=() if write_fd is None else (write_fd,),
            start_new_session=True,
        )
    except OSError as err:
        # Only the read end here: the write end is closed once, below. Closing it twice could
        # close a descriptor another test's thread has opened since under the same number.
        if read_fd is not None:
            os.close(read_fd)
        result.start_error = f"{result.argv[0]}: {err.strerror}"
        return None
    finally:
        if write_fd is not None:
            os.close(write_fd)  # the child holds its own copy


def _end_group(proc, result):
    """Kills whatever is left of the group (the leader, if still running, and any child it
    left behind), then reaps the leader. The leader is not reaped before this, so its pid
    (the group's id) cannot have been reused."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        # Stuck in the kernel (a GPU driver call, say): leave it; the GPU is probed next.
        result.unkillable = True
    with _running_lock:
        _running.pop(proc.pid, None)
    proc.stdout.close()


def _record_exit(result, proc, keeper, channel_data):
    """How the process ended, and what it printed and sent, into result."""
    if proc.returncode is None:
        result.signal = signal.SIGKILL
    elif proc.returncode < 0:
        result.signal = -proc.returncode
    else:
        result.exit_code = proc.returncode
    result.output = keeper.text()
    result.output_bytes = keeper.total
    result.channel = bytes(channel_data)


def _leader_exited(pid):
    """True when the process has ended, without reaping it (its pid stays the group's id)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


START_NOTE = b" note start "  # a runner's batch: the next test starts (tests/runner.c)


def _collect(
    proc,
    read_fd,
    keeper,
    channel_data,
    deadline,
    output_limit,
    result,
    channel_bytes=CHANNEL_BYTES,
    per_test_limit=None,
):
    """Reads output and the channel until both close, the time is up, or too much came.
    With per_test_limit, each test the channel announces gets that long from its start."""
    selector = selectors.DefaultSelector()
    starts = 0
    out_fd = proc.stdout.fileno()
    os.set_blocking(out_fd, False)
    selector.register(out_fd, selectors.EVENT_READ)
    if read_fd is not None:
        os.set_blocking(read_fd, False)
        selector.register(read_fd, selectors.EVENT_READ)
    exited_at = None
    try:
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and _leader_exited(proc.pid):
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE_S:
                return  # something it started still holds the output: killed below
            if exited_at is None and now >= deadline:
                result.timed_out = True
                return
            for key, _ in selector.select(timeout=0.2):
                try:
                    data = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not data:
                    selector.unregister(key.fd)
                elif key.fd == out_fd:
                    keeper.add(data)
                    if keeper.total > output_limit:
                        result.flooded = True
                        return
                elif len(channel_data) < channel_bytes:
                    channel_data += data[: channel_bytes + 1 - len(channel_data)]
                    if per_test_limit is not None and channel_data.count(START_NOTE) > starts:
                        starts = channel_data.count(START_NOTE)
                        deadline = time.monotonic() + per_test_limit
        # Output and channel closed: wait for the leader itself, within the time limit.
        while not _leader_exited(proc.pid):
            if time.monotonic() >= deadline:
                result.timed_out = True
                return
            time.sleep(0.02)
    finally:
        selector.close()


def _drain(fd, channel_data, channel_bytes=CHANNEL_BYTES):
    try:
        while len(channel_data) <= channel_bytes:
            data = os.read(fd, 4096)
            if not data:
                break
            channel_data += data
    except (BlockingIOError, OSError):
        pass


def describe_signal(number):
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    what = {
        "SIGSEGV": "segmentation fault: a bad pointer or index in host code",
        "SIGBUS": "bus error: a bad pointer in host code",
        "SIGFPE": "arithmetic error, such as an integer division by zero",
        "SIGABRT": "aborted: abort(), a failed assert(), or the C library found heap damage",
        "SIGILL": "illegal instruction",
        "SIGKILL": "killed from outside: out of memory?",
    }.get(name)
    return f"{name} ({what})" if what else name


# ---- the tests of a lab -----------------------------------------------------------------------


@dataclass
class TestInfo:
    """One test of a lab's test binary, as `-l` lists it."""

    suite: str
    name: str
    gpu: bool = False
    sanitize: bool = False

    @property
    def id(self):
        return f"{self.suite}/{self.name}"


LIST_LINE = re.compile(r"^(?P<suite>[^/\s]+)/(?P<name>\S+)(?P<marks>(\s+\[[a-z]+\])*)\s*$")


def list_tests(lister, time_limit=30):
    """The tests of a lab, from a test binary the kit built (never from the student's)."""
    result = run_limited([lister, "-l"], time_limit=time_limit)
    if result.start_error or result.exit_code != 0:
        reason = result.start_error or f"exit {result.exit_code}, {result.output[-300:]}"
        raise RuntimeError(f"{lister} -l failed: {reason}")
    tests = []
    for line in result.output.splitlines():
        match = LIST_LINE.match(line)
        if match:
            marks = match.group("marks")
            tests.append(
                TestInfo(
                    match.group("suite"),
                    match.group("name"),
                    "[gpu]" in marks,
                    "[sanitize]" in marks,
                )
            )
    return tests


# Statuses of a test. Only PASSED scores.
PASSED = "passed"
FAILED = "failed"
TIMEOUT = "timeout"
CRASHED = "crashed"
FLOODED = "output limit"
ERROR = "error"
NO_RESULT = "no result"
TAMPERED = "bad result channel"
SKIPPED = "skipped"
NOT_RUN = "not run"

FAIL_LINE = re.compile(r"^FAIL (?P<id>\S+)")
MESSAGE_LINE = re.compile(r"^ {4}(?:(?P<where>[^\s:]+:\d+): )?(?P<message>.*\S)")


@dataclass
class TestRun:
    """A test's outcome, as the grader decided it."""

    test: TestInfo
    status: str
    message: str = ""
    elapsed: float = 0.0
    output: str = ""
    log: str = None  # path of the full log
    details: dict = field(default_factory=dict)

    @property
    def passed(self):
        return self.status == PASSED


def first_failure(output, test_id):
    """The first failure message the runner printed for this test, or ''. Printed output is
    shared with the student's code: only for a process that left no note on the channel."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        match = FAIL_LINE.match(line)
        if match and match.group("id") == test_id:
            for follow in lines[i + 1 : i + 4]:
                message = MESSAGE_LINE.match(follow)
                if message:
                    return message.group("message")
            return line.strip()
    return ""


def last_words(output, count=3):
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return " | ".join(lines[-count:])[:400]


@dataclass
class Channel:
    """What a kit program wrote on its result channel: notes, then the result line last."""

    good: bool  # every line carried the token, and the result came last
    result: list = None  # the result line's words after the token
    notes: dict = field(default_factory=dict)  # key -> [text, ...], in order


def read_channel(result):
    """The result channel of a run, checked: every line must start with the run's token;
    `TOKEN note KEY TEXT` lines come first, and one result line comes last."""
    lines = result.channel_lines()
    channel = Channel(good=bool(lines))
    for i, line in enumerate(lines):
        token, _, rest = line.partition(" ")
        if token != result.token:
            channel.good = False
            return channel
        if rest.startswith("note ") and i < len(lines) - 1:
            key, _, text = rest[len("note ") :].partition(" ")
            channel.notes.setdefault(key, []).append(text)
        elif i == len(lines) - 1 and not rest.startswith("note "):
            channel.result = rest.split()
        else:
            channel.good = False
            return channel
    channel.good = channel.good and channel.result is not None
    return channel


NOTE_FAILURE = re.compile(r"^(?P<id>\S+) (?:[^\s:]*:\d+: )?(?P<message>.*)$")


def noted_failure(channel, test_id):
    """The first failure the runner noted on the channel for this test, or ''."""
    for text in channel.notes.get("fail", []):
        match = NOTE_FAILURE.match(text)
        if match and match.group("id") == test_id:
            return match.group("message").strip()
    return ""


def noted_skip(notes, test_id):
    """Why the runner skipped this test, as it noted on the channel; "no GPU" if it did not."""
    noted = [t.partition(" ")[2] for t in notes.get("skip", []) if t.partition(" ")[0] == test_id]
    return noted[0] if noted else "no GPU"


def noted_cpu_ms(channel):
    """The executor's CPU time (ms) the verdict process measured from outside: a number,
    "unknown" (an executor ran and could not be measured), or None (no executor ran)."""
    texts = channel.notes.get("cpu", [])
    if not texts or texts[-1] == "none":
        return None
    try:
        return float(texts[-1])
    except ValueError:
        return "unknown"


def classify(test, result, time_limit, output_limit=OUTPUT_LIMIT):
    """Turns what the grader observed of a test's process into a TestRun."""
    run = TestRun(test=test, status=ERROR, elapsed=result.elapsed, output=result.output)
    lines = result.channel_lines()
    channel = read_channel(result)
    run.details = {
        "exit_code": result.exit_code,
        "signal": result.signal,
        "output_bytes": result.output_bytes,
        "channel_lines": len(lines),
        "cpu_ms": noted_cpu_ms(channel) if channel.good else None,
        "executor": (channel.notes.get("executor") or [None])[-1],
        # why the test's buffers lived in the executor (grading/runtime/shared_memory.h)
        "plane": (channel.notes.get("plane") or [None])[-1],
    }
    failure = noted_failure(channel, test.id) if channel.good else ""
    if result.start_error:
        run.message = f"could not start the test: {result.start_error}"
    elif result.flooded:
        run.status = FLOODED
        run.message = (
            f"printed more than {output_limit // (1024 * 1024)} MiB of output: "
            "stopped there (printing in a loop?)"
        )
    elif result.timed_out:
        run.status = TIMEOUT
        run.message = (
            f"no answer within {time_limit:g} s: a kernel or a loop that never ends? "
            "(the test's processes were killed)"
        )
    elif result.signal is not None:
        run.status = CRASHED
        run.message = f"crashed with {describe_signal(result.signal)}"
        failure = failure or first_failure(result.output, test.id)
        if failure:
            run.message += f"; before that: {failure}"
    elif not lines:
        _judge_without_result(run, result)
    else:
        _judge_result_line(run, result, channel, failure)
    return run


def _judge_without_result(run, result):
    """The process ended by itself and the channel stayed empty."""
    if result.exit_code == 0:
        run.status = NO_RESULT
        run.message = (
            "the test process ended (exit 0) without the runner's result: "
            "does the lab's code call exit()? Printed 'PASS' lines do not count"
        )
    else:
        run.message = f"exit code {result.exit_code} without a result"
        words = first_failure(result.output, run.test.id) or last_words(result.output)
        if words:
            run.message += f": {words}"


def _judge_result_line(run, result, channel, failure):
    """The process ended by itself and the channel carries something: the runner's one line
    with its counts, or tampering."""
    parts = channel.result or []
    good = channel.good and len(parts) in (2, 3) and all(p.isdigit() for p in parts)
    if not good:
        run.status = TAMPERED
        run.message = "the result channel did not carry the runner's one line: not scored"
        return
    passed, failed = int(parts[0]), int(parts[1])
    skipped = int(parts[2]) if len(parts) == 3 else 0
    if result.exit_code == 0 and passed == 1 and failed == 0:
        run.status = PASSED
    elif passed == 0 and failed == 0 and skipped > 0:
        run.status = SKIPPED
        run.message = noted_skip(channel.notes, run.test.id)
    else:
        run.status = FAILED
        run.message = failure or f"failed (exit {result.exit_code}; the log has the output)"


def _batch_note_lines(result):
    """(key, text) of each note of a batch's channel, also when its process was killed before
    the result line (a test out of time): every line up to the first without the run's token."""
    for line in result.channel_lines():
        token, _, rest = line.partition(" ")
        if token != result.token or not rest.startswith("note "):
            break
        key, _, text = rest[len("note ") :].partition(" ")
        yield key, text


def batch_notes(result):
    """The notes of a batch's channel, key -> texts (_batch_note_lines)."""
    notes = {}
    for key, text in _batch_note_lines(result):
        notes.setdefault(key, []).append(text)
    return notes


NOTE_DONE = re.compile(r"^(?P<id>\S+) (?P<status>pass|fail|skip) (?P<ms>\d+)$")


def notes_by_test(result):
    """A batch's notes, test by test: those from its `start` note to its `done` note (the
    verdict process notes each test's CPU time there, measured from where the one before
    ended), as a Channel per test id."""
    tests, current = {}, None
    for key, text in _batch_note_lines(result):
        if key == "start":
            current = text
            tests[current] = Channel(True)
        elif current is not None:
            tests[current].notes.setdefault(key, []).append(text)
        if key == "done":
            current = None
    return tests


def classify_batch(tests, result, time_limit, output_limit=OUTPUT_LIMIT):
    """What a batch's process (run_batch) tells of each of its tests: a TestRun for each test
    the runner ended (its `done` note) and for the one it was running when the process ended
    (judged as classify() judges a test alone: its time, a crash, a flood); tests after that
    were not reached and have none. Notes count without the result line: only the kit's
    runner holds the channel and its token (the student's process never gets them)."""
    notes = batch_notes(result)
    per_test = notes_by_test(result)
    done = {}
    for text in notes.get("done", []):
        match = NOTE_DONE.match(text)
        if match:
            done[match.group("id")] = (match.group("status"), int(match.group("ms")) / 1000)
    started = set(notes.get("start", []))
    runs = []
    for test in tests:
        if test.id in done:
            status, elapsed = done[test.id]
            own = per_test.get(test.id, Channel(True))
            run = TestRun(
                test=test,
                status=PASSED,
                elapsed=elapsed,
                output=result.output,
                details={
                    "batch": len(tests),
                    "cpu_ms": noted_cpu_ms(own),
                    "plane": (own.notes.get("plane") or [None])[-1],
                },
            )
            if status == "fail":
                run.status = FAILED
                run.message = (
                    noted_failure(Channel(True, notes=notes), test.id)
                    or "failed (the log has the output)"
                )
            elif status == "skip":
                run.status = SKIPPED
                run.message = noted_skip(notes, test.id)
            runs.append(run)
            if status != "pass":
                break  # the runner stops there
        elif test.id in started:
            run = classify(test, result, time_limit, output_limit)
            if run.status == PASSED:  # the process ended well, and this test said nothing
                run.status, run.message = NO_RESULT, "the test started and never ended"
            run.details["batch"] = len(tests)
            runs.append(run)
            break
        else:
            break
    return runs


def run_batch(
    binary,
    tests,
    *,
    time_limit,
    env=None,
    cwd=None,
    executor=(),
    output_limit=OUTPUT_LIMIT,
    owner=None,
):
    """Runs several tests in one process (`binary -t A -t B ... -- EXECUTOR...`): the runner
    runs them in order, keeps one executor while they pass (one CUDA context instead of one per
    test), and stops after the first that does not pass (tests/runner.c). Each test has
    time_limit from its own start. Returns classify_batch()'s runs and the process."""
    argv = [
        binary,
        *[word for test in tests for word in ("-t", test.id)],
        *(["--", *executor] if executor else []),
    ]
    result = run_limited(
        argv,
        time_limit=time_limit,
        env=env,
        cwd=cwd,
        channel=True,
        output_limit=output_limit,
        channel_bytes=CHANNEL_BYTES * len(tests),
        per_test=True,
        owner=owner,
    )
    return classify_batch(tests, result, time_limit, output_limit), result


def run_test(
    binary,
    test,
    *,
    time_limit,
    env=None,
    cwd=None,
    executor=(),
    output_limit=OUTPUT_LIMIT,
    owner=None,
):
    """Runs one test (`binary -t SUITE/TEST -- EXECUTOR...`) in its own process group; see
    classify(). binary is the kit's verdict binary; executor the argv of the process that
    runs the student's code (build.executor_command()), which the verdict binary starts."""
    argv = [binary, "-t", test.id, *(["--", *executor] if executor else [])]
    result = run_limited(
        argv,
        time_limit=time_limit,
        env=env,
        cwd=cwd,
        channel=True,
        output_limit=output_limit,
        owner=owner,
    )
    return classify(test, result, time_limit, output_limit), result
