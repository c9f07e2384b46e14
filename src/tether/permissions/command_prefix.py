"""The "always allow" rules a question about a Bash command offers an SDK client or a
PermissionRequest hook (`permission_suggestions`), as Claude Code offers them (measured with
its CLI over the Agent SDK):

- each part of the command that needs approval gets a rule; the parts that would run
  without asking (`cd sub`, `cat a`, `echo hi`) get none;
- a part's rule is its program and subcommand with ` *` (`npm run *`, `git push *`, `make
  install *`) when the word after the program is a subcommand's name (lower case letters and
  digits, words joined by `-`: `cherry-pick`), and otherwise the part exactly as written
  (`rm -rf build`, `python3 setup.py install`, `curl -s URL`): an option, a path or a file
  name after the program says nothing about what other calls would do;
- only a program whose subcommands the engine reads (PREFIX_PROGRAMS: `git`, `npm`, `cargo`,
  `make`...) gets a prefix; shells, wrappers, privilege changers, interpreters and programs
  tether does not know (`bash`, `sudo`, `strace`, `unbuffer`, `python3`, `./run.sh`) get the
  part exactly: what they run is their operand, which a prefix would leave unseen (Claude
  Code offers `strace node *`; tether does not);
- leading assignments of variables that change no program's code (`NODE_ENV=production`)
  are left out of a prefix; any other (`FOO=1`) keeps the part exact, with it;
- the stages of a pipeline are offered one update each (`curl ... | sh`: two), the parts of
  a list (`&&`, `||`, `;`) one update with a rule each;
- a stage that writes a file by a writer's argument (`rm -rf build && echo hi`, its
  `blocked_path`) is offered whole, as one part.

A command with subshells, substitutions or other compound forms gets no rule of this kind
(None): the caller falls back on tether's own rule (`suggest.suggest_rule`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tree_sitter

from tether.permissions.blocked_path import blocked_path
from tether.permissions.context import PermissionContext
from tether.permissions.engine import decide
from tether.permissions.shell_budget import TooLarge
from tether.permissions.shell_tree import parse_tree
from tether.permissions.shell_words import program_name

SUBCOMMAND = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A word read as a subcommand's name: `push`, `run-script`, `a1`; not `Run`, `a.b`, `-x`."""

PREFIX_PROGRAMS = frozenset(
    {
        *("git", "hg", "svn", "gh", "npm", "pnpm", "yarn", "yarnpkg", "bun", "deno", "corepack"),
        *("cargo", "rustup", "go", "uv", "pip", "pip3", "pipx", "poetry", "pdm", "hatch", "tox"),
        *("conda", "mamba", "micromamba", "docker", "podman", "kubectl", "helm", "terraform"),
        *("make", "gmake", "dotnet", "brew", "apt", "apt-get", "gem", "bundle", "composer"),
        *("nix", "rclone", "systemctl"),
    }
)
"""Programs whose second word is a subcommand the engine reads (its options, what it runs and
writes judged per subcommand): only these are offered `PROGRAM SUBCOMMAND *`. Any other
program, an interpreter, a wrapper tether does not look through (`strace node *`, `unbuffer
python3 *`) or one it does not know, is offered the exact part: a prefix would allow what
its other words run, unseen."""

SAFE_VARIABLES = frozenset(
    {
        *("GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE"),
        *("RUST_BACKTRACE", "RUST_LOG", "NODE_ENV"),
        *("PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE"),
        *("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG"),
        *("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_TIME", "CHARSET"),
        *("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TZ"),
    }
)
"""Variables that change how a program reports or which build it targets, not what code it
runs: left out of a prefix rule."""

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=\S*")

_LIST_NODES = frozenset({"program", "list"})
_OPERATORS = frozenset({"&&", "||", ";", "&", "|", "|&", "\n"})


@dataclass(frozen=True)
class Part:
    """A simple command as written (assignments and redirections included), and where it
    is in the command (character offsets)."""

    text: str
    start: int
    end: int


def command_stages(command: str) -> list[list[Part]] | None:
    """The command's pipeline stages, each the list of simple commands that run in it in
    order (`a && b | c`: [a, b], [c]); None when it holds anything else (a subshell, a
    substitution, a loop) or does not parse."""
    source = command.encode()
    try:
        tree = parse_tree(source)
    except TooLarge:
        return None
    if tree is None or tree.root_node.has_error:
        return None
    stages: list[list[Part]] = [[]]
    if not _collect(tree.root_node, source, stages):
        return None
    return [s for s in stages if s]


def _collect(node: tree_sitter.Node, source: bytes, stages: list[list[Part]]) -> bool:
    for child in node.named_children if node.type in _LIST_NODES else [node]:
        if child.type == "comment":
            continue
        if child.type in _LIST_NODES:
            if not _collect(child, source, stages):
                return False
        elif child.type == "pipeline":
            for index, stage in enumerate(child.named_children):
                if index:
                    stages.append([])
                if not _collect(stage, source, stages):
                    return False
        elif child.type == "redirected_statement":
            body = child.child_by_field_name("body")
            if body is None or body.type != "command" or _nested(child):
                return False
            stages[-1].append(_part(child, source))
        elif child.type == "command":
            if _nested(child):
                return False
            stages[-1].append(_part(child, source))
        else:
            return False
    return True


def _nested(node: tree_sitter.Node) -> bool:
    """Whether a substitution or subshell runs inside the command."""
    kinds = ("command_substitution", "process_substitution", "subshell", "arithmetic_expansion")
    return node.type in kinds or any(_nested(c) for c in node.children)


def _part(node: tree_sitter.Node, source: bytes) -> Part:
    start = len(source[: node.start_byte].decode(errors="replace"))
    text = source[node.start_byte : node.end_byte].decode(errors="replace")
    return Part(text, start, start + len(text))


def prefix_rule(text: str) -> str:
    """The rule content offered for one part (a simple command, or a stage offered whole)."""
    words = text.split()
    start = 0
    while start < len(words) and (found := _ASSIGNMENT.fullmatch(words[start])):
        if found.group(1) not in SAFE_VARIABLES:
            return _literal(" ".join(words))
        start += 1
    words = words[start:]
    if (
        len(words) >= 2
        and program_name(words[0]) in PREFIX_PROGRAMS
        and not _OPERATORS.intersection(words[:2])
        and SUBCOMMAND.fullmatch(words[1])
    ):
        return f"{_literal(words[0])} {words[1]} *"
    return _literal(text.strip())


def _literal(text: str) -> str:
    """Text a rule matches as written: `*` and `\\` are the pattern's own characters."""
    return text.replace("\\", "\\\\").replace("*", "\\*")


def stage_rules(
    command: str, stage: list[Part], asked: list[bool], cwd: Path, home: Path
) -> list[str]:
    """The rules offered for one pipeline stage: the stage whole when every part of it that
    needs approval does so for the file it writes by a writer's argument (`rm -rf build &&
    echo hi`), else one per part that needs approval (each once)."""
    needing = [p for p, a in zip(stage, asked, strict=True) if a]
    if len(stage) > 1 and needing and all(blocked_path(p.text, cwd, home) for p in needing):
        return [prefix_rule(command[stage[0].start : stage[-1].end])]
    rules: list[str] = []
    for part in needing:
        rule = prefix_rule(part.text)
        if rule not in rules:
            rules.append(rule)
    return rules


def needs_approval(part: Part, ctx: PermissionContext) -> bool:
    """Whether the part alone would be asked about (not allowed by a rule or the mode)."""
    return decide("Bash", {"command": part.text}, ctx).behavior != "allow"


def rule_updates(command: str, ctx: PermissionContext) -> list[dict[str, Any]] | None:
    """The updates offered for `command`: an `addRules` per pipeline stage that needs
    approval; for a stage of a longer pipeline asked about only for the files it writes
    (`... | tee log`), the directory it writes in and the acceptEdits mode instead, there.
    None when the command is not read this way (see the module's note)."""
    stages = command_stages(command)
    if stages is None:
        return None
    updates: list[dict[str, Any]] = []
    for stage in stages:
        asked = [needs_approval(p, ctx) for p in stage]
        written = _written(stage, asked, ctx) if len(stages) > 1 else None
        if written is not None:
            updates.append(
                {"type": "addDirectories", "directories": [written], "destination": "session"}
            )
            if ctx.mode == "default":
                updates.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
            continue
        rules = stage_rules(command, stage, asked, ctx.cwd, ctx.home)
        if rules:
            values = [{"toolName": "Bash", "ruleContent": r} for r in rules]
            updates.append(
                {
                    "type": "addRules",
                    "rules": values,
                    "behavior": "allow",
                    "destination": "localSettings",
                }
            )
    return updates or None


def _written(stage: list[Part], asked: list[bool], ctx: PermissionContext) -> str | None:
    """The directory of the first file the stage writes, when every part of it asked about
    is asked for the file it writes by a writer's argument."""
    needing = [p for p, a in zip(stage, asked, strict=True) if a]
    files = [blocked_path(p.text, ctx.cwd, ctx.home) for p in needing]
    if not files or None in files:
        return None
    return str(Path(str(files[0])).parent)


def is_compound(command: str) -> bool:
    """Whether the command is more than one simple command (a list or a pipeline)."""
    stages = command_stages(command)
    return stages is not None and sum(len(s) for s in stages) > 1


def only_writes_asked(command: str, ctx: PermissionContext, cwd: Path) -> bool:
    """Whether the command is one list (no pipeline) and every part asked about is asked
    for a file it writes by a writer's argument (so the command is asked about whole, as
    `rm -rf build && echo hi` is)."""
    stages = command_stages(command) or []
    if len(stages) != 1:
        return False
    needing = [p for s in stages for p in s if needs_approval(p, ctx)]
    return bool(needing) and all(blocked_path(p.text, cwd, ctx.home) for p in needing)
