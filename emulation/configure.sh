#!/usr/bin/env bash
# What the emulation's build can use on this machine, written as make variables
# (make writes them to build/emulate/config.mk once; delete that file to look again).
#   EMU_FIBER       boost (Boost.Context's fcontext) or ucontext (POSIX: slower switches)
#   EMU_FIBER_LIBS  what to link for it
#   EMU_SANITIZE    address when AddressSanitizer links and runs here, else empty
# It stops (exit 2) with the one command to run when something the emulation needs is missing:
# a C++ compiler, CUnit, or libclang with its Python bindings (what reads <<<...>>>). Nothing
# here looks for the CUDA Toolkit: the emulation needs none.
# usage: emulation/configure.sh [CXX [PYTHON [CC]]]   (prints the variables; notes go to stderr)
set -u
cxx=${1:-g++}
python=${2:-python3}
cc=${3:-gcc}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

missing=()
command -v "${cxx%% *}" >/dev/null || missing+=(g++) # (its first word: CXX may hold flags)
{ echo '#include <CUnit/CUnit.h>' | $cc -E -x c - >/dev/null 2>&1 &&
    [ -f "$($cc -print-file-name=libcunit.a)" ]; } || missing+=(libcunit1-dev)
"$python" "$here/cu2cpp.py" --check 2>/dev/null || missing+=(python3-clang-15 libclang1-15)
if [ ${#missing[@]} -gt 0 ]; then
    echo "emulation: missing ${missing[*]}; install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "  (the emulation needs no CUDA Toolkit and no GPU; libclang also comes with" \
         "'pip install libclang')" >&2
    exit 2
fi

cat > "$tmp/fcontext.cpp" <<'EOF'
#include <boost/context/detail/fcontext.hpp>
namespace bc = boost::context::detail;
static void back(bc::transfer_t t) { bc::jump_fcontext(t.fctx, 0); }
int main()
{
    static char stack[65536];
    bc::jump_fcontext(bc::make_fcontext(stack + sizeof stack, sizeof stack, back), 0);
    return 0;
}
EOF
fiber=ucontext
libs=
static=$($cxx -print-file-name=libboost_context.a 2>/dev/null)
for lib in "$static" -lboost_context; do
    [ "$lib" = libboost_context.a ] && continue # not found: the compiler echoes the bare name
    if $cxx -std=c++17 "$tmp/fcontext.cpp" -o "$tmp/fcontext" $lib 2>/dev/null &&
        "$tmp/fcontext"; then
        fiber=boost
        libs=$lib
        break
    fi
done
if [ $fiber = ucontext ]; then
    echo "emulation: no Boost.Context here; fibers switch with ucontext, about 30x slower" \
         "(Debian/Ubuntu: apt-get install libboost-context-dev)" >&2
fi

echo 'int main(void) { return 0; }' > "$tmp/asan.c"
sanitize=
if $cxx -fsanitize=address -x c++ "$tmp/asan.c" -o "$tmp/asan" 2>/dev/null &&
    ASAN_OPTIONS=detect_leaks=0 "$tmp/asan"; then
    sanitize=address
else
    echo "emulation: no AddressSanitizer here; an out-of-bounds access is not reported" \
         "with its line" >&2
fi

echo "# Written by emulation/configure.sh $cxx"
echo "EMU_FIBER ?= $fiber"
echo "EMU_FIBER_LIBS ?= $libs"
echo "EMU_SANITIZE ?= $sanitize"
