"""What the kit offers the grader, and which of its files a submission holds.

A lab registers itself by its files; the grader needs no list of labs:
    labs/NN-name/name.h            the lab's API (and name_main.c, its driver)
    tests/test_NN_name.c           its CUnit suites, one per TODO
    solutions/NN-name/name.cu      the reference solution (speed points are measured against it)
    grading/rubric/NN-name.json    its rubric (optional: a default one otherwise)
and `make` builds, under build/, everything the grader links a student's file with:
    build/obj/tests/test_NN_name.o, build/obj/tests/runner.o, build/obj/tests/gpu_harness.o,
    build/lib/libkit.a, build/lib/libcunit.a, build/grading.env (nvcc and its flags),
    build/solution/test_NN_name (lists the tests), build/solution/obj/NN-name.o,
    build/obj/labs/NN-name/name_main.o, build/obj/common/baselines.o,
    build/obj/grading/timed_driver.o, build/tools/gpu_probe.
"""

from __future__ import annotations

import re
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
        return self.obj("grading", "timed_driver.o")

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
    def test_obj(self):
        return self.kit.obj("tests", f"test_{self.symbol_id}.o")

    @property
    def lister(self):
        return self.kit.build / "solution" / f"test_{self.symbol_id}"

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
        needed = [self.solution_obj, self.main_obj, self.kit.timed_driver_obj,
                  self.kit.baselines_obj]
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
        labs.append(Lab(
            id=folder.name,
            number=match.group("number"),
            name=match.group("name"),
            dir=folder,
            rubric=lab_rubric(kit.rubric_dir, folder.name, match.group("name")),
            kit=kit,
        ))
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
        hits = [lab for lab in labs
                if item in (lab.id, lab.name, lab.number)
                or (item.isdigit() and int(item) == int(lab.number))]
        if not hits:
            known = ", ".join(lab.id for lab in labs) or "none"
            raise GraderError(f"--lab {item}: no such lab (labs: {known})")
        chosen += [lab for lab in hits if lab not in chosen]
    return sorted(chosen, key=lambda lab: lab.id)


def find_student_file(submission, lab):
    """Where a submission holds the lab's student file, or None.

    Looked for, in this order: DIR/NN-name/FILE (a folder shaped like labs/),
    DIR/labs/NN-name/FILE (a whole copy of the kit), DIR/FILE (only the student files), and
    else the one file of that name anywhere below DIR (an archive unpacked into a folder of
    its own, say); when there are several, none is taken (see misplaced_copies()).
    """
    submission = Path(submission)
    for candidate in (submission / lab.id / lab.student_file,
                      submission / "labs" / lab.id / lab.student_file,
                      submission / lab.student_file):
        if candidate.is_file() or candidate.is_symlink():
            return candidate
    copies = misplaced_copies(submission, lab)
    return copies[0] if len(copies) == 1 else None


def misplaced_copies(submission, lab, deepest=4):
    """Files named like the lab's student file anywhere below the submission (not too deep,
    hidden folders left out)."""
    found = []
    for path in sorted(Path(submission).rglob(lab.student_file)):
        parts = path.relative_to(submission).parts
        if len(parts) <= deepest + 1 and not any(p.startswith(".") for p in parts):
            found.append(path)
    return found


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
