"""The variables of a makefile that change how make runs its recipes, as far as tether
understands them: `SHELL` (a plain shell), `.SHELLFLAGS` (shell options ending in `-c`),
`MAKEFLAGS` (flags that run nothing); `.RECIPEPREFIX` and `MAKEFILES` are not read."""

from __future__ import annotations

import re
from collections.abc import Callable

_SHELLS = frozenset(
    {"sh", "bash", "dash", "/bin/sh", "/bin/bash", "/bin/dash", "/usr/bin/sh", "/usr/bin/bash"}
    | {"/usr/bin/dash", "/usr/bin/env bash", "/usr/bin/env sh", "/usr/local/bin/bash"}
)
_SHELL_FLAG = re.compile(r"[-+][A-Za-z]+|[A-Za-z]+")
"""A word of `.SHELLFLAGS` that is only a shell option (`-e`, `-o pipefail`, `-c`)."""
_MAKEFLAG = re.compile(
    r"-?-?(?:[rRsSkeiwBLP]+|j\d*|l[\d.]*|O\w*|no-print-directory|print-directory|silent"
    r"|warn-undefined-variables|no-builtin-rules|no-builtin-variables|keep-going|jobs(=\d+)?"
    r"|output-sync(=\w+)?|no-silent|always-make|environment-overrides|ignore-errors)"
)


def unread_settings(variables: dict[str, str], expand: Callable[[str], str]) -> list[str]:
    """What in a makefile's `variables` (`expand` puts others in) changes how make runs
    recipes and is not understood."""
    found: list[str] = []
    shell = expand(variables.get("SHELL", "sh")).strip()
    if shell not in _SHELLS:
        found.append(f"the makefile runs recipes with SHELL = {shell[:60]}")
    flags = expand(variables.get(".SHELLFLAGS", "-c")).split()
    after_o = [flags[i + 1] for i, f in enumerate(flags[:-1]) if f in ("-o", "+o", "-O")]
    if (
        not flags
        or flags[-1][:1] not in "-+"
        or "c" not in flags[-1]
        or not all(_SHELL_FLAG.fullmatch(f) and (f[:1] in "-+" or f in after_o) for f in flags)
    ):
        found.append("the makefile sets .SHELLFLAGS, which tether does not read")
    if ".RECIPEPREFIX" in variables:
        found.append("the makefile sets .RECIPEPREFIX, which tether does not read")
    if "MAKEFILES" in variables:
        found.append("the makefile sets MAKEFILES, which tether does not read")
    if not all(_MAKEFLAG.fullmatch(word) for word in make_flags(variables, expand).split()):
        found.append("the makefile sets MAKEFLAGS, which tether does not read")
    return found


def make_flags(variables: dict[str, str], expand: Callable[[str], str]) -> str:
    """The flags a makefile gives make itself (`MAKEFLAGS += -r`)."""
    names = ("MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS")
    return " ".join(expand(variables[n]) for n in names if n in variables)
