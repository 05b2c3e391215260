#!/usr/bin/env python3
"""check_emulation.py: the CPU emulation's own acceptance (make check-emulate [LAB=01]).

    emulation/check_emulation.py --build BUILD [--sanitize address] 01-oddeven 02-mergesort ...

For each lab, with no GPU and no CUDA Toolkit:
  1. the reference solution passes every [emulate] test in every thread order, and in compare
     mode (each launch run in every order, results compared: no race);
  2. the skeleton, as tools/skeleton writes it from the solution, fails every [emulate] test in
     every order, cleanly: an assertion's failure, never a crash or a hang;
  3. the emulation's own device tests (emulation/tests/device_tests.cu, and race_tests.cu for
     the race detector: each kind of race reported in every order, what is no race passing): each warp-level function
     computes what CUDA defines in every thread order, what a GPU leaves undefined or hangs on
     is reported with its line, and blocks that wait for each other (look-backs) complete;
  4. the grader without a GPU (grading/kitgrader/emulated.py) runs Lab 01's [emulate] tests in
     its sandbox after the intake checks and shows them per TODO: every one passed for the
     solution, none for the skeleton (on a machine with a GPU the grader grades instead: skipped);
  5. each planted fault of emulation/fixtures/ (written as the grader's GPU fixtures are, with
     grading/tests/fixture_patch.py; some are the grader's own) is reported as its expect.json
     says: which tests fail, how (fail, crash), and what the report names (the kernel, the line);
     the controls pass ("order_status" names what a test must do in one order: a race between
     streams fails where their work comes late, and passes where it comes at once). A fixture
     is Lab 01's unless its expect.json names another ("lab"), and
     changes the lab's main file unless it names the bonus file ("file": "NAME_bonus.cu"); the
     lab's other file is the solution's;
  6. the corpus (emulation/corpus/*.cu): whole CUDA programs in the styles students and public
     samples write (tiles, constant memory, printf, device-side streams, arch guards...), each
     checking its own answer: each builds unmodified and passes in every order (and on a GPU:
     emulation/tests/run_on_gpu.sh);
  7. the one list of the CUDA a lab may use (grading/kitgrader/allowlist.py, coverage.py): every
     runtime call on it is defined here, every device call on it builds and runs, and the
     handouts name only what it has;
  8. each lab's driver, built with the reference (make emulate-driver), sorts and checks an
     input of its command line, and its --bench says it needs a GPU;
then it prints the emulation's cost: a fiber switch, emulated threads per second, and the time
of the lab's emulated suite in every order.
Everything is built first, by one make; then the labs (and the device tests) are checked side
by side, as many at once as the machine has cores (KIT_EMU_JOBS sets it), each lab's lines
printed together, in the labs' order; the benchmark runs last, alone.
Exit status: 0 every check held, 1 one did not, 2 could not run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from run_emulated import default_orders

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")
FIXTURE_PATCH = os.path.join(ROOT, "grading", "tests", "fixture_patch.py")
GRADER_FIXTURES = os.path.join(ROOT, "grading", "tests", "fixtures", "gpu")
RUN = [sys.executable, os.path.join(HERE, "run_emulated.py")]
# The thread orders of make emulate (emulation/orders.txt), and compare mode with them.
DEFAULT_ORDERS = default_orders()
ALL_ORDERS = DEFAULT_ORDERS + ",compare"


class ThreadOutput:
    """sys.stdout while labs are checked side by side: what a thread that has a buffer prints
    goes to its buffer, printed whole when its lab is done."""

    def __init__(self, real):
        self.real = real
        self.local = threading.local()

    def capture(self):
        self.local.buffer = []

    def release(self):
        text, self.local.buffer = "".join(self.local.buffer), None
        return text

    def write(self, text):
        buffer = getattr(self.local, "buffer", None)
        if buffer is None:
            self.real.write(text)
        else:
            buffer.append(text)

    def flush(self):
        if getattr(self.local, "buffer", None) is None:
            self.real.flush()


class Checks:
    def __init__(self):
        self.rows = []

    def check(self, what, ok, detail=""):
        self.rows.append((what, ok))
        print(
            "%s %s%s"
            % ("ok  " if ok else "FAIL", what, (": " + detail) if detail and not ok else "")
        )
        sys.stdout.flush()
        return ok


def lab_parts(lab):
    name = lab.split("-", 1)[1]
    return name, "test_" + lab.replace("-", "_")


def make(build, targets, quiet=False):
    """Builds emulation targets with the kit's make (no nvcc on the way). quiet: its errors are
    not printed (the checks that make those targets again say which one failed)."""
    out = subprocess.run(
        ["make", "--no-print-directory", "BUILD=" + build] + targets,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    if out.returncode != 0 and not quiet:
        print(out.stdout[-3000:])
    return out.returncode == 0


def run_emulated(binary, orders, tests=None, env=None):
    """run_emulated.py's results (a dict), its output and exit status."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        command = RUN + ["--orders", orders, "--json", f.name, binary]
        if tests:
            command += ["--tests", ",".join(tests)]
        full_env = dict(os.environ)
        full_env.update(env or {})
        out = subprocess.run(
            command,
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        try:
            results = json.load(open(f.name))
        except ValueError:
            results = {"results": [], "seconds": 0}
    return results, out.stdout, out.returncode


def check_no_toolkit(checks, build):
    """Every header the emulation's objects were compiled with (their .d files): none of the
    CUDA Toolkit's, only the emulation's own cuda_runtime*.h."""
    headers = set()
    for folder, _, files in os.walk(os.path.join(build, "emulate")):
        for name in files:
            if name.endswith(".d"):
                with open(os.path.join(folder, name)) as f:
                    headers.update(
                        word
                        for word in f.read().replace("\\\n", " ").split()
                        if word.endswith(".h") or word.endswith(".cuh")
                    )
    own = os.path.join(HERE, "include") + os.sep
    cuda = sorted(
        {os.path.relpath(h, ROOT) for h in headers if os.path.realpath(h).startswith(own)}
    )
    # (by the header's real path: a system include folder may hold links to the Toolkit's
    # headers, /usr/local/include/vector_types.h -> /usr/local/cuda-13.0/include/...)
    foreign = sorted(
        h
        for h in headers
        if "cuda" in os.path.realpath(h).lower()
        and not os.path.realpath(h).startswith(ROOT + os.sep)
    )
    checks.check(
        "no CUDA Toolkit: the objects include no header from outside the kit with "
        "'cuda' in its path; their CUDA headers are the emulation's (%s)" % ", ".join(cuda),
        not foreign and cuda,
        " ".join(foreign),
    )


DEVICE_ORDERS = ALL_ORDERS.split(",")


def check_device_tests(checks, build, built, name="device_tests"):
    """emulation/tests/NAME.cu (device_tests, race_tests): every case in every order. A case
    that checks results must exit 0 in every order; one the emulation must report must exit 3
    (a launch failed) with every phrase of its report, and the line of its marker, on stderr: in
    every order, or (a case whose report depends on the order) in the order named, while forward
    passes. A case of the order "racecheck" runs with the race detector on in every order
    (KIT_EMU_RACECHECK=1; by default it checks the forward order only) and must be reported, or
    pass, in each: the detector does not depend on the order."""
    binary = os.path.join(build, "emulate", "tests", name)
    source = os.path.join(HERE, "tests", name + ".cu")
    if not checks.check(
        "the %s build with the host compiler alone" % name.replace("_", " "), built
    ):
        return
    listed = subprocess.run([binary, "-l"], stdout=subprocess.PIPE, universal_newlines=True)
    markers = {}
    with open(source) as f:
        for number, line in enumerate(f, 1):
            if "/* LINE:" in line:
                markers[line.split("/* LINE:", 1)[1].split("*/", 1)[0].strip()] = number
    env = dict(
        os.environ,
        KIT_EMU_TIMEOUT="1",
        ASAN_OPTIONS="detect_leaks=0:exitcode=86:" + os.environ.get("ASAN_OPTIONS", ""),
    )
    for row in listed.stdout.splitlines():
        case, reports, where = row.split("\t")
        env.pop("KIT_EMU_RACECHECK", None)
        note = where == "racecheck-note"  # the case passes, and its stderr says the phrases
        if where in ("racecheck", "racecheck-note"):
            env["KIT_EMU_RACECHECK"] = "1"
            where = "all"
        problems = []
        for order in DEVICE_ORDERS:
            env["KIT_EMU_ORDER"] = order
            try:
                done = subprocess.run(
                    [binary, case],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    universal_newlines=True,
                    errors="replace",
                    timeout=60,
                )
            except subprocess.TimeoutExpired:
                problems.append("%s: no answer in 60 s" % order)
                continue
            said = done.stdout + done.stderr
            if reports == "-" or (where != "all" and order == "forward"):
                if done.returncode != 0:
                    problems.append(
                        "%s: exit %d, want 0: %s" % (order, done.returncode, said.strip()[-600:])
                    )
                continue
            if where != "all" and order != where:
                if done.returncode not in (0, 3):
                    problems.append(
                        "%s: exit %d (a crash?): %s" % (order, done.returncode, said.strip()[-600:])
                    )
                continue
            if done.returncode != (0 if note else 3):
                problems.append(
                    "%s: exit %d, want %d (a %s): %s"
                    % (
                        order,
                        done.returncode,
                        0 if note else 3,
                        "note" if note else "report",
                        said.strip()[-600:],
                    )
                )
                continue
            wanted = reports.split("|")
            if case in markers:
                wanted.append("%s.cu:%d" % (name, markers[case]))
            for text in wanted:
                if text not in done.stderr:
                    problems.append(
                        "%s: the report does not say '%s': %s"
                        % (order, text, done.stderr.strip()[-800:])
                    )
            notes = done.stderr.count("emulation: note")
            if note and notes > 1:  # once a variable and launch, however many blocks read it
                problems.append("%s: %d notes, want 1" % (order, notes))
        if reports == "-":
            about = "results as CUDA defines them in every order and in compare mode"
        else:
            about = "reported%s: %s" % (
                "" if where == "all" else " in order " + where + " (forward passes)",
                reports.replace("|", " ... "),
            )
        checks.check(
            "%s %s: %s" % (name.replace("_tests", " test"), case, about),
            not problems,
            "; ".join(problems),
        )


CORPUS = os.path.join(HERE, "corpus")


def corpus_programs():
    """The corpus's programs (emulation/corpus/*.cu), by name."""
    if not os.path.isdir(CORPUS):
        return []
    return sorted(name[:-3] for name in os.listdir(CORPUS) if name.endswith(".cu"))


def run_program(command, env, timeout=120):
    """Runs an emulated program: its output (stdout and stderr together) and exit status, as a
    CompletedProcess; one that gives no answer in `timeout` seconds is exit -1, and says so."""
    try:
        return subprocess.run(
            command,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, -1, "no answer in %d s" % timeout)


def check_drivers(checks, drivers, built):
    """make emulate-driver: each lab's driver, built with the reference on the emulation, sorts
    an input of the command line and checks it; --bench, which needs CUB and a GPU, stops with a
    sentence that says so."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    for lab, binary in sorted(drivers.items()):
        name = "driver %s (make emulate-driver)" % lab
        if not checks.check("%s builds" % name, built.get(lab, False)):
            continue
        sort = run_program([binary, "-n", "3000", "--check"], env)
        bench = run_program([binary, "--bench"], env)
        checks.check(
            "%s: -n 3000 --check sorts and checks" % name,
            sort.returncode == 0 and "check: OK" in sort.stdout,
            "exit %d: %s" % (sort.returncode, sort.stdout.strip()[-400:]),
        )
        checks.check(
            "%s: --bench says it needs a GPU" % name,
            bench.returncode != 0 and "needs a GPU" in bench.stdout,
            "exit %d: %s" % (bench.returncode, bench.stdout.strip()[-400:]),
        )


def check_corpus(checks, build, built):
    """emulation/corpus/: each program builds unmodified and checks its own answer (exit 0) in
    every thread order and in compare mode, as it does on a GPU (run_on_gpu.sh)."""
    env = dict(
        os.environ,
        KIT_EMU_TIMEOUT="20",
        ASAN_OPTIONS="detect_leaks=0:exitcode=86:" + os.environ.get("ASAN_OPTIONS", ""),
    )
    for name in corpus_programs():
        binary = os.path.join(build, "emulate", "corpus", name)
        if not checks.check("corpus %s builds unmodified" % name, built.get(name, False)):
            continue
        problems = []
        for order in DEVICE_ORDERS:
            env["KIT_EMU_ORDER"] = order
            done = run_program([binary], env)
            if done.returncode != 0:
                problems.append(
                    "%s: exit %d: %s" % (order, done.returncode, done.stdout.strip()[-800:])
                )
        checks.check(
            "corpus %s: its own check passes in every order and in compare mode" % name,
            not problems,
            "; ".join(problems),
        )


def check_coverage(checks, build, built):
    """The one list of the CUDA a lab may use (grading/kitgrader/allowlist.py, emulation/
    coverage.py): every runtime call on it is defined by the emulation (the runtime probe links
    and runs), every device statement on it builds and runs in every order (the device probe),
    and the handouts' "What your code may call" name only what the list has."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:" + os.environ.get("ASAN_OPTIONS", ""))
    folder = os.path.join(build, "emulate", "coverage")
    if checks.check(
        "the list's runtime calls: the probe links with the emulation's runtime",
        built.get("runtime_probe", False),
    ):
        done = subprocess.run(
            [os.path.join(folder, "runtime_probe")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        checks.check(
            "the list's runtime calls: each is defined (%s)" % done.stdout.strip(),
            done.returncode == 0,
            done.stdout[-600:],
        )
    if checks.check(
        "the list's device calls: the probe builds unmodified", built.get("device_probe", False)
    ):
        problems = []
        for order in DEVICE_ORDERS:
            env["KIT_EMU_ORDER"] = order
            done = subprocess.run(
                [os.path.join(folder, "device_probe")],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                universal_newlines=True,
                errors="replace",
                timeout=120,
            )
            if done.returncode != 0:
                problems.append(
                    "%s: exit %d: %s" % (order, done.returncode, done.stdout.strip()[-800:])
                )
        checks.check(
            "the list's device calls: the probe runs in every order and in compare mode",
            not problems,
            "; ".join(problems),
        )
    handouts = subprocess.run(
        [sys.executable, os.path.join(HERE, "coverage.py"), "--handouts", ROOT],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    checks.check(
        'the handouts\' "What your code may call" name only calls the list has',
        handouts.returncode == 0,
        handouts.stdout,
    )


def check_solution(checks, build, lab):
    name, test = lab_parts(lab)
    binary = os.path.join(build, "emulate", "solution", test)
    results, output, status = run_emulated(binary, ALL_ORDERS)
    ran = results["results"]
    checks.check(
        "%s solution: every [emulate] test passes in every order and in compare mode "
        "(%d tests, %.1f s)" % (lab, len(ran), results["seconds"]),
        status == 0 and ran and all(r["passed"] for r in ran),
        "\n" + output,
    )
    return results


def check_skeleton(checks, build, lab):
    name, test = lab_parts(lab)
    binary = os.path.join(build, "emulate", "skeleton", test)
    results, output, status = run_emulated(binary, DEFAULT_ORDERS)
    ran = results["results"]
    clean = all(o["status"] == "fail" for r in ran for o in r["orders"].values())
    told = all(
        any("not written yet" in line for o in r["orders"].values() for line in o["why"])
        for r in ran
    )
    checks.check(
        "%s skeleton: every [emulate] test fails in every order, cleanly (no crash, no "
        "hang), saying the TODO is not written yet; exit 1" % lab,
        status == 1 and ran and clean and told,
        "\n" + output,
    )


def lab_files(lab):
    """The lab's student files, as the emulation builds them: NAME.cu, and NAME_bonus.cu when
    the lab has one (labs.mk's lab_bonus)."""
    name, _ = lab_parts(lab)
    files = [name + ".cu"]
    if any(
        os.path.exists(os.path.join(ROOT, top, lab, name + "_bonus.cu"))
        for top in ("labs", "solutions")
    ):
        files.append(name + "_bonus.cu")
    return files


def fixture_source(fixture, spec, lab, orig):
    """Writes the planted fault's student files into the folder @p orig: the file it changes
    (spec "file", else the lab's main file) with the grader's fixture_patch.py, from the
    solution's; the lab's other file as the solution's. Returns the changed file's path, or
    None when it could not be written."""
    folder = (
        os.path.join(GRADER_FIXTURES, spec["grader"])
        if "grader" in spec
        else os.path.join(FIXTURES, fixture)
    )
    files = lab_files(lab)
    changed = spec.get("file", files[0])
    os.makedirs(orig, exist_ok=True)
    for name in files:
        out = os.path.join(orig, name)
        solution = os.path.join(ROOT, "solutions", lab, name)
        if name != changed:
            with open(solution) as f:
                text = f.read()
            if not os.path.exists(out) or open(out).read() != text:  # else make rebuilds it
                with open(out, "w") as f:
                    f.write(text)
            continue
        done = subprocess.run(
            [sys.executable, FIXTURE_PATCH, folder, "-o", out, "--solution", solution],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        if done.returncode != 0:
            print(done.stdout)
            return None
    return os.path.join(orig, changed)


def line_of(path, marker):
    """The line of @p path that holds @p marker; it must be the only one."""
    with open(path) as f:
        found = [number for number, line in enumerate(f, 1) if marker in line]
    return found[0] if len(found) == 1 else "(%d lines hold '%s')" % (len(found), marker)


def check_fixture(checks, build, lab, fixture, spec, source):
    name, test = lab_parts(lab)
    binary = os.path.join(build, "emulate", "fixture-" + fixture, test)
    orders = spec.get("orders", ALL_ORDERS)
    if spec.get("all_pass"):
        results, output, status = run_emulated(binary, orders, env=spec.get("env"))
        ran = results["results"]
        return checks.check(
            "%s %s: %s" % (lab, fixture, spec["about"]),
            status == 0 and ran and all(r["passed"] for r in ran),
            "\n" + output,
        )
    tests = sorted(spec["tests"])
    results, output, status = run_emulated(binary, orders, tests, spec.get("env"))
    problems = []
    by_test = {r["test"]: r for r in results["results"]}
    for t in tests:
        want = spec["tests"][t]
        r = by_test.get(t)
        if not r:
            problems.append("%s did not run" % t)
            continue
        said = [line for o in r["orders"].values() for line in o["why"]]
        for order, o in r["orders"].items():
            allowed = want.get("order_status", {}).get(order, want.get("status"))
            if isinstance(allowed, str):
                allowed = [allowed]
            if allowed is not None and o["status"] not in allowed:
                problems.append(
                    "%s in order %s: %s, not %s" % (t, order, o["status"], "/".join(allowed))
                )
        for order in want.get("order_status", {}):
            if order not in r["orders"]:
                problems.append("%s did not run in order %s" % (t, order))
        expected = list(want.get("output_has", []))
        if "line_of" in want:
            line = line_of(source, want["line_of"])
            expected.append("%s:%s" % (os.path.basename(source), line))
        for text in expected:
            if not any(text in line for line in said):
                problems.append("%s: the reports do not say '%s'" % (t, text))
        for order, texts in want.get("order_output_has", {}).items():
            lines = r["orders"].get(order, {}).get("why", [])
            for text in texts:
                if not any(text in line for line in lines):
                    problems.append(
                        "%s in order %s: the report does not say '%s'" % (t, order, text)
                    )
    return checks.check(
        "%s %s: %s" % (lab, fixture, spec["about"]),
        not problems,
        "; ".join(problems) + "\n" + output,
    )


def plan_lab(checks, build, lab, sanitize, have_fixtures):
    """A lab's planted faults (their sources written) and every emulated binary it needs."""
    _, test = lab_parts(lab)
    fixtures = {}
    for fixture in sorted(os.listdir(FIXTURES)) if have_fixtures else []:
        spec = json.load(open(os.path.join(FIXTURES, fixture, "expect.json")))
        if spec.get("lab", "01-oddeven") != lab:  # the grader's fixtures are Lab 01's
            continue
        if spec.get("needs") and spec["needs"] != sanitize:
            print("skip %s %s: needs EMU_SANITIZE=%s" % (lab, fixture, spec["needs"]))
            continue
        orig = os.path.join(build, "emulate", "fixture-" + fixture, "orig", lab)
        source = fixture_source(fixture, spec, lab, orig)
        if not source:
            checks.check("%s %s: fixture written" % (lab, fixture), False)
            continue
        fixtures[fixture] = (spec, source)
    targets = [os.path.join(build, "emulate", v, test) for v in ("solution", "skeleton")]
    targets += [os.path.join(build, "emulate", "fixture-" + f, test) for f in fixtures]
    return lab, fixtures, targets


def check_lab(checks, build, plan, built, have_fixtures):
    """A lab's checks: it built (@p built), no CUDA Toolkit, the solution, the skeleton, each
    planted fault; then the time of the solution's suite in every order."""
    lab, fixtures, _ = plan
    if not checks.check(
        "%s: the solution, the skeleton and %d planted faults build with the "
        "host compiler alone" % (lab, len(fixtures)),
        built,
    ):
        return
    check_no_toolkit(checks, build)
    solution = check_solution(checks, build, lab)
    check_skeleton(checks, build, lab)
    for fixture, (spec, source) in fixtures.items():
        check_fixture(checks, build, lab, fixture, spec, source)
    if not have_fixtures:
        print("note: no grading/tests/fixture_patch.py here: planted faults not checked")

    print("\n%s, emulated suite of the solution, seconds per thread order:" % lab)
    orders = solution.get("orders", [])
    print("  %-44s %s" % ("test", " ".join("%9s" % o for o in orders)))
    totals = [0.0] * len(orders)
    for r in solution.get("results", []):
        times = [r["orders"][o]["seconds"] for o in orders]
        totals = [a + b for a, b in zip(totals, times)]
        print("  %-44s %s" % (r["test"], " ".join("%9.1f" % t for t in times)))
    print(
        "  %-44s %s   (all orders: %.1f s)"
        % ("total", " ".join("%9.1f" % t for t in totals), sum(totals))
    )


GRADER = os.path.join(ROOT, "grading", "grade")
PLANTED_EXIT = """
#ifdef KIT_EMULATION
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted_exit(void)
{
    FILE *f = fopen("/work/emulated.json", "w");
    if (f) {
        fputs("{\\"orders\\": [\\"forward\\"], \\"results\\": []}", f);
        fclose(f);
    }
    if (getenv("KIT_EMU_ORDER")) {
        _exit(0);
    }
}
#endif
"""

# The same with only calls the lab allows: every test process exits 0 at once.
PLANTED_ALLOWED_EXIT = """
#ifdef KIT_EMULATION
#include <stdlib.h>
__attribute__((constructor)) static void planted_exit(void)
{
    exit(0);
}
#endif
"""

# Legitimate code besides the solution's, as students write it: printf in a kernel, constant
# memory, a tile's shuffle, device math, occupancy, new and delete (never called by the tests).
PLANTED_LEGIT = """
#include <stdio.h>
#include <cooperative_groups.h>
__constant__ float legit_scale[4];
__device__ unsigned int legit_seen;
__global__ void legit_kernel(const unsigned int *keys, unsigned int n, float *out)
{
    cooperative_groups::thread_block_tile<32> tile =
        cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? sqrtf((float)keys[i]) * legit_scale[0] + __expf(1.0f) + sinf(0.5f) : 0.0f;
    v = tile.shfl_down(v, 1);
    if (i == 0) {
        printf("legit %f\\n", v);
        atomicAdd(&legit_seen, 1u);
    }
    if (i < n) {
        out[i] = v;
    }
}
int legit_helper(void)
{
    float scale[4] = {1, 2, 3, 4};
    if (cudaMemcpyToSymbol(legit_scale, scale, sizeof scale) != cudaSuccess) {
        return -1;
    }
    int min_grid = 0, block = 0;
    if (cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, legit_kernel) != cudaSuccess) {
        return -1;
    }
    unsigned int *spare = new unsigned int[4];
    delete[] spare;
    return block;
}
"""

# Code only the emulation compiles that defines a function of CUnit's (every assertion would
# pass), or includes a file of the machine through a macro.
PLANTED_CUNIT = """
#ifndef __NVCC__
extern "C" int CU_assertImplementation(int, unsigned, const char *, const char *,
                                       const char *, int)
{
    return 1;
}
#endif
"""
PLANTED_INCLUDE = """
#ifndef __NVCC__
#define PLANTED_HEADER </etc/hostname>
#include PLANTED_HEADER
#endif
"""


def check_grader_without_gpu(checks, build):
    """The grader on a machine with no GPU: Lab 01's solution and skeleton, their emulated
    results in its table, exit 3 (nothing graded)."""
    probe = os.path.join(build, "tools", "gpu_probe")
    verdict = os.path.join(build, "grading", "verdict_01_oddeven")
    if not (os.access(probe, os.X_OK) and os.path.exists(verdict)):
        print("skip the grader without a GPU: the grader is not built here (make all)")
        return
    found = subprocess.run([probe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if found.returncode == 0:
        print("skip the grader without a GPU: this machine has one (the grader grades)")
        return
    with open(os.path.join(ROOT, "solutions", "01-oddeven", "oddeven.cu")) as f:
        solution = f.read()
    refused = "emulation: not run: oddeven.cu breaks the lab's rules"
    cases = [
        ("solutions", None, "solution", "emulated: 1/1 passed"),
        ("labs", None, "skeleton", "emulated: 0/1 passed"),
        # code that only the emulation compiles: every test process exits 0 at once
        # (after writing a forged results file where the old grader read one; with the
        # calls the lab allows only); a CUnit function of its own; a machine's file
        (
            None,
            PLANTED_LEGIT,
            "solution with printf, constant memory, a tile's shuffle, "
            "device math, occupancy and new besides",
            "emulated: 1/1 passed",
        ),
        (
            None,
            PLANTED_ALLOWED_EXIT,
            "solution with a planted exit(0)",
            "emulation: the emulated test program listed no tests",
        ),
        (
            None,
            PLANTED_EXIT,
            "solution with a planted exit(0) and a forged results file",
            refused + ":\n  - oddeven.cu calls _exit(), fclose(), fopen(), getenv()",
        ),
        (
            None,
            PLANTED_CUNIT,
            "solution defining CUnit's assertion where only the " "emulation compiles it",
            refused + ":\n  - defines CU_assertImplementation, " "which the kit's own code uses",
        ),
        (
            None,
            PLANTED_INCLUDE,
            "solution including /etc/hostname through a macro where "
            "only the emulation compiles it",
            "emulation: the emulation's rewrite of " "oddeven.cu failed",
        ),
    ]
    for folder, planted, what, want in cases:
        with tempfile.TemporaryDirectory() as tree, tempfile.TemporaryDirectory() as out:
            if planted:
                folder = os.path.join(tree, "01-oddeven")
                os.makedirs(folder)
                with open(os.path.join(folder, "oddeven.cu"), "w") as f:
                    f.write(solution + planted)
                os.chmod(tree, 0o755)
            proc = subprocess.run(
                [
                    sys.executable,
                    GRADER,
                    "-q",
                    "--build",
                    build,
                    "--lab",
                    "01",
                    "--out",
                    out,
                    folder,
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                universal_newlines=True,
            )
        rows = [line for line in proc.stdout.splitlines() if line.strip().startswith("1.")]
        shown = (
            want in proc.stdout
            if want.startswith("emulation: ")
            else (len(rows) == 4 and all(want in r for r in rows))
        )
        checks.check(
            "the grader without a GPU: Lab 01's %s, each TODO's emulated tests in "
            "its table or the emulation's refusal (%s), exit 3"
            % (what, want.split("\n")[-1].strip()),
            proc.returncode == 3 and shown,
            proc.stdout[-2000:],
        )


FRESH_PROGRAM = """
#include <stdio.h>
__global__ void one(int *x) { *x = 1; }
int main(void)
{
    int *d = NULL, h = 0;
    cudaMalloc(&d, sizeof h);
    one<<<1, 1>>>(d);
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\\n", h);
    return h == 1 ? 0 : 1;
}
"""


def check_freshness(checks, build):
    """A program built before its .cu file last changed stops with a sentence (exit 2), instead
    of testing the code of before; one whose file is dated in the future (another clock) runs."""
    settings = {}
    env_file = os.path.join(build, "emulate", "grader.env")
    if not os.path.exists(env_file):
        print("skip the freshness check: %s is missing (make emulate-parts)" % env_file)
        return
    for line in open(env_file):
        name, _, value = line.rstrip("\n").partition("=")
        settings[name] = value
    with tempfile.TemporaryDirectory() as tmp:
        source, rewritten = os.path.join(tmp, "fresh.cu"), os.path.join(tmp, "fresh.cpp")
        binary = os.path.join(tmp, "fresh")
        with open(source, "w") as f:
            f.write(FRESH_PROGRAM)
        built = (
            subprocess.run(
                [sys.executable, os.path.join(HERE, "cu2cpp.py"), "-o", rewritten, source], cwd=ROOT
            ).returncode
            == 0
            and subprocess.run(
                settings.get("EMU_CXX", "g++").split()
                + settings["EMU_CUFLAGS"].split()
                + ["-o", binary, rewritten, "-x", "none"]
                + settings["EMU_RUNTIME_OBJ"].split()
                + settings.get("EMU_LIBS", "").split(),
                cwd=ROOT,
            ).returncode
            == 0
        )
        if not checks.check("a program whose .cu changed after it was built: it builds", built):
            return
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")

        def run():
            return subprocess.run(
                [binary],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                universal_newlines=True,
            )

        first = run()
        built_at = os.stat(binary).st_mtime
        time.sleep(0.3)
        changed = max(time.time(), built_at + 0.1)  # after the build, and not in the future
        os.utime(source, (changed, changed))
        stale = run()
        future = built_at + 3600
        os.utime(source, (future, future))
        ahead = run()
        checks.check(
            "a program whose .cu changed after it was built stops and says to run "
            "make emulate again; with its .cu dated in the future it runs",
            first.returncode == 0
            and stale.returncode == 2
            and "changed after this program was built" in stale.stderr
            and ahead.returncode == 0,
            "first %d, stale %d (%s), future %d"
            % (first.returncode, stale.returncode, stale.stderr.strip()[-300:], ahead.returncode),
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labs", nargs="+")
    parser.add_argument("--build", default="build")
    parser.add_argument(
        "--sanitize",
        default=None,
        help="what the emulation is built with (EMU_SANITIZE): 'address' or "
        "empty; default: what BUILD/emulate/config.mk says",
    )
    args = parser.parse_args()
    build = args.build
    if args.sanitize is None:
        args.sanitize = ""
        config = os.path.join(build, "emulate", "config.mk")
        if os.path.exists(config):
            for line in open(config):
                if line.startswith("EMU_SANITIZE ?="):
                    args.sanitize = line.split("=", 1)[1].strip()
    checks = Checks()
    if not os.path.isdir(os.path.join(ROOT, "solutions")):
        print("check-emulate: no solutions/ here (a student package): nothing to check")
        return 0
    have_fixtures = os.path.exists(FIXTURE_PATCH)
    plans = [plan_lab(checks, build, lab, args.sanitize, have_fixtures) for lab in args.labs]
    jobs = int(os.environ.get("KIT_EMU_JOBS") or os.cpu_count() or 1)
    # One make builds everything (makes side by side would race on the objects they share).
    device_tests = os.path.join(build, "emulate", "tests", "device_tests")
    race_tests = os.path.join(build, "emulate", "tests", "race_tests")
    probes = {
        name: os.path.join(build, "emulate", "coverage", name)
        for name in ("runtime_probe", "device_probe")
    }
    grader_env = os.path.join(build, "emulate", "grader.env")  # the grader's, without a GPU
    corpus = {name: os.path.join(build, "emulate", "corpus", name) for name in corpus_programs()}
    drivers = {
        lab: os.path.join(build, "emulate", "solution", "bin", lab.split("-", 1)[1])
        for lab in args.labs
    }
    if make(
        build,
        ["-j%d" % jobs, device_tests, race_tests, grader_env]
        + list(corpus.values())
        + list(drivers.values())
        + list(probes.values())
        + [t for plan in plans for t in plan[2]],
        quiet=True,
    ):
        built = {plan[0]: True for plan in plans}
        built["device tests"] = built["race tests"] = True
        built_corpus = {name: True for name in corpus}
        built_probes = {name: True for name in probes}
        built_drivers = {lab: True for lab in drivers}
    else:  # each again, alone, to say which failed and why
        built = {plan[0]: make(build, plan[2]) for plan in plans}
        built["device tests"] = make(build, [device_tests])
        built["race tests"] = make(build, [race_tests])
        built_corpus = {name: make(build, [target]) for name, target in corpus.items()}
        built_probes = {name: make(build, [target]) for name, target in probes.items()}
        built_drivers = {lab: make(build, [target]) for lab, target in drivers.items()}

    output = ThreadOutput(sys.stdout)
    sys.stdout = output

    def checked(task, *task_args):
        output.capture()
        task(*task_args)
        return output.release()

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = [
            pool.submit(checked, check_lab, checks, build, plan, built[plan[0]], have_fixtures)
            for plan in plans
        ]
        done.append(pool.submit(checked, check_device_tests, checks, build, built["device tests"]))
        done.append(
            pool.submit(
                checked, check_device_tests, checks, build, built["race tests"], "race_tests"
            )
        )
        done.append(pool.submit(checked, check_corpus, checks, build, built_corpus))
        done.append(pool.submit(checked, check_coverage, checks, build, built_probes))
        if "01-oddeven" in args.labs:
            done.append(pool.submit(checked, check_grader_without_gpu, checks, build))
        done.append(pool.submit(checked, check_freshness, checks, build))
        done.append(pool.submit(checked, check_drivers, checks, drivers, built_drivers))
        for future in done:
            output.real.write(future.result())
            output.real.flush()
    sys.stdout = output.real

    if make(build, [os.path.join(build, "emulate", "bench", "emu_bench")]):
        bench = subprocess.run(
            [os.path.join(build, "emulate", "bench", "emu_bench")],
            cwd=ROOT,
            env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        print("\n" + bench.stdout.rstrip())
        checks.check("the benchmark runs", bench.returncode == 0)

    failed = [what for what, ok in checks.rows if not ok]
    print("\ncheck-emulate: %d passed, %d failed" % (len(checks.rows) - len(failed), len(failed)))
    for what in failed:
        print("  failed: %s" % what)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
