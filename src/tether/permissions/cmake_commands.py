"""`cmake -E`'s file commands as the command each does the work of, so that the engine's
tables judge them (commands.py, transfers.py) and no second judgement of links, copies and
deletions can drift from the first: `cmake -E create_symlink ../secrets/key src/k` is
`ln -s -T -- ../secrets/key src/k`, a link whose target is named from `src/` and denied as
`ln -s` is.

Each grammar is cmake's own (cmcmd.cxx): `rm` takes `-rRf` anywhere before `--`, `tar`'s
archive is always its second word whatever the letters say, `copy_directory` copies what the
directories hold and follows symlinks (`cp -rL dir/. DEST`). A form cmake refuses (a wrong
count of operands, an option it does not know) is left to the judgement of an unknown
program: its words are looked at as files it may open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tether.permissions.shell_words import is_literal

Argv = tuple[str, ...]


def cmake_equivalent(argv: Argv) -> Argv | None:
    """The command `cmake -E SUB ARGS` does the work of, or None when it is not one of the
    file commands (cmake reads `-E` only as its first word)."""
    if len(argv) < 3 or argv[1] != "-E" or not is_literal(argv[2]):
        return None
    mapping = _SUBCOMMANDS.get(argv[2])
    return mapping(argv[3:]) if mapping is not None else None


def _files(program: str, *options: str) -> Callable[[Argv], Argv | None]:
    """Every word a file or directory (`cmake -E touch A B`)."""
    return lambda args: (program, *options, "--", *args) if args else None


def _pair(program: str, *options: str) -> Callable[[Argv], Argv | None]:
    """Exactly two operands, the second the file itself (`create_symlink OLD NEW`)."""
    return lambda args: (program, *options, "--", *args) if len(args) == 2 else None


def _copy(args: Argv) -> Argv | None:
    """`copy FILE... DEST` and, since 3.26, `copy -t DEST FILE...`."""
    if "-t" in args:
        at = args.index("-t")
        if at + 1 >= len(args):
            return None
        files = args[:at] + args[at + 2 :]
        return ("cp", "-t", args[at + 1], "--", *files) if files else None
    return ("cp", "--", *args) if len(args) >= 2 else None


def _copy_directory(args: Argv) -> Argv | None:
    """What each directory holds lands in DEST, symlinks followed."""
    if len(args) < 2:
        return None
    held = tuple(d.rstrip("/") + "/." for d in args[:-1])
    return ("cp", "-r", "-L", "--", *held, args[-1])


def _rm(args: Argv) -> Argv | None:
    """`rm [-rRf] [--] PATH...`: options anywhere before `--`, kept for the rules to see
    (`Bash(rm -rf *)`)."""
    files: list[str] = []
    letters: dict[str, None] = {}
    options = True
    for word in args:
        if options and word == "--":
            options = False
        elif options and word.startswith("-"):
            if not is_literal(word) or not set(word[1:]) <= set("rRf"):
                return None
            letters.update(dict.fromkeys(word[1:].replace("R", "r")))
        else:
            files.append(word)
    flags = tuple(f"-{letter}" for letter in letters)
    return ("rm", *flags, "--", *files) if files else None


def _remove(args: Argv) -> Argv | None:
    """The old `remove [-f] FILE...`."""
    files = tuple(a for a in args if a != "-f")
    return _files("rm", *(("-f",) if len(files) < len(args) else ()))(files)


def _cat(args: Argv) -> Argv | None:
    return _files("cat")(args[1:] if args[:1] == ("--",) else args)


def _compare(args: Argv) -> Argv | None:
    return _pair("cmp")(args[1:] if args[:1] == ("--ignore-eol",) else args)


_TAR_LETTERS = frozenset("-cxtvfzjJ")
_TAR_VALUED = ("--format=", "--mtime=", "--files-from=")
_TAR_FLAGS = frozenset({"--zstd", "--touch"})


def _tar(args: Argv) -> Argv | None:
    """`tar LETTERS ARCHIVE [--OPTION...] [--] [PATH...]`."""
    if len(args) < 2 or not is_literal(args[0]) or not set(args[0]) <= _TAR_LETTERS:
        return None
    letters = tuple(f"-{c}" for c in dict.fromkeys(args[0]) if c not in "-f")
    options: list[str] = []
    paths: list[str] = []
    parsing = True
    for word in args[2:]:
        if parsing and word == "--":
            parsing = False
        elif parsing and word.startswith("--"):
            if word.startswith(_TAR_VALUED):
                options.append(word)
            elif word not in _TAR_FLAGS:
                return None
        else:
            paths.append(word)
    return ("tar", *letters, "-f", args[1], *options, "--", *paths)


_SUMS = ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum")

_SUBCOMMANDS: Mapping[str, Callable[[Argv], Argv | None]] = {
    "cat": _cat,
    "compare_files": _compare,
    **{name: _files(name) for name in _SUMS},
    "copy": _copy,
    "copy_if_different": _copy,
    "copy_if_newer": _copy,
    "copy_directory": _copy_directory,
    "copy_directory_if_different": _copy_directory,
    "copy_directory_if_newer": _copy_directory,
    "create_symlink": _pair("ln", "-s", "-T"),
    "create_hardlink": _pair("ln", "-T"),
    "rename": _pair("mv", "-T"),
    "rm": _rm,
    "remove": _remove,
    "remove_directory": _files("rm", "-r", "-f"),
    "make_directory": _files("mkdir"),
    "touch": _files("touch"),
    "touch_nocreate": _files("touch"),
    "tar": _tar,
}
