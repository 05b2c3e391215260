#!/usr/bin/env bash
# make check's last line: adds up the 'N passed, N failed[, N skipped]' lines that its steps
# printed (host suites, the grader's tests, GPU suites when a GPU is here) into one line, after
# the time each step took ('check-time: STEP N s (cpu U + S s)').
# usage: tools/check_summary.sh LOG
awk '
    /^check-time: / { times = times sprintf("  %-18s %5d s  (cpu %d s)\n", $2, $3, $6 + $8); total += $3 }
    match($0, /[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/) {
        split(substr($0, RSTART), f, /[ ,]+/)
        passed += f[1]; failed += f[3]; skipped += f[5]
    }
    END { if (times != "") printf "check: time by step\n%s  %-18s %5d s (steps of the two lanes overlap)\n", times, "sum", total
          printf "check: %d passed, %d failed, %d skipped\n", passed, failed, skipped }
' "$1"
