"""Hooks that go on in the background, as Claude Code runs them: a hook whose stdout begins with
`{"async": true, "asyncTimeout": ms}` (Anthropic's security-guidance plugin's SessionStart hook,
which builds a virtualenv, says so first) or one configured `"async": true` is not waited for;
the first request goes out while it still runs. A hook that says nothing of the kind (a plain
`sleep`) is waited for, its output read, as before.

The background hooks hand over through named pipes: the model's Bash call writes to a pipe the
hook reads only once it is running, and reads the hook's answer back; had tether waited for the
hook, no request would have been made while it ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.wire import write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

BOOTSTRAP = """\
import json, os, sys
first = sys.argv[1]
if first != "-":
    print(first, flush=True)
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "pid"), "w") as f:
    f.write(str(os.getpid()))
with open(os.path.join(here, "release")) as f:  # blocks until the model's Bash call writes
    word = f.read().strip()
with open(os.path.join(here, "ack"), "w") as f:
    f.write("hook read " + word)
"""

HANDSHAKE = "timeout 20 bash -c 'echo go > {dir}/release; cat {dir}/ack'"
"""The model's call: release the hook and read its answer (the timeout only ends a failing
run, where no hook is left to read)."""


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home


def _bootstrap(directory: Path) -> Path:
    directory.mkdir(parents=True)
    os.mkfifo(directory / "release")
    os.mkfifo(directory / "ack")
    script = directory / "ensure_sdk.py"
    script.write_text(BOOTSTRAP)
    return script


def _plugin(root: Path, first_line: str) -> Path:
    """A plugin in the shape of security-guidance: its SessionStart hook runs a Python script
    through a shell shim, with a long timeout, and the script says first what it is."""
    hooks = root / "hooks"
    script = _bootstrap(hooks)
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "guard", "version": "1.0.0", "description": "Guards things"})
    )
    (hooks / "py.sh").write_text(f'exec {sys.executable} "$@"\n')
    command = (
        f'bash "${{CLAUDE_PLUGIN_ROOT}}/hooks/py.sh" "${{CLAUDE_PLUGIN_ROOT}}/hooks/{script.name}"'
        f" '{first_line}'"
    )
    entry = {"type": "command", "command": command, "timeout": 180}
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [entry]}]}}))
    return root


def _script_handshake(fake_model: FakeModelServer, directory: Path) -> None:
    fake_model.script(
        reply(tool_use("Bash", command=HANDSHAKE.format(dir=directory))),
        reply(text("Done.")),
    )


def test_a_plugin_session_start_hook_that_answers_async_first_is_not_waited_for(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    plugin = _plugin(tmp_path / "guard", json.dumps({"async": True, "asyncTimeout": 180000}))
    _script_handshake(fake_model, plugin / "hooks")

    result = tether("-p", "go", "--plugin-dir", str(plugin))

    assert result.exit_code == 0, result.stderr
    # The model's call, made after the first request, reached the hook still running.
    assert fake_model.requests[1].tool_results()[0].strip() == "hook read go"
    # Its `{"async": true}` line is not context for the model.
    assert '"async"' not in json.dumps(fake_model.requests[0].messages())


def test_a_hook_configured_async_is_not_waited_for(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, tmp_path: Path
) -> None:
    script = _bootstrap(tmp_path / "bg")
    command = f"{sys.executable} {script} -"
    entry = {"type": "command", "command": command, "async": True, "timeout": 120}
    write_settings(trusted_workspace, {"SessionStart": [{"hooks": [entry]}]})
    _script_handshake(fake_model, tmp_path / "bg")

    result = tether("-p", "go")

    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results()[0].strip() == "hook read go"


def test_a_background_hook_still_running_is_stopped_when_the_session_ends(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    plugin = _plugin(tmp_path / "guard", json.dumps({"async": True}))
    fake_model.script(reply(text("Done.")))

    result = tether("-p", "go", "--plugin-dir", str(plugin))

    assert result.exit_code == 0, result.stderr
    # It wrote its pid before waiting for a release that never came; it is gone now.
    pid_file = plugin / "hooks" / "pid"
    if pid_file.exists():  # it may have been stopped before it got that far
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.read_text()), 0)


@pytest.mark.parametrize(
    "first_line",
    [
        json.dumps({"async": False}),
        json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart"}}),
        "async: true",
    ],
)
def test_a_session_start_hook_that_does_not_answer_async_is_waited_for(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path, first_line: str
) -> None:
    plugin = _plugin(tmp_path / "guard", first_line)
    hooks = plugin / "hooks"
    # Released before tether starts, by a writer of our own that waits for the hook.
    writer = subprocess.Popen(["sh", "-c", f"echo early > '{hooks}/release'"])
    reader = os.open(hooks / "ack", os.O_RDONLY | os.O_NONBLOCK)
    try:
        fake_model.script(reply(text("Done.")))

        result = tether("-p", "go", "--plugin-dir", str(plugin))

        assert result.exit_code == 0, result.stderr
        # The hook had finished (its answer written) before tether went on.
        assert os.read(reader, 100) == b"hook read early"
    finally:
        os.close(reader)
        writer.wait()
