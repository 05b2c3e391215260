#!/usr/bin/env bash
# make check's last line: adds up the 'N passed, N failed[, N skipped]' lines that its steps
# printed (host suites, the grader's tests, GPU suites when a GPU is here) into one line.
# usage: tools/check_summary.sh LOG
awk '
    match($0, /[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/) {
        split(substr($0, RSTART), f, /[ ,]+/)
        passed += f[1]; failed += f[3]; skipped += f[5]
    }
    END { printf "check: %d passed, %d failed, %d skipped\n", passed, failed, skipped }
' "$1"
