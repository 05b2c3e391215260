"""The sandbox that compiling and running a student's code happens in.

Every such command becomes one argv, built by command(): the kit's build/tools/sandbox_exec
(limits, a clean environment, the uid drop, then exec) in front of bubblewrap (namespaces) in
front of the command. No Python runs between fork and exec, and the grader's process runner
(run.py) needs no hook: it starts the argv in a process group of its own as always.

What each kind promises; detect() takes the first that really runs here:
    bwrap-nobody  the grader is root: sandbox_exec drops to uid/gid 65534, which then starts
                  bubblewrap in an unprivileged user namespace. The code is uid 65534 inside
                  and outside: no network, its own pids (all killed when its command ends),
                  private /tmp, only /usr, the dynamic loader's files from /etc and the
                  folders the grader binds (read-only unless bound writable); no /etc/passwd,
                  /home, /root, /opt, solutions/ or other students.
    bwrap-root    root, but the above fails (a bound folder that uid 65534 cannot reach, or
                  no unprivileged user namespaces): bubblewrap runs as root and maps uid
                  65534 inside to root outside, with every capability dropped. Same views and
                  limits, but what it writes in a writable folder is owned by root.
    bwrap         the grader is not root: bubblewrap as the grader's own user, same views.
    nobody        root, bubblewrap cannot run: uid 65534, limits, a session of its own. It
                  sees every file uid 65534 can read, the network, the host's /tmp, and a
                  process it detaches (setsid) can outlive the test.
    none          nothing of the above works: limits only; the student's code runs
                  unisolated as the grader's user. Results say so.
Limits (rlimits, soft = hard) hold for every kind. Isolation.text is the line that results
and reports show.

The environment inside is always a clean one (sandbox_exec, not bubblewrap, clears it, so the
fallbacks get the same): PATH, HOME=/tmp, TMPDIR=/tmp, what `env` gives, and, taken from the
environment the argv is started with, the result channel's KIT_RESULT_FD/KIT_RESULT_TOKEN
(run.py adds them) and, for GPU commands, CUDA_VISIBLE_DEVICES/CUDA_DEVICE_ORDER.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import GraderError

KINDS = ("bwrap-nobody", "bwrap-root", "bwrap", "nobody", "none")
NOBODY = 65534  # uid and gid of the sandboxed code (Debian's nobody/nogroup)
SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EXIT_SANDBOX = 125  # sandbox_exec could not set things up (tools/sandbox_exec.c)

# Seen inside, read-only: /usr, and the top-level folders that are often links into it.
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
# From /etc only what the dynamic loader and Debian's alternatives (cc, cuda) need: no
# /etc/passwd (so no user names), no host names, no credentials of any kind.
ETC_ENTRIES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
# Passed through from the environment the argv is started with (run.py sets them there).
CHANNEL_ENV = ("KIT_RESULT_FD", "KIT_RESULT_TOKEN")
GPU_ENV = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
# What detect() runs in each kind it tries: every bound folder must be readable inside (a
# bind of a folder that uid 65534 cannot read mounts fine, and then cannot be read).
PROBE = ("/usr/bin/sh", "-c", 'for p do [ -r "$p" ] && { [ ! -d "$p" ] || [ -x "$p" ]; } '
         '|| { echo "cannot read $p" >&2; exit 1; }; done', "probe")
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


@dataclass
class Isolation:
    """What detect() found works here."""

    kind: str  # one of KINDS
    text: str  # one line for results and reports
    bwrap: str = None  # the bubblewrap program, for the bwrap kinds
    uid: int = None  # the uid the sandboxed code has (inside the sandbox)
    sandbox_exec: str = None  # the launcher detect() tried it with; command()'s default


# ---- the argv -------------------------------------------------------------------------------


def command(iso, argv, *, ro=(), rw=(), cwd="/", gpu=False, limits=None, env=None,
            sandbox_exec=None):
    """One argv that runs `argv` in the sandbox `iso`.

    ro, rw: (outside path, inside path) pairs bound read-only or writable (bubblewrap kinds;
    later pairs are mounted over earlier ones, so a writable folder can sit inside a
    read-only one). cwd: the folder it starts in (inside path; for nobody/none the same path
    outside). gpu: let it reach the NVIDIA devices. env: variables to set inside.
    """
    launcher = sandbox_exec or iso.sandbox_exec
    if not launcher:
        raise GraderError("sandbox.command: no sandbox_exec given")
    bwrapped = iso.kind.startswith("bwrap")
    out = [str(launcher), *_limit_options(iso, limits or Limits())]
    if iso.kind in ("bwrap-nobody", "nobody"):
        out += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
    if bwrapped:
        # bubblewrap changes into cwd inside; the launcher leaves a folder that uid 65534
        # may not be able to reach.
        out += ["--chdir", "/"]
    else:
        # No bubblewrap to give it a session (--new-session) or to stop setuid programs.
        out += ["--chdir", str(cwd), "--setsid", "--no-new-privs"]
    out += ["--clearenv"]
    for name in CHANNEL_ENV + (GPU_ENV if gpu else ()):
        out += ["--keep-env", name]
    settings = {"PATH": SAFE_PATH, "HOME": "/tmp", "TMPDIR": "/tmp", **(env or {})}
    for name, value in settings.items():
        out += ["--setenv", str(name), str(value)]
    out.append("--")
    if bwrapped:
        out += [iso.bwrap, *_bwrap_options(iso, ro, rw, cwd, gpu, limits or Limits()), "--"]
    out += [str(a) for a in argv]
    return out


def _limit_options(iso, limits):
    out = []
    if limits.cpu_s is not None:
        out += ["--cpu", str(max(1, int(-(-limits.cpu_s // 1))))]  # whole seconds, rounded up
    for option, value in (("--as", limits.address_space), ("--data", limits.data),
                          ("--fsize", limits.file_size), ("--nofile", limits.open_files)):
        if value is not None:
            out += [option, str(int(value))]
    # RLIMIT_NPROC counts every process of the real uid, not just this command's. Only where
    # the sandboxed code has a uid of its own (65534 outside) does it limit the student and
    # nobody else; as root (bwrap-root) it is not enforced at all, and as the grader's user
    # (bwrap, none) it would count the grader's own processes and make its forks fail.
    # The count is shared by every sandboxed command running at the same time.
    if limits.processes is not None and iso.kind in ("bwrap-nobody", "nobody"):
        out += ["--nproc", str(int(limits.processes))]
    return out


def _bwrap_options(iso, ro, rw, cwd, gpu, limits):
    # --unshare-all: user, ipc, pid, net, uts and cgroup namespaces, so no network (a
    # loopback of its own only), no other processes, and every process it starts dies with
    # it (the pid namespace ends when the command does). --die-with-parent: killing the
    # launcher (run.py kills the process group) kills the sandbox. --new-session: no
    # terminal to push keystrokes into. --cap-drop ALL: bubblewrap run as root would
    # otherwise keep capabilities.
    out = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
           "--cap-drop", "ALL"]
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
    if limits.tmp_size is not None and _bwrap_supports(iso.bwrap, "--size"):
        out += ["--size", str(int(limits.tmp_size))]
    out += ["--tmpfs", "/tmp"]
    if gpu:
        # The driver's device files (they must exist already: nothing inside may create
        # them), /sys for the PCI topology the CUDA driver reads, and the persistence
        # daemon's socket.
        for device in sorted(glob.glob("/dev/nvidia*")):
            out += ["--dev-bind", device, device]
        out += ["--ro-bind", "/sys", "/sys",
                "--ro-bind-try", "/run/nvidia-persistenced", "/run/nvidia-persistenced"]
    for option, pairs in (("--ro-bind", ro), ("--bind", rw)):
        for outside, inside in pairs:
            out += [option, os.path.abspath(outside), str(inside)]
    out += ["--chdir", str(cwd)]
    return out


@lru_cache(maxsize=None)
def _bwrap_supports(bwrap, option):
    """Whether this bubblewrap knows an option (--disable-userns came in 0.8, --size in 0.9)."""
    try:
        done = subprocess.run([bwrap, "--help"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return option.encode() in done.stdout + done.stderr


def prepare_writable(iso, path):
    """Makes a folder the grader will bind writable writable by the sandboxed code.

    Only the kinds that run as uid 65534 outside need it: the folder, and everything in it,
    becomes 65534's. (bwrap-root writes as root outside, bwrap and none as the grader.) The
    folders above it must let 65534 through (o+x); detect() with the same binds checks that.
    """
    if iso.kind not in ("bwrap-nobody", "nobody"):
        return
    os.lchown(path, NOBODY, NOBODY)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            os.lchown(os.path.join(folder, name), NOBODY, NOBODY)


def reclaim(iso, path):
    """Gives a folder that prepare_writable() handed to uid 65534 back to the grader, once the
    sandboxed step that wrote there is over: what it made (an executor) can then no longer be
    replaced by code running as 65534 later, this student's or another's."""
    if iso.kind not in ("bwrap-nobody", "nobody"):
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
    must be readable inside, so a folder that uid 65534 cannot read rules out bwrap-nobody.
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
    key = (sandbox_exec, binds, preferred, bwrap, os.geteuid())
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
            raise GraderError(f"sandbox '{preferred}' works only when the grader {need}; "
                              f"here: {', '.join(order)}")
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
            return iso
        failures.append(f"{kind}: {problem}")
    raise GraderError(f"sandbox '{preferred}' does not work here: " + "; ".join(failures))


def _try(iso, binds):
    """None when a trivial command runs in this kind of sandbox, else why not."""
    argv = command(iso, [*PROBE, *binds], ro=[(b, b) for b in binds])
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=PROBE_TIME_LIMIT_S, start_new_session=True)
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
    views = "no network, private /tmp, only the folders it needs, kit read-only"
    text = {
        "bwrap-nobody": f"bubblewrap sandbox, uid {NOBODY}, {views}",
        "bwrap-root": f"bubblewrap sandbox, uid {NOBODY} inside (root without capabilities "
                      f"outside), {views}",
        "bwrap": f"bubblewrap sandbox as the grader's user (uid {uid}), {views}",
        "nobody": f"no sandbox: student code runs as uid {NOBODY} with limits, and can read "
                  "what that user can read, use the network and the host's /tmp",
        "none": f"NOT ISOLATED: student code runs unisolated as the grader's user (uid {uid}), "
                "with limits only",
    }[kind]
    if failures and kind in ("nobody", "none"):
        text += f" (bubblewrap did not run: {failures[-1]})"
    inside = uid if kind in ("bwrap", "none") else NOBODY
    return Isolation(kind=kind, text=text, bwrap=bwrap if kind.startswith("bwrap") else None,
                     uid=inside, sandbox_exec=sandbox_exec)
