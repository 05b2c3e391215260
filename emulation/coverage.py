#!/usr/bin/env python3
"""coverage.py: the CUDA a lab may use, held against the emulation and the handouts.

The one list is grading/kitgrader/allowlist.py: the host calls the grader lets a lab's object
import (CUDA_RUNTIME), and what device code may call (DEVICE_GROUPS, each with a statement that
uses it). From it this script writes two programs and reads the handouts:

    coverage.py --runtime-probe OUT.c   a C program that takes the address of every runtime call
                                        of the list: it links against the emulation's runtime only
                                        if each is defined there
    coverage.py --device-probe OUT.cu   a CUDA program whose kernel runs every device statement of
                                        the list (and checks nothing: it must build and run, in
                                        the emulation and, built by nvcc, on a GPU)
    coverage.py --handouts ROOT         the calls each lab's handout names in "What your code may
                                        call" that the list does not have (exit 1 if any)

make check-emulate builds and runs both programs (check_emulation.py) and checks the handouts;
run_on_gpu.sh builds the device probe with nvcc and runs it.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "grading"))

from kitgrader import allowlist  # noqa: E402


# Runtime calls that CUDA declares in C++ only (templates of cuda_runtime.h), with how the device
# probe's host code calls them: the C probe cannot name them.
CPP_ONLY = {
    "cudaOccupancyMaxPotentialBlockSize": "{ int grid = 0, block = 0; if (err == cudaSuccess) { err = "
    "cudaOccupancyMaxPotentialBlockSize(&grid, &block, probe, 0, 0); } }",
}


def runtime_probe():
    names = sorted(n for n in allowlist.CUDA_RUNTIME.names if n not in CPP_ONLY)
    lines = [
        "/* Written by emulation/coverage.py from grading/kitgrader/allowlist.py: every CUDA "
        "runtime call a lab",
        " * may make. It links against the emulation's runtime only if each is defined "
        "there. */",
        "#include <cuda_runtime_api.h>",
        "#include <stdio.h>",
        "",
        "typedef void (*any_call)(void);",
        "static const any_call calls[] = {",
    ]
    lines += ["    (any_call)%s," % name for name in names]
    lines += [
        "};",
        "",
        "int main(void)",
        "{",
        "    size_t defined = 0;",
        "    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {",
        "        defined += calls[i] != NULL;",
        "    }",
        '    printf("%zu of %zu runtime calls defined\\n", defined, sizeof calls / '
        "sizeof calls[0]);",
        "    return defined == sizeof calls / sizeof calls[0] ? 0 : 1;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def device_probe():
    lines = [
        "/* Written by emulation/coverage.py from grading/kitgrader/allowlist.py: a kernel "
        "that runs every",
        " * statement of the device calls a lab may make (DEVICE_GROUPS). It checks no "
        "result: it must",
        " * build and run, in the emulation and on a GPU. Exit 0 when the launch " "succeeded. */",
        "#include <assert.h>",
        "#include <math.h>",
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "",
        "#include <cooperative_groups.h>",
        "#include <cooperative_groups/reduce.h>",
        "#include <cooperative_groups/scan.h>",
        "namespace cg = cooperative_groups;",
        "",
        "#define FULL 0xFFFFFFFFu",
        "",
        "__global__ void probe_child(unsigned *p)",
        "{",
        "    p[0] += 1u;",
        "}",
        "",
        "__global__ void probe(unsigned *words, unsigned *shared, float *fp, "
        "unsigned long long *sums)",
        "{",
        "    unsigned v = threadIdx.x + 1u;",
        "    int i = (int)v;",
        "    float x = (float)v;",
        "    double d = (double)v;",
        "    long long ll = (long long)v << 20;",
        "    unsigned long long ull = (unsigned long long)v << 33;",
        "    unsigned *p = words + 4 * threadIdx.x;",
        "    unsigned long long acc = 0;",
    ]
    for group in allowlist.DEVICE_GROUPS:
        lines.append("    /* %s */" % group.title)
        for name, statement in group.calls:
            lines.append("    %s /* %s */" % (statement, name))
    lines += [
        "    sums[threadIdx.x] = acc;",
        "}",
        "",
        "int main(void)",
        "{",
        "    unsigned *words, *shared;",
        "    float *fp;",
        "    unsigned long long *sums;",
        "    cudaError_t err = cudaMalloc((void **)&words, 4 * 32 * sizeof *words);",
        "    if (err == cudaSuccess) {",
        "        err = cudaMalloc((void **)&shared, 8 * sizeof *shared);",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaMalloc((void **)&fp, sizeof *fp);",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaMalloc((void **)&sums, 32 * sizeof *sums);",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaMemset(words, 0, 4 * 32 * sizeof *words);",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaMemset(shared, 0, 8 * sizeof *shared);",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaMemset(fp, 0, sizeof *fp);",
        "    }",
        "    /* the runtime calls of the list that C cannot name */",
    ]
    lines += ["    %s" % statement for statement in CPP_ONLY.values()]
    lines += [
        "    if (err == cudaSuccess) {",
        "        probe<<<1, 32>>>(words, shared, fp, sums);",
        "        err = cudaGetLastError();",
        "    }",
        "    if (err == cudaSuccess) {",
        "        err = cudaDeviceSynchronize();",
        "    }",
        '    printf("device probe: %s\\n", cudaGetErrorString(err));',
        "    return err == cudaSuccess ? 0 : 1;",
        "}",
    ]
    return "\n".join(lines) + "\n"


CALL = re.compile(r"`(cuda[A-Z]\w*)`")


def handout_problems(root):
    """(handout, name): a CUDA name in backquotes in a lab's "What your code may call" section
    that the list has neither as a host call nor as a device one."""
    known = allowlist.CUDA_RUNTIME.names + tuple(allowlist.DEVICE_NAMES)
    problems = []
    labs = os.path.join(root, "labs")
    for lab in sorted(os.listdir(labs)):
        path = os.path.join(labs, lab, "README.md")
        if not os.path.isfile(path):
            continue
        section, inside = [], False
        with open(path) as f:
            for line in f:
                if line.startswith("## "):
                    inside = line.startswith("## What your code may call")
                    continue
                if inside:
                    section.append(line)
        for name in CALL.findall("".join(section)):
            if name not in known:
                problems.append((os.path.relpath(path, root), name))
    return problems


def write(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtime-probe", metavar="OUT.c")
    parser.add_argument("--device-probe", metavar="OUT.cu")
    parser.add_argument("--handouts", metavar="ROOT")
    args = parser.parse_args()
    if args.runtime_probe:
        write(args.runtime_probe, runtime_probe())
    if args.device_probe:
        write(args.device_probe, device_probe())
    if args.handouts:
        problems = handout_problems(args.handouts)
        for handout, name in problems:
            print(
                "%s: names %s, which grading/kitgrader/allowlist.py does not list" % (handout, name)
            )
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
