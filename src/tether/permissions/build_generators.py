"""What the build generators cmake and meson run of the workspace's code, which tether does not
read: cmake's configure step (`cmake .`, `cmake -S . -B build`, `cmake --preset x`) runs
CMakeLists.txt, whose `execute_process` runs any program, as `cmake -P script.cmake` runs a
script and `cmake --install` the install scripts (`install(CODE ...)`); meson's `setup`
runs meson.build (`run_command`), and `compile`, `test`, `install` and the rest run the
build it generated, which regenerates first. `cmake --build DIR` runs the build DIR holds:
judged as `make -C DIR` (or `ninja -C DIR`) is, its targets as the goals (`--target`).
Only the forms that run nothing are left out: `cmake -E` (cmake_commands), `--version`,
`--help`, `meson --version`, `meson help`, `meson init` (writes a template). What meson writes
(the template, the build directory) is `generator_writes`'."""

from __future__ import annotations

from tether.permissions.option_names import (
    OptionGrammar,
    first_operand,
    option_pairs,
    option_values,
)
from tether.permissions.shell_words import DYN, HOME, is_literal, program_name, tilde_expanded

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


_MESON_INIT = OptionGrammar(
    (
        *("-C", "--builddir", "-n", "--name", "-e", "--executable", "-d", "--deps", "-l"),
        *("--language", "--type", "--version"),
    ),
    prefixes=True,
    known=("--build", "--force"),
)
_MESON_SETUP_VALUED = (
    *("--prefix", "--bindir", "--datadir", "--includedir", "--infodir", "--libdir"),
    *("--licensedir", "--libexecdir", "--localedir", "--localstatedir", "--mandir"),
    *("--sbindir", "--sharedstatedir", "--sysconfdir", "--auto-features", "--backend"),
    *("--buildtype", "--default-library", "--default-both-libraries", "--install-umask"),
    *("--layout", "--optimization", "--pkg-config-path", "--cmake-prefix-path", "--unity"),
    *("--unity-size", "--warnlevel", "--wrap-mode", "--force-fallback-for", "--native-file"),
    *("--cross-file", "-D"),
)
_MESON_SETUP = OptionGrammar(_MESON_SETUP_VALUED, prefixes=True)
_MESON_IN_BUILD = frozenset({"compile", "test", "install", "dist", "devenv", "configure"})
"""meson commands writing in the build directory `-C DIR` names (logs, the regenerated
build, what ninja builds); `configure` also takes it as its operand."""
_MESON_DIRECTORY = OptionGrammar(("-C",), prefixes=True)


def generator_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """What meson writes, as written: `meson init` the project template where it runs (`-C
    DIR`) and, with `-b`, the build directory (`--builddir`, `build` below it); `meson setup
    BUILDDIR` (or `meson BUILDDIR`) the build directory; `compile`, `test`, `install`,
    `dist`, `devenv` and `configure` the one `-C` (or configure's operand) names."""
    if len(argv) < 2 or program_name(argv[0]) != "meson":
        return ()
    command, args = argv[1], argv[2:]
    if command == "init":
        pairs = option_pairs(args, _MESON_INIT)
        top = next((v for o, v in reversed(pairs) if o == "-C"), ".").rstrip("/") or "/"
        built = [v for o, v in pairs if o == "--builddir"] or ["build"]
        written = [f"{top}/meson.build"]
        if built[-1] and (built != ["build"] or {"-b", "--build"} & set(args)):
            # Relative to where the template is made.
            absolute = built[-1].startswith(("/", "~")) or top == "."
            written.append(built[-1] if absolute else f"{top}/{built[-1]}")
        return tuple(written)
    if command == "setup" or (not command.startswith("-") and command not in _MESON_COMMANDS):
        rest = args if command == "setup" else argv[1:]
        at = first_operand(rest, _MESON_SETUP)
        return (rest[at],) if at < len(rest) else ()
    if command in _MESON_IN_BUILD:
        found = option_values(args, _MESON_DIRECTORY)
        if command == "configure" and not found:
            at = first_operand(args, _MESON_SETUP)
            found = list(args[at : at + 1])
        return tuple(found)
    return ()


def machine_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The machine files meson reads, as written (`--native-file F`, `--cross-file=F`, any
    unambiguous prefix: meson's parser is argparse's): they name the compilers and tools the
    build runs (`[binaries]`), so they are code it loads. Read wherever the option is given;
    meson expands a `~/` and variables in the name itself (a variable: a place not known)."""
    return tuple(DYN if "$" in v else tilde_expanded(v) for _, v in _machine_pairs(argv))


def machine_lookups(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...] = ()
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each machine file named by a relative path (`--native-file NAME`), with the places
    meson looks for it when its working directory holds no such file: `meson/native/NAME`
    (`cross/`) below `$XDG_DATA_HOME` (`~/.local/share` unset) and each of `$XDG_DATA_DIRS`
    (`/usr/local/share:/usr/share` unset), outside the workspace. The variables are those
    given on the line, the defaults besides (the session's own are not known)."""
    homes = [v for k, v in assignments if k == "XDG_DATA_HOME"][-1:]
    dirs = [d for k, v in assignments if k == "XDG_DATA_DIRS" for d in v.split(":") if d][-1:]
    bases = dict.fromkeys((*homes, HOME + "/.local/share", *dirs, *_XDG_DATA_DIRS))
    found: list[tuple[str, tuple[str, ...]]] = []
    for option, value in _machine_pairs(argv):
        if "$" in value or not is_literal(value) or value.startswith(("/", "~")) or not value:
            continue
        kind = "native" if option == "--native-file" else "cross"
        found.append((value, tuple(f"{base.rstrip('/')}/meson/{kind}/{value}" for base in bases)))
    return tuple(found)


_XDG_DATA_DIRS = ("/usr/local/share", "/usr/share")


def _machine_pairs(argv: tuple[str, ...]) -> list[tuple[str, str]]:
    if len(argv) < 2 or program_name(argv[0]) != "meson":
        return []
    pairs = option_pairs(argv[1:], _MESON_SETUP)
    return [(o, v) for o, v in pairs if o in ("--native-file", "--cross-file")]


_MESON_COMMANDS = frozenset(
    {*_MESON_IN_BUILD, "init", "setup", "introspect", "wrap", "subprojects", "help"}
    | {"rewrite", "compile", "env2mfile", "format", "fmt", "runpython"}
)
"""meson's commands: any other first word is `meson setup`'s build directory."""


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
