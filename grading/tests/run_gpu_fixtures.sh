#!/usr/bin/env bash
# The grader on a real GPU: grades each fixture of grading/tests/fixtures/gpu/ (Lab 01
# student files with one fault each, plus two controls: the reference solution and the
# shipped skeleton) and checks what its expect.json says: a kernel that never ends, an
# illegal address, an out-of-bounds write named by memcheck, a missing __syncthreads()
# named by racecheck, a host-side sort flagged, a slow but right sort losing speed points.
# A fixture that is the solution with one change holds a change.cu, not a copy: its student
# file is written from solutions/01-oddeven/oddeven.cu (grading/tests/fixture_patch.py) into
# its output folder before it is graded, and a change that no longer applies fails that fixture.
#
# usage: bash grading/tests/run_gpu_fixtures.sh [BUILD_DIR] [FIXTURE_NAME...]
# Run it from anywhere, after `make` (it runs `make all` itself when BUILD_DIR/grading.env is
# missing). Prints one line per fixture, then `N passed, N failed`; exit 0 when all passed,
# 1 when one failed, 2 when the kit is not built, 3 without a usable GPU. Each fixture's
# results.json, table and logs are kept in $GPU_FIXTURES_OUT (default BUILD_DIR/gpu-fixtures).
set -u
cd "$(dirname "$0")/../.."
build=${1:-build}
shift $(($# > 0 ? 1 : 0))
if [ ! -f "$build/grading.env" ]; then
    echo "run_gpu_fixtures: $build is not built; running make all" >&2
    make --no-print-directory BUILD="$build" all >&2 || exit 2
fi
if ! probe=$("$build/tools/gpu_probe"); then
    echo "run_gpu_fixtures: needs an NVIDIA GPU: $probe" >&2
    exit 3
fi
echo "$probe"
out=${GPU_FIXTURES_OUT:-$build/gpu-fixtures}
fixtures=("$@")
if [ ${#fixtures[@]} -eq 0 ]; then
    for dir in grading/tests/fixtures/gpu/*/; do fixtures+=("$(basename "$dir")"); done
fi
passed=0
failed=0
for name in "${fixtures[@]}"; do
    python3 grading/tests/check_gpu_fixture.py --build "$build" --out "$out/$name" \
        "grading/tests/fixtures/gpu/$name"
    case $? in
    0) passed=$((passed + 1)) ;;
    3) echo "run_gpu_fixtures: the GPU became unusable; stopping" >&2; exit 3 ;;
    *) failed=$((failed + 1)) ;;
    esac
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
