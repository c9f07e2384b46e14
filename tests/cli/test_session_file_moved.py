"""A session file that something else removes, moves, replaces or cuts while tether writes it:
tether never goes on writing into a file that is no longer the session's, says what happened,
and the session stays resumable whole. `tether sessions rm` refuses a session a running tether
holds.

Each case acts on the file while the model is being asked (the fake model's turn runs in the
test), so that the entries after it are written once the file changed."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.chains import message_chain_problem
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

Run = Callable[..., CliResult]


def _session_files(workspace: Path) -> list[Path]:
    return [info.path for info in list_sessions(Path(os.environ["TETHER_HOME"]), workspace)]


def _acting_on_the_file(
    workspace: Path, act: Callable[[Path], object]
) -> Callable[[RecordedRequest], object]:
    """The model's first answer: act on the session file, then call a tool."""

    def turn(_request: RecordedRequest) -> object:
        [path] = _session_files(workspace)
        act(path)
        return reply(tool_use("Bash", command="echo after"))

    return turn


def _whole_conversation(path: Path) -> list[tuple[str, str]]:
    loaded = load_session(path)
    assert loaded.warnings == ()
    entries = [json.loads(line) for line in path.read_bytes().splitlines()]
    messages = [e for e in entries if e["type"] in ("user", "assistant")]
    return [(m["type"], json.dumps(m["message"]["content"])) for m in messages]


def _assert_holds_the_turn(path: Path) -> None:
    conversation = _whole_conversation(path)
    assert [role for role, _ in conversation] == ["user", "assistant", "user", "assistant"]
    assert "work" in conversation[0][1]
    assert "echo after" in conversation[1][1]
    assert '"content": "after"' in conversation[2][1]
    assert "done" in conversation[3][1]


def test_sessions_rm_refuses_a_session_a_running_tether_holds(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    refused: list[CliResult] = []

    def remove(path: Path) -> None:
        refused.append(run_cli_process(["sessions", "rm", path.stem, "--cwd", str(workspace)]))

    fake_model.script(_acting_on_the_file(workspace, remove), reply(text("done")))  # type: ignore[arg-type]
    ran = tether("-p", "work")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr

    [path] = _session_files(workspace)
    [rm] = refused
    assert (rm.exit_code, rm.stdout) == (2, "")
    assert rm.stderr == (
        f"tether: error: session {path.stem} is open in a running tether process; end it "
        "there first, then remove it\n"
    )
    _assert_holds_the_turn(path)
    # Once tether let go of it, it can be removed.
    removed = run_cli_process(["sessions", "rm", path.stem, "--cwd", str(workspace)])
    assert removed.exit_code == 0, removed.stderr
    assert not path.exists()


@pytest.mark.parametrize("how", ["removed", "moved away", "directory removed"])
def test_a_session_file_taken_away_is_written_again_whole(
    fake_model: FakeModelServer, tether: Run, workspace: Path, how: str
) -> None:
    def take_away(path: Path) -> None:
        if how == "removed":
            path.unlink()
        elif how == "moved away":
            path.rename(path.with_suffix(".moved"))
        else:
            shutil.rmtree(path.parent)

    fake_model.script(_acting_on_the_file(workspace, take_away), reply(text("done")))  # type: ignore[arg-type]
    ran = tether("-p", "work")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr

    [path] = _session_files(workspace)
    assert ran.stderr == (
        f"tether: warning: session file {path} was removed or moved away while the session "
        "ran; it was written again there, whole, and the session goes on saving to it\n"
    )
    _assert_holds_the_turn(path)
    entries = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert message_chain_problem(entries) is None

    fake_model.script(reply(text("resumed")))
    again = tether("-c", "-p", "next")
    assert again.exit_code == 0, again.stderr
    assert len(fake_model.requests[-1].messages()) == 5


def test_a_session_file_replaced_by_another_is_left_alone_and_the_session_goes_on_in_a_new_one(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    replaced: list[Path] = []

    def replace(path: Path) -> None:
        path.rename(path.with_suffix(".old"))
        path.write_text("someone else's file\n")
        replaced.append(path)

    fake_model.script(_acting_on_the_file(workspace, replace), reply(text("done")))  # type: ignore[arg-type]
    ran = tether("-p", "work", "--output-format", "json")
    assert ran.exit_code == 0, ran.stderr
    [old] = replaced
    assert old.read_text() == "someone else's file\n"
    [new] = [p for p in _session_files(workspace) if p != old]
    assert ran.stderr == (
        f"tether: warning: session file {old} was replaced by another file while the session "
        f"ran; that file is left as it is, and the session goes on as {new.stem} ({new}), "
        "which holds all of it\n"
    )
    _assert_holds_the_turn(new)
    loaded = load_session(new)
    assert loaded.forked_from is not None
    assert loaded.forked_from[0] == old.stem

    fake_model.script(reply(text("resumed")))
    again = tether("-r", new.stem, "-p", "next")
    assert again.exit_code == 0, again.stderr
    assert len(fake_model.requests[-1].messages()) == 5


def test_a_session_file_cut_short_by_another_program_is_said(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    def cut(path: Path) -> None:
        os.truncate(path, 0)

    fake_model.script(_acting_on_the_file(workspace, cut), reply(text("done")))  # type: ignore[arg-type]
    ran = tether("-p", "work")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    [path] = _session_files(workspace)
    assert ran.stderr.startswith(
        f"tether: warning: session file {path} was cut short by another program ("
    )
    assert ran.stderr.endswith(
        " bytes gone); the session goes on saving, but a resume starts where the file now does\n"
    )
    assert ran.stderr.count("\n") == 1
