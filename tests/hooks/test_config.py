"""The `hooks` block of settings files: Claude Code's shape in, specs or a `ConfigError` out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tether.hooks import HooksConfig, HookSpec, parse_hooks, read_hooks
from tether.protocol import ConfigError

USER = Path("/home/someone/.claude/settings.json")
PROJECT = Path("/srv/project/.claude/settings.json")


def test_claude_code_shape_across_files_in_order() -> None:
    user = {
        "hooks": {
            "Notification": [
                {"matcher": "", "hooks": [{"type": "command", "command": "notify-send hi"}]}
            ]
        }
    }
    project = {
        "model": "whatever",
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [
                        {"type": "command", "command": "./guard.sh", "timeout": 5},
                        {"type": "command", "command": "./audit.sh", "failClosed": True},
                    ],
                },
                {"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "./mcp.sh"}]},
            ],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "date"}]}],
        },
    }
    assert parse_hooks([(USER, user), (PROJECT, project)]) == (
        HookSpec(
            event="Notification",
            matcher="",
            command="notify-send hi",
            timeout_s=600.0,  # Claude Code's default for a command hook
            source=f"{USER}: hooks.Notification[0].hooks[0]",
        ),
        HookSpec(
            event="PreToolUse",
            matcher="Edit|Write",
            command="./guard.sh",
            timeout_s=5.0,
            source=f"{PROJECT}: hooks.PreToolUse[0].hooks[0]",
        ),
        HookSpec(
            event="PreToolUse",
            matcher="Edit|Write",
            command="./audit.sh",
            timeout_s=600.0,
            fail_closed=True,
            source=f"{PROJECT}: hooks.PreToolUse[0].hooks[1]",
        ),
        HookSpec(
            event="PreToolUse",
            matcher="mcp__.*",
            command="./mcp.sh",
            timeout_s=600.0,
            source=f"{PROJECT}: hooks.PreToolUse[1].hooks[0]",
        ),
        HookSpec(
            event="UserPromptSubmit",
            matcher="",
            command="date",
            timeout_s=30.0,  # UserPromptSubmit's: the user waits for it
            source=f"{PROJECT}: hooks.UserPromptSubmit[0].hooks[0]",
        ),
    )


def test_async_must_be_true_or_false() -> None:
    entry = {"type": "command", "command": "x", "async": "yes"}
    with pytest.raises(
        ConfigError, match=r"hooks\.Stop\[0\]\.hooks\[0\]\.async: must be true or false"
    ):
        parse_hooks([(PROJECT, {"hooks": {"Stop": [{"hooks": [entry]}]}})])


def test_no_hooks_block_is_no_hooks() -> None:
    assert parse_hooks([(PROJECT, {"model": "x"})]) == ()
    assert parse_hooks([]) == ()


def test_what_tether_does_not_run_is_skipped_with_a_note() -> None:
    data = {
        "hooks": {
            "MessageDisplay": [{"hooks": [{"type": "command", "command": "x"}]}],
            "Stop": [
                {
                    "hooks": [
                        {"type": "mcp_tool", "server": "policy", "tool": "check"},
                        {"type": "command", "command": "./stop.sh", "async": True},
                        {"type": "agent", "prompt": "Is the work done?", "model": "haiku"},
                    ]
                }
            ],
        }
    }
    assert read_hooks([(PROJECT, data)]) == HooksConfig(
        specs=(
            HookSpec(
                event="Stop",
                matcher="",
                command="./stop.sh",
                timeout_s=600.0,
                run_async=True,  # run in the background, not waited for
                source=f"{PROJECT}: hooks.Stop[0].hooks[1]",
            ),
            HookSpec(
                event="Stop",
                matcher="",
                command="",
                prompt="Is the work done?",
                agent=True,
                model="haiku",
                timeout_s=60.0,
                source=f"{PROJECT}: hooks.Stop[0].hooks[2]",
            ),
        ),
        skipped=(
            f"{PROJECT}: hooks.MessageDisplay[0].hooks[0]: tether does not fire MessageDisplay",
            f"{PROJECT}: hooks.Stop[0].hooks[0]: tether does not run 'mcp_tool' hooks",
        ),
    )


def test_on_failure_block_is_fail_closed() -> None:
    data = {
        "hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": "./x", "onFailure": "block"}]}]
        }
    }
    (spec,) = parse_hooks([(PROJECT, data)])
    assert spec.fail_closed


def test_disable_all_hooks_in_a_later_file_turns_them_off() -> None:
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}
    local = Path("/srv/project/.claude/settings.local.json")
    config = read_hooks([(PROJECT, {"hooks": hooks}), (local, {"disableAllHooks": True})])
    assert config == HooksConfig(
        specs=(),
        skipped=(
            f"{local}: disableAllHooks is true: no hook runs",
            f"{PROJECT}: hooks.Stop[0].hooks[0]: disabled",
        ),
    )


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ([], "hooks: must be an object of event names"),
        ({"PreToolUser": []}, "hooks.PreToolUser: unknown hook event; known events: PreToolUse,"),
        ({"Stop": {"hooks": []}}, "hooks.Stop: must be a list of matcher groups"),
        ({"Stop": ["x"]}, 'hooks.Stop[0]: must be an object with "matcher" and "hooks"'),
        ({"PreToolUse": [{"matcher": 3, "hooks": []}]}, "hooks.PreToolUse[0].matcher: must be a"),
        (
            {"PreToolUse": [{"matcher": "Edit(", "hooks": []}]},
            "hooks.PreToolUse[0].matcher: invalid regular expression 'Edit(': missing ),",
        ),
        ({"Stop": [{"hooks": "./x"}]}, "hooks.Stop[0].hooks: must be a list of hooks"),
        ({"Stop": [{"hooks": ["./x"]}]}, "hooks.Stop[0].hooks[0]: must be an object like"),
        (
            {"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]},
            'hooks.Stop[0].hooks[0].type: must be "command"',
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]},
            "hooks.Stop[0].hooks[0].command: must be a non-empty string",
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "60"}]}]},
            "hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds",
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]},
            "hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds",
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "failClosed": "yes"}]}]},
            "hooks.Stop[0].hooks[0].failClosed: must be true or false",
        ),
    ],
)
def test_broken_blocks_name_the_file_and_key(hooks: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_hooks([(USER, {}), (PROJECT, {"hooks": hooks})])
    assert str(caught.value).startswith(f"settings file {PROJECT}: {message}")


def test_disable_all_hooks_must_be_a_boolean() -> None:
    with pytest.raises(ConfigError, match="disableAllHooks: must be true or false"):
        parse_hooks([(PROJECT, {"disableAllHooks": "yes"})])
