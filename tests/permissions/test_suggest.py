"""The rule an "always allow" answer would save, and that it allows the call it came from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tether.permissions import decide, load_rules, suggest_rule

from .conftest import ContextFactory, Tree


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git commit -m 'fix the parser'", "Bash(git commit *)"),
        ("npm run build -- --prod", "Bash(npm run *)"),
        ("cargo test --release", "Bash(cargo test *)"),
        ("docker compose up -d", "Bash(docker compose *)"),
        ("make", "Bash(make)"),
        ("make test", "Bash(make test *)"),
        ("python -m pytest -q tests", "Bash(python -m pytest *)"),
        ("python script.py --fast", "Bash(python *)"),
        ("./deploy.sh --prod", "Bash(./deploy.sh *)"),
        ("/usr/bin/make all", "Bash(make all *)"),
        ("ls && timeout 60 cargo build --release", "Bash(cargo build *)"),
        ("git status; npm publish", "Bash(npm publish *)"),
        ("sudo apt install jq", "Bash(sudo apt install *)"),
        ("find . -name '*.log' -exec gzip {} +", "Bash(gzip *)"),
        ("find . -name '*.o' -exec rm {} +", None),
    ],
)
def test_bash_rules_name_program_and_subcommand(
    command: str, rule: str | None, make_ctx: ContextFactory
) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) == rule


@pytest.mark.parametrize(
    "command",
    ["ls (", "$CMD x", "git -C .. push", "PATH=/x make", 'bash -c "$X"', "ls -la"],
)
def test_no_rule_for_what_no_rule_could_allow(command: str, make_ctx: ContextFactory) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule"),
    [
        ("Edit", {"file_path": "src/app.py"}, "Edit(/src/**)"),
        ("Write", {"file_path": "src/deep/new.py"}, "Edit(/src/deep/**)"),
        ("Write", {"file_path": "README.md"}, "Edit(/README.md)"),
        ("Revert", {"file_path": "src/app.py"}, "Edit(/src/**)"),
        ("Read", {"file_path": "/etc/hosts"}, "Read(//etc/**)"),
        ("Read", {"file_path": "~/docs/notes.md"}, "Read(~/docs/**)"),
        ("Grep", {"pattern": "x", "path": "src"}, "Read(/src/**)"),
        ("Write", {"file_path": "/tmp/x"}, None),
        ("Read", {}, None),
        ("WebFetch", {"url": "https://docs.python.org/3/"}, "WebFetch(domain:docs.python.org)"),
        ("mcp__github__create_issue", {}, "mcp__github__create_issue"),
    ],
)
def test_other_tools(
    tool: str, tool_input: dict[str, Any], rule: str | None, make_ctx: ContextFactory
) -> None:
    assert suggest_rule(tool, tool_input, make_ctx()) == rule


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "git commit -m 'x'"}),
        ("Bash", {"command": "timeout 5 npm run lint"}),
        ("Bash", {"command": "sudo apt install jq"}),
        ("Bash", {"command": "./deploy.sh --prod"}),
        ("Bash", {"command": "make"}),
        ("Edit", {"file_path": "src/app.py"}),
        ("Write", {"file_path": "README.md"}),
        ("Read", {"file_path": "/etc/hosts"}),
        ("Read", {"file_path": "~/docs/notes.md"}),
        ("WebFetch", {"url": "https://example.com/a"}),
        ("mcp__db__query", {"sql": "select 1"}),
    ],
)
def test_the_suggestion_allows_the_call(
    tool: str, tool_input: dict[str, Any], tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx()
    assert decide(tool, tool_input, ctx).behavior == "ask"
    rule = suggest_rule(tool, tool_input, ctx)
    assert rule is not None
    settings = tree.ws / ".tether" / "settings.local.json"
    rules = load_rules([(settings, {"permissions": {"allow": [rule]}})], seed_yaml=None)
    again = make_ctx()
    assert decide(tool, tool_input, replace(again, rules=rules)).behavior == "allow"
    session = load_rules([], seed_yaml=None, extra_allow=[rule])
    assert decide(tool, tool_input, replace(again, rules=session)).behavior == "allow"
