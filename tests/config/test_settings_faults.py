"""A bad value of one settings key costs only that key (or that hook entry), never the file's
permission rules: a hook timeout of "60" dropped the whole file before, so its deny rule was
gone and the denied command ran."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
_IGNORED = "ignored, as if the file did not set it"


def _hook(timeout: object, command: str = "true") -> dict[str, object]:
    return {"type": "command", "command": command, "timeout": timeout}


@pytest.mark.parametrize(
    "bad",
    [
        {"hooks": {"Stop": [{"hooks": [_hook("60")]}]}},
        {"hooks": {"Stop": [{"hooks": [_hook(-5)]}]}},
        {"enabledMcpjsonServers": "demo"},
        {"disableAllHooks": "true"},
        {"contextWindow": -5},
        {"tether": {"subagents": {"maxDepth": 0}}},
    ],
)
def test_a_bad_value_beside_a_deny_rule_leaves_the_command_denied(
    fake_model: FakeModelServer, tether: Run, workspace: Path, bad: dict[str, object]
) -> None:
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    path.write_text(json.dumps({"permissions": {"deny": ["Bash(echo *)"]}, **bad}))
    fake_model.script(reply(tool_use("Bash", command="echo SHOULD_BE_DENIED")), reply(text("ok")))
    result = tether("-p", "run echo", "--allowedTools", "Bash", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    assert fake_model.requests[1].tool_results() == [
        "Permission denied (rule Bash(echo *)): `echo SHOULD_BE_DENIED` is denied by Bash(echo *)"
    ]
    [warning] = result.stderr.splitlines()
    assert warning.startswith(f"tether: warning: settings file {path}: "), warning
    assert warning.endswith("; the rest of the file is in effect"), warning


def test_every_bad_timeout_is_named_and_each_hook_runs_with_the_default(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    ran = workspace / "ran.txt"
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    good = _hook(30, f"echo good >> {ran}")
    hooks = [_hook("60", f"echo first >> {ran}"), good, _hook(-5, f"echo third >> {ran}")]
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": hooks}]}, "model": 42}))
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    seconds = "a number of seconds from 0.001 to 86,400"
    assert result.stderr.splitlines() == [
        f'tether: warning: settings file {path}: "model" must be a string, not a number (42); '
        "ignored, as if the file did not set it; the rest of the file is in effect",
        f'tether: warning: settings file {path}: "hooks.Stop[0].hooks[0].timeout" must be '
        f'{seconds}, not "60"; {_IGNORED}; the rest of the file is in effect',
        f'tether: warning: settings file {path}: "hooks.Stop[0].hooks[2].timeout" must be '
        f"{seconds}, not -5; {_IGNORED}; the rest of the file is in effect",
    ]
    assert ran.read_text() == "first\ngood\nthird\n"


_STOP_HOOK = "hooks.Stop[0].hooks[0]"


def _stop_hook(**fields: object) -> dict[str, object]:
    return {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", **fields}]}]}}


@pytest.mark.parametrize(
    ("bad", "told"),
    [
        (
            {"permissions": {"additionalDirectories": "/tmp"}},
            '"permissions.additionalDirectories" must be a list of non-empty strings, '
            f'not a string ("/tmp"); {_IGNORED}',
        ),
        (
            {"permissions": {"allow": "Read"}},
            '"permissions.allow" must be a list of non-empty strings, not a string ("Read"); '
            + _IGNORED,
        ),
        (
            {"sandbox": {"writable": ["/tmp", ""]}},
            f'"sandbox.writable[1]" must be a non-empty string, not a string (""); {_IGNORED}',
        ),
        (
            _stop_hook(statusMessage=5),
            f'"{_STOP_HOOK}.statusMessage" must be a string, not a number (5); {_IGNORED}',
        ),
        (
            _stop_hook(**{"async": "yes"}),
            f'"{_STOP_HOOK}.async" must be true or false, not a string ("yes"); {_IGNORED}',
        ),
        ({"apiKeyHelper": 5}, f'"apiKeyHelper" must be a string, not a number (5); {_IGNORED}'),
        ({"outputStyle": 3}, f'"outputStyle" must be a string, not a number (3); {_IGNORED}'),
        (
            {"enabledPlugins": ["x"]},
            f'"enabledPlugins" must be an object, not a list (["x"]); {_IGNORED}',
        ),
        (
            {"includeCoAuthoredBy": "yes"},
            f'"includeCoAuthoredBy" must be true or false, not a string ("yes"); {_IGNORED}',
        ),
        (
            {"statusLine": {"type": "command", "command": ["x"]}},
            f'"statusLine.command" must be a string, not a list (["x"]); {_IGNORED}',
        ),
    ],
)
def test_a_value_that_only_grants_or_decorates_of_the_wrong_type_costs_only_itself(
    fake_model: FakeModelServer, tether: Run, workspace: Path, bad: dict[str, object], told: str
) -> None:
    """Each is told once, naming the file, the key and what it must be, and the run goes on with
    the file's deny rule (`additionalDirectories: "/tmp"` stopped the start before; a hook's
    `statusMessage: 5` was taken without a word, then cost the whole hook)."""
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    permissions = {"deny": ["Bash(echo *)"], **cast(dict[str, object], bad.get("permissions", {}))}
    path.write_text(json.dumps({**bad, "permissions": permissions}))
    fake_model.script(reply(tool_use("Bash", command="echo SHOULD_BE_DENIED")), reply(text("ok")))
    result = tether("-p", "run echo", "--allowedTools", "Bash", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    assert fake_model.requests[1].tool_results() == [
        "Permission denied (rule Bash(echo *)): `echo SHOULD_BE_DENIED` is denied by Bash(echo *)"
    ]
    assert result.stderr.splitlines() == [
        f"tether: warning: settings file {path}: {told}; the rest of the file is in effect"
    ]
