"""The sandbox that compiling and running a student's code happens in.

Every such command becomes one argv, built by command(): the kit's build/tools/sandbox_exec
(limits, a clean environment, the uid drop, then exec) in front of bubblewrap (namespaces) in
front of the command. No Python runs between fork and exec, and the grader's process runner
(run.py) needs no hook: it starts the argv in a process group of its own as always.

What each kind promises; detect() takes the first that really runs here:
    bwrap-nobody  the grader is root: sandbox_exec drops to the slot's own uid (below), which
                  then starts bubblewrap in an unprivileged user namespace. The code has that
                  uid inside and outside: no network, its own pids (all killed when its
                  command ends), private /tmp, only /usr, the dynamic loader's files from /etc
                  and the folders the grader binds (read-only unless bound writable); no
                  /etc/passwd, /home, /root, /opt, solutions/ or other students.
    bwrap-root    root, but the above fails (a bound folder that the slot's uid cannot reach,
                  or no unprivileged user namespaces): bubblewrap runs as root and maps uid
                  65534 inside to root outside, with every capability dropped. Same views and
                  limits, but what it writes in a writable folder is owned by root, and the
                  kernel counts no processes against root (no process limit).
    bwrap         the grader is not root: bubblewrap as the grader's own user, same views.
    nobody        root, bubblewrap cannot run: the slot's uid, limits, a session of its own.
                  It sees every file that uid can read (the grader takes solutions/, hidden
                  tests and their builds away from it: protect_secrets()), the network and
                  the host's /tmp.
    none          nothing of the above works: limits only; the student's code runs
                  unisolated as the grader's user. Results say so.
Limits (rlimits, soft = hard) hold for every kind. Isolation.text is the line that results
and reports show. A class or Gradescope run takes only bwrap-nobody or bwrap unless the
instructor names a weaker kind (check_fail_closed()).

Each sandbox has its own resources. Every grading slot (a class run's job, which holds one
GPU for a whole submission; slot 0 alone otherwise) runs its code as a uid of its own,
KIT_SANDBOX_UID_BASE + slot (default 0x70000000 = 1879048192: systemd's "unused" range,
above the container ranges of systemd-nspawn and /etc/subuid and below 2^31, so no account,
daemon or container shares it), so RLIMIT_NPROC, which the kernel counts per uid, counts one
student. Inside bubblewrap the launcher runs again (bound at /run/sandbox_exec) and sets the
process limit once more, where the kernel counts the processes of that one sandbox's user
namespace: the student's concurrent tests cannot starve each other either. A sandbox on the
GPU sees only its GPU's device file (gpu_device_files()).

Policy is enforced by the kernel: commands that run student code (executor runs) pass
--seccomp run (a thread may be made, no process, no exec, no signal to another process, no
socket but AF_UNIX, which the CUDA driver needs, ...; grading/runtime/sandbox_exec.c), or --seccomp tool under compute-sanitizer, which
must start its target. The inner launcher installs it in the bubblewrap kinds, the outer one
in nobody and none. Compiles get none (nvcc starts processes, and runs no student code).

The environment inside is always a clean one (sandbox_exec, not bubblewrap, clears it, so the
fallbacks get the same): PATH, HOME=/tmp, TMPDIR=/tmp, what `env` gives, and, taken from the
environment the argv is started with, the result channel's KIT_RESULT_FD/KIT_RESULT_TOKEN
(run.py adds them) and, for GPU commands, CUDA_VISIBLE_DEVICES/CUDA_DEVICE_ORDER.
"""

from __future__ import annotations

import dataclasses
import fcntl
import glob
import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import GraderError

KINDS = ("bwrap-nobody", "bwrap-root", "bwrap", "nobody", "none")
STRONG = ("bwrap-nobody", "bwrap")  # what a class or Gradescope run takes without being told
OWN_UID = ("bwrap-nobody", "nobody")  # the kinds whose code runs as the slot's uid outside
NOBODY = 65534  # the uid inside bwrap-root's sandbox (Debian's nobody)
UID_BASE = 0x70000000  # KIT_SANDBOX_UID_BASE's default; see the module's comment
MAX_SLOTS = 256  # grading slots: uids UID_BASE ... UID_BASE + 255
# The uid of a slot has at most this many sandboxes' processes at once (the per-uid limit
# is this times a sandbox's): the concurrent tests of one submission, with room to spare.
SANDBOXES_PER_SLOT = 16
INSIDE_LAUNCHER = "/run/sandbox_exec"  # where the launcher is bound inside bubblewrap
SECCOMP_PROFILES = ("run", "tool")
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EXIT_SANDBOX = 125  # sandbox_exec could not set things up (grading/runtime/sandbox_exec.c)

# Seen inside, read-only: /usr, and the top-level folders that are often links into it.
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
# From /etc only what the dynamic loader and Debian's alternatives (cc, cuda) need: no
# /etc/passwd (so no user names), no host names, no credentials of any kind.
ETC_ENTRIES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
# Passed through from the environment the argv is started with (run.py sets them there).
CHANNEL_ENV = ("KIT_RESULT_FD", "KIT_RESULT_TOKEN")
GPU_ENV = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
# What detect() runs in each kind it tries, under the run profile: every bound folder must be
# readable inside (a bind of a folder that the sandbox's uid cannot read mounts fine, and
# then cannot be read).
PROBE = (
    "/usr/bin/sh",
    "-c",
    'for p do [ -r "$p" ] && { [ ! -d "$p" ] || [ -x "$p" ]; } '
    '|| { echo "cannot read $p" >&2; exit 1; }; done',
    "probe",
)
PROBE_TIME_LIMIT_S = 30.0


@dataclass
class Limits:
    """rlimits for a sandboxed command; None: not set (inherited)."""

    cpu_s: float = None  # CPU seconds per process (SIGXCPU, then SIGKILL)
    # Bytes of virtual memory. Not for programs that use CUDA: the driver reserves far more
    # address space than it uses, so any sane limit breaks them. Use `data` there.
    address_space: int = None
    data: int = None  # bytes of heap and other private writable memory
    file_size: int = None  # bytes per file written (SIGXFSZ, or EFBIG when ignored)
    processes: int = None  # processes of the sandbox's uid; see _limit_options()
    open_files: int = None
    tmp_size: int = None  # bytes of the private /tmp (bubblewrap kinds only)


class SandboxFailed(GraderError):
    """A sandboxed step could not start (the launcher or bubblewrap failed to set it up):
    the grader's trouble, never the student's. The submission is not graded."""


@dataclass
class Isolation:
    """What detect() found works here; for_slot() gives the view of one grading slot."""

    kind: str  # one of KINDS
    text: str  # one line for results and reports
    bwrap: str = None  # the bubblewrap program, for the bwrap kinds
    uid: int = None  # the uid the sandboxed code has (inside the sandbox)
    sandbox_exec: str = None  # the launcher detect() tried it with; command()'s default
    slot: int = 0  # the grading slot (see the module's comment)
    gpu: str = None  # the slot's GPU as CUDA_VISIBLE_DEVICES names it; None: not pinned
    failures: tuple = ()  # why the stronger kinds did not run here

    def for_slot(self, slot, gpu=None):
        """The same isolation for grading slot `slot` on GPU `gpu` (its own uid, its GPU's
        device file)."""
        uid = leased_uid(slot) if self.kind in OWN_UID else self.uid
        return dataclasses.replace(self, slot=slot, gpu=None if gpu is None else str(gpu), uid=uid)


_leases = {}  # slot -> (uid, the open lock file that holds it), for this grader's lifetime
_leases_lock = threading.Lock()


def _lease_folder():
    """Where graders on this machine take their uids: a folder only the grader's user can
    write (root: /run/kitgrader), so sandboxed code can neither hold nor free a lease."""
    if os.geteuid() == 0 and os.path.isdir("/run") and os.access("/run", os.W_OK):
        folder = Path("/run/kitgrader")
    else:
        folder = Path(tempfile.gettempdir()) / f"kitgrader-slots-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise GraderError(f"{folder}: not a private folder of the grader's user")
    return folder


def leased_uid(slot):
    """The uid of grading slot `slot`, held for this grader as long as it runs: slot's own
    (uid_for_slot) unless another grader on this machine holds that one, then the next free.
    Two graders at once (two terminals, two Slurm tasks on a node) then never share a uid, so
    neither's process limit nor its end-of-slot kill (end_slot) reaches the other's code."""
    with _leases_lock:
        if slot in _leases:
            return _leases[slot][0]
        folder = _lease_folder()
        held = {uid for uid, _ in _leases.values()}
        for k in range(MAX_SLOTS):
            uid = uid_for_slot((slot + k) % MAX_SLOTS)
            if uid in held:
                continue
            fd = os.open(folder / f"{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _leases[slot] = (uid, fd)
            return uid
        raise GraderError(
            f"every one of the {MAX_SLOTS} sandbox uids is held by a grader "
            "running on this machine: wait for one to end"
        )


def uid_base():
    """KIT_SANDBOX_UID_BASE, else UID_BASE."""
    text = os.environ.get("KIT_SANDBOX_UID_BASE", "").strip()
    if not text:
        return UID_BASE
    try:
        base = int(text, 0)
    except ValueError:
        base = -1
    if not 1000 <= base <= 2**31 - 1 - MAX_SLOTS:
        raise GraderError(
            f"KIT_SANDBOX_UID_BASE={text}: want a number from 1000 to " f"{2**31 - 1 - MAX_SLOTS}"
        )
    return base


def uid_for_slot(slot):
    """The uid (and gid) sandboxed code of grading slot `slot` runs as: one no account has."""
    if not 0 <= slot < MAX_SLOTS:
        raise GraderError(f"sandbox: no grading slot {slot} (at most {MAX_SLOTS})")
    base = uid_base()
    uid = base + slot
    taken = None
    try:
        taken = pwd.getpwuid(uid).pw_name
    except KeyError:
        pass
    if uid in (NOBODY, 65535) or taken:
        raise GraderError(
            f"sandbox: uid {uid} (KIT_SANDBOX_UID_BASE {base} + slot {slot}) is "
            f"{taken or 'reserved'}'s: the sandbox needs uids no account or "
            "service uses; set KIT_SANDBOX_UID_BASE to a free range"
        )
    return uid


# ---- the argv -------------------------------------------------------------------------------


def command(
    iso,
    argv,
    *,
    ro=(),
    rw=(),
    cwd="/",
    gpu=False,
    limits=None,
    env=None,
    sandbox_exec=None,
    seccomp=None,
):
    """One argv that runs `argv` in the sandbox `iso` (of its slot: Isolation.for_slot()).

    ro, rw: (outside path, inside path) pairs bound read-only or writable (bubblewrap kinds;
    later pairs are mounted over earlier ones, so a writable folder can sit inside a
    read-only one). cwd: the folder it starts in (inside path; for nobody/none the same path
    outside). gpu: let it reach its GPU (iso.gpu's device file only). env: variables to set
    inside. seccomp: "run" for a command that runs student code, "tool" for a wrapper that
    starts it (compute-sanitizer), None for none (compiles).
    """
    launcher = sandbox_exec or iso.sandbox_exec
    if not launcher:
        raise GraderError("sandbox.command: no sandbox_exec given")
    if seccomp is not None and seccomp not in SECCOMP_PROFILES:
        raise GraderError(f"sandbox.command: no seccomp profile '{seccomp}'")
    bwrapped = iso.kind.startswith("bwrap")
    limits = limits or Limits()
    out = [str(launcher), *_limit_options(limits)]
    if iso.kind in OWN_UID:
        # RLIMIT_NPROC counts every process of the real uid: here the slot's alone. Inside
        # bubblewrap each sandbox has its own limit too (below), so the uid's is a ceiling
        # for all of the slot's sandboxes together.
        if limits.processes is not None:
            scale = SANDBOXES_PER_SLOT if bwrapped else 1
            out += ["--nproc", str(int(limits.processes) * scale)]
        out += ["--uid", str(iso.uid), "--gid", str(iso.uid)]
    if bwrapped:
        # bubblewrap changes into cwd inside; the launcher leaves a folder that the sandbox's
        # uid may not be able to reach.
        out += ["--chdir", "/"]
    else:
        # No bubblewrap to give it a session (--new-session) or to stop setuid programs.
        out += ["--chdir", str(cwd), "--setsid", "--no-new-privs"]
    out += ["--clearenv"]
    for name in CHANNEL_ENV + (GPU_ENV if gpu else ()):
        out += ["--keep-env", name]
    settings = {"PATH": SAFE_PATH, "HOME": "/tmp", "TMPDIR": "/tmp"}
    uuid = gpu_uuid(iso.gpu) if gpu else None
    if uuid:
        # Inside bubblewrap CUDA sees only the GPU whose device file is there, and numbers
        # the GPUs it sees from 0: a UUID names the same GPU in and out.
        settings["CUDA_VISIBLE_DEVICES"] = uuid
    settings.update(env or {})
    for name, value in settings.items():
        out += ["--setenv", str(name), str(value)]
    if seccomp and not bwrapped:
        out += ["--seccomp", seccomp]
    out.append("--")
    if bwrapped:
        out += [
            iso.bwrap,
            *_bwrap_options(iso, ro, rw, cwd, gpu, limits, launcher),
            "--",
            INSIDE_LAUNCHER,
        ]
        # In the sandbox's own user namespace RLIMIT_NPROC counts this sandbox's processes
        # alone. Root outside (bwrap-root) is exempt: the kernel does not count root's.
        if limits.processes is not None and iso.kind != "bwrap-root":
            out += ["--nproc", str(int(limits.processes))]
        if seccomp:
            out += ["--seccomp", seccomp]
        out.append("--")
    out += [str(a) for a in argv]
    return out


def _limit_options(limits):
    out = []
    if limits.cpu_s is not None:
        out += ["--cpu", str(max(1, int(-(-limits.cpu_s // 1))))]  # whole seconds, rounded up
    for option, value in (
        ("--as", limits.address_space),
        ("--data", limits.data),
        ("--fsize", limits.file_size),
        ("--nofile", limits.open_files),
    ):
        if value is not None:
            out += [option, str(int(value))]
    return out


def _bwrap_options(iso, ro, rw, cwd, gpu, limits, launcher):
    # --unshare-all: user, ipc, pid, net, uts and cgroup namespaces, so no network (a
    # loopback of its own only), no other processes, and every process it starts dies with
    # it (the pid namespace ends when the command does). --die-with-parent: killing the
    # launcher (run.py kills the process group) kills the sandbox. --new-session: no
    # terminal to push keystrokes into. --cap-drop ALL: bubblewrap run as root would
    # otherwise keep capabilities.
    out = [
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    if _bwrap_supports(iso.bwrap, "--disable-userns"):
        out.append("--disable-userns")  # no nested user namespaces: less kernel to attack
    if iso.kind == "bwrap-root":
        out += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    out += ["--ro-bind", "/usr", "/usr"]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        else:
            out += ["--ro-bind-try", path, path]
    for path in ETC_ENTRIES:
        out += ["--ro-bind-try", path, path]
    out += ["--proc", "/proc", "--dev", "/dev"]
    out += ["--ro-bind", str(Path(launcher).resolve()), INSIDE_LAUNCHER]
    if limits.tmp_size is not None and _bwrap_supports(iso.bwrap, "--size"):
        out += ["--size", str(int(limits.tmp_size))]
    out += ["--tmpfs", "/tmp"]
    if gpu:
        # The driver's device files for this slot's GPU (they must exist already: nothing
        # inside may create them), /sys for the PCI topology the CUDA driver reads, and the
        # persistence daemon's socket.
        for device in gpu_device_files(iso.gpu):
            out += ["--dev-bind", device, device]
        out += [
            "--ro-bind",
            "/sys",
            "/sys",
            "--ro-bind-try",
            "/run/nvidia-persistenced",
            "/run/nvidia-persistenced",
        ]
    for option, pairs in (("--ro-bind", ro), ("--bind", rw)):
        for outside, inside in pairs:
            out += [option, os.path.abspath(outside), str(inside)]
    out += ["--chdir", str(cwd)]
    return out


@lru_cache(maxsize=None)
def _bwrap_supports(bwrap, option):
    """Whether this bubblewrap knows an option (--disable-userns came in 0.8, --size in 0.9)."""
    try:
        done = subprocess.run(
            [bwrap, "--help"], stdin=subprocess.DEVNULL, capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return option.encode() in done.stdout + done.stderr


def prepare_writable(iso, path):
    """Makes a folder the grader will bind writable writable by the sandboxed code of the
    slot `iso` belongs to (Isolation.for_slot()).

    Only the kinds that run as the slot's uid outside need it: the folder, and everything in
    it, becomes that uid's. (bwrap-root writes as root outside, bwrap and none as the
    grader.) The folders above it must let the uid through (o+x); detect() with the same
    binds checks that.
    """
    if iso.kind not in OWN_UID:
        return
    os.lchown(path, iso.uid, iso.uid)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), iso.uid, iso.uid)


def reclaim(iso, path):
    """Gives a folder that prepare_writable() handed to a slot's uid back to the grader, once
    the sandboxed step that wrote there is over: what it made (an executor) can then no longer
    be replaced by code running as that uid later, this student's or another's."""
    if iso.kind not in OWN_UID:
        return
    uid, gid = os.getuid(), os.getgid()
    os.lchown(path, uid, gid)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), uid, gid)


# ---- which kind works here ------------------------------------------------------------------

_found = {}


def find_bwrap():
    """The bubblewrap program: $KIT_BWRAP, else `bwrap` on PATH; None when there is none."""
    given = os.environ.get("KIT_BWRAP")
    if given:
        return given
    return shutil.which("bwrap")


def detect(sandbox_exec, binds=(), preferred=None):
    """The strongest kind of KINDS that really runs here, as an Isolation.

    binds: the folders the grader will bind, as they will be (prepare_writable() first): each
    must be readable inside, so a folder that slot 0's uid cannot read rules out
    bwrap-nobody. The Isolation returned is slot 0's (Isolation.for_slot() gives others).
    preferred: "auto", or a kind to force (GraderError when it does not work here; "none"
    always works); None: $KIT_SANDBOX, else "auto". Cached per arguments.
    """
    if preferred is None:
        preferred = os.environ.get("KIT_SANDBOX") or "auto"
    if preferred != "auto" and preferred not in KINDS:
        raise GraderError(f"unknown sandbox '{preferred}': auto, {', '.join(KINDS)}")
    sandbox_exec = str(Path(sandbox_exec).resolve())
    if not os.access(sandbox_exec, os.X_OK):
        raise GraderError(f"{sandbox_exec} is missing: run make first")
    binds = tuple(os.path.abspath(b) for b in binds)
    for path in binds:
        if not os.path.exists(path):
            raise GraderError(f"sandbox: {path} is missing (a folder to bind)")
    bwrap = find_bwrap()
    key = (sandbox_exec, binds, preferred, bwrap, os.geteuid(), uid_base())
    if key not in _found:
        _found[key] = _detect(sandbox_exec, binds, preferred, bwrap)
    return _found[key]


def _detect(sandbox_exec, binds, preferred, bwrap):
    root = os.geteuid() == 0
    if root:
        order = ["bwrap-nobody", "bwrap-root", "nobody", "none"]
    else:
        order = ["bwrap", "none"]
    if preferred != "auto":
        if preferred not in order:
            need = "runs as root" if not root else "does not run as root"
            raise GraderError(
                f"sandbox '{preferred}' works only when the grader {need}; "
                f"here: {', '.join(order)}"
            )
        order = [preferred]
    failures = []
    for kind in order:
        iso = _isolation(kind, bwrap, sandbox_exec, failures)
        if kind == "none":
            return iso
        if kind.startswith("bwrap") and not bwrap:
            failures.append(f"{kind}: no bwrap (install bubblewrap, or set KIT_BWRAP)")
            continue
        problem = _try(iso, binds)
        if problem is None:
            return dataclasses.replace(iso, failures=tuple(failures))
        failures.append(f"{kind}: {problem}")
    raise GraderError(f"sandbox '{preferred}' does not work here: " + "; ".join(failures))


def _try(iso, binds, gpu=False):
    """None when a trivial command runs in this kind of sandbox, else why not."""
    argv = command(iso, [*PROBE, *binds], ro=[(b, b) for b in binds], seccomp="run", gpu=gpu)
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIME_LIMIT_S,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return f"no answer within {PROBE_TIME_LIMIT_S:g} s"
    except OSError as err:
        return f"{argv[0]}: {err.strerror}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return (lines[-1] if lines else f"exit status {done.returncode}")[:300]


def _isolation(kind, bwrap, sandbox_exec, failures):
    uid = os.geteuid()
    own = uid_for_slot(0) if kind in OWN_UID else None
    views = "no network, private /tmp, only the folders it needs, kit read-only"
    policy = "seccomp"
    text = {
        "bwrap-nobody": f"bubblewrap sandbox, a uid per grading slot (from {own}), {policy}, "
        f"{views}",
        "bwrap-root": f"bubblewrap sandbox, uid {NOBODY} inside (root without capabilities "
        f"outside, no process limit), {policy}, {views}",
        "bwrap": f"bubblewrap sandbox as the grader's user (uid {uid}), {policy}, {views}",
        "nobody": f"no sandbox: student code runs as a uid per grading slot (from {own}) with "
        f"limits and {policy}, and can read what that user can read, use the network "
        "and the host's /tmp",
        "none": f"NOT ISOLATED: student code runs unisolated as the grader's user (uid {uid}), "
        f"with limits and {policy} only",
    }[kind]
    if failures and kind in ("nobody", "none"):
        text += f" (bubblewrap did not run: {failures[-1]})"
    inside = {"bwrap": uid, "none": uid, "bwrap-root": NOBODY}.get(kind, own)
    return Isolation(
        kind=kind,
        text=text,
        bwrap=bwrap if kind.startswith("bwrap") else None,
        uid=inside,
        sandbox_exec=sandbox_exec,
        failures=tuple(failures),
    )


# ---- fail closed ----------------------------------------------------------------------------


def check_fail_closed(iso, named, what):
    """For a class or Gradescope run (`what` says which): GraderError (exit 2) unless `iso`
    is bubblewrap with a uid that is not root's (bwrap-nobody, or bwrap for a grader that is
    not root), or the instructor named the kind (`named`: --sandbox, or KIT_SANDBOX)."""
    if iso.kind in STRONG or named not in (None, "", "auto"):
        return
    why = "; ".join(iso.failures) or "no reason recorded"
    raise GraderError(
        f"{what}: refusing to grade under weaker isolation than bubblewrap with a uid other "
        f"than root's: the best that works here is '{iso.kind}' ({why}). To fix it: install "
        "bubblewrap (make deps, or the package bubblewrap); let the sandbox's uids reach the "
        "kit, its build folder and the output folder (o+x on every folder above them); allow "
        "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
        "user.max_user_namespaces > 0, or the container's seccomp/AppArmor profile); "
        f"KIT_SANDBOX_UID_BASE must name uids this machine maps. Or grade under '{iso.kind}' "
        f"knowingly: --sandbox {iso.kind} (or KIT_SANDBOX={iso.kind})."
    )


# ---- what the sandbox's uids must never read ------------------------------------------------


def secret_paths(kit):
    """The folders with the reference solutions and hidden tests, and what make built from
    them (the emulation's builds too), that exist in this kit."""
    roots = {Path(kit.root), Path(kit.labs_root).parent}
    build = Path(kit.build)
    found = []
    # The emulation's builds of the solutions and of its planted faults (which hold lines of
    # the solutions), and those faults' sources: every folder of build/emulate but the parts a
    # submission's emulated tests are linked with (obj/, lib/).
    emulated = build / "emulate"
    emulation = (
        sorted(p for p in emulated.iterdir() if p.name not in ("obj", "lib"))
        if emulated.is_dir()
        else []
    )
    for path in sorted(
        {
            *(r / "solutions" for r in roots),
            *(r / "tests" / "hidden" for r in roots),
            *(r / "emulation" / "fixtures" for r in roots),
            build / "solution",
            build / "obj" / "solutions",
            build / "obj" / "tests" / "hidden",
            build / "grading",
            *emulation,
        }
    ):
        if path.is_dir() and not path.is_symlink():
            found.append(path)
    return found


def protect_secrets(iso, paths):
    """Where the sandbox's uid sees the host's files (nobody): takes every permission for
    others off `paths` (the grader, their owner and make keep theirs; nothing sandboxed uses
    them), then checks as that uid that it can neither list nor enter any of them, and
    refuses (GraderError) if it still can (an ACL, say). In bubblewrap kinds they are not
    there at all. none: the student's code is the grader's user and reads what it reads (the
    kind says so; a class run takes it only when named)."""
    if iso.kind != "nobody" or not paths:
        return
    for path in paths:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        if mode & 0o007:
            os.chmod(path, mode & ~0o007)
    script = 'for p do if [ -r "$p" ] || [ -x "$p" ]; then echo "$p"; fi; done'
    argv = command(iso, ["/usr/bin/sh", "-c", script, "check", *map(str, paths)])
    done = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PROBE_TIME_LIMIT_S,
        start_new_session=True,
    )
    readable = done.stdout.split()
    if done.returncode != 0 or readable:
        raise GraderError(
            f"sandbox: uid {iso.uid} can still read {', '.join(readable) or '?'}"
            f"{done.stderr.strip()[:200]}: take its permissions away (chmod o-rwx,"
            " and any ACL) or grade with bubblewrap"
        )


def check_starts(iso):
    """Raises SandboxFailed when a trivial command cannot start in the sandbox of this slot,
    with its GPU and the run profile, as an executor's would (after a test whose output
    carries the launcher's or bubblewrap's words)."""
    problem = _try(iso, (), gpu=True)
    if problem is not None:
        raise SandboxFailed(f"the sandbox could not start: {problem}")


def end_slot(iso):
    """Kills every process still running as the slot's uid (a kind where the sandboxed code
    has a uid of its own outside), at the end of a submission: nothing of one student's
    lingers into the next one's grading in the same slot."""
    if iso.kind not in OWN_UID:
        return
    argv = [
        iso.sandbox_exec,
        "--uid",
        str(iso.uid),
        "--gid",
        str(iso.uid),
        "--",
        "/usr/bin/kill",
        "-KILL",
        "--",
        "-1",
    ]
    try:
        subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        pass


# ---- the GPU's device files -----------------------------------------------------------------

GPU_NODE = re.compile(r"^/dev/nvidia(\d+)$")
SHARED_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")
MIG_CAPS = "/dev/nvidia-caps"


def parse_gpu_list(smi_text):
    """nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader -> [(index, uuid,
    bus id)]."""
    rows = []
    for line in (smi_text or "").splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def bus_key(bus):
    """00000000:3B:00.0 and 0000:3b:00.0 -> (0, 0x3b, 0, 0); None if it is no PCI address."""
    match = re.fullmatch(
        r"\s*(?:([0-9a-fA-F]+):)?([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-7])\s*", bus or ""
    )
    if not match:
        return None
    return tuple(int(part or "0", 16) for part in match.groups())


def device_minor(information):
    """The "Device Minor:" of /proc/driver/nvidia/gpus/BUS/information, or None."""
    match = re.search(r"^Device Minor:\s*(\d+)\s*$", information or "", re.M)
    return int(match.group(1)) if match else None


def mig_parent(listing, mig_uuid):
    """The index of the GPU that MIG device `mig_uuid` is part of, from `nvidia-smi -L`."""
    parent = None
    for line in (listing or "").splitlines():
        gpu = re.match(r"^GPU (\d+):", line)
        if gpu:
            parent = gpu.group(1)
        elif mig_uuid in line and parent is not None:
            return parent
    return None


def select_gpu_files(visible, devices, smi_text, read_information, listing=""):
    """The device files a sandbox on GPU `visible` gets, and that GPU's UUID (or None).

    visible: CUDA_VISIBLE_DEVICES of its slot: an index as nvidia-smi numbers the GPUs (in PCI
    bus order, CUDA_DEVICE_ORDER=PCI_BUS_ID), a GPU-... UUID, a MIG-... UUID, "" (no GPU)
    or None (not pinned). devices: the /dev/nvidia* paths here. smi_text: nvidia-smi's
    index,uuid,pci.bus_id csv. read_information(bus): the text of
    /proc/driver/nvidia/gpus/BUS/information. listing: nvidia-smi -L (for MIG).
    The GPU's own /dev/nvidiaN comes from its bus id's "Device Minor"; the driver's shared
    nodes always come along. GraderError when several GPU nodes are here and the one to
    give cannot be found: never all of them.
    """
    if visible is not None and str(visible).strip() == "":
        return [], None  # no GPU at all (CUDA_VISIBLE_DEVICES="")
    devices = sorted(set(devices))
    nodes = {int(m.group(1)): d for d in devices for m in [GPU_NODE.match(d)] if m}
    shared = [d for d in SHARED_NODES if d in devices]
    rows = parse_gpu_list(smi_text)
    want, mig = (str(visible).strip() if visible is not None else None), False
    if want and want.startswith("MIG-"):
        mig, want = True, mig_parent(listing, want)
    row = next((r for r in rows if want is not None and want in (r[0], r[1])), None)
    minor = None
    if row is not None:
        key = bus_key(row[2])
        minor = device_minor(read_information(row[2])) if key else None
    uuid = (visible if mig else row[1]) if row is not None else None
    if minor is not None and minor in nodes:
        chosen = [nodes[minor]]
    elif len(nodes) <= 1:
        chosen = list(nodes.values())  # one GPU here (or none): it is the one
    else:
        raise GraderError(
            f"sandbox: cannot tell which of {len(nodes)} GPU device files belongs to GPU "
            f"{visible if visible is not None else '(not chosen)'} (nvidia-smi's index, uuid "
            "and bus id, and /proc/driver/nvidia/gpus/BUS/information's Device Minor), and "
            "a sandbox gets its own GPU's alone: name the GPUs with --gpus, as nvidia-smi "
            "numbers them"
        )
    extra = [MIG_CAPS] if mig and MIG_CAPS in devices else []
    return chosen + shared + extra, uuid


_gpu_files = {}


def _proc_information(bus):
    """/proc/driver/nvidia/gpus/BUS/information, whichever way the bus id is written."""
    key = bus_key(bus)
    for folder in glob.glob("/proc/driver/nvidia/gpus/*"):
        if bus_key(os.path.basename(folder)) == key:
            try:
                return Path(folder, "information").read_text(errors="replace")
            except OSError:
                return ""
    return ""


def _smi_text(*query):
    smi = shutil.which("nvidia-smi")
    if not smi:
        return ""
    try:
        done = subprocess.run([smi, *query], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _gpu_lookup(visible):
    """(device files, UUID), or the GraderError select_gpu_files() raised; cached."""
    if visible not in _gpu_files:
        devices = glob.glob("/dev/nvidia*")
        gpu_nodes = [d for d in devices if GPU_NODE.match(d)]
        smi = listing = ""
        if visible is not None and gpu_nodes:
            smi = _smi_text("--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader")
            if str(visible).startswith("MIG-"):
                listing = _smi_text("-L")
        try:
            _gpu_files[visible] = select_gpu_files(
                visible, devices, smi, _proc_information, listing
            )
        except GraderError as err:
            _gpu_files[visible] = err
    return _gpu_files[visible]


def gpu_device_files(visible):
    """The device files of GPU `visible` and the driver's shared ones, as they are here
    (select_gpu_files(); cached). GraderError when they cannot be told apart."""
    found = _gpu_lookup(visible)
    if isinstance(found, GraderError):
        raise found
    return found[0]


def gpu_uuid(visible):
    """The UUID of GPU `visible`, when nvidia-smi knows it; else None."""
    found = None if visible is None else _gpu_lookup(visible)
    return None if found is None or isinstance(found, GraderError) else found[1]
