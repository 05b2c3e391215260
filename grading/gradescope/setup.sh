#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (the kit is
# unpacked in /autograder/source, the course's settings in /autograder/source/config).
# Gradescope's containers have no GPU: the grading itself happens on the course's GPU host
# through the bridge (config/gradescope.conf: GPU_HOST; docs/instructor.md, "Gradescope"),
# for which the image needs only Python 3 and the ssh client, installed here with apt. The
# kit is also built here when the image has the CUDA Toolkit (nvcc on PATH or in
# /usr/local/cuda): then a submission the host cannot take still gets the grader's intake
# checks and the emulated tests (no points). Without a bridge, the kit must be built (and
# grading needs a runner with a GPU).
# KIT_CUDA_ARCH in config/gradescope.conf (e.g. sm_90) builds for that GPU only (faster).
# AUTOGRADER_ROOT (default /autograder) points the script at another tree (the kit's checks).
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}
conf=$root/source/config/gradescope.conf
setting() { [ -f "$conf" ] && sed -n "s/^$1=//p" "$conf" | tail -n 1 || true; }
bridge=$(setting GPU_HOST)
# The bridge's private key: root's alone, whatever the unzip left (a student's code, which
# runs as another uid, must never read it; bridge.py also deletes it before any runs).
key=$(setting KEY_FILE)
if [ -n "$key" ] && [ -f "$root/source/config/$key" ]; then
    chmod 700 "$root/source/config"
    chmod 600 "$root/source/config/$key"
fi
arch=$(setting KIT_CUDA_ARCH)
arch=${arch:-${KIT_CUDA_ARCH:-}}  # (or from the environment: the kit's own checks)
if [ -n "$bridge" ]; then
    for tool in python3 ssh; do
        command -v "$tool" >/dev/null && continue
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends python3 openssh-client >/dev/null
        break
    done
fi
cd "$root/source/kit"
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    if [ -n "$bridge" ]; then
        echo "setup.sh: no CUDA Toolkit in this image: submissions are graded on $bridge only" \
             "(the checks without a GPU need nvcc here)"
        exit 0
    fi
    echo "setup.sh: this image has no CUDA Toolkit (nvcc), and grading needs it and a GPU:" \
         "set GPU_HOST in the course's gradescope.conf to grade on the course's GPU host" \
         "(docs/instructor.md, \"Gradescope\")" >&2
    exit 2
fi
make deps
make ${arch:+CUDA_ARCH=$arch} all
echo "setup.sh: the kit is built in $root/source/kit/build"
