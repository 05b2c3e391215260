#!/usr/bin/env python3
"""check-layout's own tests: tools/check_layout.py on copies of the kit's maps, each with one
kind of drift planted (a folder the map lacks, a row for a folder that went, a module the
list lacks, two tables that differ). No make, no git: the copies are plain folders.

usage: python3 tools/test_check_layout.py
"""

import shutil
import sys
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
sys.dont_write_bytecode = True
import check_layout  # noqa: E402


class LayoutMaps(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="check-layout-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.kit = self.tmp / "kit"
        # Every folder the real map names, with one file in it, plus the maps themselves.
        rows = check_layout.map_rows(ROOT, "README.md")
        for folder, text in rows.items():
            if "never committed" not in text and "if any" not in text:
                name = folder.replace("NN-name", "01-demo")
                (self.kit / name).mkdir(parents=True, exist_ok=True)
                (self.kit / name / "file").write_text("x\n")
        for page in check_layout.MAPS:
            shutil.copy(ROOT / page, self.kit / page)
        shutil.copy(
            ROOT / "grading/kitgrader/__init__.py", self.kit / "grading/kitgrader/__init__.py"
        )
        for module in (ROOT / "grading/kitgrader").glob("*.py"):
            shutil.copy(module, self.kit / "grading/kitgrader" / module.name)
        (self.kit / "grading/kitgrader/file").unlink()

    def problems(self):
        kit = self.kit
        folders = check_layout.kit_folders(
            [p.relative_to(kit) for p in kit.rglob("*") if p.is_file()]
        )
        return check_layout.check_maps(
            kit, folders, student_package=False
        ) + check_layout.check_kitgrader(kit)

    def test_the_copy_is_true(self):
        self.assertEqual(self.problems(), [])

    def test_a_folder_missing_from_the_maps(self):
        (self.kit / "grading/newpart").mkdir()
        (self.kit / "grading/newpart/x.c").write_text("x\n")
        found = self.problems()
        self.assertEqual(len(found), 2, found)  # once per page
        self.assertIn("grading/newpart/ is not in the layout table", found[0])

    def test_a_deep_folder_is_covered_by_its_second_level(self):
        (self.kit / "grading/tests/fixtures/deep").mkdir(parents=True)
        (self.kit / "grading/tests/fixtures/deep/x.cu").write_text("x\n")
        self.assertEqual(self.problems(), [])

    def test_a_row_for_a_folder_that_went(self):
        shutil.rmtree(self.kit / "grading/calls")
        found = self.problems()
        self.assertTrue(
            found and all("names grading/calls/, which is not here" in p for p in found), found
        )

    def test_instructors_only_folders_may_be_absent_in_a_student_package(self):
        shutil.rmtree(self.kit / "grading/gradescope")
        kit = self.kit
        folders = check_layout.kit_folders(
            [p.relative_to(kit) for p in kit.rglob("*") if p.is_file()]
        )
        self.assertEqual(check_layout.check_maps(kit, folders, student_package=True), [])
        self.assertTrue(check_layout.check_maps(kit, folders, student_package=False))

    def test_the_two_tables_must_agree(self):
        page = self.kit / "docs/mainpage.md"
        page.write_text(page.read_text().replace("the grader's C runtime", "its C runtime"))
        self.assertIn("hold different layout tables", " ".join(self.problems()))

    def test_a_module_missing_from_kitgrader_list(self):
        (self.kit / "grading/kitgrader/newjob.py").write_text('"""x"""\n')
        self.assertIn("the module newjob is not in its list", " ".join(self.problems()))

    def test_kitgrader_list_naming_a_module_that_went(self):
        (self.kit / "grading/kitgrader/slurm.py").unlink()
        self.assertIn("names slurm, which is not a module", " ".join(self.problems()))


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print(f"check-layout tests: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
