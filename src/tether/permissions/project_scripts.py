"""The commands a build or package runner runs from its project file, as text to judge as
bash: `make [TARGET...]` runs the recipes of ./GNUmakefile, ./makefile or ./Makefile (the
targets', and their prerequisites', bounded), `npm run X` (`npm test`, `yarn X`, `pnpm run X`,
`bun run X`) runs `scripts.preX`, `scripts.X` and `scripts.postX` of ./package.json, `node
--run X` runs `scripts.X`. Make variables the file sets are put in; those it does not set
stay shell variables (not known before the command runs)."""

from __future__ import annotations

import json
import re
from typing import Final

from tether.permissions.make_options import makefiles
from tether.permissions.option_names import long_option
from tether.permissions.shell_words import is_literal, program_name
from tether.slotted import Slotted

_MAKE = frozenset({"make", "gmake"})
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_MAKE_VALUED = frozenset("CfIoWEjlO")
_MAKE_LONG_VALUED = (
    *("--directory", "--file", "--makefile", "--include-dir", "--old-file", "--assume-old"),
    *("--what-if", "--new-file", "--assume-new", "--eval", "--jobserver-style"),
)
_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_RUN_VERBS = frozenset({"run", "run-script", "rum", "urn"})
_SHORTCUTS = {"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop"}
_SHORTCUTS["restart"] = "restart"
_MAX_TARGETS = 64
"""The most make targets whose recipes are read for one command."""
_MAX_EXPANSIONS = 8
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?![=])\s*(.*)$")
_ASSIGN = re.compile(
    r"^(?:override\s+|export\s+)?([A-Za-z_][\w.-]*)\s*(?:::?=|\?=|\+=|!=|=)\s*(.*)$"
)
_REFERENCE = re.compile(r"\$(?:\(([^()$ ]+)\)|\{([^{}$ ]+)\}|([@<^*?%+|]))")
_AUTOMATIC = "target"
"""What make's automatic variables (`$@`, `$<`) stand for here: a plain word."""
_DEFAULTS = {"CC": "cc", "CXX": "g++", "MAKE": "make", "RM": "rm -f", "AR": "ar", "SHELL": "sh"}


class ProjectCode(Slotted):
    """The project files a runner reads from its directory (the first that exists), and the
    targets or script names it runs (() for make's default target)."""

    __slots__ = ("files", "kind", "names")
    files: Final[tuple[str, ...]]
    kind: Final[str]
    names: Final[tuple[str, ...]]

    def __init__(self, kind: str, files: tuple[str, ...], names: tuple[str, ...]) -> None:
        self.kind = kind
        self.files = files
        self.names = names


def project_code(argv: tuple[str, ...]) -> ProjectCode | None:
    """What `argv` runs from a project file in the directory it starts in; None for other
    commands, a makefile named with `-f` (judged as a file it is given) or a moved directory."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in _MAKE:
        found = _make_targets(args)
        if found is None:
            return None
        targets, files = found
        if files:  # `-f X`: each is read, in order
            return ProjectCode("makefiles", files, targets)
        return ProjectCode("make", MAKEFILES, targets)
    if name in ("node", "nodejs"):
        for i, arg in enumerate(args):
            if arg == "--run" and i + 1 < len(args):
                return ProjectCode("node", ("package.json",), (args[i + 1],))
            if arg.startswith("--run="):
                return ProjectCode("node", ("package.json",), (arg.partition("=")[2],))
        return None
    if name not in _RUNNERS:
        return None
    words = [arg for arg in args if not arg.startswith("-")]
    if any(arg.startswith(("--prefix", "-C", "--dir", "--cwd")) for arg in args):
        return None
    if not words:
        return None
    verb = words[0]
    if verb in _RUN_VERBS:
        script = words[1] if len(words) > 1 else None
    elif verb in _SHORTCUTS:
        script = _SHORTCUTS[verb]
    elif name in ("yarn", "pnpm"):
        script = verb  # `yarn build` runs the script `build`
    else:
        return None
    if script is None:
        return None
    return ProjectCode("package", ("package.json",), (script,))


def project_text(code: ProjectCode, text: str) -> str | None:
    """The commands `code` runs from the project file's `text`; None when there are none
    (no such target or script: the runner fails) or the file cannot be read as its kind."""
    if code.kind in ("make", "makefiles"):
        return _recipes(text, code.names)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return None
    name = code.names[0]
    wanted = [name] if code.kind == "node" else [f"pre{name}", name, f"post{name}"]
    found = [scripts[n] for n in wanted if isinstance(scripts.get(n), str)]  # pyright: ignore[reportUnknownMemberType]
    return "\n".join(str(f) for f in found) or None  # pyright: ignore[reportUnknownArgumentType]


def _make_targets(args: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """make's targets (none: its default one) and the makefiles `-f` names; None where it
    runs in another directory or reads a makefile that is not a literal."""
    targets: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.startswith("--"):
            found = long_option(arg.partition("=")[0], _MAKE_LONG_VALUED)
            if found is not None and found[0] == "--directory":
                return None
            skip = found is not None and "=" not in arg
        elif arg.startswith("-") and len(arg) > 1:
            for j, letter in enumerate(arg[1:], start=2):
                if letter == "C":
                    return None
                if letter in _MAKE_VALUED:
                    skip = j == len(arg) and letter not in "jlO"
                    break
        elif "=" not in arg:
            targets.append(arg)
    files = tuple(makefiles(args))
    if any(not is_literal(f) or f == "-" for f in files):
        return None
    return tuple(targets), files


def _recipes(text: str, targets: tuple[str, ...]) -> str | None:
    """The recipe lines make runs for `targets` (its first target when none) and their
    prerequisites, variables the makefile sets put in."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    variables: dict[str, str] = {}
    first: str | None = None
    current: list[str] = []
    for line in text.replace("\\\n", " ").splitlines():
        if line.startswith("\t"):
            for target in current:
                rules[target][1].append(line[1:])
            continue
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        assigned = _ASSIGN.match(stripped)
        rule = None if assigned else _RULE.match(stripped)
        if assigned:
            current = []
            variables[assigned.group(1)] = assigned.group(2)
        elif rule:
            names = rule.group(1).split()
            prereqs, _, inline = rule.group(2).partition(";")
            current = [n for n in names if "%" not in n]
            for target in current:
                entry = rules.setdefault(target, ([], []))
                entry[0].extend(prereqs.split())
                if inline.strip():
                    entry[1].append(inline)
                if first is None and not target.startswith("."):
                    first = target
        else:
            current = []
    wanted = list(targets) or ([first] if first is not None else [])
    seen: set[str] = set()
    lines: list[str] = []
    while wanted and len(seen) < _MAX_TARGETS:
        target = wanted.pop(0)
        if target in seen or target not in rules:
            continue
        seen.add(target)
        prereqs, recipe = rules[target]
        wanted.extend(prereqs)
        lines += [_expanded(r.lstrip(" \t@-+"), variables) for r in recipe]
    return "\n".join(lines) or None


def _expanded(line: str, variables: dict[str, str], depth: int = 0) -> str:
    """`line` with make's `$$` and the variables it knows put in."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name is None:
            return _AUTOMATIC
        if name in variables and depth < _MAX_EXPANSIONS:
            return _expanded(variables[name], variables, depth + 1)
        if name in _DEFAULTS:
            return _DEFAULTS[name]
        return "${" + re.sub(r"\W", "_", name) + "}"

    parts = line.split("$$")
    return "$".join(_REFERENCE.sub(value, part) for part in parts)
