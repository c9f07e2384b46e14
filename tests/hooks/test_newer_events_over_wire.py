"""The Claude Code hook events tether used to accept and never fire, in a live session over the
fake model server: each fires where Claude Code fires it, with its documented input and
matcher (StopFailure, PermissionDenied, CwdChanged, FileChanged, ConfigChange; TaskCreated is
in tests/teams, InstructionsLoaded, UserPromptExpansion and Setup beside their features)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, python_hook, write_settings
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

EXPORT = """\
import json, os, sys
data = json.load(sys.stdin)
with open(os.environ["CLAUDE_ENV_FILE"], "a") as f:
    f.write("export FROM_ENVRC=" + os.path.basename(data["file_path"]) + "\\n")
"""


def _mine(inputs: list[dict[str, object]], *keys: str) -> list[dict[str, object]]:
    return [{k: i.get(k) for k in keys} for i in inputs]


@pytest.mark.usefixtures("trusted_workspace")
def test_cwd_file_and_config_changes_fire_their_hooks(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    dump = command_hook(dump_command(dumps))
    export = command_hook(python_hook(tmp_path / "export.py", EXPORT))
    settings = workspace / ".claude" / "settings.local.json"
    write_settings(
        workspace,
        {
            # As a user's editor would (the sandbox keeps the model's commands off .claude/).
            "CwdChanged": on(None, dump, command_hook(f"echo '{{}}' > {settings}")),
            "FileChanged": on(".envrc|.env", dump, export),
            "ConfigChange": on("local_settings", dump),
        },
    )
    (workspace / "sub").mkdir()
    fake_model.script(
        reply(tool_use("Bash", command="cd sub")),
        # `.env`, not `.envrc`: an .envrc a command writes starts programs later (direnv), and
        # the sandbox's sweep moves it aside (tests/sandbox/test_start_sweep.py).
        reply(tool_use("Bash", command="echo 'A=1' > .env")),
        reply(tool_use("Bash", command="echo other > notes.txt")),
        reply(tool_use("Bash", command="echo seen=$FROM_ENVRC")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr

    assert _mine(dumped(dumps, "CwdChanged"), "old_cwd", "new_cwd") == [
        {"old_cwd": str(workspace), "new_cwd": str(workspace / "sub")}
    ]
    # The .env of the directory the shell moved to, made there: an add.
    assert _mine(dumped(dumps, "FileChanged"), "file_path", "event") == [
        {"file_path": str(workspace / "sub" / ".env"), "event": "add"}
    ]
    assert _mine(dumped(dumps, "ConfigChange"), "source", "file_path") == [
        {
            "source": "local_settings",
            "file_path": str(workspace / ".claude" / "settings.local.json"),
        }
    ]
    assert fake_model.requests[4].tool_results() == ["seen=.env"]


@pytest.mark.usefixtures("trusted_workspace")
def test_a_turn_an_api_error_ends_fires_stop_failure_not_stop(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dumps = tmp_path / "dumps"
    dump = command_hook(dump_command(dumps))
    write_settings(
        workspace,
        {"StopFailure": on("authentication_failed", dump), "Stop": on(None, dump)},
    )
    fake_model.script(*[http_error(401)] * 11)  # a 401 is tried 11 times, as Claude Code
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    result = tether("-p", "go")
    assert result.exit_code == 1
    [failed] = dumped(dumps)
    assert _mine([failed], "hook_event_name", "error", "last_assistant_message") == [
        {
            "hook_event_name": "StopFailure",
            "error": "authentication_failed",
            "last_assistant_message": "",
        }
    ]
    assert isinstance(failed["error_details"], str)
    assert failed["error_details"]


@pytest.mark.usefixtures("trusted_workspace")
def test_a_call_the_mode_refuses_fires_permission_denied_and_retry_is_told(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    retry = python_hook(
        tmp_path / "retry.py",
        'import json\nprint(json.dumps({"hookSpecificOutput": '
        '{"hookEventName": "PermissionDenied", "retry": True}}))\n',
    )
    write_settings(
        workspace,
        {"PermissionDenied": on("Bash", command_hook(dump_command(dumps)), command_hook(retry))},
        permissions={"deny": ["Write"]},
    )
    fake_model.script(
        reply(tool_use("Bash", command="touch x"), tool_use("Write", file_path="y", content="")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--permission-mode", "dontAsk")
    assert result.exit_code == 0, result.stderr
    [denied] = dumped(dumps)  # the rule's refusal of Write is not one
    assert _mine([denied], "tool_name", "tool_input") == [
        {"tool_name": "Bash", "tool_input": {"command": "touch x"}}
    ]
    assert "dontAsk" in str(denied["reason"])
    bash_result = fake_model.requests[1].tool_results()[0]
    assert bash_result.endswith("A PermissionDenied hook says this call may be tried again.")


@pytest.mark.usefixtures("trusted_workspace")
def test_instruction_files_loaded_at_start_and_on_a_read_below_are_told(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(workspace, {"InstructionsLoaded": on("", command_hook(dump_command(dumps)))})
    (workspace / "CLAUDE.md").write_text("Use tabs.\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "CLAUDE.md").write_text("Here, spaces.\n")
    (workspace / "sub" / "a.txt").write_text("alpha\n")
    fake_model.script(reply(tool_use("Read", file_path="sub/a.txt")), reply(text("done")))
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    keys = ("file_path", "memory_type", "load_reason", "trigger_file_path")
    assert _mine(dumped(dumps, "InstructionsLoaded"), *keys) == [
        {
            "file_path": str(workspace / "CLAUDE.md"),
            "memory_type": "Project",
            "load_reason": "session_start",
            "trigger_file_path": None,
        },
        {
            "file_path": str(workspace / "sub" / "CLAUDE.md"),
            "memory_type": "Project",
            "load_reason": "nested_traversal",
            "trigger_file_path": str(workspace / "sub" / "a.txt"),
        },
    ]


@pytest.mark.usefixtures("trusted_workspace")
def test_imports_and_rules_files_are_told_with_claude_codes_load_reasons(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    """An `@path` import is told as `include` with the file that imports it; the files of
    `.claude/rules/` are loaded at the start as instructions (a rule scoped to `paths` is not
    read into every prompt)."""
    dumps = tmp_path / "dumps"
    write_settings(workspace, {"InstructionsLoaded": on("", command_hook(dump_command(dumps)))})
    (workspace / "CLAUDE.md").write_text("See @docs/style.md\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("STYLE-RULE\n")
    rules = workspace / ".claude" / "rules"
    (rules / "lang").mkdir(parents=True)
    (rules / "testing.md").write_text("TESTING-RULE\n")
    (rules / "lang" / "python.md").write_text("PYTHON-RULE\n")
    (rules / "scoped.md").write_text("---\npaths:\n  - 'src/**/*.ts'\n---\nSCOPED-RULE\n")
    fake_model.script(reply(text("done")))
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    keys = ("file_path", "memory_type", "load_reason", "parent_file_path")
    assert _mine(dumped(dumps, "InstructionsLoaded"), *keys) == [
        {
            "file_path": str(workspace / "CLAUDE.md"),
            "memory_type": "Project",
            "load_reason": "session_start",
            "parent_file_path": None,
        },
        {
            "file_path": str(workspace / "docs" / "style.md"),
            "memory_type": "Project",
            "load_reason": "include",
            "parent_file_path": str(workspace / "CLAUDE.md"),
        },
        {
            "file_path": str(rules / "lang" / "python.md"),
            "memory_type": "Project",
            "load_reason": "session_start",
            "parent_file_path": None,
        },
        {
            "file_path": str(rules / "testing.md"),
            "memory_type": "Project",
            "load_reason": "session_start",
            "parent_file_path": None,
        },
    ]
    system = str(fake_model.requests[0].body["system"])
    for said in ("STYLE-RULE", "TESTING-RULE", "PYTHON-RULE"):
        assert said in system
    assert "SCOPED-RULE" not in system


@pytest.mark.usefixtures("trusted_workspace")
def test_setup_fires_with_init_or_maintenance_before_session_start(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    dump = command_hook(dump_command(dumps))
    write_settings(workspace, {"Setup": on("", dump), "SessionStart": on("", dump)})
    fake_model.script(reply(text("done")), reply(text("done again")))
    assert tether("-p", "go", "--init").exit_code == 0
    only = tether("--init-only")
    assert only.exit_code == 0, only.stderr
    assert tether("-p", "go", "--maintenance").exit_code == 0
    told = [(d["hook_event_name"], d.get("trigger") or d.get("source")) for d in dumped(dumps)]
    assert told == [
        ("Setup", "init"),
        ("SessionStart", "startup"),
        ("Setup", "init"),
        ("Setup", "maintenance"),
        ("SessionStart", "startup"),
    ]
    assert len(fake_model.requests) == 2  # --init-only sent nothing
