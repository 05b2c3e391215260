#!/usr/bin/env bash
# make check-lab-suites (a step of make check): every lab's suites against its solution and
# its skeleton. On a machine with a GPU, the GPU suites must pass against every solution and
# fail cleanly against every skeleton (exit code 1, no test passing, no crash, no hang).
# (make gpu-check, tools/gpu_check.sh, is the whole pass on a GPU host: this, sanitizers,
# grading and benchmarks.)
# A suite N.0_... tests the tests' own CPU references (Lab 04's 4.0_references): it holds no
# student code, is worth no points, and passes against a skeleton too.
# Without a GPU it says so and checks the labs' host suites only (see below).
# usage: tests/check_lab_suites.sh BUILD_DIR LAB...
set -u
build=$1
shift
if [ ! -d solutions ]; then
    echo "check-lab-suites: no solutions/ here (a student package): 'make grade' runs your labs' GPU tests"
    exit 0
fi
if ! probe=$("$build/tools/gpu_probe"); then
    # Without a GPU the runner skips the GPU suites itself and runs a lab's host suites (Lab
    # 02's co-rank): they must pass against the solution (exit 3: only GPU suites skipped)
    # and fail against the skeleton (exit 1; exit 3 when the lab has no host suite).
    status=0
    log=$build/check-host-suites
    mkdir -p "$log"
    for lab in "$@"; do
        echo "SKIPPED GPU suites of $lab: ${probe#no usable GPU: }"
        id=${lab//-/_}
        timeout -k 5 600 "$build/solution/test_$id" > "$log/solution_$id.log" 2>&1
        rc=$?
        ran=$(grep -c '^PASS\|^FAIL' "$log/solution_$id.log")
        if [ $rc -ne 3 ] || grep -q '^FAIL' "$log/solution_$id.log"; then
            echo "solution $lab, host suites: must pass (got exit $rc)"
            grep -A3 '^FAIL' "$log/solution_$id.log" | head -20
            status=1
        elif [ "$ran" -gt 0 ]; then
            echo "solution $lab, host suites: $(grep -E '[0-9]+ passed, ' "$log/solution_$id.log")"
        fi
        timeout -k 5 600 "$build/student/test_$id" > "$log/skeleton_$id.log" 2>&1
        rc=$?
        passed=$(grep '^PASS' "$log/skeleton_$id.log" | grep -vc '^PASS [0-9]*\.0_')
        failed=$(grep -c '^FAIL' "$log/skeleton_$id.log")
        refs=$(grep -c '^PASS [0-9]*\.0_' "$log/skeleton_$id.log")
        if [ "$passed" -ne 0 ] || { [ "$failed" -gt 0 ] && [ $rc -ne 1 ]; } ||
           { [ "$failed" -eq 0 ] && [ $rc -ne 3 ] && ! { [ "$refs" -gt 0 ] && [ $rc -eq 0 ]; }; }; then
            echo "skeleton $lab, host suites: must fail every host test (got exit $rc, $passed passing)"
            status=1
        elif [ "$failed" -gt 0 ]; then
            # (not in the 'N passed, N failed' form: make check's summary adds those up)
            echo "skeleton $lab, host suites: all $failed fail, as a skeleton's must"
        fi
    done
    exit $status
fi
echo "$probe"
limit=${KIT_SUITE_TIME_LIMIT:-600}
status=0
for lab in "$@"; do
    id=${lab//-/_}
    log=$build/check-lab-suites
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
    passed=$(grep '^PASS' "$log/skeleton_$id.log" | grep -vc '^PASS [0-9]*\.0_')
    echo "skeleton $lab: $(tail -n 1 "$log/skeleton_$id.log") (exit $rc)"
    if [ $rc -ne 1 ] || [ "$passed" -ne 0 ]; then
        echo "skeleton $lab must fail every test with exit code 1 (got exit $rc, $passed passing)"
        status=1
    fi
done
exit $status
