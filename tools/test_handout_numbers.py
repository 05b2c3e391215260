#!/usr/bin/env python3
"""Tests of tools/check_handout_numbers.py on handouts and headers written here."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the kit
sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_handout_numbers as numbers  # noqa: E402

HEADER = """#define LAB_TILE 2048u
#define LAB_THREADS 128u /* a comment */
#define LAB_ITEMS 19u
#define LAB_REG_TILE (LAB_THREADS * LAB_ITEMS)
#define LAB_DIGITS (1u << 4)
"""


class Ties(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="handout-numbers-"))
        (self.dir / "lab.h").write_text(HEADER)
        self.defines = numbers.read_defines([self.dir / "lab.h"])

    def problems(self, text):
        path = self.dir / "README.md"
        path.write_text(text)
        return numbers.check_file(path, self.defines)

    def test_a_number_that_matches_its_constant_passes(self):
        ties, problems = self.problems(
            "search at `min(19t, pa + pb)` <!-- 19 = LAB_ITEMS -->\n"
            "a tile of 2432 keys <!-- 2432 = LAB_REG_TILE --> in 16 digits <!-- 16 = LAB_DIGITS -->\n"
        )
        self.assertEqual((ties, problems), (3, []))

    def test_a_number_out_of_step_with_its_constant_fails_naming_the_line(self):
        ties, problems = self.problems(
            "intro\nsearch at `min(15t, pa + pb)` <!-- 15 = LAB_ITEMS -->\n"
        )
        self.assertEqual(ties, 1)
        self.assertEqual(len(problems), 1)
        self.assertIn("README.md:2: says 15 for LAB_ITEMS, which is 19", problems[0])

    def test_a_tie_to_an_unknown_name_or_to_a_number_not_shown_fails(self):
        _, problems = self.problems(
            "a tile of 2048 <!-- 2048 = LAB_TILES -->\n" "a tile of keys <!-- 2048 = LAB_TILE -->\n"
        )
        self.assertEqual(len(problems), 2)
        self.assertIn("LAB_TILES is not a constant", problems[0])
        self.assertIn("does not show that number", problems[1])

    def test_arithmetic_on_constants(self):
        self.assertEqual(numbers.evaluate("LAB_TILE / LAB_THREADS - 1", self.defines), 15)
        self.assertEqual(numbers.evaluate("2 * LAB_REG_TILE", self.defines), 4864)

    def test_the_kit_handouts_hold(self):
        # The real handouts against the real headers: what make check-host runs.
        self.assertEqual(numbers.main([]), 0)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    print(
        f"check-handout-numbers tests: {result.testsRun - len(result.failures) - len(result.errors)}"
        f" passed, {len(result.failures) + len(result.errors)} failed"
    )
    sys.exit(0 if result.wasSuccessful() else 1)
