"""Compiler and linker options that make's recipes pass, given as make variables on its
command line or in its environment (`make CFLAGS=-B/x`, `CC='cc -fplugin=x.so' make`):
judged as the same options on a compiler's command line (toolchains.py), since make's
implicit rules and nearly every makefile put them there. A value known only as the command
runs (`CFLAGS="$(...)"`) may hold any of them."""

from __future__ import annotations

import re
import shlex
from dataclasses import replace

from tether.permissions.make_eval import eval_text
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name
from tether.permissions.toolchains import toolchain_use

_MAKES = frozenset({"make", "gmake", "bmake"})
_OPTION_VARIABLES = frozenset(
    {"LDLIBS", "LOADLIBES", "LIBS", "TARGET_ARCH", "OUTPUT_OPTION", "EXTRA_CFLAGS"}
)
"""Variables of options besides the `*FLAGS` ones (`CFLAGS`, `LDFLAGS`, `ARFLAGS`...)."""
_TOOL_VARIABLES = frozenset(
    {"CC", "CXX", "CPP", "LD", "AS", "AR", "FC", "F77", "HOSTCC", "HOSTCXX", "HOSTLD"}
    | {"CCLD", "LINK", "CROSS_COMPILE", "NM", "RANLIB", "OBJCOPY", "STRIP"}
)
"""Variables naming a tool, whose words after the first are its options (`CC='cc -B/x'`);
the tool itself is judged as a program make runs (outside_code.py)."""
_DRIVERS = {"ARFLAGS": "ar", "AR": "ar", "NM": "nm", "RANLIB": "ranlib", "LD": "ld"}
"""The program a variable's options go to, when not the compiler driver (`ARFLAGS`: ar)."""
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?::{0,3}=|\+=|\?=)(.*)", re.S)


def build_flags(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...], *, persistent: bool = False
) -> list[ProgramUse]:
    """What the compiler and linker options in make's variables run, load and write, one
    `ProgramUse` per variable that holds any; empty for other programs. Variables a shell
    assignment or `export`/`declare` sets for what runs later (`persistent`: `export
    CFLAGS=-B/x; make`, `CFLAGS=...; set -a`) are judged as make would read them from its
    environment; so are the assignments, `load`s and `include`s of `--eval` text."""
    if persistent and (not argv or argv[0] in _DECLARING):
        return _judged(list(assignments))
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _MAKES:
        return []
    given = list(assignments)
    for arg in argv[1:]:
        found = _ASSIGNMENT.fullmatch(arg)
        if found is not None and not arg.startswith("-"):
            given.append((found.group(1), found.group(2)))
    text = eval_text(argv[1:])
    given += text.assignments
    uses = _judged(given)
    if text.loads:
        uses.append(ProgramUse(unseen=("make's --eval text loads a shared object into make",)))
    if text.includes or text.commands or text.writes or text.reads:
        uses.append(
            ProgramUse(
                loads=text.includes, runs=text.commands, writes=text.writes, reads=text.reads
            )
        )
    return uses


_DECLARING = frozenset({"export", "declare", "typeset", "local", "readonly"})


def _judged(given: list[tuple[str, str]]) -> list[ProgramUse]:
    uses: list[ProgramUse] = []
    for name, value in given:
        tool = name in _TOOL_VARIABLES
        if not (tool or name in _OPTION_VARIABLES or name.endswith("FLAGS")):
            continue
        if not is_literal(value):
            uses.append(
                ProgramUse(
                    unseen=(
                        f"make's {name} is known only as the command runs, and compiler "
                        "options in it may run programs",
                    )
                )
            )
            continue
        words = _split(value)
        if words is None:
            uses.append(ProgramUse(unseen=(f"make's {name} is not read plainly",)))
            continue
        options = tuple(words[1:] if tool else words)
        if not options:
            continue
        driver = _DRIVERS.get(name, "cc")
        use = (tool and toolchain_use(tuple(words))) or toolchain_use((driver, *options))
        use = use or ProgramUse()
        uses.append(
            replace(
                use,
                unseen=tuple(f"make's {name}: {reason}" for reason in use.unseen),
                mentions=options,
            )
        )
    return uses


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None
