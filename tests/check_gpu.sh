#!/usr/bin/env bash
# make check-gpu: on a machine with a GPU, the GPU suites must pass against every solution
# and fail cleanly against every skeleton (exit code 1, no test passing, no crash, no hang).
# Without a GPU it says so and succeeds: the host suites decide `make check` there.
# usage: tests/check_gpu.sh BUILD_DIR LAB...
set -u
build=$1
shift
if [ ! -d solutions ]; then
    echo "check-gpu: no solutions/ here (a student package): 'make grade' runs your labs' GPU tests"
    exit 0
fi
if ! probe=$("$build/tools/gpu_probe"); then
    for lab in "$@"; do echo "SKIPPED GPU suites of $lab: ${probe#no usable GPU: }"; done
    exit 0
fi
echo "$probe"
limit=${KIT_SUITE_TIME_LIMIT:-600}
status=0
for lab in "$@"; do
    id=${lab//-/_}
    log=$build/check-gpu
    mkdir -p "$log"
    timeout -k 5 "$limit" "$build/solution/test_$id" > "$log/solution_$id.log" 2>&1
    rc=$?
    echo "solution $lab: $(tail -n 1 "$log/solution_$id.log") (exit $rc)"
    if [ $rc -ne 0 ]; then
        grep -A3 '^FAIL' "$log/solution_$id.log" | head -20
        status=1
    fi
    timeout -k 5 "$limit" "$build/student/test_$id" > "$log/skeleton_$id.log" 2>&1
    rc=$?
    passed=$(grep -c '^PASS' "$log/skeleton_$id.log")
    echo "skeleton $lab: $(tail -n 1 "$log/skeleton_$id.log") (exit $rc)"
    if [ $rc -ne 1 ] || [ "$passed" -ne 0 ]; then
        echo "skeleton $lab must fail every test with exit code 1 (got exit $rc, $passed passing)"
        status=1
    fi
done
exit $status
