#!/usr/bin/env bash
# What the emulation's build can use on this machine, written as make variables
# (make writes them to build/emulate/config.mk once; delete that file to look again).
#   EMU_FIBER       boost (Boost.Context's fcontext) or ucontext (POSIX: slower switches)
#   EMU_FIBER_LIBS  what to link for it
#   EMU_SANITIZE    address when AddressSanitizer links and runs here, else empty (and empty
#                   with ucontext, which it makes too slow)
#   EMU_RACE_FLAGS  the race detector's: a call for every load and store, as the compiler
#                   spells it (gcc's --param, clang's -mllvm)
#   EMU_KEEP_LOADS  -fno-tree-sink where the compiler has it (gcc: loads stay where written)
#   EMU_SAN_LINK    clang: AddressSanitizer's shared runtime (the detector's functions must come
#                   before its own)
#   EMU_PREFIX_FLAGS  -I and -L of Homebrew's prefix (macOS: `brew --prefix`), or empty
#   EMU_CUNIT_LIB   CUnit's static library, where the compiler or Homebrew has it
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

# Homebrew's prefix (macOS; KIT_BREW_PREFIX stands in for `brew --prefix`): the compilers do not
# search its include/ and lib/ by themselves, where CUnit and Boost are.
prefix=${KIT_BREW_PREFIX:-}
if [ -z "$prefix" ] && command -v brew >/dev/null 2>&1; then
    prefix=$(brew --prefix 2>/dev/null)
fi
prefix_flags=
[ -n "$prefix" ] && [ -d "$prefix/include" ] && prefix_flags="-I$prefix/include -L$prefix/lib"
cunit_lib=$($cc -print-file-name=libcunit.a)
[ -f "$cunit_lib" ] || cunit_lib=$prefix/lib/libcunit.a

missing=()
command -v "${cxx%% *}" >/dev/null || missing+=(g++) # (its first word: CXX may hold flags)
{ echo '#include <CUnit/CUnit.h>' | $cc $prefix_flags -E -x c - >/dev/null 2>&1 &&
    [ -f "$cunit_lib" ]; } || missing+=(libcunit1-dev)
"$python" "$here/cu2cpp.py" --check 2>/dev/null || missing+=(python3-clang-15 libclang1-15)
if [ ${#missing[@]} -gt 0 ] && [ "$(uname -s)" = Darwin ]; then
    # Homebrew's names: CUnit and Boost; libclang from PyPI, in a virtual environment
    brew=()
    for m in "${missing[@]}"; do
        case $m in libcunit1-dev) brew+=(cunit) ;; g++) brew+=(llvm) ;; esac
    done
    echo "emulation: missing ${missing[*]}; install them with:" >&2
    [ ${#brew[@]} -eq 0 ] || echo "  brew install ${brew[*]} boost" >&2
    echo "  python3 -m venv .venv && .venv/bin/pip install libclang   (then make emulate" \
         "EMU_PYTHON=.venv/bin/python; the emulation needs no CUDA Toolkit and no GPU)" >&2
    exit 2
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "emulation: missing ${missing[*]}; install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "  (the emulation needs no CUDA Toolkit and no GPU; libclang also comes from PyPI," \
         "in a virtual environment: python3 -m venv .venv && .venv/bin/pip install libclang," \
         "then make emulate EMU_PYTHON=.venv/bin/python)" >&2
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
    if $cxx -std=c++17 $prefix_flags "$tmp/fcontext.cpp" -o "$tmp/fcontext" $lib 2>/dev/null &&
        "$tmp/fcontext"; then
        fiber=boost
        libs="$lib"
        [ "$lib" != -lboost_context ] || [ -z "$prefix_flags" ] || libs="-L$prefix/lib $lib"
        break
    fi
done
if [ $fiber = ucontext ]; then
    echo "emulation: no Boost.Context here; fibers switch with ucontext, about 30x slower" \
         "(Debian/Ubuntu: apt-get install libboost-context-dev; macOS: brew install boost)" >&2
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

# Without Boost.Context, a fiber switch through ucontext under AddressSanitizer costs about 20 us
# (50 ns with Boost): Lab 03's larger emulated tests then pass their time limit. So ucontext
# goes without AddressSanitizer, unless asked (make emulate EMU_SANITIZE=address).
if [ $fiber = ucontext ] && [ -n "$sanitize" ]; then
    sanitize=
    echo "emulation: so AddressSanitizer is off too (with ucontext it makes the larger tests" \
         "pass their time limits): an access out of bounds is not reported with its line, and" \
         "races are not looked for. For both, install libboost-context-dev (Debian/Ubuntu) or" \
         "boost (Homebrew), then delete build/emulate/config.mk" >&2
fi

# The race detector's flags, as this compiler spells them: a call for every load and store
# (gcc: --param, clang: -mllvm), and gcc's load sinking turned off (clang has none to turn off).
race_flags=
for flags in "--param asan-instrumentation-with-call-threshold=0" \
             "-mllvm -asan-instrumentation-with-call-threshold=0"; do
    if [ -n "$sanitize" ] &&
        $cxx -fsanitize=address $flags -Werror -x c++ "$tmp/asan.c" -o "$tmp/race" 2>/dev/null
    then
        race_flags=$flags
        break
    fi
done
# clang links AddressSanitizer's runtime into the program, where the race detector's own
# __asan_load4... would clash with it: there it takes the shared runtime (found through an
# rpath), which the detector's functions come before and reach through dlsym.
san_link=
if [ -n "$sanitize" ] && $cxx -fsanitize=address -shared-libsan -Werror -x c++ "$tmp/asan.c" \
        -o "$tmp/shared" 2>/dev/null; then
    for name in libclang_rt.asan-$(uname -m).so libclang_rt.asan_osx_dynamic.dylib; do
        runtime=$(dirname "$($cxx -print-file-name=$name)")
        [ "$runtime" = . ] || break
    done
    san_link="-shared-libsan -Wl,-rpath,$runtime -Wno-unused-command-line-argument"
fi
keep_loads=
if $cxx -fno-tree-sink -Werror -x c++ "$tmp/asan.c" -o "$tmp/sink" 2>/dev/null; then
    keep_loads=-fno-tree-sink
fi

echo "# Written by emulation/configure.sh $cxx"
echo "EMU_FIBER ?= $fiber"
echo "EMU_FIBER_LIBS ?= $libs"
echo "EMU_SANITIZE ?= $sanitize"
echo "EMU_SAN_LINK ?= $san_link"
echo "EMU_RACE_FLAGS ?= $race_flags"
echo "EMU_KEEP_LOADS ?= $keep_loads"
echo "EMU_PREFIX_FLAGS ?= $prefix_flags"
echo "EMU_CUNIT_LIB ?= $cunit_lib"
