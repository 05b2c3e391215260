#!/usr/bin/env bash
# bash emulation/tests/run_on_gpu.sh BUILD_DIR OUT_DIR
#
# What the emulation computes, held against a GPU: its own device tests (device_tests.cu), its
# corpus (corpus/*.cu) and the device probe of the one list of the CUDA a lab may use
# (coverage.py from grading/kitgrader/allowlist.py), each built by nvcc as it is and run here.
# Every device test whose results are checked ("-" in `device_tests -l`) must pass, so that
# what the emulation computes for a shuffle, vote or look-back is what the hardware computes,
# not only what we read in the guide (the cases that expect a report, a divergent barrier or a
# deadlock, are the emulation's alone and are not run); every corpus program must pass its own
# check, as it does in emulation; the probe must run. tools/gpu_check.sh runs this (step
# emulation). The programs are built side by side, as many at once as the host has cores.
# Exit 0 when everything passed, 1 otherwise.
set -u
build=$1 out=$2
mkdir -p "$out"
# The architecture flags the kit was built with (GENCODE in build/grading.env), else nvcc's
# default. Every program is built with -rdc=true and cudadevrt, which those with launches from
# device code need and the others ignore.
gencode=$(sed -n 's/^GENCODE=//p' "$build/grading.env" 2>/dev/null)
build_one() { # source binary
    # shellcheck disable=SC2086 # GENCODE holds several flags
    nvcc $gencode -O2 -rdc=true -x cu "$1" -o "$2" -lcudadevrt > "$2.build.log" 2>&1
}

python3 emulation/coverage.py --device-probe "$out/device_probe.cu" ||
    echo "coverage.py could not write the device probe" > "$out/device_probe.build.log"
sources=(emulation/tests/device_tests.cu "$out/device_probe.cu" emulation/corpus/*.cu)
jobs=$(nproc 2> /dev/null || echo 4)
for source in "${sources[@]}"; do
    [ -f "$source" ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
    done
    build_one "$source" "$out/$(basename "$source" .cu)" &
done
wait

failed=0
bin=$out/device_tests
if [ ! -x "$bin" ]; then
    echo "FAIL  device_tests: nvcc failed"
    tail -12 "$bin.build.log"
    failed=$((failed + 1))
else
    passed=0 device_failed=0
    while IFS=$'\t' read -r name expect _; do
        [ "$expect" = "-" ] || continue
        if timeout -k 5 60 "$bin" "$name" > "$out/$name.log" 2>&1; then
            passed=$((passed + 1))
            echo "ok    $name"
        else
            device_failed=$((device_failed + 1))
            echo "FAIL  $name"
            head -12 "$out/$name.log"
        fi
    done < <("$bin" -l)
    echo "emulation device tests on the GPU: $passed passed, $device_failed failed"
    failed=$((failed + device_failed))
fi

corpus_passed=0 corpus_failed=0
for source in emulation/corpus/*.cu; do
    [ -f "$source" ] || continue
    name=$(basename "$source" .cu)
    if [ ! -x "$out/$name" ]; then
        corpus_failed=$((corpus_failed + 1))
        echo "FAIL  corpus $name: nvcc failed"
        tail -12 "$out/$name.build.log"
    elif timeout -k 5 120 "$out/$name" > "$out/corpus-$name.log" 2>&1; then
        corpus_passed=$((corpus_passed + 1))
        echo "ok    corpus $name"
    else
        corpus_failed=$((corpus_failed + 1))
        echo "FAIL  corpus $name"
        tail -12 "$out/corpus-$name.log"
    fi
done
echo "emulation corpus on the GPU: $corpus_passed passed, $corpus_failed failed"
failed=$((failed + corpus_failed))

if [ -x "$out/device_probe" ] && timeout -k 5 60 "$out/device_probe" > "$out/device_probe.log" 2>&1
then
    echo "ok    the list's device probe"
else
    failed=$((failed + 1))
    echo "FAIL  the list's device probe"
    tail -12 "$out/device_probe.build.log" "$out/device_probe.log" 2> /dev/null
fi
[ "$failed" -eq 0 ]
