#!/bin/bash
# tools/ptxas_summary.sh: nvcc -Xptxas -v's output (on standard input), one line per kernel:
# its registers, spills and shared memory, with its name demangled (`make ptxas`). Anything
# else nvcc printed (a compile error) is passed through, and the exit status is nvcc's
# output's verdict: 1 when a line says error.
awk '
/Compiling entry function/ { match($0, /\x27[^\x27]+\x27/); name = substr($0, RSTART + 1, RLENGTH - 2); next }
/Function properties for/  { next }
/bytes stack frame/        { gsub(/^[ \t]+/, ""); frame[name] = $0; next }
/ptxas info *: Used/       { sub(/.*: Used /, "used "); printf "%s\n    %s; %s\n", name, $0, frame[name]; next }
/ptxas info/               { next }
/error/                    { bad = 1 }
                           { print }
END                        { exit bad }
' | { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }
