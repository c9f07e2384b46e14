"""`--settings` (JSON text, or a file's path: what the SDK's `ClaudeAgentOptions.settings`
passes) follows the same rule as a settings file found in its place: a value of the wrong type
is left out with a warning naming it, and the rest holds, its deny rules with it (one
wrong-typed value stopped the run before the first request)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli

SETTINGS = {
    "permissions": {"allow": ["Bash(touch hi)", 5], "deny": ["Bash(touch bad)"]},
    "model": 5,
}


@pytest.mark.parametrize("form", ["json", "path"])
def test_a_wrong_typed_value_in_the_settings_flag_is_left_out_and_the_rest_holds(
    fake_model: FakeModelServer, model_env: object, workspace: Path, tmp_path: Path, form: str
) -> None:
    given = tmp_path / "given.json"
    given.write_text(json.dumps(SETTINGS))
    named = "--settings" if form == "json" else str(given)
    flag = json.dumps(SETTINGS) if form == "json" else str(given)
    fake_model.script(
        reply(tool_use("Bash", command="touch hi"), tool_use("Bash", command="touch bad")),
        reply(text("done")),
    )
    ran = run_cli(["--cwd", str(workspace), "-p", "go", "--settings", flag])
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    warnings = [line for line in ran.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f'tether: warning: settings file {named}: "model" must be a string, not a number (5); '
        "ignored, as if the file did not set it; the rest of the file is in effect",
        f'tether: warning: settings file {named}: "permissions.allow[1]" must be a non-empty '
        "string, not a number (5); ignored, as if the file did not set it; the rest of the "
        "file is in effect",
    ], ran.stderr
    ran_hi, refused_bad = fake_model.requests[1].tool_results()
    assert ran_hi == "(Bash completed with no output)"
    assert "touch bad" in refused_bad, refused_bad
    assert "denied" in refused_bad.lower(), refused_bad
    assert (workspace / "hi").exists()
    assert not (workspace / "bad").exists()
