#!/usr/bin/env bash
# A stand-in for compute-sanitizer in the grader's own tests (no GPU needed): takes the same
# options the grader passes, runs the program (the executor), then prints a canned report on
# its output as compute-sanitizer does, and exits like it: --error-exitcode when it "found"
# something.
#   memcheck: one out-of-bounds write in hostsum.cu, reported by 32 threads
#   racecheck: nothing
set -u
tool=memcheck error_exit=1
while [ $# -gt 0 ]; do
    case "$1" in
    --tool) tool=$2; shift 2 ;;
    --error-exitcode) error_exit=$2; shift 2 ;;
    --print-limit|--show-backtrace) shift 2 ;;
    --*) shift ;;
    *) break ;;
    esac
done
"$@"
status=$?
echo "========= COMPUTE-SANITIZER"
if [ "$tool" = memcheck ]; then
    for thread in $(seq 0 31); do
        echo "========= Invalid __global__ write of size 4 bytes"
        echo "=========     at hostsum_kernel(int *, unsigned long)+0x70 in /tmp/work/91-hostsum/hostsum.cu:12"
        echo "=========     by thread ($thread,0,0) in block (0,0,0)"
        echo "=========     Address 0x7f0000000400 is out of bounds"
        echo "=========     Saved host backtrace up to driver entry point at kernel launch time"
        echo "=========         Host Frame: [0x2dfbef] in /lib/x86_64-linux-gnu/libcuda.so.1"
        echo "========="
    done
    echo "========= ERROR SUMMARY: 32 errors"
    exit "$error_exit"
fi
echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
exit $status
