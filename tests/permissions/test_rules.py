"""The rule grammar, Bash command patterns and loading rules from settings layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import (
    Rule,
    RuleKind,
    RuleSet,
    additional_directories,
    default_mode,
    hidden_tools,
    load_rules,
    parse_rule,
)
from tether.permissions.command_options import option_form
from tether.permissions.rules import (
    compile_command_pattern,
    project_root_of,
    split_tool_list,
)
from tether.protocol import ConfigError


def rule_of(text: str, kind: RuleKind = "allow") -> Rule:
    return parse_rule(text, kind, source="test", project_root=Path("/proj"))


@pytest.mark.parametrize(
    ("text", "tool", "specifier"),
    [
        ("Bash", "Bash", None),
        ("Bash(*)", "Bash", None),
        ("  Bash(npm test)  ", "Bash", "npm test"),
        ("Read(./.env)", "Read", "./.env"),
        ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
        ("mcp__github", "mcp__github", None),
        ("mcp__github__create_issue", "mcp__github__create_issue", None),
        ("mcp__github__*", "mcp__github__*", None),
        ("Agent(Explore)", "Task", "Explore"),
        ("Bash(echo (x))", "Bash", "echo (x)"),
    ],
)
def test_rule_forms(text: str, tool: str, specifier: str | None) -> None:
    rule = rule_of(text)
    assert (rule.tool, rule.specifier, rule.kind, rule.source) == (tool, specifier, "allow", "test")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Bash(ls", "test: unknown rule form 'Bash(ls'"),
        ("Bash ls", "test: unknown rule form 'Bash ls'"),
        ("(ls)", "test: unknown rule form '(ls)'"),
        ("", "test: unknown rule form ''"),
        ("Bash*", "test: unknown rule form 'Bash*'"),
        ("Bash()", "test: empty specifier in 'Bash()'"),
        ("Read(src/[a)", "test: unclosed '[' in path pattern in 'Read(src/[a)'"),
        (
            "WebFetch(example.com)",
            "test: WebFetch rules take 'domain:HOST' in 'WebFetch(example.com)'",
        ),
        (
            "mcp__github(x)",
            "test: MCP rules name a server or a tool, without parentheses in 'mcp__github(x)'",
        ),
    ],
)
def test_unusable_rules_are_errors(text: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        rule_of(text)
    assert str(raised.value) == problem


@pytest.mark.parametrize(
    ("pattern", "command", "matches"),
    [
        ("ls *", "ls", True),
        ("ls *", "ls -la", True),
        ("ls *", "lsof", False),
        ("ls*", "lsof", True),
        ("npm run test:*", "npm run test", True),
        ("npm run test:*", "npm run test unit", True),
        ("npm run test:*", "npm run testing", False),
        ("npm run build", "npm run build", True),
        ("npm run build", "npm run build --prod", False),
        ("git * main", "git push origin main", True),
        ("git * main", "git push origin dev", False),
        ("* --version", "node --version", True),
        ("echo \\*", "echo *", True),
        ("echo \\*", "echo x", False),
        ("npm   test  *", "npm test -- --ci", True),
    ],
)
def test_command_patterns(pattern: str, command: str, matches: bool) -> None:
    compiled, _ = compile_command_pattern(pattern)
    assert compiled.fullmatch(command) == matches


@pytest.mark.parametrize(
    ("words", "head", "options", "rest"),
    [
        ("rm -r -f x", "rm", "-f -r", "x"),
        ("rm -Rf x", "rm", "-f -r", "x"),
        ("rm x --recursive --force", "rm", "-f -r", "x"),
        ("rm --rec x", "rm", "--rec -r", "x"),
        ("git -C . -c a=b --no-pager push origin -f", "git push", "-f", "origin"),
        ("git branch -D old", "git branch", "-d -f", "old"),
        ("find . -delete", "find", "-delete", "."),
        ("chmod -r x", "chmod", "-r", "x"),
        ("ls", "ls", "", ""),
        ("head -n 5 -- -f", "head", "-n", "5 -f"),
    ],
)
def test_option_form(words: str, head: str, options: str, rest: str) -> None:
    form = option_form(words.split())
    assert form is not None
    assert (" ".join(form.head), " ".join(sorted(form.options)), " ".join(form.words)) == (
        head,
        options,
        rest,
    )


def test_split_tool_list() -> None:
    assert split_tool_list("Bash(git log *) Edit,Read  mcp__x") == [
        "Bash(git log *)",
        "Edit",
        "Read",
        "mcp__x",
    ]


def test_load_rules_keeps_sources_and_order(tmp_path: Path) -> None:
    user = tmp_path / "home" / ".claude" / "settings.json"
    project = tmp_path / "proj" / ".claude" / "settings.local.json"
    rules = load_rules(
        [
            (user, {"permissions": {"allow": ["Bash(ls *)"], "deny": ["Read(/secret)"]}}),
            (project, {"permissions": {"ask": ["Bash(git push *)"]}, "model": "x"}),
        ],
        seed_yaml=None,
        extra_allow=["Edit Bash(make *)"],
        extra_deny=["WebFetch"],
    )
    described = [(r.text, r.kind, r.source) for r in rules.rules]
    assert described == [
        ("Bash(ls *)", "allow", f"settings {user}: permissions.allow[0]"),
        ("Read(/secret)", "deny", f"settings {user}: permissions.deny[0]"),
        ("Bash(git push *)", "ask", f"settings {project}: permissions.ask[0]"),
        ("WebFetch", "deny", "--disallowedTools"),
        ("Edit", "allow", "--allowedTools"),
        ("Bash(make *)", "allow", "--allowedTools"),
    ]
    deny_secret = rules.rules[1]
    assert deny_secret.path is not None
    assert deny_secret.path.project_root == tmp_path / "home"


def test_settings_errors_name_file_and_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = tmp_path / ".claude" / "settings.json"
    bad = {"permissions": {"allow": ["Bash(ls *)", "Read", "Bash(ls"]}}
    with pytest.raises(ConfigError) as raised:
        load_rules([(settings, bad)], seed_yaml=None)
    assert str(raised.value) == (
        "settings .claude/settings.json: permissions.allow[2]: unknown rule form 'Bash(ls'"
    )


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"permissions": []}, "permissions must be an object"),
        ({"permissions": {"deny": "Bash"}}, "permissions.deny must be a list of rule strings"),
        ({"permissions": {"ask": [3]}}, "permissions.ask[0] must be a string, not int"),
        ({"permissions": {"allow": [None]}}, "permissions.allow[0] must be a string, not null"),
    ],
)
def test_malformed_permissions_are_errors(data: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_rules([(Path("/p/.claude/settings.json"), data)], seed_yaml=None)
    assert str(raised.value) == f"settings /p/.claude/settings.json: {problem}"


def test_default_mode_last_layer_wins() -> None:
    layers = [
        (Path("/u/settings.json"), {"permissions": {"defaultMode": "acceptEdits"}}),
        (Path("/p/settings.json"), {"permissions": {"allow": []}}),
        (Path("/l/settings.json"), {"permissions": {"defaultMode": "plan"}}),
    ]
    assert default_mode(layers) == "plan"
    assert default_mode([]) == "default"


def test_unknown_default_mode_is_an_error() -> None:
    with pytest.raises(ConfigError) as raised:
        default_mode([(Path("/p/settings.json"), {"permissions": {"defaultMode": "yolo"}})])
    assert str(raised.value) == (
        "settings /p/settings.json: permissions.defaultMode: unknown mode 'yolo' (one of "
        "default, acceptEdits, plan, dontAsk, bypassPermissions)"
    )


def test_additional_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    layers = [
        (
            tmp_path / "p" / ".claude" / "settings.json",
            {
                "permissions": {
                    "additionalDirectories": ["../shared", "~/notes", "/abs"],
                }
            },
        ),
        (
            tmp_path / "p" / ".tether" / "settings.json",
            {
                "permissions": {
                    "additionalDirectories": ["/abs"],
                }
            },
        ),
    ]
    assert additional_directories(layers) == (
        tmp_path / "p" / "../shared",
        tmp_path / "home" / "notes",
        Path("/abs"),
    )
    with pytest.raises(ConfigError):
        additional_directories(
            [(Path("/p/s.json"), {"permissions": {"additionalDirectories": [1]}})]
        )


def test_hidden_tools() -> None:
    rules = load_rules(
        [
            (
                Path("/p/.claude/settings.json"),
                {
                    "permissions": {
                        "deny": [
                            "WebFetch",
                            "Read",
                            "Bash(*)",
                            "mcp__fs__*",
                            "mcp__gh",
                            "Edit(src/**)",
                        ],
                        "ask": ["Task"],
                        "allow": ["Write"],
                    }
                },
            )
        ],
        seed_yaml=None,
    )
    assert hidden_tools(rules) == frozenset(
        {"WebFetch", "Read", "Glob", "Grep", "LS", "NotebookRead", "Bash", "mcp__fs", "mcp__gh"}
    )


def test_rule_families_and_mcp_servers() -> None:
    rules = RuleSet(
        tuple(
            rule_of(text, "deny")
            for text in ["Read(x)", "Edit(y)", "Write(z)", "mcp__gh", "mcp__fs__read", "Task(a)"]
        )
    )
    assert [r.text for r in rules.of("deny", "Grep")] == ["Read(x)"]
    assert [r.text for r in rules.of("deny", "Revert")] == ["Edit(y)"]
    assert [r.text for r in rules.of("deny", "Write")] == ["Edit(y)", "Write(z)"]
    assert [r.text for r in rules.of("deny", "Edit")] == ["Edit(y)"]
    assert [r.text for r in rules.of("deny", "mcp__gh__create")] == ["mcp__gh"]
    assert [r.text for r in rules.of("deny", "mcp__ghost__x")] == []
    assert [r.text for r in rules.of("deny", "mcp__fs__read")] == ["mcp__fs__read"]
    assert [r.text for r in rules.of("deny", "Agent")] == ["Task(a)"]


def test_project_root_of() -> None:
    assert project_root_of(Path("/p/.claude/settings.json")) == Path("/p")
    assert project_root_of(Path("/p/.tether/settings.local.json")) == Path("/p")
    assert project_root_of(Path("/etc/tether/extra.json")) == Path("/etc/tether")
