"""The seed's `.tether/permissions.yaml`: regex rules over Bash commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions.seed_yaml import load_seed_rules
from tether.protocol import ConfigError

GOOD = """\
always_deny:
  - pattern: '\\brm\\s+-rf\\s+/'
    reason: never delete from the root
always_allow:
  - '^git (status|diff)\\b'
ask_user:
  - pattern: 'git\\s+push'
"""


def load(tmp_path: Path, text: str) -> list[tuple[str, str, str | None, str]]:
    path = tmp_path / "permissions.yaml"
    path.write_text(text)
    return [(r.kind, r.text, r.reason, r.source) for r in load_seed_rules(path)]


def test_rules_with_kinds_reasons_and_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert load(tmp_path, GOOD) == [
        (
            "deny",
            "always_deny: \\brm\\s+-rf\\s+/",
            "never delete from the root",
            "permissions.yaml:2: always_deny[0]",
        ),
        (
            "allow",
            "always_allow: ^git (status|diff)\\b",
            None,
            "permissions.yaml:5: always_allow[0]",
        ),
        ("ask", "ask_user: git\\s+push", None, "permissions.yaml:7: ask_user[0]"),
    ]


def test_empty_file_and_empty_lists(tmp_path: Path) -> None:
    assert load(tmp_path, "") == []
    assert load(tmp_path, "always_deny:\nask_user: []\n") == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("always_deny: [\n", "is not valid YAML: expected the node content"),
        ("- a\n", "line 1: the file must hold a mapping of always_deny, always_allow, ask_user"),
        ("always_denny: []\n", "line 1: unknown key 'always_denny'"),
        ("always_deny: x\n", "line 1: always_deny must be a list of {pattern, reason} entries"),
        ("always_deny:\n  - patern: x\n", "line 2: always_deny[0]: unknown field 'patern'"),
        ("always_deny:\n  - reason: x\n", "line 2: always_deny[0]: missing 'pattern'"),
        ("ask_user:\n  - pattern: [a]\n", "line 2: ask_user[0]: pattern must be text"),
        (
            "always_allow:\n  - x\n  - pattern: '(a'\n",
            "line 3: always_allow[1]: invalid regular expression '(a': missing ), unterminated "
            "subpattern at position 0",
        ),
    ],
)
def test_errors_name_file_line_and_problem(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "permissions.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_seed_rules(path)
    assert str(path) in str(raised.value)
    assert problem in str(raised.value)
