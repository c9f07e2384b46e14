"""A settings value that cannot be used is read the SAFER way (`tether.config.fault_remedies`):
a slip in what guards never lets the command it guards run. Before, a deny list given as a
string, or a fail-closed PreToolUse hook with a cosmetic slip, was dropped while the allow rule
beside it stayed in force, so `rm` ran (Claude Code refuses such a file)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

_GUARD = "it guards what the file allows, so tether does not start without it"


def _guard_hook(**fields: object) -> dict[str, object]:
    """A PreToolUse hook on Bash that blocks every command, with `fields` over its own."""
    hook = {"type": "command", "command": "echo NO >&2; exit 2", **fields}
    return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}


def _run_guarded(
    fake_model: FakeModelServer, tether: Run, workspace: Path, settings: dict[str, object]
) -> tuple[Path, CliResult]:
    """Runs `touch pwned` under `settings` (with Bash allowed unless they say otherwise)."""
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    if "permissions" not in settings:
        settings = {"permissions": {"allow": ["Bash"]}, **settings}
    path.write_text(json.dumps(settings))
    fake_model.script(reply(tool_use("Bash", command="touch pwned")), reply(text("done")))
    return path, tether("-p", "go", "--trust-workspace")


@pytest.mark.parametrize(
    ("settings", "told"),
    [
        (
            {"permissions": {"allow": ["Bash"], "deny": "Bash(touch *)"}},
            '"permissions.deny" must be a list of non-empty strings, not a string '
            '("Bash(touch *)")',
        ),
        (
            {"permissions": {"allow": ["Bash"], "deny": [5, "Bash(touch *)"]}},
            '"permissions.deny[0]" must be a non-empty string, not a number (5)',
        ),
        (
            {"permissions": {"allow": ["Bash"], "ask": "Bash(touch *)"}},
            '"permissions.ask" must be a list of non-empty strings, not a string ("Bash(touch *)")',
        ),
        (
            {"permissions": {"allow": ["Bash"], "disableBypassPermissionsMode": True}},
            '"permissions.disableBypassPermissionsMode" must be a string, not true or false (true)',
        ),
        (
            {"permissions": ["Bash"]},
            '"permissions" must be an object, not a list (["Bash"])',
        ),
        ({"hooks": ["x"]}, '"hooks" must be an object, not a list (["x"])'),
        (
            {"sandbox": {"enabled": "yes"}},
            '"sandbox.enabled" must be true or false, not a string ("yes")',
        ),
        (
            {"sandbox": {"enabled": True, "network": 1}},
            '"sandbox.network" must be true or false, or an object, not a number (1)',
        ),
        ({"sandbox": "on"}, '"sandbox" must be an object, not a string ("on")'),
        (
            {"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]}},
            '"hooks.PreToolUse[0].matcher" must be a string, not a list (["Bash"])',
        ),
        (
            _guard_hook(command=5),
            '"hooks.PreToolUse[0].hooks[0].command" must be a string, not a number (5)',
        ),
        (
            _guard_hook(type=5),
            '"hooks.PreToolUse[0].hooks[0].type" must be a string, not a number (5)',
        ),
        (
            _guard_hook(type="http", url="http://127.0.0.1:9/", headers=["a"]),
            '"hooks.PreToolUse[0].hooks[0].headers" must be an object, not a list (["a"])',
        ),
    ],
)
def test_a_guard_that_cannot_be_read_refuses_the_start_naming_file_and_key(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    settings: dict[str, object],
    told: str,
) -> None:
    path, result = _run_guarded(fake_model, tether, workspace, settings)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"tether: settings file {path}: {told}; {_GUARD}: fix it or move the file away\n",
    )
    assert not (workspace / "pwned").exists()
    assert fake_model.requests == []


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        (
            {"failClosed": True, "statusMessage": 5},
            '"statusMessage" must be a string, not a number (5)',
        ),
        (
            {"timeout": "5"},
            '"timeout" must be a number of seconds from 0.001 to 86,400, not "5"',
        ),
        (
            {"once": "yes"},
            '"once" must be true or false, not a string ("yes")',
        ),
        (
            {"async": "no"},
            '"async" must be true or false, not a string ("no")',
        ),
    ],
)
def test_a_slip_in_what_only_decorates_a_guard_hook_costs_that_key_and_the_hook_still_blocks(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    fields: dict[str, object],
    told: str,
) -> None:
    path, result = _run_guarded(fake_model, tether, workspace, _guard_hook(**fields))
    assert (result.exit_code, result.stdout) == (0, "done\n"), result.stderr
    [key] = fields.keys() - {"failClosed"}
    assert result.stderr.splitlines() == [
        f'tether: warning: settings file {path}: "hooks.PreToolUse[0].hooks[0].{key}'
        + told.removeprefix(f'"{key}')
        + "; ignored, as if the file did not set it; the rest of the file is in effect"
    ]
    assert not (workspace / "pwned").exists()
    assert fake_model.requests[1].tool_results() == [
        "PreToolUse:Bash hook error: [echo NO >&2; exit 2]: NO\n"
    ]


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        ({"failClosed": "true"}, '"failClosed" must be true or false, not a string ("true")'),
        ({"failClosed": 0}, '"failClosed" must be true or false, not a number (0)'),
        ({"onFailure": 1}, '"onFailure" must be a string, not a number (1)'),
    ],
)
def test_a_malformed_failure_policy_fails_closed(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    fields: dict[str, object],
    told: str,
) -> None:
    """A hook that fails (exit 1) blocks the command when its policy cannot be read."""
    settings = _guard_hook(command="exit 1", **fields)
    path, result = _run_guarded(fake_model, tether, workspace, settings)
    assert (result.exit_code, result.stdout) == (0, "done\n"), result.stderr
    [key] = fields
    assert result.stderr.splitlines() == [
        f'tether: warning: settings file {path}: "hooks.PreToolUse[0].hooks[0].{key}'
        + told.removeprefix(f'"{key}')
        + "; read as true: the hook fails closed; the rest of the file is in effect"
    ]
    assert not (workspace / "pwned").exists()
    assert fake_model.requests[1].tool_results() == [
        'PreToolUse:Bash hook error: PreToolUse hook "exit 1" exited with status 1 '
        "(the hook is fail-closed)"
    ]


@pytest.mark.parametrize(
    ("settings", "told"),
    [
        (
            _guard_hook(type="commnd"),
            'hooks.PreToolUse[0].hooks[0].type: must be "command"',
        ),
        (
            {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": {"type": "command"}}]}},
            "hooks.PreToolUse[0].hooks: must be a list",
        ),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}},
            "hooks.Stop[0].hooks[0].command: must be a non-empty string",
        ),
    ],
)
def test_a_hook_that_does_not_read_refuses_the_start_as_a_mistyped_one_does(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    settings: dict[str, object],
    told: str,
) -> None:
    """One rule with `"command": 5`: a `type` of "commnd" left every PreToolUse hook of the
    file out before, so the command they guard ran."""
    path, result = _run_guarded(fake_model, tether, workspace, settings)
    assert (result.exit_code, result.stdout) == (2, ""), result.stderr
    [error] = result.stderr.splitlines()
    assert error.startswith(f"tether: settings file {path}: {told}"), error
    assert error.endswith(f"; {_GUARD}: fix it or move the file away"), error
    assert not (workspace / "pwned").exists()
    assert fake_model.requests == []


def test_an_env_value_that_is_no_string_reaches_commands_as_json_spells_it(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """As Claude Code: `true`, `null` (Python's `True`, `None` reached commands before)."""
    env = {"FOO": 5, "BAR": True, "BAZ": None, "QUX": 1.5}
    (workspace / ".claude").mkdir()
    path = workspace / ".claude" / "settings.json"
    path.write_text(json.dumps({"env": env}))
    fake_model.script(
        reply(tool_use("Bash", command="printenv FOO BAR BAZ QUX")), reply(text("ok"))
    )
    result = tether("-p", "go", "--allowedTools", "Bash", "--trust-workspace")
    assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
    assert fake_model.requests[1].tool_results() == ["5\ntrue\nnull\n1.5"]
    said = "read as JSON spells it; the rest of the file is in effect"
    assert result.stderr.splitlines() == [
        f'tether: warning: settings file {path}: "env.FOO" must be a string, not a number (5); '
        + said,
        f'tether: warning: settings file {path}: "env.BAR" must be a string, not true or false '
        f"(true); {said}",
        f'tether: warning: settings file {path}: "env.BAZ" must be a string, not null (null); '
        + said,
        f'tether: warning: settings file {path}: "env.QUX" must be a string, not a number (1.5); '
        + said,
    ]
