"""Grading a class through Slurm: one job array, one task per submission.

`grading/grade --class DIR --slurm` vets the class folder as a local class run does, writes
OUT/.slurm/grade.sbatch (a plain script: read it) and OUT/.slurm/job.json (the job id, the
students in task order, the labs), submits the script with `sbatch --parsable`, and then
(unless --detach) gathers: it polls `squeue` and `scontrol -o show job` (never
`sbatch --wait`), prints one line of progress, and writes OUT/gradebook.csv whenever a result
arrives. `grading/grade --gather OUT` gathers a job submitted earlier.

Each task runs `grading/grade --class DIR --slurm-task N ...`: it grades the one student on
line N of OUT/.slurm/students-JOB.txt, on the GPU Slurm gave it (CUDA_VISIBLE_DEVICES),
writing OUT/STUDENT/ exactly as a local class run does, and its gradebook row to
OUT/.slurm/rows/STUDENT.json (atomically). A student has a result when that row says
"graded"; the same command again submits only the students without one (--regrade: all).
A task that ends without a row (failed, timed out, cancelled, its node lost) gives the row
"not graded: Slurm task N STATE (log: ...)", never a zero.

The functions that read Slurm's output take its text, so they are tested with canned output.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

from . import GraderError
from .report import gradebook_row, write_atomic, write_gradebook_rows
from .results import SubmissionResult
from .sandbox import MAX_SLOTS

FINISHED = {
    "COMPLETED",
    "FAILED",
    "TIMEOUT",
    "CANCELLED",
    "NODE_FAIL",
    "PREEMPTED",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "REVOKED",
    "SPECIAL_EXIT",
}
POLL_SECONDS = 2.0


# ---- the script -----------------------------------------------------------------------------


def sbatch_script(
    task_command,
    tasks,
    log_pattern,
    gres="gpu:1",
    time_min=None,
    partition=None,
    account=None,
    job_name="kit-grade",
):
    """The job array's script: #SBATCH lines, then the one command every task runs."""
    if re.search(r"\s", str(log_pattern)):
        raise GraderError(f"--out {log_pattern}: Slurm's #SBATCH lines take no spaces in a path")
    lines = [
        "#!/bin/bash",
        "# Written by grading/grade --slurm: one array task per student (docs/instructor.md,",
        '# "Grading on a Slurm cluster"). Task N grades line N of the students file.',
        f"#SBATCH --job-name={job_name}",
        f"#SBATCH --array={array_spec(tasks)}",
        f"#SBATCH --output={log_pattern}",
        "#SBATCH --ntasks=1",
    ]
    if gres:
        lines.append(f"#SBATCH --gres={gres}")
    if time_min:
        lines.append(f"#SBATCH --time={int(time_min)}")
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    lines += [
        "",
        "# CUDA_VISIBLE_DEVICES is Slurm's (the GRES above): the grader grades on it.",
        "exec "
        + " ".join(shlex.quote(str(word)) for word in task_command)
        + ' --slurm-task "$SLURM_ARRAY_TASK_ID"',
        "",
    ]
    return "\n".join(lines)


def array_spec(tasks):
    """0-3,5 for [0, 1, 2, 3, 5]."""
    tasks = sorted(set(tasks))
    parts, start = [], None
    for i, task in enumerate(tasks):
        if start is None:
            start = task
        if i + 1 == len(tasks) or tasks[i + 1] != task + 1:
            parts.append(str(start) if start == task else f"{start}-{task}")
            start = None
    return ",".join(parts)


def parse_array_ids(text):
    """Task ids from an ArrayTaskId value: "3", "0-7%2", "1,4-6" (None for "N/A")."""
    text = text.split("%")[0]
    ids = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?(?::(\d+))?", part.strip())
        if not m:
            continue
        first, last, step = int(m.group(1)), int(m.group(2) or m.group(1)), int(m.group(3) or 1)
        ids.extend(range(first, last + 1, step))
    return ids


# ---- what Slurm says ------------------------------------------------------------------------


def parse_sbatch(text):
    """The job id from `sbatch --parsable` ("1234" or "1234;cluster")."""
    m = re.match(r"\s*(\d+)", text)
    if not m:
        raise GraderError(f"sbatch said: {text.strip()[:300]}")
    return m.group(1)


def parse_scontrol(text):
    """{task id: state} from `scontrol -o show job JOB` (one line per record; a pending
    remainder of the array is one record with a range of task ids)."""
    states = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "ArrayTaskId" not in fields or "JobState" not in fields:
            continue
        for task in parse_array_ids(fields["ArrayTaskId"]):
            states[task] = fields["JobState"]
    return states


def parse_squeue(text):
    """{task id: state} from `squeue -h -r -j JOB -o "%i %T"` (lines "1234_5 RUNNING";
    a pending range may show as "1234_[5-9] PENDING")."""
    states = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\s*\d+_\[?([0-9,\-%:]+)\]?\s+(\S+)\s*", line)
        if m:
            for task in parse_array_ids(m.group(1)):
                states[task] = m.group(2)
    return states


def task_states(job_id, run=subprocess.run):
    """Every task's state as Slurm knows it now; {} when it no longer knows the job (every
    task has ended); None when Slurm did not answer."""
    states = {}
    try:
        proc = run(
            ["squeue", "-h", "-r", "-j", str(job_id), "-o", "%i %T"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0:
            states.update(parse_squeue(proc.stdout))
        proc = run(
            ["scontrol", "-o", "show", "job", str(job_id)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0:
            for task, state in parse_scontrol(proc.stdout).items():
                states.setdefault(task, state)
                if state in FINISHED:
                    states[task] = state
        elif "invalid job id" not in (proc.stdout + proc.stderr).lower():
            # The controller did not answer (restarting, busy): nothing is known, and
            # nothing is taken for ended.
            print(
                f"grade: scontrol: {(proc.stderr or proc.stdout).strip()[:200]}; asking " "again",
                file=sys.stderr,
            )
            return None
    except (OSError, subprocess.TimeoutExpired) as err:
        print(f"grade: asking Slurm failed ({err}); asking again", file=sys.stderr)
        return None
    return states


def task_count(students, per_task):
    """Array tasks for this many students, per_task each (the last may have fewer)."""
    return -(-students // per_task)


def task_students(names, task, per_task):
    """The students of array task `task`: lines task*K ... task*K+K-1 of the names file."""
    return names[task * per_task : (task + 1) * per_task] if task >= 0 else []


def task_slot(environ, index):
    """The grading slot (its sandbox uid, sandbox.py) of a task: tasks that share a node at
    once must not share a uid (a slot's end kills its uid's processes). Slurm gives each a GPU
    of its own, so the slot is the GPU's number (CUDA_VISIBLE_DEVICES=3: slot 3); without one,
    the submission's index."""
    first = environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(first) % MAX_SLOTS if first.isdigit() else index % MAX_SLOTS


# ---- rows -----------------------------------------------------------------------------------


def rows_dir(out):
    return Path(out) / ".slurm" / "rows"


def write_row(out, name, row):
    """A task's gradebook row, written whole (temp file and rename)."""
    rows_dir(out).mkdir(parents=True, exist_ok=True)
    write_atomic(rows_dir(out) / f"{name}.json", json.dumps(row) + "\n")


def read_row(out, name):
    try:
        row = json.loads((rows_dir(out) / f"{name}.json").read_text())
    except (OSError, ValueError):
        return None
    return row if isinstance(row, list) else None


def has_result(out, name):
    """A graded row, and the student's results.json (delete it to have the student graded
    again)."""
    row = read_row(out, name)
    return bool(row) and "graded" in row and (Path(out) / name / "results.json").is_file()


def failed_row(name, folder, task, state, log, lab_ids):
    why = f"not graded: Slurm task {task} {state} (log: {log})"
    return gradebook_row(SubmissionResult(name=name, path=str(folder), error=why), lab_ids)


ACTIVE = {
    "RUNNING",
    "PENDING",
    "CONFIGURING",
    "COMPLETING",
    "REQUEUED",
    "SUSPENDED",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
}


def gradebook(out, job, states, final):
    """Writes OUT/gradebook.csv from the rows that are in; returns the counts (graded,
    running, pending, failed) of this job's tasks. states: {task: Slurm state} (a task Slurm
    does not list counts as pending until final)."""
    lab_ids = job["labs"]
    rows, counts = [], {"graded": 0, "running": 0, "pending": 0, "failed": 0}
    per_task = job.get("per_task", 1)  # a job.json from before --per-task has one each
    tasks = {name: k // per_task for k, name in enumerate(job["students"])}
    for entry in job["entries"]:
        name, folder, refused = entry["name"], entry["folder"], entry["refused"]
        if refused:
            rows.append(
                gradebook_row(
                    SubmissionResult(name=name, path=folder, error=f"not graded: {refused}"),
                    lab_ids,
                )
            )
            continue
        row = read_row(out, name)
        task = tasks.get(name)
        if task is None:  # graded by an earlier job
            rows.append(row or failed_row(name, folder, "?", "no result", "-", lab_ids))
            continue
        state = (states or {}).get(task, "")
        log = job["log"].replace("%a", str(task)).replace("%A", str(job["job_id"]))
        if row and "not graded" not in row and (state in ACTIVE or not final):
            counts["graded"] += 1  # one of a running task's K students, done (--per-task)
            rows.append(row)
        elif state in ACTIVE or (not state and not final):
            counts["running" if state in ACTIVE - {"PENDING"} else "pending"] += 1
            rows.append(
                gradebook_row(
                    SubmissionResult(
                        name=name,
                        path=folder,
                        error=f"not graded yet (Slurm task {task} {state or 'PENDING'})",
                    ),
                    lab_ids,
                )
            )
        elif row:
            counts["failed" if "not graded" in row else "graded"] += 1
            rows.append(row)
        else:
            counts["failed"] += 1
            rows.append(failed_row(name, folder, task, state or "ENDED (cancelled?)", log, lab_ids))
    write_gradebook_rows(Path(out) / "gradebook.csv", rows, lab_ids)
    return counts


def all_ended(states, total):
    """Whether no task will run any more: none is pending or running (a task Slurm no longer
    lists, e.g. one cancelled while pending, has ended too)."""
    return states is not None and not any(state in ACTIVE for state in states.values())


# ---- submitting and gathering ---------------------------------------------------------------


def submit(out, job, script_text, run=subprocess.run):
    """Writes the script and job.json, submits; returns the job id."""
    slurm = Path(out) / ".slurm"
    script = slurm / "grade.sbatch"
    write_atomic(script, script_text)
    try:
        proc = run(
            ["sbatch", "--parsable", str(script)], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GraderError(f"sbatch failed: {err}")
    if proc.returncode != 0:
        raise GraderError(f"sbatch refused the job: {(proc.stderr or proc.stdout).strip()[:500]}")
    job["job_id"] = parse_sbatch(proc.stdout)
    write_job(out, job)
    return job["job_id"]


def write_job(out, job):
    write_atomic(Path(out) / ".slurm" / "job.json", json.dumps(job, indent=1) + "\n")


def load_job(out):
    try:
        return json.loads((Path(out) / ".slurm" / "job.json").read_text())
    except (OSError, ValueError) as err:
        raise GraderError(f"{out}: no Slurm job to gather here ({err})")


def gather(out, say=print, poll=POLL_SECONDS, run=subprocess.run):
    """Polls until every task of the job in OUT has ended; writes the gradebook as results
    arrive. Returns the last counts."""
    job = load_job(out)
    total = len(job["students"])
    tty = sys.stdout.isatty()
    last = None
    while True:
        states = task_states(job["job_id"], run)
        final = all_ended(states, total)
        counts = gradebook(out, job, states, final)
        line = (
            f"slurm job {job['job_id']}: {counts['graded']} graded, {counts['running']} "
            f"running, {counts['pending']} pending, {counts['failed']} failed "
            f"(of {total})"
        )
        if line != last:
            if tty:
                print("\r" + line, end="", flush=True)
            else:
                say(line)
            last = line
        if final:
            break
        time.sleep(poll)
    if tty:
        print()
    return counts
