#!/usr/bin/env python3
"""Checks that every number a handout derives from a constant of the kit matches it.

A handout ties such a number to the constant it comes from with an HTML comment on the same
line (Doxygen and browsers show nothing of it):

    its end search at diagonal `min(19t, pa + pb)`. <!-- 19 = MERGESORT_REG_ITEMS_PER_THREAD -->

The expression after `=` may use the constants (`#define NAME VALUE` in the labs' headers,
their given .cuh files and common/), integers, + - * / % << >> and parentheses. The check
fails when the expression is not the number, when it cannot be evaluated, or when the number
is not on the line outside the comment: a constant changed in a header then fails `make
check` until its handout says the new number (Lab 02's handout once said 15 where the
constant had become 19, and a student who copied it failed the tests).

usage: tools/check_handout_numbers.py [README.md...]   (default: labs/*/README.md)
Prints one line per tie and a summary; exit 0 when all hold, 1 otherwise.
"""
import ast
import operator
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIE = re.compile(r"<!--\s*(\d+)\s*=\s*([^>]*?)\s*-->")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*)\s+(.+?)\s*(?:/[/*].*)?$")
OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


def constant_sources(root=ROOT):
    return sorted([*root.glob("labs/*/*.h"), *root.glob("labs/*/*.cuh"), *root.glob("common/*.h")])


def read_defines(paths):
    """NAME -> the text of its value, for every object-like #define of the files."""
    defines = {}
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            match = DEFINE.match(line)
            if match:
                defines.setdefault(match.group(1), match.group(2))
    return defines


def evaluate(text, defines, depth=0):
    """The integer value of a C constant expression of integers and defined names."""
    if depth > 20:
        raise ValueError("the constants refer to each other in a loop")
    # C's unsigned suffixes and casts to an unsigned type change nothing here.
    text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)
    text = re.sub(r"\(\s*(unsigned\s+)?(int|long|size_t)\s*\)", "", text)
    tree = ast.parse(text, mode="eval")

    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in defines:
                raise ValueError(f"{node.id} is not a constant of the kit")
            return evaluate(defines[node.id], defines, depth + 1)
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            return OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise ValueError(f"cannot evaluate {ast.unparse(node)!r}")

    return value(tree)


def check_file(path, defines):
    """(ties checked, problems) of one handout."""
    ties, problems = 0, []
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        outside = TIE.sub("", line)
        for match in TIE.finditer(line):
            ties += 1
            claimed, expression = int(match.group(1)), match.group(2)
            where = f"{path}:{number}"
            try:
                actual = evaluate(expression, defines)
            except (ValueError, SyntaxError) as err:
                problems.append(f"{where}: {expression}: {err}")
                continue
            if actual != claimed:
                problems.append(f"{where}: says {claimed} for {expression}, which is {actual}")
            elif not re.search(rf"(?<!\d)(?<!\d\.){claimed}(?!\d|\.\d)", outside):
                problems.append(
                    f"{where}: ties {claimed} to {expression}, but the line does "
                    "not show that number"
                )
    return ties, problems


def main(argv):
    paths = [Path(p) for p in argv] or sorted(ROOT.glob("labs/*/README.md"))
    defines = read_defines(constant_sources())
    total, problems = 0, []
    for path in paths:
        ties, found = check_file(path, defines)
        total += ties
        problems += found
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"check-handout-numbers: {total} numbers tied to constants, {len(problems)} wrong")
    return 1 if problems or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
