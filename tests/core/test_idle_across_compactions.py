"""A loop whose own output fills the window, so that the conversation is compacted again and
again, is stopped at the idle bound: each compaction made everything it had shown new again,
so `cat a.txt` / `cat b.txt` in turn, with a compaction every few replies, ran for ever (each
lap costing a summary request). Reading on through a big file across the same compactions is
work, and runs to its end. Over the wire, on both wires."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.idle_runs import Run, wire_model
from tether.core.compaction import SUMMARY_INSTRUCTION
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use

SHOWN_WHOLE = 450
"""Lines of a file `cat` shows whole (about 25 KB: a fifth of the window, and under the size
at which a command's output is cut and the rest spilled to a file of a new name)."""

CAP = 8 * IDLE_STOP_AT
"""Requests after which the model gives up by itself: reached only when nothing stops it."""


def _is_summary(request: RecordedRequest) -> bool:
    return SUMMARY_INSTRUCTION[:60] in request.last_user_text()


def _lines(name: str, count: int) -> str:
    return "".join(
        f"{name} line {i} with some words to fill the context window up\n" for i in range(count)
    )


@pytest.fixture(autouse=True)
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "30000")
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_loop_that_forces_compactions_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    for name in ("a", "b"):
        (workspace / f"{name}.txt").write_text(_lines(name, SHOWN_WHOLE))
    replies: list[int] = []

    def respond(request: RecordedRequest) -> Turn:
        if _is_summary(request):
            return text("Summary: the model has been reading a.txt and b.txt.")
        replies.append(request.index)
        if len(replies) > CAP:
            return text("gave up")
        return tool_use("Bash", command="cat a.txt" if len(replies) % 2 else "cat b.txt")

    fake_model.responder = respond
    result = tether("-p", "go", "--output-format", "json", *wire_model(wire))
    assert result.exit_code == 1
    said = result.json()["errors"][0]
    assert said.startswith("stopped: the model looked at nothing new"), said
    assert "the conversation compacted" in said
    summaries = len(fake_model.requests) - len(replies)
    assert summaries >= 2
    assert len(replies) < 3 * IDLE_STOP_AT


def test_reading_on_through_a_big_file_across_compactions_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "big.txt").write_text(_lines("big", 6000))
    pages = 2 * IDLE_STOP_AT
    replies: list[int] = []

    def respond(request: RecordedRequest) -> Turn:
        if _is_summary(request):
            return text("Summary: the model is reading big.txt page by page.")
        replies.append(request.index)
        if len(replies) > pages:
            return text("read it all")
        offset = 1 + 100 * (len(replies) - 1)
        return tool_use("Read", file_path=str(workspace / "big.txt"), offset=offset, limit=100)

    fake_model.responder = respond
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "read it all"
    assert len(fake_model.requests) > len(replies)  # it was compacted meanwhile


ROTATED_FILES = 12
"""Files read round and round: their lines are more than the line memory holds (shrunk
to `SMALL_MEMORY` here; 40 files of 30 KB pass the real one)."""

SMALL_MEMORY = 1024
"""Line keys a generation of the turn's line memory holds in these tests (two are kept)."""


def _worded(name: str, count: int) -> str:
    """Lines of ten words each, the words of each line its own (a line of one file is new
    to the line memory by its words, as prose and code are)."""
    return "".join(
        " ".join(
            f"{name}{chr(97 + k)}w{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for k in range(10)
        )
        + "\n"
        for i in range(count)
    )


@pytest.mark.parametrize("how", ["Read", "cat"])
def test_rereading_more_files_than_the_line_memory_holds_is_stopped(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """Each file read again unchanged shows exactly what it showed before: once the turn's
    line memory had forgotten the first round, the second looked new for ever (it ran to the
    cap)."""
    monkeypatch.setattr("tether.core.headway_text.KEPT", SMALL_MEMORY)
    names = [f"doc{chr(97 + n)}" for n in range(ROTATED_FILES)]
    for name in names:
        (workspace / f"{name}.txt").write_text(_worded(name, 150))
    replies: list[int] = []

    def respond(request: RecordedRequest) -> Turn:
        if _is_summary(request):
            return text("Summary: the model has been reading the doc files in turn.")
        replies.append(request.index)
        if len(replies) > CAP:
            return text("gave up")
        name = names[len(replies) % ROTATED_FILES]
        if how == "Read":
            return tool_use("Read", file_path=str(workspace / f"{name}.txt"))
        return tool_use("Bash", command=f"cat {name}.txt")

    fake_model.responder = respond
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:]
    said = result.json()["errors"][0]
    assert said.startswith("stopped: the model looked at nothing new"), said
    assert len(fake_model.requests) > len(replies)  # it was compacted meanwhile
    assert len(replies) < ROTATED_FILES + 2 * IDLE_STOP_AT
