"""What the build generators cmake and meson run of the workspace's code, which tether does not
read: cmake's configure step (`cmake .`, `cmake -S . -B build`, `cmake --preset x`) runs
CMakeLists.txt, whose `execute_process` runs any program, as `cmake -P script.cmake` runs a
script and `cmake --install` the install scripts (`install(CODE ...)`); meson's `setup`
runs meson.build (`run_command`), and `compile`, `test`, `install` and the rest run the
build it generated, which regenerates first. `cmake --build DIR` runs the build DIR holds:
judged as `make -C DIR` (or `ninja -C DIR`) is, its targets as the goals (`--target`).
Only the forms that run nothing are left out: `cmake -E` (cmake_commands), `--version`,
`--help`, `meson --version`, `meson help`, `meson init` (writes a template: `generator_writes`)."""

from __future__ import annotations

from tether.permissions.option_names import option_values
from tether.permissions.shell_words import is_literal, program_name

_CMAKE = frozenset({"cmake", "ccmake", "cmake-gui"})
_CMAKE_INFO = ("--version", "-version", "--help", "-help", "-h", "-H", "/?", "-usage")
_MESON_INERT = frozenset({"--version", "-v", "--help", "-h", "help", "init"})


def generator_unread(argv: tuple[str, ...]) -> str | None:
    """Why `argv` runs code of the workspace's that tether does not read (cmake's and
    meson's files), or None when it runs none, or is `cmake --build` (`cmake_build`)."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in _CMAKE:
        if not args or args[0] == "-E" or cmake_build(argv) is not None:
            return None
        if any(a.startswith(_CMAKE_INFO) for a in args):
            return None
        if "-P" in args:
            script = args[args.index("-P") + 1] if args.index("-P") + 1 < len(args) else ""
            return f"cmake -P runs the script {script}, which tether does not read"
        if "--install" in args:
            return (
                "cmake --install runs the install scripts cmake wrote, which tether does not read"
            )
        return (
            "cmake configures from CMakeLists.txt, whose code (execute_process) runs "
            "programs tether does not read"
        )
    if name == "meson":
        if not args or args[0] in _MESON_INERT:
            return None
        return (
            "meson runs meson.build's code (run_command) or the build it generated, "
            "which tether does not read"
        )
    return None


def generator_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """What `meson init -C DIR` writes, as written: the project template in DIR (without
    `-C`, in the directory it runs in, as any write there is judged)."""
    if len(argv) < 2 or program_name(argv[0]) != "meson" or argv[1] != "init":
        return ()
    return tuple(f"{d.rstrip('/') or '/'}/meson.build" for d in option_values(argv[2:], ("-C",)))


def cmake_build(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """`cmake --build DIR [--target T...] [-- NATIVE...]`: the build directory and the
    targets it builds, or None for another command."""
    if len(argv) < 3 or program_name(argv[0]) not in _CMAKE or argv[1] != "--build":
        return None
    directory = argv[2]
    targets: list[str] = []
    args = argv[3:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg in ("--target", "-t"):
            while i + 1 < len(args) and not args[i + 1].startswith("-"):
                targets.append(args[i + 1])
                i += 1
        elif arg.startswith("--target="):
            targets.append(arg.partition("=")[2])
        i += 1
    return directory, tuple(targets)
