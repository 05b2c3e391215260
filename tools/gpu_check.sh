#!/usr/bin/env bash
# make gpu-check: everything the kit must show on a real GPU, in one go, from prebuilt
# binaries (no CUnit or Doxygen needed on the GPU host; the grader of step 4 compiles the
# graded student files, so it needs the CUDA Toolkit's nvcc there too):
#   1. the host suites and the GPU suite of common/;
#   2. every lab's GPU suites: the solution passes, the skeleton fails cleanly;
#   3. compute-sanitizer memcheck and racecheck on the solution's tests;
#   4. the grader on the skeleton (expected: 0 points) and on the solution (all points), and
#      on its GPU fixtures (grading/tests/run_gpu_fixtures.sh);
#   5. each lab's benchmark.
# usage: tools/gpu_check.sh BUILD_DIR LAB...   Logs go to $GPU_CHECK_DIR (default
# BUILD_DIR/gpu-check); summary.txt there holds one line per step.
set -u
build=$1
shift
out=${GPU_CHECK_DIR:-$build/gpu-check}
mkdir -p "$out"
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
run_step() { # name logfile command...
    local name=$1 log=$2
    shift 2
    local start=$SECONDS
    "$@" >> "$log" 2>&1
    local rc=$?
    note "$(printf '%-52s exit %-3s %4ss  %s' "$name" "$rc" "$((SECONDS - start))" \
        "$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)")"
    return $rc
}

# GPU_CHECK_STEPS=tests,sanitize,drivers,grade,emulation,fixtures,bench (default: all) picks
# steps, so the whole check can be split over calls to a GPU host.
want() { [[ ",${GPU_CHECK_STEPS:-all}," == *",all,"* || ",${GPU_CHECK_STEPS:-}," == *",$1,"* ]]; }

algos() { # the --algo names a driver's --help lists
    "$1" --help | sed -n 's/.*--algo NAME  which sort://p' | sed 's/ (default.*//; s/([^)]*)//g'
}

if ! "$build/tools/gpu_probe" | tee -a "$summary"; then
    exit 3
fi
note "commit: ${KIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
nvidia-smi -L >> "$summary" 2>&1

if want tests; then
run_step "host suites + keyflip_device (test_common)" "$out/tests.log" "$build/test_common"
run_step "GPU suites: solutions pass, skeletons fail" "$out/tests.log" \
    bash tests/check_lab_suites.sh "$build" "$@"
cat "$build"/check-lab-suites/*.log >> "$out/tests.log" 2>/dev/null
fi

# compute-sanitizer slows kernels down a hundredfold: memcheck and racecheck run the tests
# each lab marks [sanitize] (small ones that still reach every kernel).
sanitize=${COMPUTE_SANITIZER:-compute-sanitizer}
# The tools are the lab's rubric's (Lab 05 leaves out racecheck: it does not support dynamic
# parallelism), memcheck and racecheck by default.
sanitizer_tools() {
    python3 -c 'import json, sys
try:
    rule = json.load(open(sys.argv[1])).get("sanitizer", {})
except OSError:
    rule = {}
print(" ".join(rule.get("tools", ["memcheck", "racecheck"])))' "grading/rubric/$1.json"
}
want sanitize && for lab in "$@"; do
    bin=$build/solution/test_${lab//-/_}
    for t in $("$bin" -l | grep '\[sanitize\]' | cut -d' ' -f1); do
        for tool in $(sanitizer_tools "$lab"); do
            run_step "$tool $lab $t" "$out/sanitizer.log" \
                timeout -k 5 300 "$sanitize" --tool $tool --error-exitcode 99 "$bin" -t "$t"
        done
    done
done

# The drivers: trace, check every algorithm, refuse an n too large, report a skeleton's stub.
expect() { # expected-exit-code command...
    local want=$1
    shift
    "$@"
    local rc=$?
    echo "(exit $rc, expected $want)"
    [ $rc -eq "$want" ]
}
want drivers && for lab in "$@"; do
    name=${lab#*-}
    sol=$build/solution/bin/$name
    run_step "driver $name --trace" "$out/driver.log" expect 0 "$sol" -n 8 --trace
    for algo in $(algos "$sol"); do
        run_step "driver $name --algo $algo --check" "$out/driver.log" \
            expect 0 "$sol" -n 1000 --dist reversed --algo "$algo" --check
    done
    run_step "driver $name -n 2^40 (too large: exit 2)" "$out/driver.log" expect 2 "$sol" -n '2^40'
    run_step "skeleton driver $name --check (exit 4)" "$out/driver.log" \
        expect 4 "$build/student/bin/$name" -n 1000 --check
done

if want grade; then
run_step "grade skeleton (labs/ as shipped: expect 0 points)" "$out/grade.log" \
    python3 grading/grade --build "$build" --out "$out/grade-skeleton" labs
run_step "grade solution (solutions/ as a submission: expect every point)" "$out/grade.log" \
    python3 grading/grade --build "$build" --out "$out/grade-solution" solutions
fi
# The emulation's device tests, built by nvcc: the results it checks are the GPU's too.
want emulation && run_step "emulation device tests on the GPU (same results as emulated)" \
    "$out/emulation.log" bash emulation/tests/run_on_gpu.sh "$build" "$out/emulation-device-tests"
want fixtures && run_step "grader GPU fixtures (hang, illegal address, memcheck, racecheck, host sort, slow)" \
    "$out/grade.log" env GPU_FIXTURES_OUT="$out/gpu-fixtures" \
    bash grading/tests/run_gpu_fixtures.sh "$build"

# The benchmark's rows also go to bench.csv (common/bench_csv.h), labelled with the commit.
want bench && for lab in "$@"; do
    name=${lab#*-}
    for algo in $(algos "$build/solution/bin/$name"); do
        run_step "bench $name --algo $algo" "$out/bench.log" \
            env KIT_COMMIT="${KIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" \
            "$build/solution/bin/$name" --bench --algo "$algo" --reps 5 --csv "$out/bench.csv"
    done
done
echo
cat "$out/bench.log" 2>/dev/null
echo
echo "== summary =="
cat "$summary"
