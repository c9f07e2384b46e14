"""Two processes continuing one session: the second forks instead of mixing its entries into
the file the first holds; a file that two writers did mix (before locks) still resumes one
branch, valid, and says what it left out."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.chains import entries_of, message_chain_problem, newest_message
from tether.store import SessionInUse, SessionWriter, list_sessions, load_session
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

Run = Callable[..., CliResult]


def _only_session(workspace: Path) -> Path:
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    return info.path


def _assert_one_chain(path: Path) -> None:
    entries = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert message_chain_problem(entries) is None


def test_a_second_writer_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    in_use = "session s1 is in use by another tether process"
    with (
        SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as first,
        pytest.raises(SessionInUse, match=in_use),
    ):
        SessionWriter.reopen(first.path, cwd=tmp_path, last_uuid=None)
    SessionWriter.reopen(first.path, cwd=tmp_path, last_uuid=None).close()


HOLDER = """
import sys, time
from pathlib import Path
from tether.store import SessionWriter
writer = SessionWriter.reopen(Path(sys.argv[1]), cwd=Path(sys.argv[1]).parent, last_uuid=None)
print("holding", flush=True)
time.sleep(60)
"""


def test_a_process_killed_while_holding_the_file_releases_it(tmp_path: Path) -> None:
    SessionWriter.create(tmp_path, "s1", cwd=tmp_path).close()
    path = tmp_path / "s1.jsonl"
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == "holding\n"
            with pytest.raises(SessionInUse):
                SessionWriter.reopen(path, cwd=tmp_path, last_uuid=None)
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait()
    SessionWriter.reopen(path, cwd=tmp_path, last_uuid=None).close()


def test_continuing_a_session_another_process_holds_forks_it(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("started")))
    first_id = tether("-p", "start", "--output-format", "json").json()["session_id"]
    original = _only_session(workspace)
    arrived, release = threading.Event(), threading.Event()

    def held_open(_request: RecordedRequest) -> object:
        arrived.set()
        release.wait(60)  # the first process waits here, holding its session file
        return reply(text("first done"))

    fake_model.script(held_open, reply(text("second done")), reply(text("third done")))  # type: ignore[arg-type]
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-c", "-p"]
    results: list[CliResult] = []
    first = threading.Thread(
        target=lambda: results.append(run_cli_process([*argv, "in the first terminal"]))
    )
    first.start()
    try:
        assert arrived.wait(60), "the first process never asked the model"
        second = tether("-c", "-p", "in the second terminal", "--output-format", "json")
    finally:
        release.set()
        first.join()
    [first_result] = results
    assert first_result.exit_code == 0, first_result.stderr
    assert first_result.stdout == "first done\n"

    assert second.exit_code == 0, second.stderr
    assert f"session {first_id} is in use by another tether process" in second.stderr
    assert "continues from its last finished turn, in a new session forked" in second.stderr
    fork_id = second.json()["session_id"]
    assert fork_id != first_id
    # Each request carried its own process's prompt after the shared conversation.
    assert [r.last_user_text() for r in fake_model.requests[1:3]] == [
        "in the first terminal",
        "in the second terminal",
    ]
    _assert_one_chain(original)
    assert load_session(original).warnings == ()
    fork = load_session(original.with_name(f"{fork_id}.jsonl"))
    assert fork.forked_from is not None
    assert fork.forked_from[0] == first_id
    assert "in the first terminal" not in original.with_name(f"{fork_id}.jsonl").read_text()

    third = tether("-r", first_id, "-p", "third")
    assert third.exit_code == 0, third.stderr
    sent = json.dumps(fake_model.requests[-1].messages())
    assert "in the first terminal" in sent
    assert "in the second terminal" not in sent


def test_a_file_two_writers_mixed_resumes_the_newest_branch(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("started")))
    assert tether("-p", "start").exit_code == 0
    path = _only_session(workspace)
    header = newest_message(path)
    fork_point = header["uuid"]
    parents = {"a": fork_point, "b": fork_point}
    lines: list[str] = []
    # As two processes without a lock wrote it: their entries interleaved, each chained to its own.
    for step in range(3):
        for writer in ("a", "b"):
            for role, content in (
                ("user", f"{writer} asks {step}"),
                ("assistant", f"{writer} {step}"),
            ):
                uuid = f"{writer}-{role}-{step}"
                lines.append(
                    json.dumps(
                        {
                            "type": role,
                            "uuid": uuid,
                            "parentUuid": parents[writer],
                            "sessionId": header["sessionId"],
                            "timestamp": f"2030-01-01T00:00:{step}{'ab'.index(writer)}.000Z",
                            "cwd": header["cwd"],
                            "message": {
                                "role": role,
                                "content": [{"type": "text", "text": content}],
                            },
                        }
                    )
                )
                parents[writer] = uuid
    with path.open("a") as file:
        file.writelines(line + "\n" for line in lines)

    fake_model.script(reply(text("resumed")))
    result = tether("-c", "-p", "which branch?")
    assert result.exit_code == 0, result.stderr
    assert "6 entries not on the newest branch" in result.stderr
    sent = fake_model.requests[-1]
    texts = [str(m["content"]) for m in sent.messages()]
    assert any("b 2" in t for t in texts)
    assert not any("a asks" in t for t in texts)
    assert sent.last_user_text() == "which branch?"


def test_a_file_holding_another_sessions_lines_resumes_its_own_session(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """Session A's file with a newer session B's lines interleaved (a tool mixed two files):
    `-r A` resumes A's conversation, however new B's entries are, and says what it left out."""
    fake_model.script(reply(tool_use("Bash", command="echo from a")), reply(text("a done")))
    a_id = tether("-p", "session a", "--output-format", "json").json()["session_id"]
    a_path = _only_session(workspace)
    fake_model.script(reply(tool_use("Bash", command="echo from b")), reply(text("b done")))
    b_id = tether("-p", "session b", "--output-format", "json").json()["session_id"]
    b_path = a_path.with_name(f"{b_id}.jsonl")
    a_lines = a_path.read_bytes().splitlines(keepends=True)
    b_lines = b_path.read_bytes().splitlines(keepends=True)
    b_entries = len(entries_of(b_path))
    mixed = [line for pair in itertools.zip_longest(a_lines, b_lines) for line in pair if line]
    a_path.write_bytes(b"".join(mixed))
    b_path.unlink()

    fake_model.script(reply(text("resumed")))
    result = tether("-r", a_id, "-p", "go on")
    assert result.exit_code == 0, result.stderr
    sent = json.dumps(fake_model.requests[-1].messages())
    assert "session a" in sent
    assert "from b" not in sent
    assert "session b" not in sent
    assert result.stderr == (
        f"tether: session file {a_path}: {b_entries} entries of session {b_id} "
        f"left out: this file is session {a_id}'s\n"
    )
