"""Options of programs tether has no table for that run a command, load code or read a file
of commands: gdb's commands (`-ex '!cmd'`, `shell`, `pipe`, `python`, `set exec-wrapper`,
`-x FILE`), strace's and ltrace's output piped to a command (`-o '!cmd'`, `-o '|cmd'`) and
variables set for the traced program (`-E LD_PRELOAD=x`), configuration files that run
commands (`tmux -f`, `screen -c`, `npm --userconfig`, `--rcfile`, `--init-file`), and lists
of the files a compressor reads (`zstd --filelist`, `xz --files`).

A command given is judged as a command of its own (`runs`); what cannot be read is code not
seen (`unseen`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tether.permissions.command_spec import words as _names
from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.option_names import long_option
from tether.permissions.program_use import ProgramUse
from tether.permissions.runner_tables import NPM
from tether.permissions.shell_words import readable, shown

GDBS = frozenset(_names("gdb gdb-multiarch cgdb"))
_GDB_COMMANDS = frozenset(
    {"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex"}
    | {"-init-eval-command", "--init-eval-command", "-eiex", "--eiex"}
    | {"-early-init-eval-command", "--early-init-eval-command"}
)
_GDB_FILES = frozenset(
    {"-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command", "--init-command"}
    | {"-eix", "--eix", "-early-init-command", "--early-init-command", "-cd", "--cd"}
    | {"-data-directory", "--data-directory", "-D"}
)
"""Options whose file holds commands (or whose directory holds gdb's own scripts)."""
_GDB_OPTIONS = frozenset(
    "--" + name
    for name in _names(
        "tui dbx readnow readnever r quiet q silent nh nx n batch-silent batch fullname f cd "
        "data-directory D symbols s exec e se core c pid p directory d x ex init-command ix "
        "init-eval-command iex early-init-command eix early-init-eval-command eiex command "
        "eval-command help interpreter i l b tty write version configuration statistics args "
        "windows w nowindows nw return-child-result"
    )
)
"""Every long option of gdb's: getopt_long_only takes a unique prefix of one, after one dash
or two (`-comm` is `-command`), and a full name as itself (`-e` is `-exec`)."""
_GDB_HARMLESS = frozenset(
    _names(
        "bt backtrace where info i list l break b tbreak br continue c cont next n step s "
        "stepi si nexti ni finish fin frame f up down thread kill k quit q ptype whatis "
        "disassemble disas delete d watch rwatch awatch display undisplay p print output x "
        "inspect echo printf detach"
    )
)
"""gdb commands that run nothing of their own (their expressions are checked apart)."""
_STARTS = frozenset(_names("run r start starti"))
"""Commands that start the program through the shell, which expands their arguments."""
_SAFE_SETTINGS = frozenset(
    _names(
        "var variable print p pagination confirm width height listsize disassembly-flavor "
        "breakpoint follow-fork-mode detach-on-fork non-stop scheduler-locking style "
        "debuginfod verbose logging-redirect startup-with-shell language"
    )
)
_CALL = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*\(")
_SHELL_SIGNS = frozenset("$`;|&<>(){}*?[~\\\n'\"")


def gdb_use(words: tuple[str, ...]) -> ProgramUse:
    """What gdb's options make it run: each command given is read (`gdb_command`), a file of
    commands is code not seen. What follows `--args` is the program (a tail of the words)."""
    return _debugger_use(
        words,
        "gdb",
        "--args",
        _GDB_COMMANDS,
        _GDB_FILES,
        gdb_command,
        attached=("-x", "-ex"),
        known=_GDB_OPTIONS,
    )


def _debugger_use(
    words: tuple[str, ...],
    program: str,
    end: str,
    commands: frozenset[str],
    files: frozenset[str],
    read: Callable[[str, list[str], list[str]], None],
    *,
    attached: tuple[str, ...] = (),
    known: frozenset[str] | None = None,
) -> ProgramUse:
    """A debugger's options up to `end`: each of `commands` gives a command line (`read`
    says what it runs), each of `files` a file of commands (not seen); `attached` options
    with their value glued on are not read. With `known` (every long option it has), the
    debugger reads options as getopt_long_only does: prefixes, after one dash or two."""
    runs: list[str] = []
    unseen: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == end:
            break
        found = long_option(
            word, commands | files, known=known or (), one_dash=True, prefixes=known is not None
        )
        if found is not None:
            name, value = found
            if value is None:
                value = words[i + 1] if i + 1 < len(words) else ""
                i += 1
            if name in files:
                unseen.append(f"{program} {name} reads commands from a file, not seen")
            else:
                read(value, runs, unseen)
        elif attached and word.startswith(attached) and len(word) > 3:
            unseen.append(f"{program} {word[:3]} with an attached value is not read")
        i += 1
    return ProgramUse(runs=tuple(runs), unseen=tuple(dict.fromkeys(unseen)))


def gdb_command(text: str, runs: list[str], unseen: list[str]) -> None:
    """One gdb command line: `!cmd`, `shell cmd`, `| cmd`, `pipe CMD | cmd` run a shell
    command; `run ARGS` starts the program through the shell (ARGS expanded there); `set
    exec-wrapper W` runs W; calls in expressions run code in the program (`print system(..)`,
    `$_shell(..)`); commands not known to be harmless (`python`, `source`, `define`, an
    abbreviation) are code not seen."""
    command = text.strip()
    if command in ("!", "shell"):
        # A shell given no command reads its commands from the input.
        unseen.append("gdb starts a shell that reads commands from its input")
        return
    if command.startswith("!"):
        runs.append(command[1:])
        return
    head, _, rest = command.partition(" ")
    rest = rest.strip()
    if head in ("shell", "|", "pipe"):
        if head == "shell":
            runs.append(rest)
        elif rest.startswith("-d") or "|" not in rest:
            unseen.append("gdb pipes through a command it does not show plainly")
        else:
            inner, _, shell = rest.partition("|")
            runs.append(shell)
            if inner.strip():
                gdb_command(inner, runs, unseen)
        return
    if head in _STARTS or (head == "set" and rest.startswith("args")):
        args = rest.removeprefix("args") if head == "set" else rest
        if any(c in _SHELL_SIGNS for c in args):
            # gdb starts the program with `/bin/sh -c exec PROGRAM ARGS`.
            runs.append(": " + args)
        return
    if head == "set":
        setting = rest.split(" ", 1)[0]
        if setting == "exec-wrapper":
            runs.append(rest.removeprefix("exec-wrapper").strip() + " true")
            return
        if setting not in _SAFE_SETTINGS and not setting.startswith("$"):
            unseen.append(f"gdb `set {readable(shown(setting))}` is not known to be harmless")
            return
    elif head not in _GDB_HARMLESS:
        unseen.append(f"gdb runs `{readable(shown(head))}`, a command not known to be harmless")
        return
    calls = [m.group(1) for m in _CALL.finditer(rest) if m.group(1) not in ("sizeof", "alignof")]
    if any(c == "$_shell" or not c.startswith("$_") for c in calls):
        unseen.append("gdb calls a function, which may run any program")


_LLDB_COMMANDS = frozenset(
    {"-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"}
)
_LLDB_FILES = frozenset(
    {"-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash"}
    | {"--source-quietly"}
)
_LLDB_HARMLESS = frozenset(
    _names(
        "bt thread frame register image target breakpoint b br continue c next n step s "
        "finish quit q p print po x memory disassemble di watchpoint version help"
    )
)


def lldb_use(words: tuple[str, ...]) -> ProgramUse:
    """lldb's `-o` commands (`platform shell cmd`, `script ...`, `command source F`: code;
    `run ARGS` through the shell) and its `-s` files of commands (not seen)."""
    return _debugger_use(words, "lldb", "--", _LLDB_COMMANDS, _LLDB_FILES, _lldb_command)


def _lldb_command(text: str, runs: list[str], unseen: list[str]) -> None:
    head, _, rest = text.strip().partition(" ")
    if head in _STARTS or head == "process":
        args = rest.removeprefix("launch").strip() if head == "process" else rest
        if any(c in _SHELL_SIGNS for c in args):
            runs.append(": " + args)
        return
    if head not in _LLDB_HARMLESS:
        unseen.append(f"lldb runs `{readable(shown(head))}`, a command not known to be harmless")
        return
    calls = [m.group(1) for m in _CALL.finditer(rest) if m.group(1) not in ("sizeof", "alignof")]
    if calls:
        unseen.append("lldb calls a function, which may run any program")


TRACERS = frozenset(_names("strace ltrace"))


def tracer_use(words: tuple[str, ...]) -> ProgramUse:
    """strace's and ltrace's `-o '!cmd'`/`-o '|cmd'` (output piped to a command) and `-E
    NAME=VALUE` (a variable for the traced program: one that changes what runs is code)."""
    runs: list[str] = []
    unseen: list[str] = []
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        value: str | None = None
        if word in ("-o", "--output", "-E", "--env"):
            value = following
        elif word.startswith(("--output=", "--env=")):
            value = word.partition("=")[2]
        elif word.startswith(("-o", "-E")) and len(word) > 2:
            value = word[2:]
        if value is None:
            continue
        if word.startswith(("-o", "--output")) and value[:1] in ("!", "|"):
            runs.append(value[1:])
        elif word.startswith(("-E", "--env")) and is_dangerous_variable(value.partition("=")[0]):
            unseen.append(f"it sets {value.partition('=')[0]} for the program it traces")
    return ProgramUse(runs=tuple(runs), unseen=tuple(unseen))


CONFIG_OPTIONS: dict[str, tuple[str, ...]] = {
    "tmux": ("-f",),
    "screen": ("-c",),
    **dict.fromkeys(_names("npm npx pnpm"), ("--userconfig", "--globalconfig")),
    "yarn": ("--userconfig", "--globalconfig", "--use-yarnrc"),
    # An option file's `pager=` or `[client] init-command` runs what it names.
    **dict.fromkeys(_names("mysql mariadb"), ("--defaults-file", "--defaults-extra-file")),
    **dict.fromkeys(_names("zsh ksh mksh dash"), ("--rcfile", "--init-file", "-o=rcs")),
}
"""Options naming a configuration file the program reads, which can run commands."""
LIST_OPTIONS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_names("zstd zstdmt"), ("--filelist",)),
    **dict.fromkeys(_names("xz lzma unxz xzcat"), ("--files", "--files0")),
}
"""Options naming a file that lists the files read (or written): those may be any."""
_NPM_NAMES = (NPM.flags | NPM.picks | NPM.known()) - {"--userconfig", "--globalconfig"}
_FULL_NAMES = dict.fromkeys(_names("npm npx pnpm"), _NPM_NAMES)
"""Options the program knows in full, each itself and no abbreviation of a longer one."""


def option_files(name: str, words: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(list files given, why a configuration file given is code not seen). cpio's copy-out
    and pass-through modes read the files its input names: any file (`""`)."""
    lists: list[str] = []
    unseen: list[str] = []
    if name == "tmux" and any(w in ("source-file", "source") for w in words):
        unseen.append("tmux source-file reads a configuration file, which can run commands")
    if name == "cpio" and any(
        w in ("--create", "--pass-through")
        or (w[:1] == "-" and w[1:2] != "-" and "o" in w)
        or (w[:1] == "-" and w[1:2] != "-" and "p" in w)
        for w in words
    ):
        lists.append("")
    for i, word in enumerate(words):
        if word.partition("=")[0] in _FULL_NAMES.get(name, ()):
            continue  # `npm --global`: an option of its own, no prefix of `--globalconfig`
        for option in (*LIST_OPTIONS.get(name, ()), *CONFIG_OPTIONS.get(name, ())):
            value: str | None = None
            given = (option, None) if word == option else long_option(word, (option,))
            if given is not None:
                value = given[1]
                if value is None:
                    value = words[i + 1] if i + 1 < len(words) else ""
            elif len(option) == 2 and word.startswith(option) and len(word) > 2:
                value = word[len(option) :].removeprefix("=")
            if value is None:
                continue
            if option in LIST_OPTIONS.get(name, ()):
                lists.append(value)
            else:
                unseen.append(f"{name} {option} reads a configuration file, which can run commands")
    return lists, unseen
