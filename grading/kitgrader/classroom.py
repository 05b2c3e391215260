"""Grading a class: every submission folder under a folder, several at once, one GPU each.

Each submission is graded by its own SubmissionGrader, in a worker thread that holds one GPU
(CUDA_VISIBLE_DEVICES) for the whole submission; the test processes do the work, so threads
are enough. Each student gets OUT/STUDENT/{results.json, grade.log, logs/}; the class gets
OUT/gradebook.csv. If the GPUs stop working, grading stops: the students not graded are
marked so in the gradebook, never given zeros.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import EXIT_NO_GPU
from .discover import find_student_file
from .grader import SubmissionGrader
from .report import write_gradebook, write_submission
from .results import SubmissionResult
from .run import stopping


def submissions_in(class_dir):
    """(name, folder) of every submission: the folders directly under class_dir."""
    folders = sorted(p for p in Path(class_dir).iterdir()
                     if p.is_dir() and not p.name.startswith("."))
    return [(p.name, p) for p in folders]


def labs_submitted(labs, submissions):
    """The labs at least one submission holds a file for, in kit order."""
    return [lab for lab in labs
            if any(find_student_file(folder, lab) for _, folder in submissions)]


def grade_class(context, submissions, out_dir, gpus, jobs, say, verbose=False):
    """Grades every submission; `say` gets one line per student as each is done. Returns
    their SubmissionResults, in name order."""
    out_dir = Path(out_dir)
    free = queue.Queue()
    for gpu_id in gpus[:max(1, jobs)]:
        free.put(gpu_id)
    lost = threading.Event()
    lost_reason = []

    def one(name, folder):
        if lost.is_set() or stopping():
            return SubmissionResult(name=name, path=str(folder), error="not graded: "
                                    + (lost_reason[0] if lost_reason else "grading stopped"),
                                    exit_code=EXIT_NO_GPU)
        gpu_id = free.get()
        try:
            grader = SubmissionGrader(context, name, folder, out_dir / name, gpu_id=gpu_id)
            result = grader.grade()
        finally:
            free.put(gpu_id)
        if result.error and result.exit_code == EXIT_NO_GPU:
            lost_reason.append(result.error)
            lost.set()
        write_submission(result, out_dir / name, verbose)
        where = f" on GPU {gpu_id}" if gpu_id is not None else ""
        if result.error:
            say(f"{name}: NOT GRADED ({result.error})")
        else:
            labs = ", ".join(f"{lab.lab.id} {lab.score:.1f}/{lab.max_score:.0f}"
                             + ("" if lab.status == "graded" else f" ({lab.status})")
                             for lab in result.labs)
            say(f"{name}: {result.score:.1f}/{result.max_score:.0f}  [{labs}]  "
                 f"{result.elapsed:.0f} s{where}")
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(gpus)))) as pool:
        futures = [pool.submit(one, name, folder) for name, folder in submissions]
        results = [f.result() for f in futures]
    write_gradebook(out_dir / "gradebook.csv", results, [lab.id for lab in context.labs])
    return results
