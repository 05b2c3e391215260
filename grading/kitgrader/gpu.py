"""Is a GPU here, is it free, and which GPUs may the grader use.

The answer to "is a GPU here" comes from the kit's own build/tools/gpu_probe (exit 0: ready,
3: not), run with the environment the tests will have (CUDA_VISIBLE_DEVICES), so it sees
what they see. "Is it free" asks nvidia-smi, when there is one, for compute processes on
that GPU: another job's kernels would make time limits and speed points unfair.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass

from . import GraderError, NoGpu
from .run import run_limited

PROBE_TIME_LIMIT_S = 60.0
BUSY_RETRIES = 3  # a GPU in use is looked at again this many times,
BUSY_WAIT_S = 5.0  # this far apart, before it is passed over


def gpu_env(gpu=None, base=None):
    """The environment for processes that must use one GPU (None: as the grader was given)."""
    env = dict(os.environ if base is None else base)
    if gpu is not None:
        env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the numbering nvidia-smi uses
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    return env


@dataclass
class Probe:
    """What build/tools/gpu_probe found, run by the grader (never by a student's process)."""

    ready: bool
    line: str  # the probe's line, for people
    facts: str  # for the verdict process (KIT_GPU_FACTS): "ready FREE TOTAL MAJ MIN SMS NAME"


def probe(kit, env):
    """The GPU as the kit's own probe sees it with this environment, as a Probe."""
    if not kit.gpu_probe.exists():
        raise GraderError(f"{kit.gpu_probe} is missing: run make first")
    result = run_limited([kit.gpu_probe, "--facts"], time_limit=PROBE_TIME_LIMIT_S, env=env)
    lines = result.output.strip().splitlines()
    facts = next((l[len("facts: ") :] for l in lines if l.startswith("facts: ")), None)
    lines = [l for l in lines if not l.startswith("facts: ")]
    line = lines[-1] if lines else ""
    if result.timed_out:
        return Probe(
            False,
            "the GPU probe did not answer within a minute (a GPU that hangs?)",
            "none the GPU probe did not answer",
        )
    ready = result.exit_code == 0
    line = line or f"gpu_probe exit {result.exit_code}"
    if facts is None:  # a probe that says only its line: ready, with unknown memory
        facts = f"ready 0 0 0 0 0 {line}" if ready else f"none {line}"
    return Probe(ready, line, facts)


def require_gpu(kit, env, retries=0, wait_s=3.0):
    """The Probe of a ready GPU (after a few tries); raises NoGpu with the probe's reason."""
    found = probe(kit, env)
    while not found.ready and retries > 0:
        time.sleep(wait_s)
        retries -= 1
        found = probe(kit, env)
    if not found.ready:
        where = env.get("CUDA_VISIBLE_DEVICES")
        gpu = f" (CUDA_VISIBLE_DEVICES={where})" if where is not None else ""
        raise NoGpu(
            f"grading needs an NVIDIA GPU, and none is usable here{gpu}: "
            f"{found.line.replace('no usable GPU: ', '')}"
        )
    return found


def smi(*query):
    """nvidia-smi's answer to a --query-...: one list of fields per line (None: no answer)."""
    tool = shutil.which("nvidia-smi")
    if not tool:
        return None
    try:
        proc = subprocess.run(
            [tool, *query, "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return [
        [c.strip() for c in line.split(",")] for line in proc.stdout.splitlines() if line.strip()
    ]


def memory_mib(gpu):
    """A GPU's memory in MiB as nvidia-smi numbers it (gpu None: the first), or None."""
    rows = smi("--query-gpu=index,uuid,memory.total") or []
    for row in rows:
        if len(row) >= 3 and (gpu is None or str(gpu) in row[:2]) and row[2].isdigit():
            return int(row[2])
    return None


def all_gpus():
    """nvidia-smi's GPU numbers, or None when there is no nvidia-smi."""
    rows = smi("--query-gpu=index,uuid")
    return [row[0] for row in rows] if rows else None


def choose_gpus(requested):
    """The GPUs to grade on: --gpus, else CUDA_VISIBLE_DEVICES, else every GPU nvidia-smi
    lists, else [None] (let CUDA pick)."""
    if requested:
        return [g.strip() for g in requested.split(",") if g.strip()]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip():
        return [g.strip() for g in visible.split(",") if g.strip()]
    return all_gpus() or [None]


def busy_with(gpu):
    """Descriptions of other compute processes on this GPU ([] if free or unknown)."""
    gpus = smi("--query-gpu=index,uuid")
    apps = smi("--query-compute-apps=gpu_uuid,pid,process_name,used_memory")
    if not gpus or not apps:
        return []
    if gpu is None:
        uuids = {row[1] for row in gpus}
    else:
        uuids = {row[1] for row in gpus if gpu in (row[0], row[1])}
    mine = os.getpid()
    return [
        f"pid {row[1]} ({row[2]}, {row[3]} MiB)"
        for row in apps
        if len(row) >= 4 and row[0] in uuids and row[1] != str(mine)
    ]


def pick_gpus(kit, candidates, count, allow_busy=False):
    """Up to `count` of the candidate GPUs that are ready and (unless allowed) not in use.

    Returns [(gpu, the probe's line)] and notes on the GPUs passed over; raises NoGpu,
    with every reason, when none can be used.
    """
    chosen, passed_over = [], []
    for gpu in candidates:
        name = f"GPU {gpu}" if gpu is not None else "the GPU"
        found = probe(kit, gpu_env(gpu))
        ready, line = found.ready, found.line
        if not ready:
            reason = line.replace("no usable GPU: ", "")
            passed_over.append(f"{name}: {reason}" if gpu is not None else reason)
            continue
        others = [] if allow_busy else busy_with(gpu)
        for _ in range(BUSY_RETRIES):
            if not others:
                break
            time.sleep(BUSY_WAIT_S)  # a process that just ended may still hold it a moment
            others = busy_with(gpu)
        if others:
            passed_over.append(f"{name} is in use by {', '.join(others)}")
            continue
        chosen.append((gpu, line))
        if len(chosen) == count:
            break
    if not chosen:
        busy = any("in use by" in note for note in passed_over)
        raise NoGpu(
            "grading needs an NVIDIA GPU, and none is usable here: "
            + "; ".join(passed_over)
            + (
                ". Time limits and speed points would not be fair on a GPU in use: "
                "wait, choose others with --gpus, or grade anyway with "
                "--allow-busy-gpu (make grade: KIT_ALLOW_BUSY_GPU=1)"
                if busy
                else ""
            )
        )
    return chosen, passed_over
