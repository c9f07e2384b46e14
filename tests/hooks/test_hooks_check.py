"""`tether hooks check`: every hook listed, run once on a sample input, problems reported."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.config.trust import record_trust
from tether.main import main


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TETHER_HOME", str(tmp_path / "tether-home"))
    root = tmp_path / "repo"
    (root / ".claude" / "hooks").mkdir(parents=True)
    # The user's own repository: its hooks may run (tests/cli/test_trust.py has the others).
    record_trust(root, True, tether_home=tmp_path / "tether-home", user_home=tmp_path / "home")
    return root


def write_settings(repo: Path, data: dict[str, Any]) -> Path:
    path = repo / ".claude" / "settings.json"
    path.write_text(json.dumps(data))
    return path


def hook(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def test_check_runs_each_hook_and_reports_problems(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guard = repo / ".claude" / "hooks" / "guard.py"
    guard.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "assert json.load(sys.stdin)['tool_name'] == 'Write'\n"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow'}}))\n"
    )
    guard.chmod(0o755)
    settings = write_settings(
        repo,
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Write|Edit",
                        "hooks": [hook("$CLAUDE_PROJECT_DIR/.claude/hooks/guard.py")],
                    },
                    {"matcher": "mcp__.*", "hooks": [hook("echo '{oops'")]},
                ],
                "PostToolUse": [{"matcher": "*", "hooks": [hook("echo formatted")]}],
                "UserPromptSubmit": [{"hooks": [hook("echo branch main")]}],
                "SessionStart": [{"hooks": [hook("./missing.sh", failClosed=True)]}],
                "Stop": [{"hooks": [hook("sleep 30", timeout=0.2), hook("exit 2")]}],
                "SessionEnd": [{"hooks": [hook("echo bye >&2; exit 1")]}],
                "MessageDisplay": [{"hooks": [hook("true")]}],
            },
            "tether": {"eventLog": "events.jsonl", "slowToolMs": 5000},
        },
    )
    assert main(["hooks", "check", "--cwd", str(repo)]) == 1
    at = f"from {settings}: hooks"
    assert capsys.readouterr().out == (
        f"skipped: {settings}: hooks.MessageDisplay[0].hooks[0]: "
        "tether does not fire MessageDisplay\n"
        f"built-in: event log -> {repo / 'events.jsonl'}\n"
        "built-in: slow-tool notice over 5000 ms\n"
        "\n"
        "PreToolUse [Write|Edit]  $CLAUDE_PROJECT_DIR/.claude/hooks/guard.py\n"
        f"  {at}.PreToolUse[0].hooks[0]; timeout 600 s\n"
        "  note: sample tool_name: Write\n"
        "  ok: exit 0; permission allow\n"
        "\n"
        "PreToolUse [mcp__.*]  echo '{oops'\n"
        f"  {at}.PreToolUse[1].hooks[0]; timeout 600 s\n"
        "  note: sample tool_name: mcp__sample__tool\n"
        "  PROBLEM: printed output that is not a JSON object: {oops\n"
        "\n"
        "PostToolUse [*]  echo formatted\n"
        f"  {at}.PostToolUse[0].hooks[0]; timeout 600 s\n"
        "  note: sample tool_name: Bash\n"
        "  note: prints plain text, which PostToolUse ignores\n"
        "  ok: exit 0\n"
        "\n"
        "UserPromptSubmit  echo branch main\n"
        f"  {at}.UserPromptSubmit[0].hooks[0]; timeout 30 s\n"
        "  ok: exit 0; adds 11 characters of context\n"
        "\n"
        "SessionStart  ./missing.sh\n"
        f"  {at}.SessionStart[0].hooks[0]; timeout 600 s, fail-closed\n"
        "  PROBLEM: missing script: ./missing.sh\n"
        "\n"
        "Stop  sleep 30\n"
        f"  {at}.Stop[0].hooks[0]; timeout 0.2 s\n"
        "  PROBLEM: timed out after 0.2 s\n"
        "\n"
        "Stop  exit 2\n"
        f"  {at}.Stop[0].hooks[1]; timeout 600 s\n"
        '  ok: exit 2; blocks: Stop hook "exit 2" exited with status 2\n'
        "\n"
        "SessionEnd  echo bye >&2; exit 1\n"
        f"  {at}.SessionEnd[0].hooks[0]; timeout 600 s\n"
        "  note: sample reason: other\n"
        "  PROBLEM: exited with status 1: bye\n"
        "\n"
        "8 hooks checked, 4 problems.\n"
    )


def test_no_run_lists_and_checks_scripts_only(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    settings = write_settings(
        repo,
        {"hooks": {"Stop": [{"hooks": [hook(f"touch {marker}"), hook("no-such-program --x")]}]}},
    )
    assert main(["hooks", "check", "--no-run", "--cwd", str(repo)]) == 1
    assert capsys.readouterr().out == (
        "\n"
        f"Stop  touch {marker}\n"
        f"  from {settings}: hooks.Stop[0].hooks[0]; timeout 600 s\n"
        "\n"
        "Stop  no-such-program --x\n"
        f"  from {settings}: hooks.Stop[0].hooks[1]; timeout 600 s\n"
        "  PROBLEM: command not found: no-such-program\n"
        "\n"
        "2 hooks listed, 1 problem.\n"
    )
    assert not marker.exists()


def test_all_good_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_settings(repo, {"hooks": {"Notification": [{"hooks": [hook("true")]}]}})
    assert main(["hooks", "check", "--cwd", str(repo)]) == 0
    assert capsys.readouterr().out.endswith("1 hook checked, 0 problems.\n")


def test_no_hooks(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hooks", "check", "--cwd", str(repo)]) == 0
    assert capsys.readouterr().out == "No command hooks configured.\n"


def test_a_broken_hooks_block_exits_2_naming_the_key(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = write_settings(
        repo, {"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [hook("true")]}]}}
    )
    assert main(["hooks", "check", "--cwd", str(repo)]) == 2
    assert capsys.readouterr().err == (
        f"tether: error: settings file {settings}: hooks.PreToolUse[0].matcher: "
        "invalid regular expression '(': missing ), unterminated subpattern at position 0\n"
    )


def test_worktree_hooks_are_read_and_not_run_on_a_sample(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = repo / "made"
    write_settings(
        repo,
        {
            "hooks": {
                "WorktreeCreate": [{"hooks": [hook(f"touch {made}; echo {made}")]}],
                "WorktreeRemove": [{"hooks": [hook(f"touch {made}")]}],
            }
        },
    )
    assert main(["hooks", "check", "--cwd", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "note: not run: a WorktreeCreate hook makes or removes worktrees" in out
    assert "note: not run: a WorktreeRemove hook makes or removes worktrees" in out
    assert "skipped" not in out
    assert not made.exists()


def test_check_lists_a_plugins_hooks_with_their_root_expanded(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "guard-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "guard"}')
    (plugin / "hooks").mkdir()
    hooks = {"Stop": [{"hooks": [hook("${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh")]}]}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))

    assert main(["hooks", "check", "--cwd", str(repo), "--plugin-dir", str(plugin)]) == 1

    out = capsys.readouterr().out
    assert f"Stop  {plugin}/hooks/missing.sh\n" in out
    assert f"from plugin guard@inline: {plugin}/hooks/hooks.json: hooks.Stop[0].hooks[0]" in out
    assert f"PROBLEM: missing script: {plugin}/hooks/missing.sh" in out
