#!/usr/bin/env bash
# bash emulation/tests/run_on_gpu.sh BUILD_DIR OUT_DIR
#
# The emulation's own device tests (device_tests.cu), built by nvcc and run on the GPU: every
# case whose results are checked ("-" in `device_tests -l`) must pass there too, so that what
# the emulation computes for a shuffle, vote or look-back is what the hardware computes, not
# only what we read in the guide. The cases that expect a report (a divergent barrier, a
# deadlock) are the emulation's alone and are not run. tools/gpu_check.sh runs this (step
# emulation). Exit 0 when every case passed, 1 otherwise.
set -u
build=$1 out=$2
mkdir -p "$out"
bin=$out/device_tests
# The architecture flags the kit was built with (GENCODE in build/grading.env), else nvcc's
# default.
gencode=$(sed -n 's/^GENCODE=//p' "$build/grading.env" 2>/dev/null)
# shellcheck disable=SC2086 # GENCODE holds several flags
if ! nvcc $gencode -O2 -rdc=true -x cu emulation/tests/device_tests.cu -o "$bin" -lcudadevrt; then
    echo "device_tests: nvcc failed"
    exit 1
fi
passed=0 failed=0
while IFS=$'\t' read -r name expect _; do
    [ "$expect" = "-" ] || continue
    if timeout -k 5 60 "$bin" "$name" > "$out/$name.log" 2>&1; then
        passed=$((passed + 1))
        echo "ok    $name"
    else
        failed=$((failed + 1))
        echo "FAIL  $name"
        head -12 "$out/$name.log"
    fi
done < <("$bin" -l)
echo "emulation device tests on the GPU: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
