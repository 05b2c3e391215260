#!/usr/bin/env python3
"""The grader's intake checks (make check-grader): what it takes from a submission and a class.

usage: python3 grading/tests/test_intake.py [--build BUILD] [unittest options, test names]

No GPU needed. Covered:
  * the allowlist of imports (allowlist.py, forbidden.py): the real labs' solutions and
    skeletons and the GPU fixtures pass (host_sort is refused for qsort); an honest variation
    (printf debugging, device properties, occupancy, a __device__ global) passes; calls off
    the list, a .symver alias of getenv, managed and mapped memory, the grader's __wrap_ and
    __real_ names and a lab file's own cudaMemcpy are refused. Small .cu files are compiled
    with nvcc (skipped, with the reason, where there is no nvcc or no build);
  * includes (includes.py): the source scan before compiling, and the check of the files the
    compiler really read (nvcc -M), including an include whose name comes from a macro;
  * taking the student file (discover.py) without following a link at any depth, without
    hanging on a FIFO, and within the size limit;
  * a class folder's entries (classroom.py) and the gradebook's cells (report.py).
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

sys.dont_write_bytecode = True  # no __pycache__ in the kit
import testkit  # noqa: E402  (grading/tests/testkit.py)
import fixture_patch  # noqa: E402  (grading/tests/fixture_patch.py)
from testkit import ROOT, TESTS  # noqa: E402

from kitgrader import allowlist, classroom, discover, forbidden, includes, report  # noqa: E402
from kitgrader.results import SubmissionResult  # noqa: E402

BUILD = ROOT / "build"  # --build changes it
NVCC_FLAGS = ["-arch=sm_90", "-O3", "-std=c++17", "-Icommon", "-Ilabs/01-oddeven"]
LAB01 = SimpleNamespace(id="01-oddeven", student_file="oddeven.cu")


def lab01_fixtures():
    """The GPU fixtures of Lab 01 (the others, such as Lab 02's, are compiled and checked by
    test_gpu_fixtures_build.py, which knows each fixture's lab)."""
    return [
        folder
        for folder in sorted((TESTS / "fixtures" / "gpu").iterdir())
        if folder.is_dir() and fixture_patch.fixture_lab(folder) == "01-oddeven"
    ]


def fixture_sources():
    """(where, text) of each fixture's student files as the grader sees them: where is
    ("gpu", NAME, "oddeven.cu") or ("host", NAME, ..., FILE.cu), text a GPU fixture's file
    (fixture_patch.source) or a host fixture's, written as a submission."""
    for folder in lab01_fixtures():
        if (folder / "oddeven.cu").is_file() or (folder / fixture_patch.CHANGE_FILE).is_file():
            yield ("gpu", folder.name, "oddeven.cu"), fixture_patch.source(folder)
    hosts = testkit.host_fixtures()
    for source in sorted(hosts.rglob("*.cu")):
        yield ("host", *source.relative_to(hosts).parts), source.read_text()


def find_nvcc():
    env = BUILD / "grading.env"
    if env.exists():
        for line in env.read_text().splitlines():
            if line.startswith("NVCC="):
                return line.split("=", 1)[1]
    return shutil.which("nvcc") or next(
        (p for p in ["/usr/local/cuda/bin/nvcc"] if os.access(p, os.X_OK)), None
    )


def need_nvcc(test):
    nvcc = find_nvcc()
    if not nvcc or not os.access(nvcc, os.X_OK):
        test.skipTest("no nvcc here: the checks that compile are left out")
    return nvcc


def compile_all(nvcc, sources, folder):
    """Compiles {name: .cu path} to folder/name.o, several at once; {name: object}."""

    def one(item):
        name, source = item
        obj = Path(folder) / f"{name}.o"
        proc = subprocess.run(
            [nvcc, *NVCC_FLAGS, "-c", str(source), "-o", str(obj)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"nvcc {source} failed:\n{proc.stderr}")
        return name, obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(pool.map(one, sources.items()))


# ---- the allowlist of imports --------------------------------------------------------------

SNIPPETS = {
    # An honest lab file with printf debugging, device queries, occupancy and a device global.
    "legit": r"""
#include <stdio.h>
#include "cuda_check.h"
#include "oddeven.h"
__device__ unsigned int g_swaps;
__global__ void count_kernel(unsigned int *keys, size_t n)
{
    if (threadIdx.x == 0 && n) { atomicAdd(&g_swaps, keys[0]); printf("device %u\n", keys[0]); }
}
static int pick_blocks(void)
{
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
    int per_sm = 0, min_grid = 0, block = 0;
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_kernel, 256, 0));
    CUDA_TRY(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, count_kernel));
    printf("debug: %s, %d blocks per SM, block %d\n", prop.name, per_sm, block);
    printf("done\n");
    fprintf(stderr, "debug\n");
    fflush(stdout);
    unsigned int zero = 0;
    CUDA_TRY(cudaMemcpyToSymbol(g_swaps, &zero, sizeof zero));
    return per_sm * prop.multiProcessorCount;
}
int helper_for_tests(void) { return pick_blocks(); }
""",
    "symver": r"""
#include "oddeven.h"
extern "C" char *getenv_alias(const char *);
__asm__(".symver getenv_alias, getenv@GLIBC_2.2.5");
int probe(void) { return getenv_alias("HOME") != 0; }
""",
    "calls": r"""
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <wordexp.h>
#include <sys/stat.h>
#include "oddeven.h"
int probe(void)
{
    dprintf(1, "x");
    char name[] = "/tmp/xXXXXXX";
    int fd = mkstemp(name);
    rename(name, "/tmp/y");
    fchmod(fd, 0777);
    posix_fallocate(fd, 0, 10);
    wordexp_t w;
    return wordexp("$HOME", &w, 0);
}
""",
    "host_memory": r"""
#include "oddeven.h"
__managed__ int shared_flag;
int probe(void)
{
    void *p;
    cudaMallocManaged(&p, 4);
    cudaHostAlloc(&p, 4, 0);
    cudaMallocHost(&p, 4);
    return shared_flag;
}
""",
    "wrappers": r"""
#include "oddeven.h"
extern "C" cudaError_t __real_cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
extern "C" cudaError_t __wrap_cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
    return __real_cudaMemcpy(d, s, n, k);
}
extern "C" cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
    return __real_cudaMemcpy(d, s, n, k);
}
""",
}


class AllowedImports(unittest.TestCase):
    """forbidden.check_object with the allowlist, on objects nvcc makes here."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="kitgrader-intake-"))
        cls.objects = {}
        nvcc = find_nvcc()
        if not nvcc or not (BUILD / "grading.env").exists():
            return
        sources = {}
        for name, text in SNIPPETS.items():
            (cls.tmp / f"{name}.cu").write_text(text)
            sources[name] = cls.tmp / f"{name}.cu"
        for folder in lab01_fixtures():
            source = folder / "oddeven.cu"
            if (folder / "change.cu").exists():  # the solution with a change (fixture_patch)
                source = cls.tmp / f"fixture_{folder.name}" / "oddeven.cu"
                source.parent.mkdir()
                source.write_text(fixture_patch.source(folder))
            if source.exists() and not includes.scan_source(source.read_text(), source.name):
                sources["fixture_" + folder.name] = source
        cls.objects = compile_all(nvcc, sources, cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        need_nvcc(self)
        if not self.objects:
            self.skipTest(f"no build at {BUILD} (run make): the kit's symbols are needed")
        kit = discover.Kit.at(ROOT, build=BUILD)
        self.labs = {lab.id: lab for lab in discover.discover_labs(kit)}
        self.lab = self.labs["01-oddeven"]
        self.symbols = forbidden.kit_symbols(self.lab)

    def check(self, name_or_path, lab=None):
        lab = lab or self.lab
        obj = self.objects.get(name_or_path, name_or_path)
        symbols = self.symbols if lab is self.lab else forbidden.kit_symbols(lab)
        return forbidden.check_object(obj, lab, symbols, lab.rubric.forbidden)

    def message(self, name):
        findings = self.check(name)
        self.assertTrue(findings, f"{name} should be refused")
        return forbidden.summary(findings, self.lab.student_file)

    def test_real_solutions_and_skeletons_pass(self):
        for lab in self.labs.values():
            for obj in (lab.solution_obj, BUILD / "student" / "obj" / f"{lab.id}.o"):
                if obj.exists():
                    self.assertEqual(self.check(obj, lab), [], obj)

    def test_gpu_fixtures_pass_unless_they_expect_a_refusal(self):
        """A fixture is refused when its expect.json says the lab is forbidden or that an
        import is refused (the hostile ones); every other one passes."""
        fixtures = [n for n in self.objects if n.startswith("fixture_")]
        self.assertGreaterEqual(len(fixtures), 6)
        for name in fixtures:
            expect = json.loads(
                (TESTS / "fixtures" / "gpu" / name[len("fixture_") :] / "expect.json").read_text()
            )
            if expect.get("lab_status") == "forbidden" or "refused" in expect["about"]:
                self.assertTrue(self.check(name), f"{name} should be refused")
            else:
                self.assertEqual(self.check(name), [], name)
        message = self.message("fixture_host_sort")
        self.assertIn("qsort", message)
        self.assertIn("must be your own code", message)

    def test_an_honest_variation_passes(self):
        self.assertEqual(self.check("legit"), [])

    def test_a_symver_alias_of_getenv_is_refused(self):
        message = self.message("symver")
        self.assertIn("oddeven.cu calls getenv(), which this lab does not allow", message)
        self.assertIn("What your code may call", message)

    def test_calls_off_the_list_are_refused_by_name(self):
        message = self.message("calls")
        for call in ("dprintf", "mkstemp", "rename", "fchmod", "posix_fallocate", "wordexp"):
            self.assertIn(call + "()", message)
        self.assertIn("cudaMalloc", message)  # what the lab allows instead

    def test_host_visible_memory_is_refused(self):
        message = self.message("host_memory")
        for name in ("cudaMallocManaged", "cudaHostAlloc"):
            self.assertIn(name, message)
        self.assertIn(
            "managed memory (__managed__) lets the host read device memory directly", message
        )

    def test_the_graders_wrappers_and_allowed_calls_cannot_be_replaced(self):
        message = self.message("wrappers")
        self.assertIn("defines __wrap_cudaMemcpy", message)
        self.assertIn("uses __real_cudaMemcpy", message)
        self.assertIn("defines cudaMemcpy, a call a lab file may use but not replace", message)


class AllowlistTables(unittest.TestCase):
    def test_versions_are_stripped(self):
        for name in ("getenv@GLIBC_2.2.5", "getenv@@GLIBC_2.2.5", "getenv"):
            self.assertEqual(allowlist.strip_version(name), "getenv")

    def test_nvcc_names_with_a_generated_suffix(self):
        # -rdc=true objects (Lab 05) import a registration function named after the file
        self.assertTrue(allowlist.nvcc_generated("__cudaRegisterLinkedBinary_4e1f2a_9_quick"))
        for name in ("getenv", "__cudaRegisterLinkedBinar", "x__cudaRegisterLinkedBinary_1"):
            self.assertFalse(allowlist.nvcc_generated(name), name)

    def test_groups_make_the_base_and_leave_out_host_memory(self):
        self.assertIn("cudaMemcpy", allowlist.BASE)
        self.assertIn("sqrtf", allowlist.BASE)
        self.assertIn("kit_report_cuda_error", allowlist.BASE)
        for name in (
            "getenv",
            "__cudaRegisterManagedVar",
            "cudaMallocManaged",
            "cudaHostAlloc",
            "qsort",
            "write",
            "open",
        ):
            self.assertNotIn(name, allowlist.BASE)
        for group in allowlist.GROUPS:
            self.assertTrue(group.title and group.names, group.key)

    def test_a_rubric_may_add_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            lab = SimpleNamespace(id="01-oddeven", kit=SimpleNamespace(rubric_dir=Path(tmp)))
            self.assertEqual(allowlist.allowed(lab), allowlist.BASE)  # no rubric file
            (Path(tmp) / "01-oddeven.json").write_text('{"allow": ["strcmp"]}')
            self.assertIn("strcmp", allowlist.allowed(lab))
            self.assertIn("and for this lab strcmp", allowlist.what_is_allowed(lab))
            self.assertEqual(
                allowlist.refused(["strcmp", "getenv", "getenv"], allowlist.allowed(lab)),
                ["getenv"],
            )


# ---- includes -----------------------------------------------------------------------------


class SourceScan(unittest.TestCase):
    def refused(self, text, *words):
        message = includes.scan_source(text, "oddeven.cu")
        self.assertIsNotNone(message, text)
        for word in words:
            self.assertIn(word, message)
        return message

    # Hostile fixtures that the scan refuses; every fixture not marked hostile must pass.
    SCAN_REFUSES = [
        "gpu/include_solution",
        "host/include_passwd",
        "host/include_solution",
        "host/incbin",
    ]

    def test_the_real_sources_and_fixtures(self):
        for source in sorted(ROOT.glob("labs/*/*.cu")) + sorted(ROOT.glob("solutions/*/*.cu")):
            self.assertIsNone(includes.scan_source(source.read_text(), source.name), source)
        for where, text in fixture_sources():
            source = "/".join(where)
            if "/".join(where[:2]) in self.SCAN_REFUSES:
                self.assertIsNotNone(includes.scan_source(text, where[-1]), source)
            elif "hostile" not in text[:300]:
                self.assertIsNone(includes.scan_source(text, where[-1]), source)

    def test_absolute_and_climbing_includes(self):
        self.refused('#include "/etc/passwd"\n', "line 1", "/etc/passwd", "by name")
        self.refused("int x;\n#  include <../../solutions/01-oddeven/oddeven.cu>\n", "line 2")
        self.refused('#include "a/../../b.h"\n', "..")
        self.refused('%:include "/etc/passwd"\n', "/etc/passwd")  # a digraph

    def test_an_include_continued_on_the_next_line(self):
        self.refused('int x;\n#include \\\n"/etc/passwd"\n', "line 2", "/etc/passwd")
        self.refused('#inc\\\nlude "/etc/passwd"\n', "line 1")
        self.refused('#include \\  \r\n"/etc/passwd"\r\n', "line 1")  # spaces, CRLF
        self.refused('asm(".inc\\\nbin x");', "incbin")

    def test_comments_are_not_includes_and_cannot_hide_one(self):
        self.assertIsNone(
            includes.scan_source(
                '// #include "/etc/passwd"\n/* #include "../x.h"\n*/\n#include <stdio.h>\n', "f"
            )
        )
        # A raw string that looks like the start of a comment hides nothing.
        self.refused('const char *s = R"x(" /* )x";\n#include "/etc/passwd"\n// */\n', "line 2")

    def test_incbin_in_any_spelling(self):
        self.refused('asm(".incbin \\"/etc/passwd\\"");', "incbin")
        self.refused("/* INCBIN */ int x;", "incbin")
        self.refused('asm(".inc" "bin \\"/etc/passwd\\"");', "incbin")
        self.refused('asm(".inc"\n    "bin \\"/etc/passwd\\"");', "incbin")
        self.refused('asm(".in\\x63" "bin x");', "incbin")
        self.refused('asm(".in\\143bin x");', "incbin")
        self.refused('asm(u8".inc" R"y(bin x)y");', "incbin")

    def test_other_ways_to_read_a_file(self):
        self.refused("#include_next <stdio.h>\n", "#include_next")
        self.refused('#embed "/etc/passwd"\n', "#embed")
        self.refused('#pragma GCC dependency "/etc/passwd"\n', "dependency")
        self.refused('_Pragma("GCC dependency \\"/etc/passwd\\"")\n', "dependency")
        self.refused('asm(".inc" "lude \\"/etc/passwd\\"");', ".include")
        self.refused('asm(".macro m a b\\n.\\\\a\\\\b\\n.endm");', ".macro")

    def test_a_computed_include_passes_the_scan(self):
        self.assertIsNone(includes.scan_source('#define F "/etc/passwd"\n#include F\n', "f"))


class CompilerDependencies(unittest.TestCase):
    def roots(self, lab="01-oddeven"):
        nvcc = need_nvcc(self)
        return includes.allowed_roots(ROOT / "labs" / lab, ROOT / "common", nvcc)

    def deps(self, source, lab="01-oddeven", cwd=ROOT):
        nvcc = need_nvcc(self)
        proc = subprocess.run(
            [
                nvcc,
                "-M",
                "-x",
                "cu",
                f"-I{ROOT / 'common'}",
                f"-I{ROOT / 'labs' / lab}",
                str(source),
            ],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout

    def test_the_roots(self):
        roots = self.roots()
        self.assertIn(Path(os.path.realpath(ROOT / "common")), roots)
        self.assertIn(Path(os.path.realpath(ROOT / "labs" / "01-oddeven")), roots)
        self.assertIn(Path("/usr/include"), roots)
        self.assertTrue(any((root / "cuda_runtime.h").exists() for root in roots))
        hits = includes._roots.cache_info().hits
        self.assertEqual(self.roots(), roots)
        self.assertEqual(includes._roots.cache_info().hits, hits + 1)  # asked once

    def test_the_real_solutions_pass(self):
        for source in sorted(ROOT.glob("solutions/*/*.cu")):
            lab = source.parent.name
            deps = self.deps(source, lab)
            self.assertIn("cuda_runtime.h", deps)
            self.assertIsNone(
                includes.check_dependencies(deps, str(source), self.roots(lab)), source
            )

    def test_a_computed_include_is_caught(self):
        with tempfile.TemporaryDirectory() as tmp:
            secret = Path(tmp) / "elsewhere" / "secret.h"
            secret.parent.mkdir()
            secret.write_text("int secret = 42;\n")
            work = Path(tmp) / "work"
            work.mkdir()
            source = work / "oddeven.cu"
            source.write_text(f'#define F "{secret}"\n#include F\n#include "oddeven.h"\n')
            self.assertIsNone(includes.scan_source(source.read_text(), source.name))
            message = includes.check_dependencies(
                self.deps(source.name, cwd=work), source.name, self.roots(), cwd=work
            )
            self.assertIsNotNone(message)
            self.assertIn(str(secret), message)
            self.assertIn("include only the lab's header", message)

    def test_a_header_beside_the_source_is_caught(self):
        # The source's own folder is the grader's work folder, never an include folder.
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "notes.h").write_text("int n;\n")
            (Path(tmp) / "oddeven.cu").write_text('#include "notes.h"\n')
            message = includes.check_dependencies(
                self.deps("oddeven.cu", cwd=tmp), "oddeven.cu", self.roots(), cwd=tmp
            )
            self.assertIn("notes.h", message or "")

    def test_dependency_file_syntax_and_links_out_of_a_root(self):
        with tempfile.TemporaryDirectory() as tmp:
            lab = Path(tmp) / "lab dir"
            lab.mkdir()
            (lab / "ok.h").write_text("")
            (Path(tmp) / "secret.h").write_text("")
            (lab / "link.h").symlink_to(Path(tmp) / "secret.h")
            lab_escaped = str(lab).replace(" ", "\\ ")
            text = (
                f"oddeven.o oddeven.d : oddeven.cu \\\n  {lab_escaped}/ok.h \\\n"
                f"  {lab_escaped}/link.h\n{lab_escaped}/ok.h:\n"
            )
            self.assertEqual(
                includes.parse_dependencies(text), ["oddeven.cu", f"{lab}/ok.h", f"{lab}/link.h"]
            )
            message = includes.check_dependencies(text, "oddeven.cu", [lab], cwd=tmp)
            self.assertIn(f"includes {lab}/link.h", message or "")
            self.assertIsNone(
                includes.check_dependencies(
                    text.replace("link.h", "ok.h"), "oddeven.cu", [lab], cwd=tmp
                )
            )


# ---- the student's file -------------------------------------------------------------------


class TakingTheFile(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kitgrader-intake-"))
        self.sub = self.tmp / "sub"
        self.sub.mkdir()
        self.elsewhere = self.tmp / "elsewhere"
        (self.elsewhere / "01-oddeven").mkdir(parents=True)
        (self.elsewhere / "01-oddeven" / "oddeven.cu").write_text("// the solution\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def rejected(self, path, *words, limit=discover.MAX_SOURCE_BYTES):
        with self.assertRaises(discover.Rejected) as caught:
            discover.read_student_file(self.sub, path, limit)
        for word in words:
            self.assertIn(word, str(caught.exception))
        return str(caught.exception)

    def test_a_normal_file(self):
        (self.sub / "01-oddeven").mkdir()
        (self.sub / "01-oddeven" / "oddeven.cu").write_text("int x;\n")
        found = discover.find_student_file(self.sub, LAB01)
        self.assertEqual(found, self.sub / "01-oddeven" / "oddeven.cu")
        self.assertEqual(discover.read_student_file(self.sub, found), b"int x;\n")
        self.assertEqual(discover.read_student_file(self.sub, "01-oddeven/oddeven.cu"), b"int x;\n")

    def test_a_linked_file(self):
        (self.sub / "oddeven.cu").symlink_to(self.elsewhere / "01-oddeven" / "oddeven.cu")
        found = discover.find_student_file(self.sub, LAB01)
        self.assertEqual(found, self.sub / "oddeven.cu")  # found, so the message says why
        self.rejected(found, "symbolic link", "submit the file itself")

    def test_a_linked_folder_at_depth_one(self):
        (self.sub / "01-oddeven").symlink_to(self.elsewhere / "01-oddeven")
        self.assertIsNone(discover.find_student_file(self.sub, LAB01))
        self.assertEqual(discover.misplaced_copies(self.sub, LAB01), [])
        self.rejected(self.sub / "01-oddeven" / "oddeven.cu", "symbolic link", "01-oddeven")

    def test_a_linked_folder_at_depth_two(self):
        (self.sub / "labs").mkdir()
        (self.sub / "labs" / "01-oddeven").symlink_to(self.elsewhere / "01-oddeven")
        (self.sub / "archive").mkdir()
        (self.sub / "archive" / "labs").symlink_to(self.elsewhere)
        self.assertIsNone(discover.find_student_file(self.sub, LAB01))
        self.assertEqual(discover.misplaced_copies(self.sub, LAB01), [])
        self.rejected("labs/01-oddeven/oddeven.cu", "symbolic link")
        self.rejected("archive/labs/01-oddeven/oddeven.cu", "labs", "symbolic link")

    def test_a_fifo_neither_hangs_nor_is_read(self):
        os.mkfifo(self.sub / "oddeven.cu")
        found = discover.find_student_file(self.sub, LAB01)
        self.assertEqual(found, self.sub / "oddeven.cu")
        previous = signal.signal(signal.SIGALRM, lambda *_: self.fail("read_student_file hung"))
        signal.alarm(5)
        try:
            started = time.monotonic()
            self.rejected(found, "not a regular file")
            self.assertLess(time.monotonic() - started, 2)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    def test_the_size_limit(self):
        (self.sub / "oddeven.cu").write_bytes(b"x" * 100)
        self.assertEqual(len(discover.read_student_file(self.sub, "oddeven.cu", 100)), 100)
        self.rejected("oddeven.cu", "more than", limit=99)

    def test_paths_that_leave_the_submission(self):
        self.rejected("../elsewhere/01-oddeven/oddeven.cu", "not a file inside")
        self.rejected(self.elsewhere / "01-oddeven" / "oddeven.cu", "not a file inside")

    def test_copies_elsewhere_are_found_without_links(self):
        (self.sub / "a" / "b").mkdir(parents=True)
        (self.sub / "a" / "b" / "oddeven.cu").write_text("int x;\n")
        (self.sub / "c").symlink_to(self.elsewhere)
        (self.sub / ".git").mkdir()
        (self.sub / ".git" / "oddeven.cu").write_text("")
        self.assertEqual(
            discover.misplaced_copies(self.sub, LAB01), [self.sub / "a" / "b" / "oddeven.cu"]
        )
        self.assertEqual(
            discover.find_student_file(self.sub, LAB01), self.sub / "a" / "b" / "oddeven.cu"
        )


# ---- a class folder and its gradebook -----------------------------------------------------


class ClassFolder(unittest.TestCase):
    HOSTILE = ["x$(touch PWNED)", '=HYPERLINK("evil")', "alice"]

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="kitgrader-intake-"))
        self.klass = self.tmp / "class"
        self.klass.mkdir()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_entries_are_classified(self):
        for name in self.HOSTILE + [
            "gradebook.csv",
            "-flag",
            ".hidden",
            "work",
            "bad\nname",
            "y" * 101,
        ]:
            (self.klass / name).mkdir()
        (self.klass / "linked").symlink_to(self.klass / "alice")
        (self.klass / "notes.txt").write_text("not a submission\n")
        os.mkfifo(self.klass / "pipe")
        subs = {s.name: s for s in classroom.submissions_in(self.klass)}
        self.assertNotIn("notes.txt", subs)  # a plain file is no submission
        self.assertNotIn(".hidden", subs)  # nor is housekeeping (.git, .DS_Store)
        for name in self.HOSTILE:
            self.assertEqual(subs[name].refused_reason, "", name)
            self.assertEqual(subs[name].folder, self.klass / name)
        for name, why in (
            ("gradebook.csv", "output uses"),
            ("-flag", "starts with"),
            ("work", "output uses"),
            ("bad\nname", "control"),
            ("y" * 101, "longer than 100"),
            ("linked", "symbolic link"),
            ("pipe", "not a folder"),
        ):
            self.assertIn(why, subs[name].refused_reason, name)
        self.assertEqual(subs["bad\nname"].label, "bad\\nname")
        self.assertFalse(list(self.tmp.rglob("PWNED")))

    def test_refused_entries_are_not_graded_and_hold_no_lab(self):
        for name in ("alice", "-flag"):
            (self.klass / name).mkdir()
            (self.klass / name / "oddeven.cu").write_text("int x;\n")
        subs = classroom.submissions_in(self.klass)
        only_refused = [s for s in subs if s.refused_reason]
        self.assertEqual(classroom.labs_submitted([LAB01], only_refused), [])
        self.assertEqual(classroom.labs_submitted([LAB01], subs), [LAB01])
        out = self.tmp / "out"
        out.mkdir()
        said = []
        results = classroom.grade_class(
            SimpleNamespace(labs=[]), only_refused, out, [None], 1, said.append
        )
        self.assertEqual(results[0].error, "not graded: a name that starts with . or -")
        self.assertEqual(said, ["-flag: NOT GRADED (a name that starts with . or -)"])
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["gradebook.csv"])
        with open(out / "gradebook.csv", newline="") as f:
            row = list(csv.DictReader(f))[0]
        self.assertEqual((row["student"], row["status"]), ("'-flag", "not graded"))

    def test_the_gradebook_neutralises_formulas(self):
        names = [
            '=HYPERLINK("evil")',
            "+1",
            "-flag",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "alice",
            "x$(touch PWNED)",
        ]
        subs = [SubmissionResult(name=n, path="/", isolation="bwrap") for n in names]
        subs.append(SubmissionResult(name="bob", path="/", error="=not graded", isolation=""))
        path = report.write_gradebook(self.tmp / "gradebook.csv", subs, ["01-oddeven"])
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(
            rows[0],
            [
                "student",
                "01-oddeven",
                "total",
                "max_total",
                "status",
                "seconds",
                "isolation",
                "notes",
            ],
        )
        students = {row[0] for row in rows[1:]}
        self.assertEqual(students, {"'" + n if n[0] in "=+-@\t\r" else n for n in names} | {"bob"})
        for row in rows[1:]:
            for cell in row:
                self.assertFalse(cell[:1] in ("=", "+", "-", "@", "\t", "\r"), row)
        bob = next(row for row in rows if row[0] == "bob")
        self.assertEqual(bob[-1], "'=not graded")
        alice = next(row for row in rows if row[0] == "alice")
        self.assertEqual(alice[6], "bwrap")

    def test_isolation_is_shown(self):
        sub = SubmissionResult(name="alice", path="/", isolation="bubblewrap (no network)")
        self.assertIn("\nisolation: bubblewrap (no network)", report.submission_table(sub))
        self.assertIn("isolation: bubblewrap", report.results_json(sub)["output"])
        self.assertNotIn(
            "isolation", report.submission_table(SubmissionResult(name="bob", path="/"))
        )


if __name__ == "__main__":
    sys.exit(
        testkit.main(
            "check-intake",
            "what the grader takes from a submission and a class (no GPU needed)",
            globals(),
        )
    )
