"""A repository set up for Claude Code: its `.claude/settings.json` hooks work unchanged."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

from tether.config.settings import load_settings, settings_files
from tether.hooks import HookOutcome, HookRunner, parse_hooks

SETTINGS = {
    "permissions": {"allow": ["Bash(npm run test:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_guard.py',
                    }
                ],
            },
            {
                "matcher": "Edit|MultiEdit|Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect_env.py',
                        "timeout": 10,
                    }
                ],
            },
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|MultiEdit|Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/log_edit.py',
                    }
                ],
            }
        ],
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "echo 'Current branch: main'"}]}
        ],
        "SessionStart": [
            {
                "matcher": "startup|resume",
                "hooks": [{"type": "command", "command": 'cat "$CLAUDE_PROJECT_DIR/NOTES.md"'}],
            }
        ],
        "Notification": [
            {
                "matcher": "permission_prompt",
                "hooks": [
                    {
                        "type": "command",
                        "command": 'jq -r .message >> "$CLAUDE_PROJECT_DIR"/notified.txt'
                        ' 2>/dev/null || cat >> "$CLAUDE_PROJECT_DIR"/notified.txt',
                    }
                ],
            }
        ],
    },
}

HOOK_SCRIPTS = {
    "bash_guard.py": """
        import json, sys
        command = json.load(sys.stdin)["tool_input"]["command"]
        if "rm -rf" in command:
            print("Refusing to run rm -rf", file=sys.stderr)
            sys.exit(2)
        if command.startswith("grep "):
            print(json.dumps({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Use rg instead of grep",
            }}))
    """,
    "protect_env.py": """
        import json, sys
        path = json.load(sys.stdin)["tool_input"].get("file_path", "")
        if path.endswith(".env"):
            print(json.dumps({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Secrets files are off limits",
            }}))
    """,
    "log_edit.py": """
        import json, os, sys
        data = json.load(sys.stdin)
        log = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "edits.log")
        with open(log, "a") as f:
            f.write(data["hook_event_name"] + " " + data["tool_input"]["file_path"] + "\\n")
    """,
}


def set_up_repository(root: Path) -> None:
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2))
    for name, body in HOOK_SCRIPTS.items():
        path = hooks / name
        path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
        path.chmod(0o755)
    (root / "NOTES.md").write_text("Run the tests with npm run test.\n")


async def test_hooks_from_a_claude_code_settings_file(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    set_up_repository(project)
    settings = load_settings(
        settings_files(project, home=tmp_path / "tether-home", user_home=tmp_path / "home")
    )
    runner = HookRunner(
        parse_hooks(settings.layers),
        session_id="s",
        transcript_path=str(tmp_path / "t.jsonl"),
        cwd=project,
        project_dir=project,
        permission_mode=lambda: "default",
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
    )

    def call(tool: str, **tool_input: str) -> dict[str, object]:
        return {"tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}

    assert await runner.fire("SessionStart", {"source": "startup"}) == HookOutcome(
        additional_context=("Run the tests with npm run test.",),
        plain_context=("Run the tests with npm run test.",),
    )
    assert await runner.fire("SessionStart", {"source": "clear"}) == HookOutcome()
    assert await runner.fire("UserPromptSubmit", {"prompt": "fix it"}) == HookOutcome(
        additional_context=("Current branch: main",), plain_context=("Current branch: main",)
    )
    assert await runner.fire("PreToolUse", call("Bash", command="ls")) == HookOutcome()
    assert await runner.fire("PreToolUse", call("Bash", command="rm -rf /")) == HookOutcome(
        blocked=True,
        reason='["$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_guard.py]: Refusing to run rm -rf\n',
        permission_decision="deny",
    )
    assert await runner.fire("PreToolUse", call("Bash", command="grep x .")) == HookOutcome(
        blocked=True, reason="Use rg instead of grep", permission_decision="deny"
    )
    env_file = str(project / ".env")
    assert await runner.fire("PreToolUse", call("Write", file_path=env_file)) == HookOutcome(
        blocked=True, reason="Secrets files are off limits", permission_decision="deny"
    )
    main_py = str(project / "main.py")
    assert await runner.fire("PreToolUse", call("Edit", file_path=main_py)) == HookOutcome()
    assert await runner.fire("PostToolUse", call("Edit", file_path=main_py)) == HookOutcome()
    assert await runner.fire("PostToolUse", call("Read", file_path=main_py)) == HookOutcome()
    notification = {"message": "tether needs your permission", "notification_type": "idle_prompt"}
    assert await runner.fire("Notification", notification) == HookOutcome()
    notification["notification_type"] = "permission_prompt"
    assert await runner.fire("Notification", notification) == HookOutcome()

    assert (project / ".claude" / "edits.log").read_text() == f"PostToolUse {main_py}\n"
    assert "tether needs your permission" in (project / "notified.txt").read_text()
