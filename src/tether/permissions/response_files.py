"""Programs that read `@FILE` arguments as more arguments (response files): `strings @.env`
reads `.env`, and prints its lines in its complaints. The lines are options and file names
too, so what they name may be any file, and what they ask for is not seen: a command with
one is code not seen (`response_unseen`), which no allow rule that judged only the visible
words covers. One table, by program, checked against each tool's parser: libiberty's
`expandargv` (binutils, gcc), LLVM's `cl::ExpandResponseFiles` (clang, lld, every `llvm-*`
and clang tool), the JDK's launcher and compilers, TypeScript's `tsc` (`@<file>`), and
Python's argparse with `fromfile_prefix_chars="@"` (pytest since 8.2, mypy and dmypy),
also as `python3 -m pytest` / `-m mypy`.
"""

from __future__ import annotations

import re

from tether.permissions.command_spec import words as _names
from tether.permissions.interpreter_scripts import PYTHON_VALUED
from tether.permissions.shell_words import DYN, program_name

RESPONSE_FILE_PROGRAMS = frozenset(
    # binutils (libiberty's expandargv)
    _names(
        "addr2line ar as c++filt dlltool dwp elfedit gprof ld ld.bfd ld.gold nm objcopy "
        "objdump ranlib readelf size strings strip windres"
    )
    # compilers and their drivers; linkers
    + _names(
        "gcc g++ cc c++ cpp gfortran gccgo gnat gdc gm2 clang clang++ clang-cl clang-cpp "
        "lld ld.lld ld64.lld lld-link wasm-ld rustc swiftc swift-frontend nvcc emcc em++ "
        "zig tcc dmd ldc2"
    )
    # the JDK's tools, .NET's compilers, MSBuild
    + _names(
        "java javac javadoc javap jar jlink jpackage jdeps jshell kotlinc scalac csc vbc "
        "mcs msbuild dotnet"
    )
    # LLVM's tools beside clang (cl::ParseCommandLineOptions expands them)
    + _names("clang-tidy clang-format clang-check clangd opt llc lli")
    # TypeScript's compiler; Python tools whose argparse reads `@FILE`
    + _names("tsc pytest py.test mypy dmypy")
    # archivers reading lists of names
    + _names("7z 7za 7zr")
)
"""Programs that expand response files (also under cross and versioned names:
`x86_64-linux-gnu-objdump`, `gcc-12`; and the `llvm-*` tools)."""


LIST_ONLY_RESPONSES = frozenset(_names("7z 7za 7zr"))
"""Programs whose response files are lists of file names, not options: not code."""


def expands_response_files(name: str) -> bool:
    """Whether program `name` reads its `@FILE` arguments (RESPONSE_FILE_PROGRAMS)."""
    bare = name.rstrip("0123456789.").removesuffix("-") or name
    return (
        name in RESPONSE_FILE_PROGRAMS
        or bare in RESPONSE_FILE_PROGRAMS
        or bare.rpartition("-")[2] in RESPONSE_FILE_PROGRAMS
        or name.startswith("llvm-")
    )


_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_PYTHON_MODULES = frozenset(_names("pytest py.test mypy"))
"""Modules `python3 -m X` runs whose argparse reads `@FILE` (as their programs do)."""


def _responding(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """The program that expands response files `argv` runs, and its arguments: the program
    itself, or `python3 -m pytest`'s module (options before `-m` are the interpreter's)."""
    if not argv:
        return None
    name = program_name(argv[0])
    if expands_response_files(name):
        return name, argv[1:]
    if not _PYTHON.fullmatch(name):
        return None
    skip = False
    for i, word in enumerate(argv[1:], start=1):
        if skip or word in PYTHON_VALUED or word[:2] in ("-W", "-X"):
            skip = word in PYTHON_VALUED
            continue
        if not word.startswith("-") or word in ("-", "--") or word.startswith("--"):
            return None
        before, m, after = word[1:].partition("m")  # `-m pytest`, `-mpytest`, `-Bm pytest`
        if "c" in before:
            return None
        if m:
            module = after or (argv[i + 1] if i + 1 < len(argv) else "")
            rest = argv[i + 1 :] if after else argv[i + 2 :]
            return (module, rest) if module in _PYTHON_MODULES else None
    return None


def _response_words(args: tuple[str, ...]) -> list[str]:
    return [word for word in args if word.startswith("@") and len(word) > 1]


def response_files(argv: tuple[str, ...]) -> list[str]:
    """What a program that expands response files reads for its `@FILE` arguments: each
    FILE, and whatever the words inside may name (DYN: any file)."""
    found = _responding(argv)
    files = [word[1:] for word in _response_words(found[1])] if found else []
    return [*files, DYN] if files else []


def response_unseen(argv: tuple[str, ...]) -> str | None:
    """Why what `argv` runs is not all seen: the arguments its `@FILE` holds, which may be
    options that load code, run programs or write (`pytest -p`, `mypy
    --python-executable`, `gcc -wrapper`); None without one, or for a list of file names
    only (7-Zip's, whose names response_files reads as any file)."""
    found = _responding(argv)
    if found is None or found[0] in LIST_ONLY_RESPONSES:
        return None
    words = _response_words(found[1])
    return f"{found[0]} reads more arguments from {words[0]}" if words else None
