#!/usr/bin/env bash
# make format / make check-format: the kit's own form, the same on every machine that has
# Debian 12's tools (what CI installs: clang-format 14, black 23.1, pyflakes 2.5).
#
#   C, C++ and CUDA   clang-format with the kit's .clang-format (100 columns);
#   Python            black, 100 columns (pyproject.toml), and pyflakes: an unused import or
#                     an undefined name is an error (the grader runs on the standard library
#                     alone, and a name nobody defines fails only on the path that uses it).
#
# Left out: the planted faults (emulation/fixtures, grading/tests/fixtures: fragments a patch
# tool places by their text, not files that compile alone), build folders, and the student
# skeletons, which the skeleton generator writes from solutions/ (check-skeletons).
#
# usage: tools/format.sh check | fix      exit 0: clean (or fixed); 1: files to format (check);
#                                         2: a tool is missing (the line says which package)
set -u
mode=${1:-check}
cd "$(dirname "$0")/.."

missing=()
command -v clang-format >/dev/null || missing+=(clang-format)
command -v black >/dev/null || missing+=(black)
command -v pyflakes3 >/dev/null || command -v pyflakes >/dev/null || missing+=(pyflakes3)
if [ ${#missing[@]} -gt 0 ]; then
    echo "format: missing ${missing[*]}: sudo apt-get install ${missing[*]} (or make deps)" >&2
    exit 2
fi
pyflakes=$(command -v pyflakes3 || command -v pyflakes)

# The files, from git where there is a clone, else from the folders (a copy without .git).
list() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- "$@"
    else
        for pattern in "$@"; do find . -path "./build*" -prune -o -name "$pattern" -print; done |
            sed 's|^\./||'
    fi
}
skeletons=${KIT_SKELETONS:-} # NN-name/name.cu ... (make passes labs.mk's SKELETON_PAIRS)
c_files=$(list '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' |
    grep -v -e '^emulation/fixtures/' -e '^grading/tests/fixtures/' -e '^build' |
    while read -r f; do
        case $f in labs/*) case " $skeletons " in *" ${f#labs/} "*) continue ;; esac ;; esac
        echo "$f"
    done)
py_files=$(list '*.py' | grep -v -e '^build')
py_files="$py_files grading/grade"

status=0
if [ "$mode" = fix ]; then
    # shellcheck disable=SC2086
    clang-format -i $c_files || status=2
    # shellcheck disable=SC2086
    black -q $py_files || status=2
    # shellcheck disable=SC2086
    "$pyflakes" $py_files || status=1
    exit $status
fi

unformatted=()
for f in $c_files; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
# shellcheck disable=SC2086
while read -r line; do
    case $line in "would reformat "*) unformatted+=("${line#would reformat }") ;; esac
done < <(black --check $py_files 2>&1)
if [ ${#unformatted[@]} -gt 0 ]; then
    echo "check-format: ${#unformatted[@]} file(s) differ from the kit's form (make format rewrites them;" \
        "$(clang-format --version | grep -o 'version [0-9]*'), black $(black --version | grep -o '[0-9][0-9.]*' | head -1)):"
    printf '  %s\n' "${unformatted[@]}"
    status=1
fi
# shellcheck disable=SC2086
if ! "$pyflakes" $py_files; then
    echo "check-format: pyflakes found the above (an unused import, an undefined name)"
    status=1
fi
[ $status -ne 0 ] || echo "check-format: $(echo $c_files | wc -w) C/C++/CUDA and $(echo $py_files | wc -w) Python files in the kit's form, pyflakes clean"
exit $status
