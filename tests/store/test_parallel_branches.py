"""Parallel tool calls as Claude Code writes them: one entry per call, chained, each result
hanging off its own call's entry, so the file branches at every parallel reply. Resumed, the
whole reply and every result come back, whichever branch the newest leaf is on, each result
where it was written, and the reply's usage counted once; what is really missing is still
answered as lost, and a branch that is no part of a reply (an edited prompt) stays out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether.core.replay import LOST_RESULT
from tether.core.resume import restore
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from tether.store import load_session

SID = "5f0d3c2e-0000-4000-8000-00000000000a"


class File:
    """A session file written line by line as Claude Code writes one."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def add(self, uuid: str, parent: str | None, kind: str, **fields: Any) -> None:
        stamp = f"2026-01-01T00:{len(self.lines):02d}:00.000Z"
        self.lines.append(
            {
                "type": kind,
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": stamp,
                "sessionId": fields.pop("session", SID),
                "isSidechain": False,
                "version": "2.1.332",
                **fields,
            }
        )

    def prompt(self, uuid: str, parent: str | None, said: str) -> None:
        self.add(uuid, parent, "user", message={"role": "user", "content": said})

    def call(self, uuid: str, parent: str, reply: str, call: str, **fields: Any) -> None:
        block = {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": call}}
        self.add(uuid, parent, "assistant", message=_reply(reply, block), **fields)

    def answer(self, uuid: str, parent: str, reply: str, said: str) -> None:
        self.add(uuid, parent, "assistant", message=_reply(reply, {"type": "text", "text": said}))

    def result(self, uuid: str, parent: str, call: str, **fields: Any) -> None:
        block = {"type": "tool_result", "tool_use_id": call, "content": f"ran {call}"}
        message = {"role": "user", "content": [block]}
        self.add(uuid, parent, "user", message=message, sourceToolAssistantUUID=parent, **fields)

    def save(self, directory: Path) -> Path:
        path = directory / f"{SID}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def _reply(reply: str, block: dict[str, Any]) -> dict[str, Any]:
    usage = {"input_tokens": 100, "output_tokens": 10}
    return {
        "id": reply,
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [block],
        "usage": usage,
    }


def calls(*ids: str) -> Message:
    return Message(
        role="assistant",
        content=tuple(ToolUseBlock(id=i, name="Bash", input={"command": i}) for i in ids),
    )


def results(*ids: str, lost: tuple[str, ...] = ()) -> Message:
    return Message(
        role="user",
        content=tuple(
            ToolResultBlock(tool_use_id=i, content=LOST_RESULT, is_error=True)
            if i in lost
            else ToolResultBlock(tool_use_id=i, content=f"ran {i}")
            for i in ids
        ),
    )


def user(said: str) -> Message:
    return Message(role="user", content=(TextBlock(text=said),))


def answer(said: str) -> Message:
    return Message(role="assistant", content=(TextBlock(text=said),))


def two_rounds(file: File, *, first_done: str, second_done: str) -> None:
    """Two replies of parallel calls; `*_done`: which call of each finished first."""
    file.prompt("u1", None, "go")
    file.call("a1", "u1", "msg_1", "t1")
    file.call("a2", "a1", "msg_1", "t2")
    done = {"t1": ("r1", "a1"), "t2": ("r2", "a2")}
    for call in (first_done, "t2" if first_done == "t1" else "t1"):
        file.result(done[call][0], done[call][1], call)
    file.call("a3", done[call][0], "msg_2", "t3")  # off the result written last
    file.call("a4", "a3", "msg_2", "t4")
    file.call("a5", "a4", "msg_2", "t5")
    done = {"t3": ("r3", "a3"), "t4": ("r4", "a4"), "t5": ("r5", "a5")}
    order = [second_done, *(c for c in ("t3", "t4", "t5") if c != second_done)]
    for call in order:
        file.result(done[call][0], done[call][1], call)
    file.answer("a6", done[order[-1]][0], "msg_3", "done")


def test_every_call_and_result_of_parallel_replies_is_resumed(tmp_path: Path) -> None:
    for first_done, second_done in (("t1", "t3"), ("t2", "t5"), ("t2", "t4")):
        file = File()
        two_rounds(file, first_done=first_done, second_done=second_done)
        restored = restore(load_session(file.save(tmp_path)))
        first = [first_done, "t2" if first_done == "t1" else "t1"]
        second = [second_done, *(c for c in ("t3", "t4", "t5") if c != second_done)]
        assert restored.history.messages == (
            user("go"),
            calls("t1", "t2"),
            results(*first),
            calls("t3", "t4", "t5"),
            results(*second),
            answer("done"),
        )
        assert restored.damage == ()
        # Each entry of a reply repeats its usage: the reply is counted once.
        assert restored.usage == Usage(input_tokens=300, output_tokens=30)


def test_a_file_that_ends_in_parallel_results_resumes_them_all(tmp_path: Path) -> None:
    for written in (("r1", "r2"), ("r2", "r1")):
        file = File()
        file.prompt("u1", None, "go")
        file.call("a1", "u1", "msg_1", "t1")
        file.call("a2", "a1", "msg_1", "t2")
        for result in written:
            call, parent = ("t1", "a1") if result == "r1" else ("t2", "a2")
            file.result(result, parent, call)
        loaded = load_session(file.save(tmp_path))
        restored = restore(loaded)
        done = ["t1", "t2"] if written[0] == "r1" else ["t2", "t1"]
        assert restored.history.messages == (user("go"), calls("t1", "t2"), results(*done))
        assert restored.damage == ()
        assert loaded.last_uuid == written[-1]  # the next entry goes on from the newest


def test_a_result_never_written_is_still_answered_as_lost(tmp_path: Path) -> None:
    file = File()
    file.prompt("u1", None, "go")
    file.call("a1", "u1", "msg_1", "t1")
    file.call("a2", "a1", "msg_1", "t2")
    file.call("a3", "a2", "msg_1", "t3")
    file.result("r2", "a2", "t2")  # t1's and t3's were lost (a disk error)
    file.answer("a4", "r2", "msg_2", "went on")
    restored = restore(load_session(file.save(tmp_path)))
    assert restored.history.messages == (
        user("go"),
        calls("t1", "t2", "t3"),
        results("t2", "t1", "t3", lost=("t1", "t3")),
        answer("went on"),
    )
    assert len(restored.damage) == 1
    assert "2 tool calls without a result answered as 'outcome unknown'" in restored.damage[0]


def test_a_branch_that_is_no_part_of_a_reply_stays_out(tmp_path: Path) -> None:
    file = File()
    file.prompt("u1", None, "go")
    file.call("a1", "u1", "msg_1", "t1")
    file.call("a2", "a1", "msg_1", "t2")
    file.result("r1", "a1", "t1")
    file.result("r2", "a2", "t2")
    file.answer("a3", "r2", "msg_2", "first answer")
    file.prompt("u2", "a3", "an edited prompt")  # edited: a branch of its own from a3
    file.answer("a4", "u2", "msg_3", "to the edited prompt")
    file.prompt("u3", "a3", "the prompt as sent")
    file.answer("a5", "u3", "msg_4", "to the prompt")
    # Another session's entries in the file share nothing with this one's replies.
    file.result("x1", "a1", "t1", session="0ther000-0000-4000-8000-000000000000")
    restored = restore(load_session(file.save(tmp_path)))
    assert restored.history.messages == (
        user("go"),
        calls("t1", "t2"),
        results("t1", "t2"),
        answer("first answer"),
        user("the prompt as sent"),
        answer("to the prompt"),
    )
    assert len(restored.damage) == 2, restored.damage
    assert "2 entries not on the newest branch" in restored.damage[0]
    assert "1 entry of session 0ther000" in restored.damage[1]


def text_and_calls(said: str, *ids: str) -> Message:
    return Message(role="assistant", content=(TextBlock(text=said), *calls(*ids).content))


def test_calls_run_while_their_reply_streamed_are_resumed_as_one_reply(tmp_path: Path) -> None:
    # Claude Code runs each call as soon as its block has streamed: the reply's entries
    # alternate with results on one chain, and it resends them as one reply, then the results.
    file = File()
    file.prompt("u1", None, "go")
    file.answer("a1", "u1", "msg_1", "checking")
    file.call("a2", "a1", "msg_1", "t1")
    file.result("r1", "a2", "t1")
    file.call("a3", "r1", "msg_1", "t2")
    file.result("r2", "a3", "t2")
    file.call("a4", "r2", "msg_1", "t3")
    file.result("r3", "a4", "t3")
    file.answer("a5", "r3", "msg_2", "done")
    loaded = load_session(file.save(tmp_path))
    restored = restore(loaded)
    assert restored.history.messages == (
        user("go"),
        text_and_calls("checking", "t1", "t2", "t3"),
        results("t1", "t2", "t3"),
        answer("done"),
    )
    assert restored.damage == ()
    assert restored.usage == Usage(input_tokens=200, output_tokens=20)
    assert loaded.last_uuid == "a5"


def test_a_call_answered_at_once_then_parallel_branches_is_one_reply(tmp_path: Path) -> None:
    # The first call ran while the reply streamed; the next two were written as branches.
    for newest in ("r2", "r3"):
        file = File()
        file.prompt("u1", None, "go")
        file.call("a1", "u1", "msg_1", "t1")
        file.result("r1", "a1", "t1")
        file.call("a2", "r1", "msg_1", "t2")
        file.call("a3", "a2", "msg_1", "t3")
        other = "r3" if newest == "r2" else "r2"
        for result in (other, newest):
            call, parent = ("t2", "a2") if result == "r2" else ("t3", "a3")
            file.result(result, parent, call)
        loaded = load_session(file.save(tmp_path))
        restored = restore(loaded)
        done = ("t2", "t3") if newest == "r3" else ("t3", "t2")
        assert restored.history.messages == (
            user("go"),
            calls("t1", "t2", "t3"),
            results("t1", *done),
        )
        assert restored.damage == ()
        assert loaded.last_uuid == newest


def test_a_streamed_reply_cut_before_its_last_result_goes_on_from_its_last_call(
    tmp_path: Path,
) -> None:
    file = File()
    file.prompt("u1", None, "go")
    file.call("a1", "u1", "msg_1", "t1")
    file.result("r1", "a1", "t1")
    file.call("a2", "r1", "msg_1", "t2")  # the process ended before t2's result was written
    loaded = load_session(file.save(tmp_path))
    restored = restore(loaded)
    assert restored.history.messages == (
        user("go"),
        calls("t1", "t2"),
        results("t1"),  # t2's result is added as for any call the process ended in
    )
    assert loaded.last_uuid == "a2"  # the next entry goes on from the newest, not from r1


def test_a_prompt_between_entries_of_one_id_keeps_them_apart(tmp_path: Path) -> None:
    # Only results may stand between the entries of one reply: a prompt there is a new turn.
    file = File()
    file.prompt("u1", None, "go")
    file.answer("a1", "u1", "msg_1", "first")
    file.prompt("u2", "a1", "more")
    file.answer("a2", "u2", "msg_1", "second")
    restored = restore(load_session(file.save(tmp_path)))
    assert restored.history.messages == (
        user("go"),
        answer("first"),
        user("more"),
        answer("second"),
    )
