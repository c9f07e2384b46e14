"""`tether permissions check`: one JSON decision per call, exit 2 on configuration errors."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import cast

import pytest

from tether.config.trust import record_trust
from tether.main import main as tether_main
from tether.testing.cli_runner import run_cli_process

from .conftest import Tree


@pytest.fixture
def project(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tree.home))
    monkeypatch.setenv("TETHER_HOME", str(tree.root / "tether-home"))
    # The user's own project: its allow rules count, as in a session of a trusted workspace.
    record_trust(tree.ws, True, tether_home=tree.root / "tether-home", user_home=tree.home)
    monkeypatch.chdir(tree.ws)
    settings = tree.ws / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "permissions": {
                    "deny": ["Read(./.env)", "Bash(git push *)"],
                    "allow": ["Bash(npm test *)"],
                }
            }
        )
    )
    return tree.ws


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[object], str]:
    code = tether_main(["permissions", "check", *argv])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_one_call(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, "--tool", "Bash", "--input", '{"command": "npm test && git push"}') == (
        0,
        [
            {
                "decision": "deny",
                "rule": "Bash(git push *)",
                "reason": "`git push` is denied by Bash(git push *)",
            }
        ],
        "",
    )
    assert check(capsys, "--tool", "Read", "--input", '{"file_path": "src/app.py"}') == (
        0,
        [{"decision": "allow", "rule": None, "reason": "inside the workspace"}],
        "",
    )


def test_mode_settings_and_extra_rules(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = ("--tool", "Bash", "--input", '{"command": "make"}')
    assert check(capsys, *call)[1] == [
        {"decision": "ask", "rule": None, "reason": "no rule allows `make`"}
    ]
    assert check(capsys, *call, "--mode", "dontAsk")[1][0]["decision"] == "deny"  # type: ignore[index]
    assert check(capsys, *call, "--allowedTools", "Bash(make *)")[1][0]["decision"] == "allow"  # type: ignore[index]
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    assert check(capsys, *call, "--settings", str(extra))[1][0]["decision"] == "allow"  # type: ignore[index]
    seed = project / ".tether" / "permissions.yaml"
    seed.parent.mkdir()
    seed.write_text("always_deny:\n  - pattern: '^make$'\n    reason: not today\n")
    assert check(capsys, *call)[1] == [
        {
            "decision": "deny",
            "rule": "always_deny: ^make$",
            "reason": "`make` is denied by always_deny: ^make$: not today",
        }
    ]


def test_batch_from_a_file_and_from_stdin(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [
        {"tool": "Bash", "input": {"command": "npm test"}},
        {"tool": "Read", "input": {"file_path": ".env"}},
        {"tool": "TodoWrite"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n\n"
    batch = tmp_path / "calls.jsonl"
    batch.write_text(text)
    expected = [
        {"decision": "allow", "rule": "Bash(npm test *)", "reason": "allowed by Bash(npm test *)"},
        {
            "decision": "deny",
            "rule": "Read(./.env)",
            "reason": f"reading {project}/.env is denied by Read(./.env)",
        },
        {"decision": "allow", "rule": None, "reason": "changes only the session's own state"},
    ]
    assert check(capsys, "--batch", str(batch)) == (0, expected, "")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert check(capsys, "--batch", "-", "--cwd", str(project)) == (0, expected, "")


@pytest.mark.parametrize(
    ("files", "argv", "message"),
    [
        (
            {".claude/settings.local.json": '{"permissions": {"allow": ["Bash(ls"]}}'},
            ["--tool", "Bash", "--input", "{}"],
            "tether: settings .claude/settings.local.json: permissions.allow[0]: unknown rule "
            "form 'Bash(ls'\n",
        ),
        (
            {".claude/settings.local.json": '{"permissions": '},
            ["--tool", "Bash", "--input", "{}"],
            "tether: settings file {project}/.claude/settings.local.json is not valid JSON: "
            "Expecting value at line 1, column 17\n",
        ),
        (
            {".tether/permissions.yaml": "always_deny:\n  - pattern: '(x'\n"},
            ["--tool", "Bash", "--input", "{}"],
            "tether: permissions file .tether/permissions.yaml, line 2: always_deny[0]: "
            "invalid regular expression '(x': missing ), unterminated subpattern at position 0\n",
        ),
        (
            {".claude/settings.local.json": '{"permissions": {"defaultMode": "auto"}}'},
            ["--tool", "Bash", "--input", "{}"],
            "tether: settings .claude/settings.local.json: permissions.defaultMode: unknown mode "
            "'auto' (one of default, acceptEdits, plan, dontAsk, bypassPermissions)\n",
        ),
        ({}, ["--tool", "Bash", "--input", "[1]"], "tether: --input must be a JSON object\n"),
        (
            {},
            ["--tool", "Bash", "--input", "{"],
            "tether: --input is not JSON: Expecting property name enclosed in double quotes "
            "at line 1, column 2\n",
        ),
        (
            {},
            ["--input", "{}"],
            "tether: permissions check needs --tool and --input, or --batch FILE\n",
        ),
        (
            {"calls.jsonl": '{"tool": "Bash"}\n[]\n'},
            ["--batch", "calls.jsonl"],
            'tether: batch line 2: expected {"tool": NAME, "input": {...}}\n',
        ),
        ({}, ["--batch", "missing.jsonl"], None),
        ({}, ["--settings", "missing.json", "--tool", "Bash"], None),
    ],
)
def test_configuration_errors_exit_2(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: list[str],
    message: str | None,
) -> None:
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    code, out, err = check(capsys, *argv)
    assert (code, out) == (2, [])
    if message is not None:
        assert err == message.replace("{project}", str(project))
    else:
        assert err.startswith("tether: ")
        assert "missing" in err


def test_usage_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tether_main(["permissions"]) == 2
    assert tether_main(["permissions", "check", "--mode", "yolo"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_as_a_process(project: Path) -> None:
    result = run_cli_process(
        ["permissions", "check", "--tool", "Bash", "--input", '{"command": "cat .env"}'],
        cwd=project,
    )
    decision = json.loads(result.stdout)["decision"]
    assert (result.exit_code, decision, result.stderr) == (0, "deny", "")


def test_writes_where_git_runs_hooks_from_are_asked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The repository's `core.hooksPath` directory and included configs, read from git's
    configuration when the session starts, are protected like `.git/hooks`."""
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=project, check=True)
    subprocess.run(["git", "config", "include.path", "../team.gitconfig"], cwd=project, check=True)

    def decision(tool: str, call: dict[str, str]) -> dict[str, str]:
        code, decisions, _ = check(
            capsys, "--mode", "acceptEdits", "--tool", tool, "--input", json.dumps(call)
        )
        assert code == 0
        return cast(dict[str, str], decisions[0])

    for tool, call in [
        ("Write", {"file_path": ".githooks/pre-commit", "content": "#!/bin/sh\n"}),
        ("Bash", {"command": "echo 'touch x' >> .githooks/pre-push"}),
        ("Edit", {"file_path": "team.gitconfig", "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": "cp hook .githooks/"}),
    ]:
        found = decision(tool, call)
        assert found["decision"] == "ask", (tool, call, found)
        assert "core.hooksPath" in found["reason"]
    assert decision("Write", {"file_path": "src/hooks.py", "content": ""})["decision"] == "allow"
