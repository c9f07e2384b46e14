"""Makefile text given on make's command line (`--eval=TEXT`, `-E TEXT`), read for what it
does before any recipe runs: variable assignments (`CFLAGS = -B/x`, `override CC := ...`,
`prog: LDFLAGS += ...`), judged as command-line variables are (build_flags.py,
outside_code.py); `load` of a shared object (code run inside make); `include` of makefiles
(code from where they are); `!=` and `$(shell ...)` commands; `$(file >PATH,...)` writes and
`$(file <PATH)` reads. Text known only as the command runs is make_options' `unread_code`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tether.permissions.make_options import eval_texts

_ASSIGNMENT = re.compile(
    r"(?:[^:=#\s][^:=#]*:(?!=)\s*)?"  # a target-specific one: `prog: CFLAGS = ...`
    r"(?:(?:override|export|private|unexport)\s+)*"
    r"([A-Za-z_.][A-Za-z0-9_.-]*)\s*(::?:?=|\+=|\?=|!=|=)\s*(.*)",
    re.S,
)
_DIRECTIVE = re.compile(r"(-?include|sinclude|-?load)\s+(.*)", re.S)
_FILE_FUNCTION = re.compile(r"\$[({]file\s+(>>?|<)\s*([^,)}]+)")


@dataclass(frozen=True)
class MakeText:
    assignments: tuple[tuple[str, str], ...] = ()
    includes: tuple[str, ...] = ()
    """Makefiles it reads (code make runs)."""
    loads: tuple[str, ...] = ()
    """Shared objects `load` runs inside make."""
    commands: tuple[str, ...] = ()
    """Shell commands it runs while reading (`X != cmd`)."""
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()


def eval_text(args: tuple[str, ...]) -> MakeText:
    """What the literal `--eval` texts among make's arguments do as they are read."""
    assignments: list[tuple[str, str]] = []
    includes: list[str] = []
    loads: list[str] = []
    commands: list[str] = []
    writes: list[str] = []
    reads: list[str] = []
    for text in eval_texts(args):
        for line in _lines(text):
            for op, path in _FILE_FUNCTION.findall(line):
                (reads if op == "<" else writes).append(path.strip())
            directive = _DIRECTIVE.fullmatch(line)
            if directive is not None:
                names = directive.group(2).split()
                (loads if directive.group(1).endswith("load") else includes).extend(names)
                continue
            assigned = _ASSIGNMENT.fullmatch(line)
            if assigned is None:
                continue
            name, op, value = assigned.groups()
            if op == "!=":
                commands.append(value)
            else:
                assignments.append((name, value.strip()))
    return MakeText(
        tuple(assignments),
        tuple(includes),
        tuple(loads),
        tuple(commands),
        tuple(writes),
        tuple(reads),
    )


def _lines(text: str) -> list[str]:
    """Logical lines: a backslash-newline joins two; recipe lines (a tab first) are left to
    the scan of arguments for command lines."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line.strip() for line in joined.split("\n") if line.strip() and line[:1] != "\t"]


_MAKES = frozenset({"make", "gmake", "bmake"})
_SHELL_FUNCTION = re.compile(r"\$[({]shell\s")
_RECIPE_PREFIX = re.compile(r"[\s@+-]*")
"""What make takes off a recipe line before the shell sees it: blanks and the `@` (silent),
`-` (ignore errors) and `+` (run under -n) prefixes, in any order and number."""
_MAKE_REFERENCE = re.compile(r"\$[^$]")
"""A make expansion (`$(X)`, `${X}`, `$@`, `$X`); `$$` is a `$` for the shell."""


def is_make(name: str) -> bool:
    return name in _MAKES


def eval_commands(args: tuple[str, ...]) -> tuple[list[str], str | None]:
    """The shell command lines the literal `--eval` texts among make's arguments make run:
    each recipe (after a rule's `;`, or a line starting with a tab) with make's prefixes
    `@`, `-`, `+` taken off, `$(shell CMD)` and `X != CMD`; and why they are not all known,
    or None: a make expansion in one (`@c$(U)rl`, known only as make runs), a
    `.RECIPEPREFIX`, a `define` (text another expansion may run)."""
    commands: list[str] = []
    for text in eval_texts(args):
        joined = re.sub(r"\\\n", " ", text)
        if ".RECIPEPREFIX" in joined or re.search(r"(^|\s)define(\s|$)", joined):
            return commands, "make's --eval text changes how it reads recipes"
        if _SHELL_FUNCTION.search(joined):
            return commands, "make's --eval text runs $(shell ...), known only as make runs"
        in_rule = False
        for line in joined.split("\n"):
            if line.startswith("\t"):
                recipe = line if in_rule else None
            else:
                assigned = _ASSIGNMENT.fullmatch(line.strip())
                rule = assigned is None and ":" in line
                in_rule = rule
                if assigned is not None and assigned.group(2) == "!=":
                    recipe = assigned.group(3)
                else:
                    recipe = line.partition(";")[2] if rule and ";" in line else None
            if recipe is None:
                continue
            recipe = recipe[_RECIPE_PREFIX.match(recipe).end() :]  # type: ignore[union-attr]
            if not recipe.strip():
                continue
            if _MAKE_REFERENCE.search(recipe.replace("$$", "")):
                return commands, "make's --eval recipe expands make variables as it runs"
            commands.append(recipe.replace("$$", "$"))
    return commands, None
