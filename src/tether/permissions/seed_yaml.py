"""The seed's own rule file, `.tether/permissions.yaml`.

```yaml
always_deny:
  - pattern: '\\brm\\s+-rf\\s+/'
    reason: never delete from the root
always_allow:
  - pattern: '^git (status|diff|log)\\b'
ask_user:
  - pattern: '\\bgit\\s+push\\b'
    reason: pushing is visible to others
```

Each pattern is a Python regular expression searched in a Bash command: deny and ask patterns
in the whole command and in each simple command it runs (quotes removed, wrappers looked
through); allow patterns must match every simple command for the command to be allowed.
Anything the file holds that is not understood is an error naming the line, never ignored.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tether.permissions.rules import SEED_KEYS, Rule, RuleKind, shown_path
from tether.protocol.errors import ConfigError
from tether.text_files import UnreadableFile, read_text_file

_KINDS: dict[str, RuleKind] = {key: kind for kind, key in SEED_KEYS.items()}


def load_seed_rules(path: Path) -> list[Rule]:
    """The rules in a seed permissions file; raises ConfigError naming file, line and problem."""
    shown = shown_path(path)
    try:
        # Not a hang on a FIFO, not a traceback on bytes that are not text: a file of deny
        # rules that cannot be read stops the start (see `tether.text_files`).
        text = read_text_file(path) or ""
    except UnreadableFile as e:
        raise ConfigError(f"cannot read permissions file {shown}: it {e.reason}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        problem = _yaml_problem(e)
        raise ConfigError(f"permissions file {shown} is not valid YAML: {problem}") from None
    except RecursionError:  # the YAML composer recurses once per level of nesting
        raise ConfigError(f"permissions file {shown} nests too deeply to be read") from None
    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        raise _error(shown, root, f"the file must hold a mapping of {', '.join(_KINDS)}")
    rules: list[Rule] = []
    for key_node, value_node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        kind = _KINDS.get(key) if isinstance(key, str) else None
        if kind is None:
            raise _error(shown, key_node, f"unknown key {key!r} (expected {', '.join(_KINDS)})")
        if _is_null(value_node):
            continue
        if not isinstance(value_node, yaml.SequenceNode):
            raise _error(shown, value_node, f"{key} must be a list of {{pattern, reason}} entries")
        for i, entry in enumerate(value_node.value):
            rules.append(_entry_rule(shown, f"{key}[{i}]", kind, entry))
    return rules


def _entry_rule(shown: str, where: str, kind: RuleKind, node: yaml.Node) -> Rule:
    reason: str | None = None
    if isinstance(node, yaml.ScalarNode) and not _is_null(node):
        pattern_node: yaml.Node = node
    elif isinstance(node, yaml.MappingNode):
        fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
        unknown = sorted(set(fields) - {"pattern", "reason"})
        if unknown or len(fields) != len(node.value):
            raise _error(shown, node, f"{where}: unknown field {unknown[0] if unknown else '?'!r}")
        if "pattern" not in fields:
            raise _error(shown, node, f"{where}: missing 'pattern'")
        pattern_node = fields["pattern"]
        reason_node = fields.get("reason")
        if reason_node is not None and not _is_null(reason_node):
            if not isinstance(reason_node, yaml.ScalarNode):
                raise _error(shown, reason_node, f"{where}: reason must be text")
            reason = str(reason_node.value)
    else:
        raise _error(shown, node, f"{where} must be a pattern or a {{pattern, reason}} mapping")
    if not isinstance(pattern_node, yaml.ScalarNode) or _is_null(pattern_node):
        raise _error(shown, pattern_node, f"{where}: pattern must be text")
    pattern = str(pattern_node.value)
    if not pattern:
        raise _error(shown, pattern_node, f"{where}: pattern is empty")
    try:
        compiled = re.compile(pattern)
    except re.error as e:
        problem = f"{where}: invalid regular expression {pattern!r}: {e}"
        raise _error(shown, pattern_node, problem) from None
    source = f"{shown}:{pattern_node.start_mark.line + 1}: {where}"
    return Rule("Bash", pattern, kind, source, reason, regex=compiled)


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _error(shown: str, node: yaml.Node, problem: str) -> ConfigError:
    return ConfigError(f"permissions file {shown}, line {node.start_mark.line + 1}: {problem}")


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is not None:
        return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return str(problem)
