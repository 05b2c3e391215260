#!/usr/bin/env bash
# make check-emulate-configs: the emulation as students' machines build it, each configuration
# in a build folder of its own, each running Lab 01's [emulate] suite on the reference solution
# in make emulate's default orders: must pass.
#   gcc       the default (Boost.Context, AddressSanitizer, the race detector)
#   clang     clang++ and clang (AddressSanitizer's shared runtime, the detector's -mllvm flags)
#   ucontext  no Boost.Context (a g++ that cannot find it): ucontext fibers, no AddressSanitizer
#   pypi      libclang from PyPI in a virtual environment (skipped when PyPI cannot be reached)
#   portable  the paths macOS takes wherever Linux has its own (KIT_EMU_PORTABLE: the program's
#             file through the dynamic loader, online cores, not the affinity mask; platform.h),
#             and configure.sh finding CUnit and Boost under a Homebrew prefix (KIT_BREW_PREFIX, a
#             folder made here with links to this machine's): what only a Mac runs is not here
# A configuration whose tools are not here is skipped, with the reason. Not part of make check
# (about 3 minutes on 2 cores): CI may run it on its own.
# usage: bash emulation/tests/check_configs.sh [CONFIG...]   Exit 0 when none failed.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(gcc clang ucontext pypi portable)
passed=0 failed=0 skipped=0

# A g++ that finds no Boost.Context, as on a machine without libboost-context-dev.
cat > "$tmp/g++-without-boost" <<'EOF'
#!/bin/sh
case " $* " in *" -lboost"* | *libboost* | *boost/context*) exit 1 ;; esac
exec g++ "$@"
EOF
chmod +x "$tmp/g++-without-boost"

for config in "${configs[@]}"; do
    args=()
    case $config in
    gcc) ;;
    clang)
        if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
            echo "skip  $config: no clang++ here"
            skipped=$((skipped + 1))
            continue
        fi
        args=(EMU_CXX=clang++ EMU_CC=clang) ;;
    ucontext) args=(EMU_CXX="$tmp/g++-without-boost") ;;
    pypi)
        if ! python3 -m venv "$tmp/venv" >/dev/null 2>&1 ||
            ! timeout 300 "$tmp/venv/bin/pip" install -q libclang >/dev/null 2>&1; then
            echo "skip  $config: no virtual environment, or PyPI's libclang could not be installed"
            skipped=$((skipped + 1))
            continue
        fi
        args=(EMU_PYTHON="$tmp/venv/bin/python") ;;
    portable)
        mkdir -p "$tmp/brew/include" "$tmp/brew/lib"
        ln -sf "$(dirname "$(echo '#include <CUnit/CUnit.h>' | gcc -M -x c - | grep -o '/[^ ]*CUnit/CUnit.h')")" \
            "$tmp/brew/include/CUnit"
        ln -sf "$(gcc -print-file-name=libcunit.a)" "$tmp/brew/lib/libcunit.a"
        args=(EMU_DEFINES=-DKIT_EMU_PORTABLE)
        export KIT_BREW_PREFIX="$tmp/brew" ;;
    *)
        echo "check_configs.sh: no configuration '$config' (gcc, clang, ucontext, pypi, portable)" >&2
        exit 2 ;;
    esac
    start=$(date +%s)
    if make --no-print-directory emulate LAB=01 EMU_VARIANT=solution BUILD="$tmp/build-$config" \
            "${args[@]}" > "$tmp/$config.log" 2>&1; then
        passed=$((passed + 1))
        echo "ok    $config: $(grep '^emulated:' "$tmp/$config.log" | cut -d';' -f1)" \
             "($(($(date +%s) - start)) s with the build)"
    else
        failed=$((failed + 1))
        echo "FAIL  $config"
        tail -15 "$tmp/$config.log"
    fi
    sed -n 's/^emulation: /      configure: /p' "$tmp/$config.log" | head -3
    unset KIT_BREW_PREFIX
done
echo "check-emulate-configs: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
