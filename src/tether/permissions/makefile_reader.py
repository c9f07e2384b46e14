"""A makefile read as GNU make reads it, for the shell commands it runs: the recipes of the
goals and of their prerequisites (a recipe line's backslash-newline kept for the shell, as
make passes it), the pattern, suffix and `.DEFAULT` rules' recipes and make's built-in rules
(`$(CC) ...`) where a goal has no recipe of its own, every `$(shell ...)` and `!=` command,
`include`d makefiles (read as the main one is, found where make finds them: from where it
runs, then the `-I` directories and make's default ones), the goals make adds itself
(`.EXTRA_PREREQS`, a `.DEFAULT_GOAL` expanded, a makefile read that a rule remakes), and
the variables exported to recipes (`export PATH := ...`) as `export` lines before them.
A name a variable make does not know gives (`ev$(EMPTY)il`) is the name without it.
What changes how recipes run and is not understood (`define`,
`$(eval)`, `load`, `.RECIPEPREFIX`, a `SHELL` that is not a plain shell, `.SHELLFLAGS` or
`MAKEFLAGS` with more than flags, `.SECONDEXPANSION`, an include whose name is known only
as make runs) is code not read: `MakeReading.unread` says why."""

from __future__ import annotations

import re
from collections.abc import Callable

from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.makefile_run import (
    BUILT_IN_RECIPES,
    MAKE_DEFAULTS,
    MakeReading,
    MakeRun,
)
from tether.permissions.makefile_settings import make_flags, unread_settings

MAX_TARGETS = 64
"""The most make targets whose recipes are read for one command."""
_MAX_EXPANSIONS = 8
_MAX_INCLUDES = 16
_MAX_EXPANDED = 1 << 18
"""The most text the makefile's variables may expand to, all told: past it, not read."""
_ASSIGN = re.compile(
    r"^((?:(?:override|export|private|unexport)\s+)*)([^\s:=#!?+]+?)"
    r"\s*(::?:?=|\?=|\+=|!=|=)\s*(.*)$",
    re.S,
)
_RULE = re.compile(r"^([^:=#]*?[^\s:=#]?)\s*(::?)(?![=])\s*(.*)$", re.S)
_REFERENCE = re.compile(r"\$(?:\(([^()$ ]+)\)|\{([^{}$ ]+)\}|([@<^*?%+|]))")
_UNREAD_FUNCTIONS = re.compile(r"\$[({](eval|guile|file)[\s)}]")
_UNREAD_DIRECTIVE = re.compile(r"^-?load\b|^define\b|^(?:override|export|private)\s+define\b")
_INCLUDE = re.compile(r"^(-include|sinclude|include)\s+(.*)$")
_RECIPE_PREFIX = re.compile(r"[\s@+-]*")
_UNKNOWN = re.compile(r"\$\{\w+\}")


class _Rule:
    __slots__ = ("prereqs", "recipe")

    def __init__(self) -> None:
        self.prereqs: list[str] = []
        self.recipe: list[str] = []


class _Reader:
    def __init__(self, run: MakeRun, read: Callable[[str], str | None]) -> None:
        self.run = run
        self.read = read
        self.rules: dict[str, _Rule] = {}
        self.patterns: list[str] = []  # the makefile's pattern rules' targets
        self.generic_prereqs: list[str] = []
        self.variables: dict[str, str] = dict(MAKE_DEFAULTS)
        self.variables |= {n: v for n, v in run.environment if n != "SHELL"}
        self.fixed = {name for name, _ in run.assigned}
        if "e" in run.flags:
            self.fixed |= {name for name, _ in run.environment}
        self.exported: set[str] = set()
        self.export_all = False
        self.commands: list[str] = []
        self.unread: list[str] = []
        self.first: str | None = None
        self.phony: set[str] = set()
        self.includes = 0
        self.missing: list[str] = []
        self.included: list[str] = []
        self.texts: list[str] = []
        self.generic_rules: list[_Rule] = []
        self.expanded = 0
        self.too_large = False
        """Pattern, suffix, `.DEFAULT` and unnamed rules: one may make any target."""

    def file(self, text: str, depth: int = 0) -> None:
        self.texts.append(text)
        lines = text.split("\n")
        current: list[_Rule] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("\t") and current:
                parts = [line[1:]]
                while _continued(parts[-1]) and i < len(lines):
                    following = lines[i]
                    parts.append(following[1:] if following.startswith("\t") else following)
                    i += 1
                recipe = "\n".join(parts)
                for rule in current:
                    rule.recipe.append(recipe)
                continue
            while _continued(line) and i < len(lines):
                line = line[:-1] + " " + lines[i].lstrip()
                i += 1
            stripped = _uncommented(line).strip()
            if not stripped:
                continue
            current = self.line(stripped, depth)

    def line(self, line: str, depth: int) -> list[_Rule]:
        """Reads one logical line that is not a recipe; the rules whose recipe follows."""
        if _UNREAD_DIRECTIVE.match(line):
            what = "loads a shared object" if "load" in line.split()[0] else "has a `define`"
            self.unread.append(f"the makefile {what}, which tether does not read")
            return []
        included = _INCLUDE.match(line)
        if included is not None:
            self.include(included.group(2), depth)
            return []
        if re.match(r"(?:ifn?eq|ifn?def|else|endif|vpath|unexport)\b", line):
            return []
        if line == "export" or re.fullmatch(r"export\s+[^=:]*", line):
            names = line.split()[1:]
            self.exported |= set(names)
            self.export_all = self.export_all or not names
            return []
        assigned = _ASSIGN.match(line)
        if assigned is not None:
            self.assign(*assigned.groups())
            return []
        rule = _RULE.match(line)
        if rule is None:
            self.unread.append(f"the makefile line `{line[:60]}`, which tether does not read")
            return []
        return self.rule(rule.group(1), rule.group(3))

    def assign(self, prefix: str, name: str, op: str, value: str) -> None:
        name = self.expand(name)
        if "export" in prefix.split():
            self.exported.add(name)
        if op == "!=":
            self.commands.append(self.expand(value))
        if name in self.fixed and "override" not in prefix.split():
            return
        if op == "+=" and name in self.variables:
            value = self.variables[name] + " " + value
        elif op == "?=" and name in self.variables and name not in MAKE_DEFAULTS:
            return
        elif op in (":=", "::=", ":::="):
            value = _unescaped(self.expand(value)).replace("$", "$$")  # expanded now
        self.variables[name] = "$(shell " + value + ")" if op == "!=" else value

    def rule(self, names_text: str, rest: str) -> list[_Rule]:
        prereqs_text, _, inline = rest.partition(";")
        if "=" in prereqs_text and _ASSIGN.match(prereqs_text.strip()):
            self.assign(*_ASSIGN.match(prereqs_text.strip()).groups())  # type: ignore[union-attr]
            return []
        names = self.names(names_text)
        static = ":" in prereqs_text  # `$(OBJ): %.o: %.c`
        prereqs = self.names(prereqs_text.rpartition(":")[2].replace("|", " "))
        found: list[_Rule] = []
        generic = static or any(
            "%" in n or "$" in n or (n.startswith(".") and n not in _SPECIAL) for n in names
        )
        if ".SECONDEXPANSION" in names:
            self.unread.append("the makefile uses .SECONDEXPANSION, which tether does not read")
        if ".EXPORT_ALL_VARIABLES" in names:
            self.export_all = True
        if ".PHONY" in names:
            self.phony |= set(prereqs)
        if generic or ".DEFAULT" in names:
            rule = _Rule()
            self.generic_prereqs += [p for p in prereqs if "%" not in p]
            self.patterns += [n for n in names if "%" in n and n != "%"]
            self.generic_rules.append(rule)
            found.append(rule)
        for name in names:
            if name.startswith(".") or "%" in name or "$" in name:
                continue
            rule = self.rules.setdefault(name, _Rule())
            if not static:
                rule.prereqs += prereqs
            found.append(rule)
            if self.first is None:
                self.first = name
        if inline.strip():
            for rule in found:
                rule.recipe.append(inline)
        return found

    def include(self, names_text: str, depth: int) -> None:
        names = self.expand(names_text).split()
        for name in names:
            if "$" in name or any(c in name for c in "*?["):
                self.unread.append(f"the makefile includes {name}, known only as make runs")
                continue
            self.includes += 1
            if depth >= 4 or self.includes > _MAX_INCLUDES:
                self.unread.append(f"the makefile includes {name}, too deep to read")
                continue
            places = [name] if name.startswith("/") else [name, *self._searched(name)]
            found = next(((p, t) for p in places if (t := self.read(p)) is not None), None)
            if found is None:
                self.missing.append(name)  # make tries to make it first
                continue
            self.included.append(name)
            self.file(found[1], depth + 1)

    def _searched(self, name: str) -> list[str]:
        """Where make looks for an included `name` after its own directory."""
        return [f"{folder.rstrip('/')}/{name}" for folder in self.run.include_dirs]

    def names(self, text: str) -> list[str]:
        """Target or goal names in `text` as make expands them: a variable it does not
        know (`ev$(EMPTY)il`) is empty."""
        return _UNKNOWN.sub("", self.expand(text)).split()

    def expand(self, text: str, depth: int = 0, target: str | None = None) -> str:
        """`text` with the variables known put in; make's `$(shell X)` as the shell's
        `$(X)`; `$$` kept as `$$` (the caller turns it into `$`)."""

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name is None:
                return target if target is not None and match.group(3) == "@" else "target"
            if name in self.variables and depth < _MAX_EXPANSIONS:
                if self.expanded > _MAX_EXPANDED:  # `A = $(A)$(A)...`: too far to follow
                    self.too_large = True
                else:
                    found = self.expand(self.variables[name], depth + 1, target)
                    self.expanded += len(found)
                    return found
            return "${" + re.sub(r"\W", "_", name) + "}"

        text = _shell_calls(text)
        parts = text.split("$$")
        return "$$".join(_REFERENCE.sub(value, part) for part in parts)


_SPECIAL = frozenset(
    {".PHONY", ".SUFFIXES", ".PRECIOUS", ".INTERMEDIATE", ".SECONDARY", ".DELETE_ON_ERROR"}
    | {".IGNORE", ".LOW_RESOLUTION_TIME", ".SILENT", ".EXPORT_ALL_VARIABLES", ".NOTPARALLEL"}
    | {".ONESHELL", ".POSIX", ".NOTINTERMEDIATE", ".SECONDEXPANSION", ".DEFAULT"}
)


def read_makefile(
    text: str, run: MakeRun, read: Callable[[str], str | None], exists: Callable[[str], bool]
) -> MakeReading:
    """What make runs, reading `text` (the makefiles in order) for `run`; `read` gives an
    included makefile's text (None: none), `exists` whether a file is there."""
    reader = _Reader(run, read)
    for name, value in run.assigned:
        reader.variables[name] = value
    reader.file(text)
    for match in (m for t in reader.texts for m in _UNREAD_FUNCTIONS.finditer(t)):
        reader.unread.append(f"the makefile calls $({match.group(1)} ...), not read")
        break
    variables = reader.variables
    reader.unread += unread_settings(reader.variables, reader.expand)
    goal = reader.names(variables.get(".DEFAULT_GOAL", ""))
    goals = list(run.goals) or goal or ([reader.first] if reader.first is not None else [])
    remade = [m for m in (*run.makefiles, *reader.included) if m in reader.rules]
    # Every target also needs `.EXTRA_PREREQS`: made whatever the goal.
    extra = reader.names(variables.get(".EXTRA_PREREQS", ""))
    goals = reader.missing + remade + goals + extra
    recipes: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    implicit = False
    built_in = False
    while goals and len(seen) < MAX_TARGETS:
        target = goals.pop(0)
        if target in seen:
            continue
        seen.add(target)
        rule = reader.rules.get(target)
        if rule is not None:
            goals += rule.prereqs
        if rule is None or not rule.recipe:
            implicit = True
            built_in = built_in or _built_in(reader, target, exists)
            continue
        recipes += [(r, target) for r in rule.recipe]
    if implicit:
        recipes += [(r, None) for g in reader.generic_rules for r in g.recipe]
        for prereq in reader.generic_prereqs[:MAX_TARGETS]:
            rule = reader.rules.get(prereq)
            recipes += [(r, prereq) for r in rule.recipe] if rule is not None else []
    no_rules = "r" in run.flags or re.search(
        r"(^|\s)-\w*r|no-builtin-rules", make_flags(reader.variables, reader.expand)
    )
    if built_in and not no_rules:
        recipes += [(r, None) for r in BUILT_IN_RECIPES]
    if "n" in run.flags:  # only `+` lines and those that run $(MAKE) run
        recipes = [
            (r, t) for r, t in recipes if "+" in _prefix(r) or re.search(r"\$[({]MAKE[)}]", r)
        ]
    lines = [_recipe_line(reader, r, t) for r, t in recipes]
    lines = [ln for ln in lines if ln.strip()]
    bodies = [b for t in reader.texts for b in _shell_bodies(reader, t)]
    lines += [_unescaped(c) for c in reader.commands + bodies]
    if lines:
        names = sorted(reader.exported) if not reader.export_all else sorted(variables)
        names += [n for n in variables if _from_environment(n) and n not in names]
        exports = [_export(reader, n) for n in names if n in variables and n not in MAKE_DEFAULTS]
        lines = exports + lines
    if reader.too_large:
        reader.unread.append("the makefile's variables expand too far to read")
    return MakeReading("\n".join(lines) or None, tuple(dict.fromkeys(reader.unread)))


def _built_in(reader: _Reader, target: str, exists: Callable[[str], bool]) -> bool:
    """Whether make may make `target` with a built-in rule: no rule of the makefile's own
    names it, it is not there, and a file with its stem is (`prog.c` for `prog` or
    `prog.o`: every built-in rule, and chain of them, starts from one)."""
    if target in reader.phony or any(_matches(p, target) for p in reader.patterns):
        return False
    stem = target.rpartition(".")[0] if "." in target.rpartition("/")[2] else target
    head, _, name = stem.rpartition("/")
    sources = [f"{stem}.*", f"{head}/s.{name}.*" if head else f"s.{name}.*", f"{stem}.*,v"]
    return not exists(target) and any(exists(source) for source in sources)


def _matches(pattern: str, target: str) -> bool:
    before, _, after = pattern.partition("%")
    return (
        len(target) > len(before) + len(after)
        and target.startswith(before)
        and (target.endswith(after))
    )


def _from_environment(name: str) -> bool:
    """A variable make exports because the environment likely holds it (`PATH`): one that
    changes what a shell runs, not one of make's own program and flag variables."""
    own = name in MAKE_DEFAULTS or name.endswith(("FLAGS", "LIBS", "ARCH"))
    return is_dangerous_variable(name) and not own and name.isupper()


def _recipe_line(reader: _Reader, recipe: str, target: str | None) -> str:
    line = reader.expand(recipe, target=target)
    return _unescaped(line[len(_prefix(line)) :])


def _prefix(line: str) -> str:
    found = _RECIPE_PREFIX.match(line)
    return found.group(0) if found else ""


def _unescaped(line: str) -> str:
    return line.replace("$$", "$")


def _export(reader: _Reader, name: str) -> str:
    value = reader.expand(reader.variables[name])
    quoted = value.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    return f'export {re.sub(r"[^A-Za-z0-9_]", "_", name)}="{_unescaped(quoted)}"'


def _continued(line: str) -> bool:
    """Whether a backslash-newline ends `line` (an odd number of backslashes)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _uncommented(line: str) -> str:
    """`line` up to an unescaped `#`."""
    found = re.search(r"(?<!\\)#", line)
    return line if found is None else line[: found.start()]


def _shell_calls(text: str) -> str:
    """make's `$(shell X)` written as the shell's `$(X)` (`${shell X}` is left for the
    shell to refuse)."""
    return re.sub(r"\$\(shell\s", "$(", text)


def _shell_bodies(reader: _Reader, text: str) -> list[str]:
    """The commands every `$(shell ...)` of the makefile runs, variables put in: make runs
    those in assignments as it reads them and the others as it expands them."""
    found: list[str] = []
    for match in re.finditer(r"\$([({])shell\s", text):
        close = ")" if match.group(1) == "(" else "}"
        depth = 1
        end = match.end()
        while end < len(text) and depth:
            if text[end] in "({":
                depth += 1
            elif text[end] in ")}":
                depth -= 1 if text[end] == close or depth > 1 else 0
            end += 1
        found.append(reader.expand(text[match.end() : end - 1].replace("\\\n", " ")))
    return found
