#!/usr/bin/env python3
"""cu2cpp.py: turns a lab's .cu file into C++ that the host compiler builds against the kit's
CPU emulation (emulation/README.md says why a rewrite, and why libclang).

libclang parses the file as CUDA (host side, no CUDA Toolkit: -nocudainc -nocudalib and the
emulation's own headers, which give clang CUDA's attributes under KIT_EMU_PARSE). From that AST
and the file's own tokens, never from regular expressions, it makes three kinds of edit:

  k<<<g, b, s, st>>>(args)      ->  ::kit_emu::launch(k, ::kit_emu::config(g, b, s, st),
                                                       __FILE__, __LINE__, "k")(args)
  __shared__ T name[N];         ->  typedef T kit_emu_shared_t_name[N]; <a reference `name`
                                    to the block's own instance, kit_emu::shared_var()>
  extern __shared__ T name[];   ->  the same, bound to the block's dynamic shared memory

and it appends one registration per kernel defined in the file (its name, and how to call it
from cudaLaunchCooperativeKernel's `void **args`). No edit adds or removes a line, and the
output starts with `#line 1 "<the original path>"`, so compiler messages, __FILE__, __LINE__
and AddressSanitizer's reports name the student's own file and line.

A header of the lab that needs edits too (Lab 05's quicksort_given.cuh) is written, rewritten,
next to the output, where `#include "..."` finds it first.

A lab's bonus file (NAME_bonus.cu, Labs 02-04) is one translation unit with NAME.cu, which
comes first (labs/labs.mk: nvcc -c NAME_bonus.cu -include NAME.cu): `--include NAME.cu` parses
it that way, and rewrites only the bonus file (NAME.cu is rewritten on its own, and the
compiler includes that rewrite first, as nvcc does).

usage: cu2cpp.py -o OUT [--depfile FILE] [--include FIRST] [-I DIR]... [-D NAME]... SOURCE
       cu2cpp.py --check      (exit 0 when libclang and its Python bindings are here)
Exit status: 0 written; 1 the source does not compile (clang's messages, in the compiler's
format) or uses something the rewrite cannot handle (a message names it); 2 no libclang.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EMU_INCLUDE = os.path.join(HERE, "include")
# The configuration call clang makes of <<<...>>>: the old name when it finds no CUDA
# installation (as here, on purpose), the new one otherwise.
CONFIG_CALLS = ("cudaConfigureCall", "__cudaPushCallConfiguration")


def load_cindex():
    """clang.cindex from Debian's python3-clang-NN (in the system's dist-packages, which a
    Python of one's own does not search) or from pip's libclang; then libclang itself."""
    try:
        import clang.cindex as ci
    except ImportError:
        for folder in ("/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"):
            if os.path.isdir(os.path.join(folder, "clang")) and folder not in sys.path:
                sys.path.append(folder)
        try:
            import clang.cindex as ci
        except ImportError:
            return (
                None,
                "no Python bindings of libclang (Debian/Ubuntu: apt-get install python3-clang-15; elsewhere: pip install libclang)",
            )
    try:
        ci.conf.lib
        return ci, None
    except ci.LibclangError:
        pass
    candidates = sorted(
        glob.glob("/usr/lib/llvm-*/lib/libclang.so*")
        + glob.glob("/usr/lib/*/libclang-*.so*")
        + glob.glob("/usr/lib*/libclang.so*"),
        reverse=True,
    )
    for path in candidates:
        try:
            ci.Config.set_library_file(path)
            ci.conf.lib
            return ci, None
        except Exception:  # pylint: disable=broad-except
            ci.Config.loaded = False
    return None, "libclang not found (Debian/Ubuntu: apt-get install libclang1-15)"


def resource_headers(ci):
    """The arguments that give libclang the compiler's own headers (stddef.h, stdarg.h...) when
    it has none of its own: PyPI's libclang wheel comes without clang's resource folder. Then
    the folder of a clang here (clang -print-resource-dir), else of gcc (-print-file-name),
    searched after every other (-idirafter): [] when libclang finds them itself."""
    probe = ci.Index.create().parse(
        "kit_emu_probe.cpp",
        args=["-x", "c++"],
        unsaved_files=[("kit_emu_probe.cpp", "#include <stddef.h>\n")],
    )
    if not any("stddef.h" in d.spelling for d in probe.diagnostics):
        return []
    for compiler, flag, under in (
        ("clang", "-print-resource-dir", "include"),
        (os.environ.get("CC", "gcc"), "-print-file-name=include", ""),
        ("gcc", "-print-file-name=include", ""),
    ):
        try:
            said = subprocess.run(
                [compiler, flag],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                universal_newlines=True,
                timeout=30,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        folder = os.path.join(said, under) if under else said
        if os.path.isfile(os.path.join(folder, "stddef.h")):
            return ["-idirafter", folder]
    return []


class RewriteError(Exception):
    """Something the rewrite cannot handle, with the file and line it is at."""


class FileTokens:
    """One file's raw tokens (no macro expansion), by byte offset."""

    # path -> the text parsed instead of the file's (a device view of __CUDA_ARCH__, below)
    overrides = {}

    def __init__(self, tu, path):
        if os.path.realpath(path) in FileTokens.overrides:
            self.data = FileTokens.overrides[os.path.realpath(path)]
        else:
            with open(path, "rb") as f:
                self.data = f.read()
        extent = tu.get_extent(path, (0, len(self.data)))
        self.tokens = [
            (t.extent.start.offset, t.extent.end.offset, t.spelling)
            for t in tu.get_tokens(extent=extent)
        ]
        self.starts = {t[0]: i for i, t in enumerate(self.tokens)}
        self.ends = {t[1]: i for i, t in enumerate(self.tokens)}

    def at(self, offset):
        i = self.starts.get(offset)
        return None if i is None else self.tokens[i]

    def ending_at(self, offset):
        i = self.ends.get(offset)
        return None if i is None else self.tokens[i]

    def between(self, start, end):
        return [t for t in self.tokens if t[0] >= start and t[1] <= end]


class Rewriter:
    def __init__(self, ci, tu, root, first=None):
        self.ci = ci
        self.tu = tu
        self.root = root
        self.main = os.path.realpath(tu.spelling)
        # The file parsed before this one (--include): rewritten on its own, never here.
        self.first = os.path.realpath(first) if first else None
        self.edits = {}  # path -> [(start, end, text)]
        self.tokens = {}
        self.kernels = []  # (qualified name, name, path, line)
        self.overloaded = {}  # qualified name -> the parameter types of its kernels
        self.symbols = []  # __device__ and __constant__ variables: (qualified name, name)

    def rewritable(self, path):
        """The file rewritten, and the kit's own files: not the emulation's headers, not the
        system's."""
        real = os.path.realpath(path)
        if real == self.main:
            return True
        if real == self.first:
            return False
        return real.startswith(self.root + os.sep) and not real.startswith(EMU_INCLUDE + os.sep)

    def file_tokens(self, path):
        if path not in self.tokens:
            self.tokens[path] = FileTokens(self.tu, path)
        return self.tokens[path]

    def edit(self, path, start, end, text):
        self.edits.setdefault(path, []).append((start, end, text))

    # path -> [line of the file for each line of the text parsed], where they differ
    line_maps = {}

    @staticmethod
    def line_of(location):
        """The line of the student's file (the text parsed may have lines of ours)."""
        lines = (
            Rewriter.line_maps.get(os.path.realpath(location.file.name)) if location.file else None
        )
        return lines[location.line - 1] if lines else location.line

    @staticmethod
    def where(cursor):
        loc = cursor.location
        return "%s:%d" % (
            os.path.relpath(loc.file.name) if loc.file else "?",
            Rewriter.line_of(loc),
        )

    def overloads(self, cursor, kinds):
        """{qualified name: how many kernels of different parameter types have it} of the
        kernels declared at namespace scope in the files rewritten."""
        found = {}
        for child in cursor.get_children():
            loc = child.location
            if loc.file is None or not self.rewritable(loc.file.name):
                continue
            if child.kind in (kinds.NAMESPACE, kinds.LINKAGE_SPEC, kinds.UNEXPOSED_DECL):
                for name, types in self.overloads(child, kinds).items():
                    found.setdefault(name, set()).update(types)
            elif child.kind == kinds.FUNCTION_DECL and any(
                c.kind == kinds.CUDAGLOBAL_ATTR for c in child.get_children()
            ):
                found.setdefault(self.qualified(child, kinds), set()).add(
                    child.type.get_canonical().spelling
                )
        return found

    def pointer_type(self, kernel):
        """`void (*)(int *, float)`: a pointer to @p kernel's function type, for a cast that
        picks one of overloaded kernels."""
        params = ", ".join(a.type.get_canonical().spelling for a in kernel.get_arguments())
        return "%s (*)(%s)" % (kernel.result_type.get_canonical().spelling, params)

    def is_overloaded(self, kernel):
        kinds = self.ci.CursorKind
        return len(self.overloaded.get(self.qualified(kernel, kinds), ())) > 1

    def walk(self, cursor):
        kinds = self.ci.CursorKind
        self.overloaded = self.overloads(cursor, kinds)
        for child in cursor.get_children():
            loc = child.location
            if loc.file is None or not self.rewritable(loc.file.name):
                continue
            self.visit(child, kinds)

    def visit(self, cursor, kinds):
        kind = cursor.kind
        if kind == kinds.CALL_EXPR:
            children = list(cursor.get_children())
            if (
                len(children) >= 2
                and children[1].kind == kinds.CALL_EXPR
                and children[1].spelling in CONFIG_CALLS
            ):
                self.launch(cursor, children[0], children[1], children[2:])
        elif kind == kinds.DECL_STMT:
            shared = [
                c
                for c in cursor.get_children()
                if c.kind == kinds.VAR_DECL and self.is_shared(c, kinds)
            ]
            if shared:
                self.shared(cursor, shared)
        elif (
            kind == kinds.VAR_DECL
            and self.is_shared(cursor, kinds)
            and cursor.lexical_parent is not None
            and cursor.lexical_parent.kind in (kinds.TRANSLATION_UNIT, kinds.NAMESPACE)
        ):
            raise RewriteError(
                "%s: the emulation has no __shared__ variable outside a function "
                "('%s'): declare it inside the kernel, or run this on a GPU"
                % (self.where(cursor), cursor.spelling)
            )
        elif (
            kind == kinds.VAR_DECL
            and cursor.is_definition()
            and cursor.semantic_parent is not None
            and cursor.semantic_parent.kind in (kinds.TRANSLATION_UNIT, kinds.NAMESPACE)
            and any(
                c.kind in (kinds.CUDADEVICE_ATTR, kinds.CUDACONSTANT_ATTR)
                for c in cursor.get_children()
            )
        ):
            self.symbols.append((self.qualified(cursor, kinds), cursor.spelling))
        elif (
            kind == kinds.FUNCTION_DECL
            and cursor.is_definition()
            and any(c.kind == kinds.CUDAGLOBAL_ATTR for c in cursor.get_children())
        ):
            qualified = self.qualified(cursor, kinds)
            if self.is_overloaded(cursor):  # one of several: named by its type
                qualified = "static_cast<%s>(%s)" % (self.pointer_type(cursor), qualified)
            self.kernels.append(
                (
                    qualified,
                    cursor.spelling,
                    os.path.relpath(cursor.location.file.name),
                    self.line_of(cursor.location),
                )
            )
        for child in cursor.get_children():
            self.visit(child, kinds)

    @staticmethod
    def is_shared(cursor, kinds):
        return any(c.kind == kinds.CUDASHARED_ATTR for c in cursor.get_children())

    @staticmethod
    def qualified(cursor, kinds):
        parts = [cursor.spelling]
        parent = cursor.semantic_parent
        while parent is not None and parent.kind != kinds.TRANSLATION_UNIT:
            if parent.spelling:  # (not extern "C" { }, nor an anonymous namespace)
                parts.append(parent.spelling)
            parent = parent.semantic_parent
        return "::" + "::".join(reversed(parts))

    @staticmethod
    def referenced_kernel(callee):
        """The kernel a launch's callee names (through the callee's implicit cast), or None."""
        kernel = callee.referenced
        while kernel is None and callee.get_children():
            callee = next(callee.get_children())
            kernel = callee.referenced
        return kernel

    def launch(self, call, callee, config, args):
        """k<<<...>>>(args): the config call's extent is exactly `<<<...>>>`. A kernel's default
        arguments, which the call leaves out, are written into it, as the launch template takes
        every parameter."""
        path = config.extent.start.file.name if config.extent.start.file else None
        start, end = config.extent.start.offset, config.extent.end.offset
        tokens = self.file_tokens(path) if path else None
        first = tokens.at(start) if tokens else None
        last = tokens.ending_at(end) if tokens else None
        callee_start = callee.extent.start
        if (
            not first
            or first[2] != "<<<"
            or not last
            or last[2] != ">>>"
            or callee_start.file is None
            or callee_start.file.name != path
            or callee_start.offset >= start
        ):
            raise RewriteError(
                "%s: the emulation cannot rewrite this kernel launch (is its "
                "<<<...>>> written by a macro?): write it out, or run this on a "
                "GPU" % self.where(call)
            )
        # One of overloaded kernels, or a template kernel whose arguments the call deduced
        # (`fill<<<g, b>>>(floats, n, 1.5f)`): the launch names it by its type, as the call
        # picked it.
        kernel = self.referenced_kernel(callee)
        written = [t[2] for t in tokens.between(callee_start.offset, start)]
        cast = kernel is not None and (
            self.is_overloaded(kernel)
            or (kernel.get_num_template_arguments() > 0 and "<" not in written)
        )
        self.edit(
            path,
            callee_start.offset,
            callee_start.offset,
            "::kit_emu::launch(" + ("static_cast<%s>(" % self.pointer_type(kernel) if cast else ""),
        )
        self.edit(path, first[0], first[1], (")" if cast else "") + ", ::kit_emu::config(")
        # The kernel as written (`sort_tile<float>`): the name of a template's instance.
        name = ""
        for t in tokens.between(callee_start.offset, start):
            word = t[2]
            if (
                name
                and (name[-1].isalnum() or name[-1] == "_")
                and (word[0].isalnum() or word[0] == "_")
            ):
                name += " "
            name += word
        self.edit(
            path,
            last[0],
            last[1],
            '), __FILE__, __LINE__, "%s")' % name.replace("\\", "\\\\").replace('"', '\\"'),
        )
        given = [a for a in args if a.extent.start.file is not None]
        if len(given) < len(args):
            self.default_arguments(call, callee, path, len(given))

    def default_arguments(self, call, callee, path, given):
        """The default arguments a launch leaves out, copied from the kernel's declaration (the
        tokens after each parameter's `=`) before the launch's closing parenthesis: the launch
        template takes every parameter."""
        kernel = self.referenced_kernel(callee)
        params = (
            []
            if kernel is None
            else [c for c in kernel.get_children() if c.kind == self.ci.CursorKind.PARM_DECL]
        )
        tokens = self.file_tokens(path)
        close = tokens.ending_at(call.extent.end.offset)
        texts = []
        for param in params[given:]:
            where = param.extent.start
            source = self.file_tokens(where.file.name) if where.file else None
            words = (
                [t[2] for t in source.between(where.offset, param.extent.end.offset)]
                if source
                else []
            )
            if "=" not in words:
                texts = None
                break
            texts.append(" ".join(words[words.index("=") + 1 :]))
        if not texts or not close or close[2] != ")":
            raise RewriteError(
                "%s: the emulation cannot add this launch's default arguments: "
                "write them out" % self.where(call)
            )
        self.edit(path, close[0], close[0], (", " if given else "") + ", ".join(texts))

    def shared(self, stmt, decls):
        """`[extern|static] __shared__ T a[N], b;` -> typedefs, then references to the block's
        instances, on the same line."""
        path = stmt.extent.start.file.name
        tokens = self.file_tokens(path)
        stmt_tokens = tokens.between(stmt.extent.start.offset, stmt.extent.end.offset)
        first_name = min(d.location.offset for d in decls)
        specifiers = [t for t in stmt_tokens if t[0] < first_name]
        shared = [t for t in specifiers if t[2] == "__shared__"]
        if len(shared) != 1 or not stmt_tokens or stmt_tokens[-1][2] != ";":
            raise RewriteError(
                "%s: the emulation cannot rewrite this __shared__ declaration "
                "(is __shared__ written by a macro?): write it out, or run this "
                "on a GPU" % self.where(stmt)
            )
        dynamic = any(t[2] == "extern" for t in specifiers)
        for t in specifiers:
            if t[2] in ("extern", "static"):
                self.edit(path, t[0], t[1], "")
        self.edit(path, shared[0][0], shared[0][1], "typedef")
        after = []
        for d in decls:
            name = d.spelling
            token = tokens.at(d.location.offset)
            if not token or token[2] != name:
                raise RewriteError(
                    "%s: the emulation cannot rewrite the __shared__ variable "
                    "'%s' (is its name written by a macro?)" % (self.where(d), name)
                )
            type_name = "kit_emu_shared_t_" + name
            self.edit(path, token[0], token[1], type_name)
            if dynamic:
                after.append(
                    ' %s &%s = *(%s *)::kit_emu::dynamic_shared(alignof(%s), "%s", '
                    "__FILE__, __LINE__);" % (type_name, name, type_name, type_name, name)
                )
            else:
                tag = "kit_emu_shared_tag_" + name
                after.append(
                    " static char %s; %s &%s = *(%s *)::kit_emu::shared_var(&%s, "
                    'sizeof(%s), alignof(%s), "%s", __FILE__, __LINE__);'
                    % (tag, type_name, name, type_name, tag, type_name, type_name, name)
                )
        semicolon = stmt_tokens[-1]
        self.edit(path, semicolon[1], semicolon[1], "".join(after))

    def rewritten(self, path):
        data = self.file_tokens(path).data if path in self.tokens else open(path, "rb").read()
        out = []
        position = 0
        for start, end, text in sorted(self.edits.get(path, []), key=lambda e: (e[0], e[1])):
            if start < position:
                raise RewriteError(
                    "%s: overlapping edits at byte %d (a bug of cu2cpp.py)" % (path, start)
                )
            out.append(data[position:start])
            out.append(text.encode())
            position = end
        out.append(data[position:])
        return b"".join(out)


def in_cuda_installation(path):
    """Whether @p path (a real path) lies in a CUDA installation's include folder: a folder
    named cuda, cuda-13.0, cuda_runtime (pip's nvidia packages)... with an include folder below
    it (/usr/local/cuda-13.0/include, /usr/local/cuda/targets/x86_64-linux/include). Never the
    emulation's own headers, nor a file of the kit or a student's that has cuda in its name."""
    if path.startswith(os.path.realpath(EMU_INCLUDE) + os.sep):
        return False
    parts = path.split(os.sep)[:-1]
    for i, part in enumerate(parts):
        if (
            re.match(r"(cuda(-\d+(\.\d+)*)?|cuda_(runtime|nvcc|cccl|cupti|nvrtc))$", part.lower())
            and "include" in parts[i + 1 :]
        ):
            return True
    return False


def toolkit_headers(tu):
    """The headers the file reached in a CUDA installation (a system include folder may hold the
    Toolkit's headers, or links to them: /usr/local/include/vector_types.h): (the header, the
    file and line that included it), the first one each includer reached. The emulation's own
    headers stand for CUDA's; anything else of CUDA's would be compiled by accident."""
    inclusions = list(tu.get_includes())
    toolkit = {
        os.path.realpath(i.include.name)
        for i in inclusions
        if in_cuda_installation(os.path.realpath(i.include.name))
    }
    found, seen = [], set()
    for inclusion in inclusions:
        path = inclusion.include.name
        if os.path.realpath(path) not in toolkit:
            continue
        by = inclusion.source.name if inclusion.source else "?"
        if os.path.realpath(by) in toolkit:
            continue  # a CUDA header's own includes: its includer is named already
        if (path, by) not in seen:
            seen.add((path, by))
            where = "%s:%d" % (os.path.relpath(by), inclusion.location.line)
            found.append((path, where))
    return found


# What __CUDA_ARCH__ is in device code: the emulated device's compute capability (sm_90).
CUDA_ARCH = 900


def function_spans(ci, tu, source, device):
    """The first and last lines of the functions the file defines: its `__global__` and
    `__device__` ones (@p device), or its host ones (not `__global__` nor `__device__` only)."""
    kinds = ci.CursorKind
    main = os.path.realpath(source)
    spans = []
    for cursor in tu.cursor.walk_preorder():
        if cursor.kind not in (kinds.FUNCTION_DECL, kinds.FUNCTION_TEMPLATE, kinds.CXX_METHOD):
            continue
        start, end = cursor.extent.start, cursor.extent.end
        if start.file is None or os.path.realpath(start.file.name) != main:
            continue
        if not cursor.is_definition():
            continue
        attrs = {c.kind for c in cursor.get_children()}
        on_device = kinds.CUDAHOST_ATTR not in attrs and bool(
            attrs & {kinds.CUDAGLOBAL_ATTR, kinds.CUDADEVICE_ATTR}
        )
        if on_device == device:
            spans.append((start.line, end.line))
    return spans


def arch_view(source, spans, inside, outside):
    """The file's text with __CUDA_ARCH__ defined (@p inside, @p outside: True) or not (False)
    in the lines of @p spans and outside them, each `#define` or `#undef` on a line of its own
    followed by a `#line` that keeps the file's numbering: (the text, for each of its lines the
    file's line)."""
    with open(source, "rb") as f:
        lines = f.read().split(b"\n")
    name = os.path.relpath(source).encode()
    define = b"#define __CUDA_ARCH__ %d" % CUDA_ARCH
    firsts = {first for first, _ in spans}
    lasts = {last for _, last in spans}
    out, line_map = [], []
    if outside:
        out += [define, b'#line 1 "%s"' % name]
        line_map += [1, 1]
    for number, text in enumerate(lines, 1):
        if number in firsts and inside != outside:
            out += [
                define if inside else b"#undef __CUDA_ARCH__",
                b'#line %d "%s"' % (number, name),
            ]
            line_map += [number, number]
        out.append(text)
        line_map.append(number)
        if number in lasts and inside != outside:
            out += [
                define if outside else b"#undef __CUDA_ARCH__",
                b'#line %d "%s"' % (number + 1, name),
            ]
            line_map += [number, number]
    return b"\n".join(out), line_map


def device_arch_view(ci, tu, source):
    """nvcc compiles a .cu file twice: for the host, where __CUDA_ARCH__ is not defined, and for
    the GPU, where it is (an arch-guarded branch of a kernel, `#if __CUDA_ARCH__ >= 800`). The
    emulation compiles it once, so each `__global__` or `__device__` function of the file gets
    `#define __CUDA_ARCH__ 900` before its first line and `#undef` after its last, each followed
    by a `#line` that keeps the file's numbering; host code, and `__host__ __device__` functions
    (which run on the host too), see it undefined. Returns (the text, for each of its lines the
    file's line), or None when the file never names __CUDA_ARCH__."""
    with open(source, "rb") as f:
        if b"__CUDA_ARCH__" not in f.read():
            return None
    spans = function_spans(ci, tu, source, True)
    return arch_view(source, spans, True, False) if spans else None


def arch_at_file_scope(ci, tu, source):
    """Whether the file names __CUDA_ARCH__ outside its functions (`#if __CUDA_ARCH__ >= 700`
    choosing which __device__ function to define): then nvcc's device pass sees other device code
    than its host pass, and the file is read as the device pass reads it (whole_device_view)."""
    with open(source, "rb") as f:
        lines = [n for n, text in enumerate(f.read().split(b"\n"), 1) if b"__CUDA_ARCH__" in text]
    if not lines:
        return False
    spans = function_spans(ci, tu, source, True) + function_spans(ci, tu, source, False)
    return any(not any(first <= n <= last for first, last in spans) for n in lines)


def whole_device_view(ci, tu, source):
    """For a file that does not compile with __CUDA_ARCH__ undefined outside its functions: one
    that declares device code only where the device pass sees it (`#if __CUDA_ARCH__ >= 700`
    around a __device__ function a kernel calls). __CUDA_ARCH__ is then defined everywhere but in
    the host functions the file defines (main, the launchers), as nvcc's device pass sees the
    file; None when the file never names __CUDA_ARCH__."""
    with open(source, "rb") as f:
        if b"__CUDA_ARCH__" not in f.read():
            return None
    return arch_view(source, function_spans(ci, tu, source, False), False, True)


# CUDA's libraries beside the runtime, by the folder or name of their headers: the emulation has
# none of them, and says so by name rather than with the compiler's "file not found" alone.
CUDA_LIBRARIES = {
    "thrust/": "Thrust",
    "cub/": "CUB",
    "cuda/": "libcu++ (<cuda/...>)",
    "cublas": "cuBLAS",
    "cufft": "cuFFT",
    "curand": "cuRAND",
    "cusparse": "cuSPARSE",
    "cusolver": "cuSOLVER",
    "nvrtc": "NVRTC",
    "cudnn": "cuDNN",
    "nccl": "NCCL",
    "cuda_fp16": "half precision (cuda_fp16.h)",
    "cuda_bf16": "bfloat16 (cuda_bf16.h)",
    "mma.h": "warp matrix functions (mma.h)",
    "cuda.h": "the driver API (cuda.h)",
}


def missing_library(messages):
    """The CUDA library whose header a "file not found" message names, or None."""
    for message in messages:
        if not message.endswith("file not found"):
            continue
        header = message.split("'")[1] if message.count("'") >= 2 else ""
        for prefix, library in CUDA_LIBRARIES.items():
            if header.startswith(prefix):
                return "%s (<%s>)" % (library, header)
    return None


def main():
    if sys.argv[1:] == ["--check"]:  # emulation/configure.sh: is libclang here?
        ci, problem = load_cindex()
        if ci is None:
            print(problem, file=sys.stderr)
            return 2
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--depfile")
    parser.add_argument(
        "--include",
        dest="first",
        metavar="FIRST",
        help="the file parsed before SOURCE, as `nvcc -include FIRST` (a lab's "
        "NAME.cu for its NAME_bonus.cu); it is not rewritten here",
    )
    parser.add_argument("-I", dest="includes", action="append", default=[])
    parser.add_argument("-D", dest="defines", action="append", default=[])
    args = parser.parse_args()

    ci, problem = load_cindex()
    if ci is None:
        print(
            "cu2cpp: %s; the emulation needs it to read <<<...>>> launches" % problem,
            file=sys.stderr,
        )
        return 2
    clang_args = [
        "-x",
        "cuda",
        "--cuda-host-only",
        "-nocudainc",
        "-nocudalib",
        "--cuda-path=/nonexistent/kit-emulation",
        "-std=c++17",
        "-DKIT_EMU_PARSE",
        "-D__CUDACC__",
        "-I" + EMU_INCLUDE,
        "-include",
        "cuda_runtime.h",
    ]
    if args.first:
        clang_args += ["-include", os.path.abspath(args.first)]
    clang_args += ["-I" + i for i in args.includes] + ["-D" + d for d in args.defines]
    clang_args += resource_headers(ci)
    tu = ci.Index.create().parse(args.source, args=clang_args)
    foreign = toolkit_headers(tu)
    if foreign:
        for included, by in foreign:
            print(
                "%s: includes %s from a CUDA installation: the emulation has no %s (it never "
                "uses the CUDA Toolkit's headers): run this on a GPU"
                % (by, included, os.path.basename(included)),
                file=sys.stderr,
            )
        print(
            "cu2cpp: %s needs a header the emulation does not have" % args.source, file=sys.stderr
        )
        return 1

    def parse_view(view):
        return ci.Index.create().parse(
            args.source, args=clang_args, unsaved_files=[(args.source, view[0].decode())]
        )

    def fails(unit):
        return any(d.severity >= ci.Diagnostic.Error for d in unit.diagnostics)

    # The text the rewrite reads: the file, or its device view (__CUDA_ARCH__, above). A file
    # that does not compile as it is may compile as nvcc's device pass reads it.
    if not fails(tu):
        view = (
            whole_device_view(ci, tu, args.source)
            if arch_at_file_scope(ci, tu, args.source)
            else device_arch_view(ci, tu, args.source)
        )
        viewed = parse_view(view) if view is not None else tu
        why = "does not compile with __CUDA_ARCH__ defined in its device code"
    else:
        view = whole_device_view(ci, tu, args.source)
        viewed = parse_view(view) if view is not None else tu
        why = "does not compile"
        if fails(viewed):
            viewed = tu  # clang's messages for the file as it is
    if fails(viewed):
        for d in viewed.diagnostics:
            if d.severity >= ci.Diagnostic.Warning:
                print(d.format(), file=sys.stderr)
        library = missing_library(d.spelling for d in viewed.diagnostics)
        if library:
            print(
                "cu2cpp: %s includes %s, which the emulation does not have: run this program on a "
                'GPU (emulation/README.md, "Not modelled")' % (args.source, library),
                file=sys.stderr,
            )
        print("cu2cpp: %s %s (clang's messages above)" % (args.source, why), file=sys.stderr)
        return 1
    if view is not None:
        FileTokens.overrides[os.path.realpath(args.source)] = view[0]
        Rewriter.line_maps[os.path.realpath(args.source)] = view[1]
    tu = viewed
    rewriter = Rewriter(ci, tu, os.path.realpath(os.getcwd()), args.first)
    try:
        rewriter.walk(tu.cursor)
        main_path = tu.spelling
        outputs = {}
        for path in set(rewriter.edits) | {main_path}:
            same = os.path.realpath(path) == os.path.realpath(main_path)
            target = (
                args.output
                if same
                else os.path.join(os.path.dirname(args.output), os.path.basename(path))
            )
            text = b'#line 1 "%s"\n' % os.path.relpath(path).encode() + rewriter.rewritten(path)
            if same:
                text += (
                    b'\n#line 1 "<kit emulation: the kernels of %s>"\n'
                    % os.path.relpath(path).encode()
                )
                # Named after the file: a bonus file's registrations and those of the NAME.cu
                # included before it are in one translation unit.
                stem = "".join(
                    c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0]
                )
                # The program stops if the file changes after it is built (freshness.cpp).
                text += b'static ::kit_emu::source_freshness kit_emu_fresh_%s("%s");\n' % (
                    stem.encode(),
                    os.path.abspath(path).replace("\\", "\\\\").replace('"', '\\"').encode(),
                )
                for i, (qualified, name) in enumerate(rewriter.symbols):
                    text += (
                        b"static ::kit_emu::symbol_registration kit_emu_symbol_%s_%d(&%s, "
                        b'sizeof %s, "%s");\n'
                        % (stem.encode(), i, qualified.encode(), qualified.encode(), name.encode())
                    )
                for i, (qualified, name, where, line) in enumerate(rewriter.kernels):
                    text += (
                        b"static ::kit_emu::kernel_registration kit_emu_kernel_%s_%d(%s, "
                        b'"%s", "%s", %d);\n'
                        % (
                            stem.encode(),
                            i,
                            qualified.encode(),
                            name.encode(),
                            where.encode(),
                            line,
                        )
                    )
            outputs[target] = text
    except RewriteError as e:
        print("cu2cpp: %s" % e, file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    for target, text in outputs.items():
        with open(target + ".tmp", "wb") as f:
            f.write(text)
        os.replace(target + ".tmp", target)
    if args.depfile:
        headers = sorted(
            {
                os.path.relpath(i.include.name)
                for i in tu.get_includes()
                if rewriter.rewritable(i.include.name)
            }
        )
        with open(args.depfile, "w") as f:
            first = [args.first] if args.first else []
            f.write(
                "%s: %s %s\n" % (args.output, " ".join([args.source] + first), " ".join(headers))
            )
            for h in headers:
                f.write("%s:\n" % h)
    return 0


if __name__ == "__main__":
    sys.exit(main())
