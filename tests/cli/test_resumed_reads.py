"""What the model read before `--resume`, `-c` or `--fork-session` still counts after it, as in
Claude Code, which rebuilds its read state from the transcript: Edit and Write take a file the
conversation shows was read (whole or in part, as in the session that read it), and still refuse
one changed on disk since (where the model looked or not) and one never read. Real runs against
the fake model, real files, real session files."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
CHANGED = "changed on disk since it was last read"
NOT_READ = "has not been read in this session; Read it before changing it."


def _first_run(tether: Run, fake_model: FakeModelServer, target: Path, **read: object) -> None:
    fake_model.script(reply(tool_use("Read", file_path=str(target), **read)), reply(text("read")))
    ran = tether("-p", "read it")
    assert (ran.exit_code, ran.stdout) == (0, "read\n"), ran.stderr


def _back_to_first_answer(workspace: Path) -> tuple[str, ...]:
    """The arguments that resume the workspace's session at the first run's answer ("read"),
    as a rewind to it does."""
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    entries = [json.loads(line) for line in session.path.read_text().splitlines()]
    [point] = [
        e["uuid"]
        for e in entries
        if e.get("type") == "assistant"
        and e["message"]["content"] == [{"type": "text", "text": "read"}]
    ]
    return ("--resume", session.session_id, "--resume-session-at", point)


def _edit_after(tether: Run, fake_model: FakeModelServer, target: Path, *how: str) -> str:
    """The Edit's tool result in the resumed run (`how`: how it resumes)."""
    edit = tool_use("Edit", file_path=str(target), old_string="one", new_string="uno")
    fake_model.script(reply(edit), reply(text("edited")))
    ran = tether(*how, "-p", "edit it")
    assert (ran.exit_code, ran.stdout) == (0, "edited\n"), ran.stderr
    [result] = fake_model.requests[-1].tool_results()
    return result


def _how(resume: str, workspace: Path) -> tuple[str, ...]:
    if resume == "continue":
        return ("-c",)
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    if resume == "resume":
        return ("--resume", session.session_id)
    return ("--resume", session.session_id, "--fork-session")


@pytest.mark.parametrize("resume", ["continue", "resume", "fork"])
def test_a_file_read_before_resuming_can_be_edited(
    tether: Run, fake_model: FakeModelServer, workspace: Path, resume: str
) -> None:
    target = workspace / "notes.txt"
    target.write_text("one\ntwo\n")
    _first_run(tether, fake_model, target)
    said = _edit_after(tether, fake_model, target, *_how(resume, workspace))
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert target.read_text() == "uno\ntwo\n"


def test_a_file_written_then_edited_before_resuming_can_be_edited_again(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    target = workspace / "made.txt"
    write = tool_use("Write", file_path=str(target), content="one two\n")
    first_edit = tool_use("Edit", file_path=str(target), old_string="two", new_string="three")
    fake_model.script(reply(write), reply(first_edit), reply(text("made")))
    ran = tether("-p", "make it")
    assert (ran.exit_code, ran.stdout) == (0, "made\n"), ran.stderr
    said = _edit_after(tether, fake_model, target, "-c")
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert target.read_text() == "uno three\n"


def test_a_file_changed_since_the_read_is_refused_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    target = workspace / "notes.txt"
    target.write_text("one\ntwo\n")
    _first_run(tether, fake_model, target)
    target.write_text("one\ntwo\nthree\n")  # another program, between the runs
    said = _edit_after(tether, fake_model, target, "-c")
    assert fake_model.requests[-1].tool_result_errors() == [True]
    assert CHANGED in said
    assert target.read_text() == "one\ntwo\nthree\n"


LONG = "".join(f"line {n}\n" for n in range(2, 2502))
PARTIAL_READS: dict[str, tuple[str, dict[str, object]]] = {
    # Read's default view stops at line 2000: the model saw lines 1-2000 of 2501.
    "default cut": ("one\n" + LONG, {}),
    "limit": ("one\ntwo\nthree\n", {"limit": 1}),
    "offset": ("two\none\nthree\n", {"offset": 2, "limit": 1}),
    "the end only": ("two\nthree\none\n", {"offset": 3}),
}


@pytest.mark.parametrize("form", PARTIAL_READS)
@pytest.mark.parametrize("resume", ["continue", "resume", "fork"])
def test_a_file_read_in_part_can_be_edited_and_written_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path, form: str, resume: str
) -> None:
    # As in the session that read it: a partial Read is a read, and the digest in its result
    # vouches for the lines it did not show.
    content, window = PARTIAL_READS[form]
    target = workspace / "part.txt"
    target.write_text(content)
    _first_run(tether, fake_model, target, **window)
    how = _how(resume, workspace)
    said = _edit_after(tether, fake_model, target, *how)
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert target.read_text() == content.replace("one", "uno", 1)
    fake_model.script(
        reply(tool_use("Write", file_path=str(target), content="new\n")), reply(text("wrote"))
    )
    ran = tether(*(("-c",) if resume == "fork" else how), "-p", "write it")
    assert (ran.exit_code, ran.stdout) == (0, "wrote\n"), ran.stderr
    assert fake_model.requests[-1].tool_result_errors() == [False]
    assert target.read_text() == "new\n"


def test_a_file_changed_where_a_partial_read_did_not_look_is_refused_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    target = workspace / "part.txt"
    target.write_text("one\n" + LONG)
    _first_run(tether, fake_model, target)
    target.write_text("one\n" + LONG + "line 2502\n")  # past what the model saw
    said = _edit_after(tether, fake_model, target, "-c")
    assert (fake_model.requests[-1].tool_result_errors(), CHANGED in said) == ([True], True)
    assert target.read_text() == "one\n" + LONG + "line 2502\n"


def _without_digests(workspace: Path) -> None:
    """The session file as written before tool results carried the file's digest."""
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    entries = [json.loads(line) for line in session.path.read_text().splitlines()]
    for entry in entries:
        if isinstance(entry.get("toolUseResult"), dict):
            entry["toolUseResult"].pop("sha256", None)
    session.path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def test_a_partial_read_in_a_transcript_without_digests_is_refused_as_a_read_in_part(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    target = workspace / "part.txt"
    target.write_text("one\ntwo\nthree\n")
    _first_run(tether, fake_model, target, offset=2, limit=1)
    _without_digests(workspace)
    said = _edit_after(tether, fake_model, target, "-c")
    assert fake_model.requests[-1].tool_result_errors() == [True]
    assert said == (
        f"Error: {target.name} was read only in part (lines 2-2 of 3) in the earlier session, "
        "whose transcript keeps no digest of the file, so whether the rest is as it was "
        "cannot be checked; Read it again before changing it."
    )
    assert target.read_text() == "one\ntwo\nthree\n"


def test_a_partial_read_without_digest_after_a_whole_one_keeps_the_whole_one(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    target = workspace / "notes.txt"
    target.write_text("one\ntwo\nthree\n")
    _first_run(tether, fake_model, target)
    fake_model.script(
        reply(tool_use("Read", file_path=str(target), offset=3)), reply(text("again"))
    )
    ran = tether("-c", "-p", "read the end")
    assert (ran.exit_code, ran.stdout) == (0, "again\n"), ran.stderr
    _without_digests(workspace)
    said = _edit_after(tether, fake_model, target, "-c")
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert target.read_text() == "uno\ntwo\nthree\n"


def test_a_file_never_read_is_refused_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("one\n")
    _first_run(tether, fake_model, workspace / "notes.txt")
    other = workspace / "other.txt"
    other.write_text("one\n")
    said = _edit_after(tether, fake_model, other, "-c")
    assert (fake_model.requests[-1].tool_result_errors(), NOT_READ in said) == ([True], True)
    assert other.read_text() == "one\n"


def test_resuming_at_an_earlier_message_forgets_the_reads_after_it(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    # What /rewind does to the conversation (`--resume-session-at`): the reads made after
    # the point it goes back to are no longer in the transcript, so no longer count.
    kept, dropped = workspace / "kept.txt", workspace / "dropped.txt"
    for path in (kept, dropped):
        path.write_text("one\n")
    _first_run(tether, fake_model, kept)
    fake_model.script(reply(tool_use("Read", file_path=str(dropped))), reply(text("later")))
    ran = tether("-c", "-p", "read the other")
    assert (ran.exit_code, ran.stdout) == (0, "later\n"), ran.stderr
    at = _back_to_first_answer(workspace)
    said = _edit_after(tether, fake_model, dropped, *at)
    assert (fake_model.requests[-1].tool_result_errors(), NOT_READ in said) == ([True], True)
    said = _edit_after(tether, fake_model, kept, *at)
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert (kept.read_text(), dropped.read_text()) == ("uno\n", "one\n")


# Files whose Read content is not their bytes: decoded otherwise, other line endings, cut lines.
SHOWN_OTHERWISE = {
    "crlf": b"one two\r\nthree\r\n",
    "latin-1": "one caf\u00e9\n".encode("latin-1"),
    "long line": b"one " + b"x" * 3000 + b"\n",
    "bom": "\ufeffone two\n".encode(),
    "no final newline": b"one two",
    "mixed endings": b"one\r\ntwo\nthree\r\n",
}


@pytest.mark.parametrize("form", SHOWN_OTHERWISE)
@pytest.mark.parametrize("resume", ["continue", "fork"])
def test_a_file_read_in_a_form_not_its_bytes_can_be_edited_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path, form: str, resume: str
) -> None:
    target = workspace / "shown.txt"
    data = SHOWN_OTHERWISE[form]
    target.write_bytes(data)
    _first_run(tether, fake_model, target)
    said = _edit_after(tether, fake_model, target, *_how(resume, workspace))
    assert fake_model.requests[-1].tool_result_errors() == [False], said
    assert target.read_bytes() == data.replace(b"one", b"uno", 1)


@pytest.mark.parametrize(
    ("form", "changed"),
    [
        ("crlf", b"one two\r\nfour\r\n"),
        ("latin-1", "one caf\u00e9 au lait\n".encode("latin-1")),
        ("long line", b"one " + b"y" * 3000 + b"\n"),
        ("no final newline", b"one two\n"),
    ],
)
def test_a_file_read_in_a_form_not_its_bytes_and_changed_since_is_refused_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path, form: str, changed: bytes
) -> None:
    target = workspace / "shown.txt"
    target.write_bytes(SHOWN_OTHERWISE[form])
    _first_run(tether, fake_model, target)
    target.write_bytes(changed)  # another program, between the runs
    said = _edit_after(tether, fake_model, target, "-c")
    assert (fake_model.requests[-1].tool_result_errors(), CHANGED in said) == ([True], True)
    assert target.read_bytes() == changed


def test_a_file_the_session_changed_after_the_point_it_resumes_at_is_said_to_be_its_own_change(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    # Claude Code's conversation-only rewind: the file keeps the session's own later Edit,
    # which the conversation no longer shows. No other program wrote it, and none is blamed.
    target = workspace / "notes.txt"
    target.write_text("one two\n")
    _first_run(tether, fake_model, target)
    fake_model.script(
        reply(tool_use("Edit", file_path=str(target), old_string="two", new_string="three")),
        reply(text("later")),
    )
    ran = tether("-c", "-p", "change it")
    assert (ran.exit_code, ran.stdout) == (0, "later\n"), ran.stderr
    at = _back_to_first_answer(workspace)
    said = _edit_after(tether, fake_model, target, *at)
    assert fake_model.requests[-1].tool_result_errors() == [True]
    assert said == (
        f"Error: {target.name} was changed by this session's own Write or Edit after the point "
        "the conversation was rewound to, so the conversation no longer shows it as it is; "
        "Read it again before changing it."
    )
    assert target.read_text() == "one three\n"
