#!/usr/bin/env bash
# make deps: makes sure the tools the kit builds with are here, installing what is missing
# with apt when run as root, or printing the one command to run otherwise.
# Needed: nvcc (the CUDA Toolkit, never installed here), CUnit (static library and headers),
# Doxygen, Graphviz (dot), MathJax (for formulas in the docs, read offline), gnuplot (the
# benchmark's charts, make bench-report), clang-format, black and pyflakes (make check-format) and
# Python 3
# (the grader; standard library only), and bubblewrap (bwrap): the grader compiles and runs
# each student's code in a bubblewrap sandbox (no network, no view of solutions/ or other
# students); without it the grader falls back to weaker isolation and says so in the results.
# The CPU emulation (make emulate, emulation/README.md) needs no CUDA Toolkit: a C++ compiler,
# CUnit, libclang's Python bindings (python3-clang-15, libclang1-15) and Boost.Context
# (libboost-context-dev: fast fiber switches).
#
# usage: tools/deps.sh [all|grade|emulate|slurm|bridge]   `grade` (what make grade needs: a GPU node
# grades without Doxygen) checks CUnit, Python 3 and bubblewrap only; `emulate` what make
# emulate needs, and never nvcc; `all` (the default) everything; `slurm` (make check-slurm)
# only Debian's Slurm and munge, for the one-node test cluster of grading/tests/test_slurm.py
# (slurmctld slurmd slurm-client munge, about 3 MB); `bridge` (make check-gradescope) only
# OpenSSH's server and client, for the test GPU host of grading/tests/test_bridge.py.
set -u
what=${1:-all}
missing=()
cc=${CC:-gcc}
if [ "$what" = slurm ]; then
    for pair in munged:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client; do
        command -v "${pair%%:*}" >/dev/null || [ -x "/usr/sbin/${pair%%:*}" ] \
            || missing+=("${pair#*:}")
    done
fi
if [ "$what" = bridge ]; then
    [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
    command -v ssh >/dev/null || missing+=(openssh-client)
fi
case $what in
slurm | bridge) ;;
*) { echo '#include <CUnit/CUnit.h>' | $cc -E -x c - >/dev/null 2>&1 \
    && [ -f "$($cc -print-file-name=libcunit.a)" ] || missing+=(libcunit1-dev)
command -v python3 >/dev/null || missing+=(python3)
[ "$what" = emulate ] || command -v bwrap >/dev/null || missing+=(bubblewrap); } ;; esac
if [ "$what" = all ] || [ "$what" = emulate ]; then
    command -v "${CXX:-g++}" >/dev/null || missing+=(g++)
    # (cu2cpp.py also finds Debian's bindings when python3 is not Debian's own)
    python3 "$(dirname "$0")/../emulation/cu2cpp.py" --check >/dev/null 2>&1 ||
        missing+=(python3-clang-15 libclang1-15)
    echo '#include <boost/context/detail/fcontext.hpp>' | "${CXX:-g++}" -E -x c++ - >/dev/null 2>&1 ||
        missing+=(libboost-context-dev)
fi
if [ "$what" = all ]; then
    command -v doxygen >/dev/null || missing+=(doxygen)
    command -v dot >/dev/null || missing+=(graphviz)
    command -v gnuplot >/dev/null || missing+=(gnuplot-nox) # make bench-report's charts
    [ -f /usr/share/javascript/mathjax/MathJax.js ] || missing+=(libjs-mathjax)
    # make check-format (tools/format.sh): the kit's own form, Debian 12's versions
    command -v clang-format >/dev/null || missing+=(clang-format)
    command -v black >/dev/null || missing+=(black)
    command -v pyflakes3 >/dev/null || missing+=(pyflakes3)
fi

no_nvcc=
if [ "$what" != emulate ] && [ "$what" != slurm ] && [ "$what" != bridge ] &&
    ! command -v nvcc >/dev/null &&
    [ ! -x /usr/local/cuda/bin/nvcc ]; then
    no_nvcc="deps: nvcc not found: install the CUDA Toolkit 12.x or 13.x and put its bin/ on PATH (make emulate needs neither it nor a GPU)"
    # Without the Toolkit only the emulation's packages are worth installing here.
    [ "$what" = all ] || { echo "$no_nvcc" >&2; exit 2; }
fi
if [ ${#missing[@]} -eq 0 ]; then
    [ -z "$no_nvcc" ] || { echo "$no_nvcc" >&2; exit 2; }
    exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "deps: missing ${missing[*]}; install them with:" >&2
    echo "  sudo apt-get update && sudo $cmd" >&2
    exit 2
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q >/dev/null && $cmd -q >/dev/null; }; then
    echo "deps: '$cmd' failed" >&2
    exit 2
fi
[ -z "$no_nvcc" ] || { echo "$no_nvcc" >&2; exit 2; }
