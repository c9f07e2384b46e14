"""Programs that read `@FILE` arguments as more arguments (response files): `strings @.env`
reads `.env`, and prints its lines in its complaints. The lines are options and file names
too, so what they name may be any file, and what they ask for is not seen.
"""

from __future__ import annotations

from tether.permissions.command_spec import words as _names
from tether.permissions.shell_words import DYN

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


def response_files(argv: tuple[str, ...]) -> list[str]:
    """What a program that expands response files reads for its `@FILE` arguments: each
    FILE, and whatever the words inside may name (DYN: any file)."""
    if not argv or not expands_response_files(argv[0].rsplit("/", 1)[-1]):
        return []
    found = [word[1:] for word in argv[1:] if word.startswith("@") and len(word) > 1]
    return [*found, DYN] if found else []
