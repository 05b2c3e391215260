#!/usr/bin/env bash
# make handout: the student package, build/handout/NAME/ and build/handout/NAME.tar.gz.
#
# What students get: labs/ (skeletons, headers, drivers, handouts), common/, the visible tests,
# the Makefile, the docs sources, the grader (it grades without speed points when solutions/
# is absent), the tools the build needs, a README for students (tools/handout/README.md) and
# the handouts built as HTML (handout-html/, from BUILD/docs/html). Never: solutions/, the
# grader's own tests and fixtures (grading/tests/), hidden tests (tests/hidden/), CI, or this
# folder. Files are taken from `git ls-files` when the kit is a Git checkout (so nothing
# untracked travels), else from the tree.
# usage: tools/handout/make_handout.sh BUILD_DIR [NAME]
set -euo pipefail
build=$1
name=${2:-gpu-sorting-kit}
out=$build/handout
dest=$out/$name
rm -rf "$dest" "$out/$name.tar.gz"
mkdir -p "$dest"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    list() { git ls-files -- "$@"; }
else
    list() { find "$@" -type f 2>/dev/null | sort; }
fi
shipped() { # paths of the kit that students get
    list .clang-format .gitignore .devcontainer Makefile common labs tests grading docs tools emulation
}
excluded() { # what they never get, whatever else the folders hold
    grep -Ev '^(solutions/|grading/tests/|tests/hidden/|tools/handout/|grading/gradescope/|emulation/fixtures/|\.ci/)'
}
shipped | excluded | while read -r path; do
    mkdir -p "$dest/$(dirname "$path")"
    cp -p "$path" "$dest/$path"
done

# The README for students, with the lab table of the kit's README (its links work there too).
table=$(sed -n '/^<!-- lab-table:begin -->$/,/^<!-- lab-table:end -->$/p' README.md)
python3 - "$dest/README.md" "$table" <<'PY'
import sys
template = open("tools/handout/README.md").read()
open(sys.argv[1], "w").write(template.replace("LABS_TABLE", sys.argv[2].strip()))
PY

# The handouts as HTML: read in a browser with their formulas and diagrams (Markdown editors
# and Git web pages show the Doxygen markup of labs/*/README.md as text).
if [ -f "$build/docs/html/index.html" ]; then
    cp -R "$build/docs/html" "$dest/handout-html"
else
    echo "make_handout: $build/docs/html is missing: run make docs first" >&2
    exit 2
fi

tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "handout: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1), $(find "$dest" -type f | wc -l) files)"
