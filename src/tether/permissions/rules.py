"""Permission rules: the `Tool` / `Tool(specifier)` grammar, where rules come from, how they match.

Rules come from each settings layer's `permissions.allow/ask/deny`, from `--allowedTools` /
`--disallowedTools`, and from the seed's `.tether/permissions.yaml` (regular expressions over a
Bash command, see seed_yaml.py). They are checked deny, then ask, then allow; the first match in
that order wins, whatever the layer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, get_args

from tether.permissions.command_options import OptionRule, option_form
from tether.permissions.paths import ANY, PathPattern, Tokens, compile_path_pattern
from tether.permissions.star_patterns import StarPattern
from tether.protocol.errors import ConfigError
from tether.protocol.tool_names import TOOL_ALIASES as TOOL_ALIASES  # the one table
from tether.relocated_files import file_name
from tether.web_hosts import canonical_host_pattern

RuleKind = Literal["allow", "ask", "deny"]
Mode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
MODES: tuple[Mode, ...] = get_args(Mode)

READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
"""Tools a `Read(...)` rule covers; Bash readers (cat, grep...) are checked against it too."""
EDIT_TOOLS = frozenset({"Edit", "Write", "Revert", "MultiEdit", "NotebookEdit"})
"""Tools an `Edit(...)` rule covers; Bash write targets (`> file`, rm, mv...) are checked too."""
PATH_TOOLS = READ_TOOLS | EDIT_TOOLS
SEED_KEYS: Mapping[RuleKind, str] = {
    "deny": "always_deny",
    "allow": "always_allow",
    "ask": "ask_user",
}

_RULE_FORM = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*(?:\*)?)(?:\((.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """One rule. `specifier` is the text inside the parentheses (None for a bare tool name), or
    the regular expression of a seed rule (`regex` set)."""

    tool: str
    specifier: str | None
    kind: RuleKind
    source: str
    reason: str | None = None
    regex: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    """Seed rules: searched in the command text."""
    command: StarPattern | None = field(default=None, compare=False, repr=False)
    """Bash rules: matches one simple command's words joined by spaces."""
    command_tokens: Tokens = field(default=(), compare=False, repr=False)
    command_options: OptionRule | None = field(default=None, compare=False, repr=False)
    """Deny and ask rules: the pattern with its options as a set (command_options.py), so
    that `rm -rf *` also matches `rm --recursive --force x` and `rm -rfv x`."""
    path: PathPattern | None = field(default=None, compare=False, repr=False)
    wildcard: StarPattern | None = field(default=None, compare=False, repr=False)
    """Other tools' specifiers (WebFetch domains, Task agent names...)."""

    @property
    def text(self) -> str:
        """The rule as a user would write it (how decisions name it)."""
        if self.regex is not None:
            return f"{SEED_KEYS[self.kind]}: {self.specifier}"
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def covers(self, tool: str) -> bool:
        """Whether the rule is about `tool` at all (its specifier is checked separately)."""
        return tool_covers(self.tool, tool)


def tool_covers(rule_tool: str, tool: str) -> bool:
    rule_tool = TOOL_ALIASES.get(rule_tool, rule_tool)
    tool = TOOL_ALIASES.get(tool, tool)
    if rule_tool == tool:
        return True
    if rule_tool == "Read":
        return tool in READ_TOOLS
    if rule_tool == "Edit":
        return tool in EDIT_TOOLS
    if rule_tool.startswith("mcp__"):
        server = rule_tool.removesuffix("__*")
        return server.count("__") == 1 and tool.startswith(server + "__")
    return False


@dataclass(frozen=True)
class RuleSet:
    """All rules in force, in the order they were read."""

    rules: tuple[Rule, ...] = ()

    def of(self, kind: RuleKind, tool: str) -> tuple[Rule, ...]:
        """Rules of one kind that are about `tool`."""
        key = (kind, tool)
        found = self._index.get(key)
        if found is None:
            found = tuple(r for r in self.rules if r.kind == kind and r.covers(tool))
            self._index[key] = found
        return found

    @cached_property
    def _index(self) -> dict[tuple[RuleKind, str], tuple[Rule, ...]]:
        return {}


def parse_rule(
    text: str, kind: RuleKind, *, source: str, project_root: Path | None, reason: str | None = None
) -> Rule:
    """One `Tool` or `Tool(specifier)` rule; raises ConfigError naming `source` if unusable."""
    stripped = text.strip()
    form = _RULE_FORM.fullmatch(stripped)
    if form is None:
        raise ConfigError(f"{source}: unknown rule form {text!r}")
    tool, specifier = form.group(1), form.group(2)
    if tool.endswith("*") and not (tool.startswith("mcp__") and tool.endswith("__*")):
        raise ConfigError(f"{source}: unknown rule form {text!r}")
    tool = TOOL_ALIASES.get(tool, tool)
    if specifier is not None and not specifier.strip():
        raise ConfigError(f"{source}: empty specifier in {text!r}")
    if specifier == "*" and tool not in PATH_TOOLS:
        specifier = None
    base = Rule(tool, specifier, kind, source, reason)
    if specifier is None:
        return base
    try:
        return _with_matcher(base, specifier, project_root)
    except ValueError as e:
        raise ConfigError(f"{source}: {e} in {text!r}") from None


def _with_matcher(rule: Rule, specifier: str, project_root: Path | None) -> Rule:
    tool = rule.tool
    if tool == "Bash":
        regex, tokens = compile_command_pattern(specifier)
        options = option_rule(specifier) if rule.kind != "allow" else None
        return _replace(rule, command=regex, command_tokens=tokens, command_options=options)
    if tool in PATH_TOOLS:
        return _replace(rule, path=compile_path_pattern(specifier, project_root=project_root))
    if tool == "WebFetch":
        if not specifier.startswith("domain:") or not specifier[7:].strip():
            raise ValueError("WebFetch rules take 'domain:HOST'")
        host = canonical_host_pattern(specifier[7:])
        if host is None:
            raise ValueError(f"{specifier[7:].strip()!r} is not a host name or a host pattern")
        return _replace(rule, wildcard=StarPattern.of(host, fold_case=True))
    if tool.startswith("mcp__"):
        raise ValueError("MCP rules name a server or a tool, without parentheses")
    return _replace(rule, wildcard=StarPattern.of(specifier))


def _replace(rule: Rule, **changes: Any) -> Rule:
    return replace(rule, **changes)


def compile_command_pattern(specifier: str) -> tuple[StarPattern, Tokens]:
    """A Bash rule's pattern: `*` matches any text (spaces too), `\\*` a star; a trailing ` *`
    (or the older `:*`) also matches nothing, with a word boundary: `ls *` matches `ls` and
    `ls -la` but not `lsof`. Whitespace runs count as one space."""
    text = " ".join(specifier.split())
    if text.endswith(":*") and not text.endswith("\\:*"):
        text = text[:-2].rstrip() + " *"
    pieces: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in "*\\":
            current.append(text[i + 1])
            i += 2
            continue
        if c == "*":
            pieces.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    pieces.append("".join(current))
    optional_tail = len(pieces) >= 2 and pieces[-1] == "" and pieces[-2].endswith(" ")
    if optional_tail:
        head = [*pieces[:-2], pieces[-2][:-1]]
        pattern = StarPattern(tuple(pieces), alternatives=(StarPattern(tuple(head)),))
    else:
        head = pieces
        pattern = StarPattern(tuple(pieces))
    tokens: list[str | int] = []
    for n, piece in enumerate(head):
        if n:
            tokens.append(ANY)
        tokens.extend(piece)
    if optional_tail:
        tokens.append(ANY)
    return pattern, tuple(tokens)


def option_rule(specifier: str) -> OptionRule | None:
    """A Bash rule's pattern in option-set form; None when its head is not literal
    (`Bash(rm*)`, `Bash(* --force)`)."""
    text = " ".join(specifier.split())
    if text.endswith(":*") and not text.endswith("\\:*"):
        text = text[:-2].rstrip() + " *"
    form = option_form(text.split(" "))
    if form is None or any("*" in word or "\\" in word for word in form.head):
        return None
    return OptionRule(form.head, form.options, compile_command_pattern(" ".join(form.words))[0])


def split_tool_list(value: str) -> list[str]:
    """`--allowedTools "Bash(git log *) Edit,Read"`: rules split at commas and spaces outside
    parentheses."""
    out: list[str] = []
    depth = 0
    current: list[str] = []
    for c in value:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (c == "," or c.isspace()):
            if current:
                out.append("".join(current))
            current = []
            continue
        current.append(c)
    if current:
        out.append("".join(current))
    return out


def load_rules(
    layers: Sequence[tuple[Path, Mapping[str, Any]]],
    *,
    seed_yaml: Path | None,
    seed_allow: bool = True,
    extra_allow: Sequence[str] = (),
    extra_deny: Sequence[str] = (),
    session: Mapping[RuleKind, Sequence[str]] | None = None,
) -> RuleSet:
    """Every rule from the settings layers, the command line and the seed file.

    Raises ConfigError naming the file and entry for anything it cannot use: a broken file must
    never read as "no rules".
    """
    rules: list[Rule] = []
    for path, data in layers:
        permissions = _permissions_table(path, data)
        root = project_root_of(path)
        for kind in get_args(RuleKind):
            entries = permissions.get(kind, [])
            where = f"settings {shown_path(path)}: permissions.{kind}"
            if not isinstance(entries, list):
                raise ConfigError(f"{where} must be a list of rule strings")
            for i, entry in enumerate(entries):  # pyright: ignore[reportUnknownVariableType]
                if not isinstance(entry, str):
                    raise ConfigError(f"{where}[{i}] must be a string, not {_kind_of(entry)}")
                rules.append(parse_rule(entry, kind, source=f"{where}[{i}]", project_root=root))
    flags: tuple[tuple[str, RuleKind, Sequence[str]], ...] = (
        ("--disallowedTools", "deny", extra_deny),
        ("--allowedTools", "allow", extra_allow),
    )
    for flag, kind, values in flags:
        for value in values:
            for text in split_tool_list(value):
                rules.append(parse_rule(text, kind, source=flag, project_root=None))
    for kind, texts in (session or {}).items():
        for text in texts:
            rules.append(parse_rule(text, kind, source="a permission update", project_root=None))
    if seed_yaml is not None:
        # Imported only for such a file: the YAML parser costs start-up 15 ms.
        from tether.permissions.seed_yaml import load_seed_rules

        # `seed_allow=False`: an untrusted workspace's seed file restricts only.
        rules.extend(r for r in load_seed_rules(seed_yaml) if seed_allow or r.kind != "allow")
    return RuleSet(tuple(rules))


def _permissions_table(path: Path, data: Mapping[str, Any]) -> Mapping[str, Any]:
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        raise ConfigError(f"settings {shown_path(path)}: permissions must be an object")
    return permissions  # pyright: ignore[reportUnknownVariableType]


def default_mode(layers: Sequence[tuple[Path, Mapping[str, Any]]]) -> Mode:
    """`permissions.defaultMode`, the last layer that sets it winning."""
    mode: Mode = "default"
    for path, data in layers:
        value = _permissions_table(path, data).get("defaultMode")
        if value is None:
            continue
        if value not in MODES:
            raise ConfigError(
                f"settings {shown_path(path)}: permissions.defaultMode: unknown mode {value!r} "
                f"(one of {', '.join(MODES)})"
            )
        mode = value
    return mode


def additional_directories(layers: Sequence[tuple[Path, Mapping[str, Any]]]) -> tuple[Path, ...]:
    """`permissions.additionalDirectories` of every layer; relative entries start at that
    file's project root, `~` at the home directory."""
    found: list[Path] = []
    for path, data in layers:
        entries = _permissions_table(path, data).get("additionalDirectories", [])
        where = f"settings {shown_path(path)}: permissions.additionalDirectories"
        if not isinstance(entries, list):
            raise ConfigError(f"{where} must be a list of directories")
        for i, entry in enumerate(entries):  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(entry, str) or not entry:
                raise ConfigError(f"{where}[{i}] must be a non-empty string")
            directory = Path(entry).expanduser()
            if not directory.is_absolute():
                directory = project_root_of(path) / directory
            if directory not in found:
                found.append(directory)
    return tuple(found)


def hidden_tools(rules: RuleSet) -> frozenset[str]:
    """Tools named bare in a deny rule: they are not offered to the model at all. A name like
    `mcp__server` stands for all of that server's tools (`mcp__server__*`)."""
    hidden: set[str] = set()
    for rule in rules.rules:
        if rule.kind != "deny" or rule.specifier is not None or rule.regex is not None:
            continue
        name = rule.tool.removesuffix("__*") if rule.tool.startswith("mcp__") else rule.tool
        hidden.add(name)
        if name == "Read":
            hidden |= READ_TOOLS
        elif name == "Edit":
            hidden |= EDIT_TOOLS
    return frozenset(hidden)


def project_root_of(settings_file: Path) -> Path:
    """The directory a settings file's `/x` patterns are relative to: the one holding its
    `.claude` or `.tether` directory, else the file's own directory."""
    parent = settings_file.parent
    return parent.parent if parent.name in (".claude", ".tether") else parent


def shown_path(path: Path) -> str:
    """A settings file as messages name it: the file read (`file_name`), relative to the
    current directory when below it."""
    path = file_name(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _kind_of(value: object) -> str:
    return "null" if value is None else type(value).__name__


def permission_updates(rule: str | None) -> list[dict[str, Any]]:
    """An "always allow" rule as Claude Code's permission updates, the shape its clients and
    hooks read as `permission_suggestions`, as Claude Code offers them: an edit inside the
    workspace as accepting edits for the session (`setMode acceptEdits`), reading outside it
    as a rule for the session only (a program that echoes the suggestion back grants no
    lasting read), any other rule as `addRules` saved in the local settings (`destination:
    localSettings`; tether keeps such a rule with the user's other "always allow" answers)."""
    if not rule:
        return []
    tool, _, content = rule.partition("(")
    content = content.removesuffix(")")
    if tool == "Edit" and content.startswith("/") and not content.startswith("//"):
        return [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    value: dict[str, Any] = {"toolName": tool}
    if content:
        value["ruleContent"] = content
    where = "session" if tool == "Read" and content else "localSettings"
    return [{"type": "addRules", "rules": [value], "behavior": "allow", "destination": where}]
