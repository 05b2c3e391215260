"""What the kit offers the grader, and which of its files a submission holds.

A lab registers itself by its files; the grader needs no list of labs:
    labs/NN-name/name.h            the lab's API (and name_main.c, its driver)
    tests/test_NN_name.c           its CUnit suites, one per TODO
    grading/calls/api_NN_name.c    its call table: the API as the verdict process sends it
    solutions/NN-name/name.cu      the reference solution (speed points are measured against it)
    grading/rubric/NN-name.json    its rubric (optional: a default one otherwise)
and `make` builds, under build/, what a graded test runs as two processes
(grading/runtime/remote.h):
    the verdict process, prebuilt from the kit's code alone: build/grading/verdict_NN_name
    (runner, suites, verifier, the call table's stubs; its `-l` lists the tests);
    the executor, which the grader links in the sandbox from the student's object and
    build/obj/grading/runtime/{remote_executor,shared_memory}.o,
    build/obj/grading/calls/api_NN_name.exec.o and build/lib/libkit.a (build.executor_parts);
and, for speed points, build/grading/timed_NN_name with the reference's executor
(build/solution/obj/NN-name.o, build/obj/labs/NN-name/name_main.o,
build/obj/grading/runtime/timed_driver.o, build/obj/common/baselines.o). Besides:
build/grading.env (nvcc and its flags), build/lib/libcunit.a, build/tools/gpu_probe and
build/tools/sandbox_exec.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from . import GraderError
from .rubric import lab_rubric

LAB_FOLDER = re.compile(r"^(?P<number>\d\d)-(?P<name>[A-Za-z0-9_]+)$")
MAX_SOURCE_BYTES = 2 * 1024 * 1024


@dataclass
class Kit:
    """Where the kit's parts are. root: the kit the grader belongs to (nvcc runs there, so
    the relative -I paths of build/grading.env hold); labs_root and rubric_dir may point
    elsewhere (the grader's own tests use a fixture kit)."""

    root: Path
    build: Path
    labs_root: Path
    rubric_dir: Path

    @classmethod
    def at(cls, root, build=None, kit_root=None):
        root = Path(root).resolve()
        other = Path(kit_root).resolve() if kit_root else root
        return cls(
            root=root,
            build=Path(build).resolve() if build else root / "build",
            labs_root=other / "labs",
            rubric_dir=other / "grading" / "rubric",
        )

    def obj(self, *parts):
        return self.build.joinpath("obj", *parts)

    @property
    def runner_obj(self):
        return self.obj("tests", "runner.o")

    @property
    def harness_obj(self):
        return self.obj("tests", "gpu_harness.o")

    @property
    def libkit(self):
        return self.build / "lib" / "libkit.a"

    @property
    def libcunit(self):
        return self.build / "lib" / "libcunit.a"

    @property
    def timed_driver_obj(self):
        return self.obj("grading", "runtime", "timed_driver.o")

    @property
    def baselines_obj(self):
        return self.obj("common", "baselines.o")

    @property
    def grading_env(self):
        return self.build / "grading.env"

    @property
    def gpu_probe(self):
        return self.build / "tools" / "gpu_probe"

    def shared_parts(self):
        return [self.runner_obj, self.harness_obj, self.libkit, self.libcunit, self.grading_env]


@dataclass
class Lab:
    id: str  # 01-oddeven
    number: str  # 01
    name: str  # oddeven
    dir: Path  # the kit's labs/01-oddeven: the API header and the driver
    rubric: object
    kit: Kit

    @property
    def symbol_id(self):  # 01_oddeven, as in test_01_oddeven
        return self.id.replace("-", "_")

    @property
    def student_file(self):
        return self.rubric.student_file

    @property
    def bonus_file(self):
        """The lab's second student file, for its bonus TODOs (None: the lab has one file)."""
        return self.rubric.bonus_file

    @property
    def student_files(self):
        return [self.student_file] + ([self.bonus_file] if self.bonus_file else [])

    @property
    def files_named(self):
        """The student files as a message names them: "radix.cu or radix_bonus.cu"."""
        return " or ".join(self.student_files)

    @property
    def test_obj(self):
        return self.kit.obj("tests", f"test_{self.symbol_id}.o")

    @property
    def lister(self):
        """The binary whose `-l` lists the lab's tests: the grader's verdict binary (built from
        the kit's own code, in the student package too)."""
        return self.kit.build / "grading" / f"verdict_{self.symbol_id}"

    @property
    def solution_source(self):
        """The reference solution; a student package has none (no speed points there)."""
        return self.dir.parent.parent / "solutions" / self.id / f"{self.name}.cu"

    @property
    def solution_obj(self):
        return self.kit.build / "solution" / "obj" / f"{self.id}.o"

    @property
    def main_obj(self):
        return self.kit.obj("labs", self.id, f"{self.name}_main.o")

    @property
    def has_driver(self):
        return (self.dir / f"{self.name}_main.c").is_file()

    def missing_parts(self):
        """Prebuilt parts the tests need that are not there (speed parts are optional)."""
        needed = self.kit.shared_parts() + [self.test_obj, self.lister]
        return [str(p) for p in needed if not p.exists()]

    def speed_parts_missing(self):
        needed = [
            self.solution_obj,
            self.main_obj,
            self.kit.timed_driver_obj,
            self.kit.baselines_obj,
        ]
        return [str(p) for p in needed if not p.exists()]


def discover_labs(kit):
    """Every lab of the kit, in order: a folder labs/NN-name with its header name.h."""
    if not kit.labs_root.is_dir():
        raise GraderError(f"no labs folder at {kit.labs_root}")
    labs = []
    for folder in sorted(kit.labs_root.iterdir()):
        match = LAB_FOLDER.match(folder.name)
        if not match or not (folder / f"{match.group('name')}.h").is_file():
            continue
        labs.append(
            Lab(
                id=folder.name,
                number=match.group("number"),
                name=match.group("name"),
                dir=folder,
                rubric=lab_rubric(kit.rubric_dir, folder.name, match.group("name")),
                kit=kit,
            )
        )
        bonus = labs[-1].bonus_file
        if bonus and not (folder / bonus).is_file():
            raise GraderError(
                f"{folder.name}'s rubric names the bonus file {bonus}, and "
                f"{folder / bonus} (the copy a submission without one is graded "
                "with) is missing"
            )
    return labs


def select_labs(labs, wanted):
    """Labs named by --lab: "01", "1", "01-oddeven" or "oddeven"; comma-separated or repeated."""
    if not wanted:
        return list(labs)
    chosen = []
    for item in ",".join(wanted).split(","):
        item = item.strip()
        if not item:
            continue
        hits = [
            lab
            for lab in labs
            if item in (lab.id, lab.name, lab.number)
            or (item.isdigit() and int(item) == int(lab.number))
        ]
        if not hits:
            known = ", ".join(lab.id for lab in labs) or "none"
            raise GraderError(f"--lab {item}: no such lab (labs: {known})")
        chosen += [lab for lab in hits if lab not in chosen]
    return sorted(chosen, key=lambda lab: lab.id)


class Rejected(Exception):
    """The grader will not take a student's file; the message says why, for the student."""


def find_student_file(submission, lab, name=None):
    """Where a submission holds the lab's student file (or its file @p name, the bonus file),
    or None.

    Looked for, in this order: DIR/NN-name/FILE (a folder shaped like labs/),
    DIR/labs/NN-name/FILE (a whole copy of the kit), DIR/FILE (only the student files), and
    else the one file of that name anywhere below DIR (an archive unpacked into a folder of
    its own, say); when there are several, none is taken (see misplaced_copies()).
    No symbolic link to a folder is followed: a submission's links may point anywhere on the
    grading machine. A link in the file's own place is returned, so that read_student_file()
    refuses it with a message rather than the file seeming missing.
    """
    submission, name = Path(submission), name or lab.student_file
    for parts in ((lab.id, name), ("labs", lab.id, name), (name,)):
        if _real_folders(submission, parts[:-1]) and _is_entry(submission.joinpath(*parts)):
            return submission.joinpath(*parts)
    copies = misplaced_copies(submission, lab, name=name)
    return copies[0] if len(copies) == 1 else None


def _real_folders(root, parts):
    """Whether root/parts[0]/parts[1]/... are all folders, none of them a symbolic link."""
    path = Path(root)
    for part in parts:
        path = path / part
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except OSError:
            return False
    return True


def _is_entry(path):
    """Something other than a folder is there (links not followed)."""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def misplaced_copies(submission, lab, deepest=4, name=None):
    """Files named like the lab's student file (or @p name) anywhere below the submission (not
    too deep, hidden folders left out, symbolic links to folders not followed)."""
    submission, name = Path(submission), name or lab.student_file
    found = []
    for folder, folders, files in os.walk(submission, followlinks=False):
        depth = len(Path(folder).relative_to(submission).parts)
        folders[:] = sorted(f for f in folders if not f.startswith(".")) if depth < deepest else []
        if name in files:
            found.append(Path(folder) / name)
    return sorted(found)


def read_student_file(root, path, limit=MAX_SOURCE_BYTES):
    """The bytes of a student's file, read without following a symbolic link anywhere from
    root down (root itself is the grader's choice and may be one). Raises Rejected when the
    file is a link, lies in a linked folder, is not a regular file (a FIFO or a device named
    like the student file must neither hang the grader nor be read) or is larger than limit.
    """
    root, path = Path(root), Path(path)
    try:
        parts = path.relative_to(root).parts
    except ValueError:  # a path relative to root, or one elsewhere
        parts = () if path.is_absolute() else path.parts
    if not parts or any(p in ("..", ".") for p in parts):
        raise Rejected(f"{path.name or path}: not a file inside the submission")
    shown = "/".join(parts)
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            child = _open_folder(folder, part, shown)
            os.close(folder)
            folder = child
        return _read_regular_file(folder, parts[-1], shown, limit)
    finally:
        os.close(folder)


def _open_folder(parent, name, shown):
    """Opens parent/name as a folder, never through a link."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Rejected(
                f"{shown} lies in {name}, which is a symbolic link or not a folder: "
                "submit the folder itself"
            ) from None
        raise Rejected(f"{shown}: cannot open the folder {name} ({err.strerror})") from None


def _read_regular_file(folder, name, shown, limit):
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError as err:
        raise Rejected(f"{shown}: cannot read it ({err.strerror})") from None
    if stat.S_ISLNK(info.st_mode):
        raise Rejected(f"{name} is a symbolic link: submit the file itself")
    if not stat.S_ISREG(info.st_mode):  # checked before opening: a device is never opened
        raise Rejected(f"{name} is not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise Rejected(f"{name} is a symbolic link: submit the file itself") from None
        raise Rejected(f"{shown}: cannot read it ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())  # what was opened, whatever happened since the stat
        if not stat.S_ISREG(info.st_mode):
            raise Rejected(f"{name} is not a regular file")
        if info.st_size > limit:
            raise Rejected(_too_large(name, info.st_size, limit))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise Rejected(_too_large(name, len(data), limit))
    return data


def _too_large(name, size, limit):
    return f"{name} is {size // 1024} KiB, more than {limit // 1024} KiB"


def check_source(path):
    """Why the grader will not take this file, or None when it is fine."""
    path = Path(path)
    if path.is_symlink():
        return f"{path.name} is a symbolic link: submit the file itself"
    if not path.is_file():
        return f"{path.name} is not a regular file"
    size = path.stat().st_size
    if size > MAX_SOURCE_BYTES:
        return f"{path.name} is {size // 1024} KiB, more than {MAX_SOURCE_BYTES // 1024} KiB"
    return None
