#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (the kit is
# unpacked in /autograder/source). The image must already hold the CUDA Toolkit 12.x or 13.x
# (nvcc on PATH or in /usr/local/cuda) and run on a machine with an NVIDIA GPU and driver for
# the grading itself (Gradescope's GPU runners, or your own runner image); everything else
# (CUnit, Python 3, bubblewrap, ...) `make deps` installs with apt.
# KIT_CUDA_ARCH=sm_90 builds for that GPU only (faster); the default is the kit's fat list.
# AUTOGRADER_ROOT (default /autograder) points the script at another tree (the kit's checks).
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
cd "$root/source/kit"
make deps
make ${KIT_CUDA_ARCH:+CUDA_ARCH=$KIT_CUDA_ARCH} all
echo "setup.sh: the kit is built in $root/source/kit/build"
