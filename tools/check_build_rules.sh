#!/usr/bin/env bash
# make check-host: the Makefile's promises that a wrong build would break silently.
#   1. CUDA objects follow CUDA_ARCH: built for one architecture, then asked for another, they
#      are compiled again (not linked as they are into binaries other GPUs cannot run).
#   2. LAB=NN builds the grading binaries of that lab alone.
#   3. A lab that lacks a file every lab needs stops make with a sentence naming the file.
#   4. A user's NVCCFLAGS and CFLAGS add to the kit's own (from the command line or the
#      environment), a change of them compiles again, and the grader's flags stay the kit's.
# usage: tools/check_build_rules.sh   (from the kit's root; prints `check-build: N passed, ...`)
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
check() { # what, then a command whose success is the check
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1)); echo "ok   $what"
    else
        failed=$((failed + 1)); echo "FAIL $what"
    fi
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# 1. One small CUDA object, built for sm_80, again for sm_80, then for sm_90.
object=$scratch/build/obj/tests/keyflip_device.o
compiles() { # CUDA_ARCH: how many nvcc compilations make ran for the object
    make --no-print-directory BUILD="$scratch/build" CUDA_ARCH="$1" "$object" 2>&1 |
        grep -c -- ' -c tests/keyflip_device.cu'
}
check "an object is compiled for the architecture asked" test "$(compiles sm_80)" = 1
check "asked again for the same one, it is not compiled again" test "$(compiles sm_80)" = 0
check "asked for another, it is compiled again" test "$(compiles sm_90)" = 1
cuobjdump=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/cuobjdump
if [ -x "$cuobjdump" ]; then
    check "... and holds code for it" grep -q 'sm_90' <<< "$("$cuobjdump" --list-elf "$object")"
fi

# 2. What `make LAB=04` would link for the grader.
linked=$(make --no-print-directory -n BUILD="$scratch/build" LAB=04 all 2>/dev/null |
         grep -o 'grading/verdict_[0-9a-z_]*' | sort -u | tr '\n' ' ')
check "make LAB=04 links lab 04's verdict binary alone (got: $linked)" \
    test "$linked" = "grading/verdict_04_radix "

# 3. A lab folder with its header alone, in a copy of what make reads.
copy=$scratch/kit
mkdir -p "$copy"
cp -r Makefile labs tests "$copy"/
[ -d solutions ] && cp -r solutions "$copy"/
mkdir -p "$copy/labs/99-demo"
echo '/* demo */' > "$copy/labs/99-demo/demo.h"
message=$(make --no-print-directory -C "$copy" -n help 2>&1)
check "a lab without its files stops make, naming them" \
    grep -q 'a lab lacks files every lab needs: .*labs/99-demo/demo.cu.*grading/calls/api_99_demo.c' \
    <<< "$message"

# 4. The user's flags, after the kit's: the same small object, and one C object.
command_of() { # VAR=VALUE way (cmdline|env): the nvcc command make runs for the object
    if [ "$2" = env ]; then
        env "$1" make --no-print-directory BUILD="$scratch/build" CUDA_ARCH=sm_90 "$object" 2>&1
    else
        make --no-print-directory BUILD="$scratch/build" CUDA_ARCH=sm_90 "$1" "$object" 2>&1
    fi | grep -- ' -c tests/keyflip_device.cu'
}
for way in cmdline env; do
    line=$(command_of NVCCFLAGS=-DKIT_USER_FLAG_$way $way)
    check "NVCCFLAGS from the $way adds to the kit's flags and compiles again" \
        grep -q -- '-std=c++17.*-Icommon.*-DKIT_USER_FLAG_'$way <<< "$line"
done
check "the same flags again compile nothing" \
    test -z "$(command_of NVCCFLAGS=-DKIT_USER_FLAG_env env)"
c_object=$scratch/build/obj/common/timer.o
c_line=$(make --no-print-directory BUILD="$scratch/build" CFLAGS=-DKIT_USER_C_FLAG "$c_object" 2>&1 |
         grep -- ' -c common/timer.c')
check "CFLAGS adds to the kit's flags" grep -q -- '-Icommon.*-DKIT_USER_C_FLAG' <<< "$c_line"
make --no-print-directory BUILD="$scratch/build" CUDA_ARCH=sm_90 NVCCFLAGS=-DKIT_USER_FLAG \
    "$scratch/build/grading.env" > /dev/null 2>&1
check "the grader compiles with the kit's flags alone" \
    grep -q '^NVCCFLAGS=-O3 .*-Icommon$' "$scratch/build/grading.env"

echo "check-build: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
