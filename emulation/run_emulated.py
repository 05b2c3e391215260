#!/usr/bin/env python3
"""run_emulated.py: runs the [emulate] tests of test binaries built against the kit's CPU
emulation (make emulate), each test once in each thread order, each run in a process of its own
with a time limit, and prints what failed, in which orders, and why.

    emulation/run_emulated.py [--orders ORDER,...] [--timeout S] [--json FILE]
                              build/emulate/student/test_01_oddeven ...

A thread order (KIT_EMU_ORDER) is the order in which the emulation runs the threads of a block
between two barriers (and the blocks of a grid), and how soon the work queued on the streams a
program creates runs: a test that passes in one order and fails in another has a result that
depends on timing, a race, which a GPU may show only now and then.
The emulation is feedback: it gives no points and measures no speed; a GPU decides the grade.
Exit status: 0 every test passed in every order, 1 one did not, 2 bad arguments.
"""
import argparse
import ctypes
import json
import os
import re
import secrets
import select
import subprocess
import sys
import tempfile
import time

# The thread orders when --orders does not say: make emulate's, the one list that emulation.mk and
# check_emulation.py read too. (Read only then: the grader names its orders, and its sandbox holds
# this script alone.)
ORDERS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "orders.txt")


def default_orders():
    """The list of emulation/orders.txt, as --orders takes it (comma-separated)."""
    with open(ORDERS_FILE) as f:
        return next(line.strip() for line in f if line.strip() and not line.startswith("#"))


# Most lines of one failure to show (the rest is in the test's own run).
SHOWN_LINES = 24
# What every test binary runs under (--wrap): the grader's seccomp launcher, in its sandbox.
WRAP = []


def list_tests(binary):
    out = subprocess.run(
        WRAP + [binary, "-l"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=60,
    )
    if out.returncode != 0:
        raise RuntimeError(
            "%s -l failed (exit %d): %s" % (binary, out.returncode, out.stdout[-500:])
        )
    tests = []
    for line in out.stdout.splitlines():
        words = line.split()
        if words and "/" in words[0] and "[emulate]" in words[1:]:
            tests.append(words[0])
    return tests


def environment(order):
    env = dict(os.environ, KIT_EMU_ORDER=order)
    # AddressSanitizer (make emulate's default): its own exit code, so that a report reads as a
    # crash and not as a failed assertion; leaks are not the lab's concern.
    env["ASAN_OPTIONS"] = "detect_leaks=0:exitcode=86:" + os.environ.get("ASAN_OPTIONS", "")
    return env


def interesting(stdout, stderr):
    """The lines that say why a run failed: the test's failure lines, the emulation's reports,
    AddressSanitizer's summary and the first frames of its stack."""
    lines = []
    failing = False
    for line in stdout.splitlines():
        if line.startswith("FAIL "):
            failing = True
        elif line.startswith("    ") and failing:
            lines.append(line.strip())
        elif not line.startswith("    "):
            failing = False
    frames = 0
    stacks = 0
    in_report = False
    for line in stderr.splitlines():
        text = line.rstrip()
        if text.startswith("emulation:") or text.startswith("cu2cpp:"):
            in_report = True
            lines.append(text)
        elif in_report and text.startswith("  "):
            lines.append(text)
        elif "ERROR: AddressSanitizer" in text or text.startswith("SUMMARY:"):
            in_report = False
            lines.append(text.strip("= "))
            frames = 0
        elif text.lstrip().startswith("#") and " in " in text:
            # AddressSanitizer's first stack (the access; later ones say where the memory came
            # from): the frames of the kit's and the student's code, not those of the C++
            # library or of the emulation that called the kernel.
            in_report = False
            if text.lstrip().startswith("#0 "):
                stacks += 1
            place = text.rsplit(" ", 1)[-1]
            if (
                stacks == 1
                and frames < 4
                and not place.startswith("/usr/")
                and "emulation/" not in place
            ):
                frames += 1
                lines.append("  " + text.strip())
        elif " is located " in text:
            in_report = False
            lines.append(text.strip())
        else:
            in_report = False
    return lines


# What is kept of a test's output: its head and its tail (a test that floods its output cannot
# fill the memory of this process).
KEEP_BYTES = 64 * 1024


def kept_output(f):
    """The head and the tail of what a test wrote to the file @p f."""
    size = f.seek(0, os.SEEK_END)
    f.seek(0)
    if size <= 2 * KEEP_BYTES:
        data = f.read()
    else:
        data = f.read(KEEP_BYTES) + b"\n[... %d bytes left out ...]\n" % (size - 2 * KEEP_BYTES)
        f.seek(size - KEEP_BYTES)
        data += f.read()
    return data.decode(errors="replace")


def take_channel():
    """The grader's result channel, taken out of the environment before any test runs (tests
    get channels of their own), and this process made non-dumpable: a test process runs as
    the same user, and must not reach this one's memory or descriptors (/proc/PID/mem, fd/)."""
    fd, token = os.environ.pop("KIT_RESULT_FD", None), os.environ.pop("KIT_RESULT_TOKEN", None)
    if fd is None or token is None:
        print(
            "run_emulated: --results-channel without KIT_RESULT_FD and KIT_RESULT_TOKEN",
            file=sys.stderr,
        )
        sys.exit(2)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass
    return int(fd), token


def read_channel(fd, deadline):
    """What arrives on the result channel @p fd (closed here) until every writer has closed it
    or the deadline passes; 4 KiB at most."""
    said = b""
    try:
        while len(said) < 4096:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 4096 - len(said))
            if not chunk:
                break
            said += chunk
    finally:
        os.close(fd)
    return said


def run_one(binary, test, order, timeout):
    """One test in one thread order, in a process of its own. It passed only when the kit's
    runner said so on its result channel (a pipe and a fresh token: tests/runner.h), and exited
    0: a program that merely exits 0 (an exit() in the student's code) has not passed."""
    start = time.monotonic()
    token = secrets.token_hex(16)
    read_end, write_end = os.pipe()
    env = environment(order)
    env.update(KIT_RESULT_FD=str(write_end), KIT_RESULT_TOKEN=token)
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        try:
            p = subprocess.Popen(
                WRAP + [binary, "-t", test],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out_f,
                stderr=err_f,
                pass_fds=(write_end,),
            )
        finally:
            os.close(write_end)
        said = read_channel(read_end, start + timeout)
        try:
            returncode = p.wait(timeout=max(0.1, timeout - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            returncode = None
        out, err = kept_output(out_f), kept_output(err_f)
    seconds = time.monotonic() - start
    if returncode is None or seconds > timeout:
        return {
            "status": "hang",
            "seconds": seconds,
            "why": [
                "no answer within %g s: killed (the emulation's own watchdog should have "
                "stopped the kernel first)" % timeout
            ]
            + interesting(out, err),
        }
    why = interesting(out, err)
    passed = ("%s 1 0 0" % token) in said.decode(errors="replace").splitlines()
    if returncode == 0 and passed:
        status = "pass"
    elif returncode in (0, 1) and "AddressSanitizer" not in err:
        status = "fail"
        if returncode == 0:
            why = ["exited 0 before the test's verdict (an exit() in the code?): not passed"] + why
    else:
        status = "crash"
        reason = (
            "killed by signal %d" % -returncode
            if returncode < 0
            else "AddressSanitizer found an invalid memory access"
            if returncode == 86
            else "exit code %d" % returncode
        )
        why = [reason] + why
    return {"status": status, "seconds": seconds, "why": why}


def progress(line):
    """What runs now, on a terminal only (a line that the next one replaces): a large test
    can take minutes in emulation, and nothing else is printed until it ends."""
    if sys.stdout.isatty():
        sys.stdout.write("\r\033[K" + line)
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument(
        "--orders", help="thread orders, comma-separated (default: " "emulation/orders.txt's)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds a test may take in one order (default 120)",
    )
    parser.add_argument("--json", help="also write every result to this file")
    parser.add_argument(
        "--tests",
        help="run these tests (SUITE/TEST,...), marked or not, " "instead of the [emulate] ones",
    )
    parser.add_argument(
        "--wrap",
        help="run each test binary under this command (its words, "
        "space-separated; the grader's seccomp launcher)",
    )
    parser.add_argument(
        "--results-channel",
        action="store_true",
        help="also send every result, as JSON, to the grader's result channel "
        "(KIT_RESULT_FD, KIT_RESULT_TOKEN), which no test process sees",
    )
    args = parser.parse_args()
    WRAP.extend((args.wrap or "").split())
    channel = take_channel() if args.results_channel else None
    orders = [o for o in (args.orders or default_orders()).split(",") if o]

    started = time.monotonic()
    results = []
    for binary in args.binaries:
        if not os.access(binary, os.X_OK):
            print("run_emulated: %s: not built" % binary, file=sys.stderr)
            return 2
        print(
            "== %s, emulated on the CPU (feedback only: no points, no speed; a GPU decides "
            "the grade), thread orders %s" % (binary, ", ".join(orders))
        )
        sys.stdout.flush()
        tests = args.tests.split(",") if args.tests else list_tests(binary)
        for number, test in enumerate(tests, 1):
            runs = {}
            for order in orders:
                progress(
                    "test %d of %d, %s, in order %s (%.0f s so far)..."
                    % (number, len(tests), test, order, time.monotonic() - started)
                )
                runs[order] = run_one(binary, test, order, args.timeout)
            progress("")
            statuses = {r["status"] for r in runs.values()}
            passed = statuses == {"pass"}
            times = ", ".join("%s %.1f s" % (o, r["seconds"]) for o, r in runs.items())
            print("%s %s (%s)" % ("PASS" if passed else "FAIL", test, times))
            if not passed:
                bad = [o for o, r in runs.items() if r["status"] != "pass"]
                good = [o for o, r in runs.items() if r["status"] == "pass"]
                print("    %s" % "; ".join("%s: %s" % (o, r["status"]) for o, r in runs.items()))
                if good:
                    print(
                        "    the result depends on the thread order (passes in %s, not in %s): "
                        "a race, such as threads that read what others write with no "
                        "__syncthreads() between, or work on two streams with no event or "
                        "synchronization between" % (", ".join(good), ", ".join(bad))
                    )
                # What each failing order said, once for each different story (the orders
                # often agree; compare names the racing kernel where the others show its
                # wrong result).
                stories = {}
                for order in bad:
                    why = runs[order]["why"]
                    # The same story told by another process: other numbers, same words.
                    story = re.sub(
                        r"0x[0-9a-f]+|\b\d+==",
                        "",
                        "\n".join(l for l in why if "thread order" not in l),
                    )
                    stories.setdefault(story, order)
                for order in stories.values():
                    why = runs[order]["why"]
                    if len(stories) > 1:
                        print("    in order %s:" % order)
                    for line in why[:SHOWN_LINES]:
                        print("    %s" % line)
                    if len(why) > SHOWN_LINES:
                        print(
                            "    ... (KIT_EMU_ORDER=%s %s -t %s shows it all)"
                            % (order, binary, test)
                        )
            sys.stdout.flush()
            results.append(
                {
                    "binary": binary,
                    "test": test,
                    "passed": passed,
                    "orders": {
                        o: {
                            "status": r["status"],
                            "seconds": round(r["seconds"], 3),
                            "why": r["why"],
                        }
                        for o, r in runs.items()
                    },
                }
            )

    suites = {}
    for r in results:
        suite = (r["binary"], r["test"].split("/")[0])
        s = suites.setdefault(suite, [0, 0])
        s[0 if r["passed"] else 1] += 1
    print("%-36s %-18s %6s %6s" % ("variant/test binary", "suite (TODO)", "passed", "failed"))
    for (binary, suite), (good, bad) in suites.items():
        name = os.path.join(
            os.path.basename(os.path.dirname(os.path.abspath(binary))), os.path.basename(binary)
        )
        print("%-36s %-18s %6d %6d" % (name, suite, good, bad))
    failed = sum(1 for r in results if not r["passed"])
    print(
        "emulated: %d passed, %d failed (each test in %d thread orders), %.1f s; no points: a "
        "GPU decides the grade"
        % (len(results) - failed, failed, len(orders), time.monotonic() - started)
    )
    summary = {
        "orders": orders,
        "results": results,
        "seconds": round(time.monotonic() - started, 3),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    if channel:
        fd, token = channel
        os.write(fd, ("%s %s\n" % (token, json.dumps(summary))).encode())
        os.close(fd)
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
