"""Grading a class: every submission folder under a folder, several at once on each GPU.

Each submission is graded by its own SubmissionGrader, in a worker thread that holds one
grading slot for the whole submission: a GPU (CUDA_VISIBLE_DEVICES), shared with the GPU's
other slots (sharing.py: tests side by side, anything timed with the GPU alone, a GPU memory
budget per slot), and a sandbox uid of its own; the test processes do the work, so threads are
enough. A line of progress follows each student (done, graded per minute, time left). Each
student gets
OUT/STUDENT/{results.json, grade.log, logs/}; the class gets OUT/gradebook.csv, written again
(whole, report.write_atomic) after every student, so a run that is stopped keeps what it
graded: the students not graded yet have rows that say so. If the GPUs stop working, or the
run is interrupted, grading stops: the students not graded are marked so in the gradebook,
never given zeros.

A class folder is untrusted too: its entries' names become output folders and gradebook
cells. An entry that is a symbolic link or a special file, or whose name could not safely be
an output folder's (hidden, an option, a name the output uses, control characters, too long,
not UTF-8), is never graded and gets a gradebook row saying why. Work folders are named by
index, and no name goes through a shell.
"""

from __future__ import annotations

import os
import queue
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import EXIT_NO_GPU, EXIT_USAGE
from .discover import find_student_file
from .grader import SubmissionGrader
from .report import printable, write_gradebook, write_submission
from .results import SubmissionResult
from .run import stop_everything, stopping
from .sharing import GpuTurns, MemoryWatch, budgets_for


RESERVED = {"gradebook.csv", "work", "logs", "results.json", "grade.log"}  # in OUT/ and OUT/NAME/
MAX_NAME_BYTES = 100


@dataclass
class Submission:
    name: str  # the entry's name; shown escaped when refused (see label)
    folder: Path
    refused_reason: str = ""  # why it is not graded; "" when it is graded

    @property
    def label(self):
        """The name as the terminal and the gradebook show it: control characters and bytes
        that are not UTF-8 escaped."""
        return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in self.name)


def submissions_in(class_dir):
    """Every entry directly under class_dir that is, or pretends to be, a submission, in
    name order: folders, links and special files. Plain files are notes, and hidden entries
    (.git, .DS_Store) housekeeping: neither is a submission."""
    found = []
    with os.scandir(class_dir) as entries:
        entries = sorted(entries, key=lambda e: e.name)
    for entry in entries:
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISREG(mode) or entry.name.startswith("."):
            continue
        found.append(
            Submission(entry.name, Path(class_dir) / entry.name, _refusal(entry.name, mode))
        )
    return found


def _refusal(name, mode):
    """Why an entry of a class folder is not graded, or ""."""
    if stat.S_ISLNK(mode):
        return "a symbolic link, not a folder"
    if not stat.S_ISDIR(mode):
        return "not a folder"
    if name.startswith((".", "-")):
        return "a name that starts with . or -"
    if name.lower() in RESERVED:
        return f"a name the grader's output uses ({name})"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "a name that is not UTF-8"
    if any(not c.isprintable() for c in name):
        return "a name with control characters or characters that do not print"
    if size > MAX_NAME_BYTES:
        return f"a name longer than {MAX_NAME_BYTES} bytes"
    return ""


def labs_submitted(labs, submissions):
    """The labs at least one gradable submission holds a file for, in kit order."""
    return [
        lab
        for lab in labs
        if any(find_student_file(s.folder, lab) for s in submissions if not s.refused_reason)
    ]


def labs_held(labs, sub):
    """How many of these labs' student files a submission holds (0 for a refused entry)."""
    return 0 if sub.refused_reason else sum(1 for lab in labs if find_student_file(sub.folder, lab))


def slot_gpus(gpus, jobs):
    """Each slot's GPU: jobs slots spread over the GPUs in turn (jobs 6 on GPUs 0, 1: 0, 1,
    0, 1, 0, 1)."""
    return [gpus[slot % len(gpus)] for slot in range(max(1, jobs))]


def grade_class(
    context,
    submissions,
    out_dir,
    gpus,
    jobs,
    say,
    verbose=False,
    gpu_mib=None,
    on_result=None,
    first_slot=0,
    indices=None,
    gradebook=True,
):
    """Grades every submission, `jobs` at once spread over `gpus` (gpu_mib: {gpu: its memory
    in MiB}, for the slots' budgets when a GPU has several); `say` gets one line per student
    as each is done, and a line of progress. A Slurm task grading its share of a class
    (slurm.py) gives on_result(k, result), called as each is done (it writes the row), its
    first slot, the submissions' indices in the class (their work folders), and no gradebook.
    Returns their SubmissionResults, in order."""
    run = ClassRun(
        context,
        submissions,
        Path(out_dir),
        gpus,
        jobs,
        say,
        verbose,
        gpu_mib,
        on_result,
        first_slot,
        indices,
        gradebook,
    )
    return run.grade_all()


class ClassRun:
    """One grade_class() call: its grading slots and their GPUs' sharing (set up once), the
    gradebook as it stands, and the grading of each entry in a slot of its own."""

    def __init__(
        self,
        context,
        submissions,
        out_dir,
        gpus,
        jobs,
        say,
        verbose,
        gpu_mib,
        on_result,
        first_slot,
        indices,
        gradebook,
    ):
        self.context, self.submissions, self.out_dir = context, submissions, out_dir
        self.say, self.verbose, self.on_result = say, verbose, on_result
        self.indices = list(range(len(submissions))) if indices is None else indices
        self.gradebook = gradebook
        # `jobs` submissions compile and run tests at once (a test slot each, `testing`); as
        # many again may wait for, or take, the GPU alone for their timed work meanwhile
        # (sharing.py). Each of them has a grading slot: its GPU, and its own sandbox uid
        # (sandbox.py), so that one student's processes count against no classmate's limit.
        testers = slot_gpus(gpus, jobs)
        self.slots = slot_gpus(gpus, 2 * len(testers) if len(testers) > len(gpus) else len(testers))
        self.free = queue.Queue()
        for slot, gpu_id in enumerate(self.slots):
            self.free.put((first_slot + slot, gpu_id))
        self.testing = {
            gpu_id: threading.BoundedSemaphore(testers.count(gpu_id)) for gpu_id in set(testers)
        }
        self.turns = {gpu_id: GpuTurns(gather=testers.count(gpu_id)) for gpu_id in set(testers)}
        # The GPU's --test-jobs split among its test slots: as many test processes on it at
        # once as one submission alone has (more made launch-bound tests time out: sharing.py).
        self.test_jobs = {
            gpu_id: max(1, context.options.test_jobs // testers.count(gpu_id))
            if testers.count(gpu_id) > 1
            else None
            for gpu_id in set(testers)
        }
        budgets = budgets_for(testers, gpu_mib or {})
        self.watch = MemoryWatch(budgets) if budgets else None
        self.progress = Progress(sum(1 for sub in submissions if not sub.refused_reason))
        self.lost = threading.Event()
        self.lost_reason = []
        self.lab_ids = [lab.id for lab in context.labs]
        self.done = {}  # index -> SubmissionResult, as each student is done
        self.book = threading.Lock()

    def grade_all(self):
        """Every entry, as many at once as there are slots; their results, in order."""
        if self.watch is not None:
            self.watch.start()
        with ThreadPoolExecutor(max_workers=len(self.slots)) as pool:
            # With several at once, the most labs first: the class ends sooner when its
            # longest gradings start early.
            count = len(self.submissions)
            order = (
                range(count)
                if len(self.slots) == 1
                else sorted(
                    range(count), key=lambda i: -labs_held(self.context.labs, self.submissions[i])
                )
            )
            futures = {i: pool.submit(self.recorded, i, self.submissions[i]) for i in order}
            futures = [futures[i] for i in range(count)]
            try:
                results = [f.result() for f in futures]
            except BaseException:
                # Ctrl-C, SIGTERM or a grader error: stop the tests still running, so the
                # workers end now and the gradebook keeps what was graded.
                stop_everything()
                raise
            finally:
                if self.watch is not None:
                    self.watch.stop()
        if self.gradebook:
            write_gradebook(self.out_dir / "gradebook.csv", results, self.lab_ids)
        return results

    def record(self, index, result):
        """The gradebook as it stands: every student done, and a row for each of the others."""
        if not self.gradebook:
            return
        with self.book:
            self.done[index] = result
            rows = [
                self.done.get(i)
                or SubmissionResult(
                    name=sub.label if sub.refused_reason else sub.name,
                    path=str(sub.folder),
                    error="not graded yet (the class run stopped before this student)",
                )
                for i, sub in enumerate(self.submissions)
            ]
            write_gradebook(self.out_dir / "gradebook.csv", rows, self.lab_ids)

    def tell(self, line):
        self.say(printable(line, multiline=False))  # names are vetted; errors and notes need not be

    def one(self, index, sub):
        """One entry graded in a free slot (or why not: refused, the GPU lost, stopped)."""
        if sub.refused_reason:
            self.tell(f"{sub.label}: NOT GRADED ({sub.refused_reason})")
            return refused_result(sub)
        if self.lost.is_set() or stopping():
            return SubmissionResult(
                name=sub.name,
                path=str(sub.folder),
                error="not graded: "
                + (self.lost_reason[0] if self.lost_reason else "grading stopped"),
                exit_code=EXIT_NO_GPU,
            )
        slot, gpu_id = self.free.get()
        try:
            result = grade_one(
                self.context,
                self.indices[index],
                sub,
                self.out_dir,
                gpu_id,
                slot,
                self.tell,
                self.verbose,
                self.turns[gpu_id],
                self.watch,
                self.testing[gpu_id],
                self.test_jobs[gpu_id],
            )
        finally:
            self.free.put((slot, gpu_id))
        self.tell(self.progress.one_done())
        if result.error and result.exit_code == EXIT_NO_GPU:
            self.lost_reason.append(result.error)
            self.lost.set()
        return result

    def recorded(self, index, sub):
        """one(), and its row in the gradebook (also when it failed or was interrupted)."""
        try:
            result = self.one(index, sub)
        except BaseException as err:  # interrupted (or the grader failed): said in the row
            why = "interrupted" if stopping() else (str(err) or type(err).__name__)
            self.record(
                index,
                SubmissionResult(name=sub.label, path=str(sub.folder), error=f"not graded: {why}"),
            )
            raise
        self.record(index, result)
        if self.on_result is not None:
            self.on_result(index, result)
        return result


def refused_result(sub):
    """The gradebook's row for an entry that is never graded."""
    return SubmissionResult(
        name=sub.label,
        path=str(sub.folder),
        exit_code=EXIT_USAGE,
        error=f"not graded: {sub.refused_reason}",
    )


class Progress:
    """The line after each student: how many are done, the rate, and the time left."""

    def __init__(self, total, clock=time.monotonic):
        self.total, self.done, self._clock = total, 0, clock
        self._started = clock()
        self._lock = threading.Lock()

    def one_done(self):
        with self._lock:
            self.done += 1
            minutes = max(self._clock() - self._started, 1e-9) / 60
            rate = self.done / minutes
            left = (self.total - self.done) / rate
        return (
            f"progress: {self.done}/{self.total} done, {rate:.1f} per minute, about "
            f"{_duration(left * 60)} left"
        )


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds // 3600} h {round(seconds % 3600 / 60)} min"


def grade_one(
    context,
    index,
    sub,
    out_dir,
    gpu_id,
    slot,
    tell,
    verbose=False,
    turns=None,
    watch=None,
    testing=None,
    test_jobs=None,
):
    """Grades one (vetted) submission on gpu_id with the slot's uid (turns, watch, testing:
    the GPU's sharing, sharing.py): OUT/NAME/ as a class run writes it, and one line to
    `tell`."""
    name, folder = sub.name, sub.folder
    work_dir = out_dir / ".work" / f"{index:04d}"  # never a name: see the docstring
    grader = SubmissionGrader(
        context,
        name,
        folder,
        out_dir / name,
        gpu_id=gpu_id,
        work_dir=work_dir,
        slot=slot,
        turns=turns,
        watch=watch,
        testing=testing,
        test_jobs=test_jobs,
    )
    result = grader.grade()
    write_submission(result, out_dir / name, verbose)
    where = f" on GPU {gpu_id}" if gpu_id is not None else ""
    if result.error:
        tell(f"{name}: NOT GRADED ({result.error})")
    else:
        labs = ", ".join(
            f"{lab.lab.id} {lab.score:.1f}/{lab.max_score:.0f}"
            + ("" if lab.status == "graded" else f" ({lab.status})")
            for lab in result.labs
        )
        tell(
            f"{name}: {result.score:.1f}/{result.max_score:.0f}  [{labs}]  "
            f"{result.elapsed:.0f} s{where}"
        )
    return result
