#!/usr/bin/env bash
# bash emulation/tests/run_on_gpu.sh BUILD_DIR OUT_DIR
#
# The emulation's own device tests (device_tests.cu) and its corpus (corpus/*.cu), built by nvcc
# and run on the GPU: every
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

# The corpus (emulation/corpus/*.cu): each program, built by nvcc as it is, checks its own answer
# and must pass here as it does in emulation (check_emulation.py). Every program is built with
# -rdc=true and cudadevrt, which those with launches from device code need and the others ignore.
corpus_passed=0 corpus_failed=0
for source in emulation/corpus/*.cu; do
    [ -f "$source" ] || continue
    name=$(basename "$source" .cu)
    # shellcheck disable=SC2086 # GENCODE holds several flags
    if ! nvcc $gencode -O2 -rdc=true "$source" -o "$out/corpus-$name" -lcudadevrt \
            > "$out/corpus-$name.build.log" 2>&1; then
        corpus_failed=$((corpus_failed + 1))
        echo "FAIL  corpus $name: nvcc failed"
        head -12 "$out/corpus-$name.build.log"
    elif timeout -k 5 120 "$out/corpus-$name" > "$out/corpus-$name.log" 2>&1; then
        corpus_passed=$((corpus_passed + 1))
        echo "ok    corpus $name"
    else
        corpus_failed=$((corpus_failed + 1))
        echo "FAIL  corpus $name"
        tail -12 "$out/corpus-$name.log"
    fi
done
echo "emulation corpus on the GPU: $corpus_passed passed, $corpus_failed failed"

# The device probe of the one list (emulation/coverage.py from grading/kitgrader/allowlist.py):
# every device call a lab may make, built by nvcc and run, as the emulation builds and runs it.
if python3 emulation/coverage.py --device-probe "$out/device_probe.cu" &&
    # shellcheck disable=SC2086 # GENCODE holds several flags
    nvcc $gencode -O2 -rdc=true "$out/device_probe.cu" -o "$out/device_probe" -lcudadevrt \
        > "$out/device_probe.build.log" 2>&1 &&
    timeout -k 5 60 "$out/device_probe" > "$out/device_probe.log" 2>&1; then
    echo "ok    the list's device probe"
else
    failed=$((failed + 1))
    echo "FAIL  the list's device probe"
    tail -12 "$out/device_probe.build.log" "$out/device_probe.log" 2>/dev/null
fi
failed=$((failed + corpus_failed))
[ "$failed" -eq 0 ]
