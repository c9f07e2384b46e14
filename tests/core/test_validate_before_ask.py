"""Nobody is asked to approve a call that could never run: an unknown tool, arguments that are
not a valid object or do not fit the schema, an Edit or Write of a file not read, an Edit whose
text is not there, a Revert with nothing to undo. The model gets the error; calls that could
run are still asked."""

from __future__ import annotations

from pathlib import Path

from tether.protocol import PermissionAsked, TurnFinished
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.script import raw_tool_use

from .conftest import MakeSession


def _asked(events: list[object]) -> list[PermissionAsked]:
    return [e for e in events if isinstance(e, PermissionAsked)]


async def test_calls_that_cannot_run_get_their_error_without_a_question(
    fake_model: FakeModelServer, asked_session: MakeSession, workspace: Path
) -> None:
    (workspace / "ledger.txt").write_text("total = 10\n")
    fake_model.script(
        reply(
            tool_use("Deploy", target="prod"),
            tool_use("Write", path="notes.txt"),
            raw_tool_use("Bash", '{"command": "touch a.txt"'),
            tool_use("Bash", command=["rm", "-r", "x"]),
            tool_use("Write", file_path="ledger.txt", content="total = 0\n"),
            tool_use("Edit", file_path="ledger.txt", old_string="10", new_string="0"),
            tool_use("Revert", file_path="ledger.txt"),
        ),
        reply(text("understood")),
    )
    run = asked_session(mode="default")
    events = await run.turn("tidy up")
    assert _asked(events) == []
    results = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [True] * 7
    unknown, missing, broken, wrong_type, unread_write, unread_edit, nothing = results
    assert unknown.startswith("Error: No such tool: 'Deploy'.")
    assert "missing required field 'file_path'" in missing
    assert "not a valid JSON object" in broken
    assert wrong_type.startswith("Error: Invalid input for Bash: command:")
    assert unread_write == (
        "Error: ledger.txt has not been read in this session; Read it before changing it."
    )
    assert unread_edit == unread_write
    assert nothing.startswith("Error: Nothing to revert for ledger.txt")
    assert (workspace / "ledger.txt").read_text() == "total = 10\n"
    assert not (workspace / "a.txt").exists()
    [finished] = [e for e in events if isinstance(e, TurnFinished)]
    assert finished.permission_denials == ()


async def test_an_edit_whose_text_is_missing_is_not_asked_and_one_that_fits_is(
    fake_model: FakeModelServer, asked_session: MakeSession, workspace: Path
) -> None:
    (workspace / "ledger.txt").write_text("total = 10\n")
    fake_model.script(
        reply(tool_use("Read", file_path="ledger.txt")),
        reply(
            tool_use("Edit", file_path="ledger.txt", old_string="total = 99", new_string="x"),
            tool_use("Edit", file_path="ledger.txt", old_string="", new_string="x"),
        ),
        reply(tool_use("Edit", file_path="ledger.txt", old_string="10", new_string="12")),
        reply(text("done")),
    )
    run = asked_session(mode="default")
    events = await run.turn("fix the total")
    [question] = _asked(events)
    assert question.tool == "Edit"
    assert question.input["old_string"] == "10"
    missing, empty = fake_model.requests[2].tool_results()
    assert missing.startswith("Error: old_string was not found in ledger.txt.")
    assert empty.startswith("Error: old_string is empty.")
    assert (workspace / "ledger.txt").read_text() == "total = 12\n"


async def test_a_denied_call_is_told_it_is_denied_not_what_its_file_holds(
    fake_model: FakeModelServer, asked_session: MakeSession, workspace: Path
) -> None:
    (workspace / "vault.txt").write_text("secret\n")
    fake_model.script(
        reply(tool_use("Edit", file_path="vault.txt", old_string="secret", new_string="x")),
        reply(text("ok")),
    )
    run = asked_session(mode="default", settings={"permissions": {"deny": ["Edit(vault.txt)"]}})
    events = await run.turn("edit")
    assert _asked(events) == []
    [result] = fake_model.requests[1].tool_results()
    assert result.startswith("Permission denied (rule Edit(vault.txt))")


async def test_an_unknown_tool_is_not_run_even_in_bypass_mode(
    fake_model: FakeModelServer, asked_session: MakeSession
) -> None:
    fake_model.script(reply(tool_use("mcp__gone__wipe", all=True)), reply(text("ok")))
    run = asked_session(mode="bypassPermissions")
    events = await run.turn("wipe")
    assert _asked(events) == []
    [result] = fake_model.requests[1].tool_results()
    assert result.startswith("Error: No such tool: 'mcp__gone__wipe'.")
