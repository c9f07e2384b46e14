"""Sessions from the REPL: :sessions lists them, :resume and /resume continue one here, :fork
continues a copy; the session left is saved, and the one taken up is shown where it stopped."""

from __future__ import annotations

import os
from pathlib import Path

from tether.cli.setup import RunOptions
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text

from .repl_terminal import CTRL_D, AfterTurn, Terminal


def _sessions(workspace: Path) -> list[str]:
    return [s.session_id for s in list_sessions(Path(os.environ["TETHER_HOME"]), workspace)]


async def _first_session(model_env: FakeModelServer, workspace: Path) -> str:
    model_env.script(reply(text("Noted: blue.")))
    assert await Terminal().run(workspace, "my colour is blue\r" + CTRL_D) == 0
    [session_id] = _sessions(workspace)
    model_env.reset()
    return session_id


async def test_resume_by_id_continues_the_conversation(
    model_env: FakeModelServer, workspace: Path
) -> None:
    earlier = await _first_session(model_env, workspace)
    model_env.script(reply(text("It is blue.")))
    terminal = Terminal()
    keys = ":sessions\r" + f":resume {earlier[:8]}\r" + "what is my colour?\r" + CTRL_D
    assert await terminal.run(workspace, keys) == 0
    assert "my colour is blue" in terminal.output  # the listing's title
    assert f"resumed session {earlier}" in terminal.output
    assert terminal.output.count("Noted: blue.") == 1  # where it stopped, shown once
    [request] = model_env.requests
    assert [m["role"] for m in request.messages()] == ["user", "assistant", "user"]
    assert request.last_user_text() == "what is my colour?"
    assert _sessions(workspace) == [earlier]
    path = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)[0].path
    assert len(tuple(load_session(path).records())) == 4  # both turns, in the one file


async def test_fork_leaves_the_original_and_resume_picks_from_a_list(
    model_env: FakeModelServer, workspace: Path
) -> None:
    earlier = await _first_session(model_env, workspace)
    original = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)[0].path
    before = original.read_bytes()
    model_env.script(reply(text("Forked answer.")))
    terminal = Terminal()
    assert await terminal.run(workspace, f":fork {earlier}\r" + "and now?\r" + CTRL_D) == 0
    assert "forked from" in terminal.output
    assert original.read_bytes() == before
    assert len(_sessions(workspace)) == 2

    model_env.reset()
    model_env.script(reply(text("Back on the original.")))
    terminal = Terminal()
    options = RunOptions(cwd=workspace)
    listed = _sessions(workspace)
    pick = listed.index(earlier) + 1
    keys = "/resume\r" + f"{pick}\r" + "hello again\r" + CTRL_D
    assert await terminal.run(workspace, keys, options=options) == 0
    assert f"resumed session {earlier}" in terminal.output
    [request] = model_env.requests
    assert "and now?" not in str(request.messages())


async def test_resume_of_an_unknown_session_keeps_the_current_one(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(reply(text("Still here.")))
    terminal = Terminal()
    assert await terminal.run(workspace, ":resume nosuchid\r" + "hi\r" + CTRL_D) == 0
    assert "no session" in terminal.output.lower()
    assert "Still here." in terminal.output


async def test_a_session_resumed_from_the_command_line_shows_where_it_stopped(
    model_env: FakeModelServer, workspace: Path
) -> None:
    earlier = await _first_session(model_env, workspace)
    terminal = Terminal()
    options = RunOptions(cwd=workspace, resume=earlier[:8])
    assert await terminal.run(workspace, CTRL_D, options=options) == 0
    assert f"resumed session {earlier}" in terminal.output
    assert terminal.output.count("Noted: blue.") == 1


async def test_a_settings_warning_is_said_once_however_often_the_session_changes(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """The file is the same for every session of the REPL: its warning was said again on each
    `:fork` and `:resume`."""
    settings = Path(os.environ["TETHER_HOME"]) / "settings.json"
    # A value that only grants: dropped with a warning (a guard's fault stops the start).
    settings.write_text('{"permissions": {"additionalDirectories": "/tmp"}}')
    earlier = await _first_session(model_env, workspace)
    terminal = Terminal()
    keys = f":fork {earlier}\r" + f":resume {earlier}\r" + f":fork {earlier}\r" + CTRL_D
    assert await terminal.run(workspace, keys) == 0
    assert terminal.output.count("forked from") == 2, terminal.output
    assert f"resumed session {earlier}" in terminal.output
    assert terminal.output.count('"permissions.additionalDirectories"') == 1, terminal.output


async def test_the_resume_picker_offers_only_the_other_sessions(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """As in Claude Code: the session going on is not a choice (it was listed first, and
    choosing it answered that it is the current session); a number past the list says the
    range (it was read as an id, "no session '9'")."""
    earlier = await _first_session(model_env, workspace)
    model_env.script(reply(text("Now here.")), reply(text("Back on blue.")))
    terminal = Terminal()
    after_hello = AfterTurn("/resume\r" + "9\r" + "/resume\r" + "1\r" + "colour?\r")
    assert await terminal.type_steps(workspace, "hello\r", after_hello, AfterTurn(CTRL_D)) == 0
    [current] = [s for s in _sessions(workspace) if s != earlier]
    listed = [line.split()[1] for line in terminal.output.splitlines() if line[:5] == "  1. "]
    assert listed == [earlier, earlier], terminal.output
    assert current not in terminal.output.split("Now here.")[1], terminal.output
    assert "no session 9 in the list: choose 1" in terminal.output
    assert f"resumed session {earlier}" in terminal.output
    assert model_env.requests[1].last_user_text() == "colour?"
    assert [m["role"] for m in model_env.requests[1].messages()] == ["user", "assistant", "user"]
