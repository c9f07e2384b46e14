"""Compaction as the model meets it: at the threshold, after a too-long prompt, and across
sessions through the memory file."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

INSTRUCTION_MARK = "summar"  # the summary instruction asks for a summary


def _rounds(count: int, *, last_usage: dict[str, int] | None = None) -> list[object]:
    turns: list[object] = [
        reply(tool_use("Bash", command=f"echo round {i}")) for i in range(count - 1)
    ]
    turns.append(reply(tool_use("Bash", command="echo last"), usage=last_usage))
    return turns


def test_compaction_at_the_threshold_keeps_a_valid_request(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    fake_model.script(
        *_rounds(5, last_usage={"input_tokens": 9000, "output_tokens": 20}),  # type: ignore[arg-type]
        reply(text("SUMMARY: echoed five rounds.")),
        reply(text("done")),
    )
    result = tether("-p", "echo five rounds, keep it short")
    assert result.exit_code == 0, result.stderr
    summary_request, after = fake_model.requests[5], fake_model.requests[6]
    assert INSTRUCTION_MARK in summary_request.last_user_text().lower()
    assert summary_request.system() == fake_model.requests[4].system()
    first = str(after.messages()[0]["content"])
    assert "SUMMARY: echoed five rounds." in first
    assert "echo five rounds, keep it short" in first  # the user's words, verbatim
    assert len(after.messages()) < len(fake_model.requests[4].messages())
    assert after.tool_results() == ["last"]  # the newest exchange is kept whole
    memory = (workspace / ".tether" / "memory.md").read_text()
    assert "SUMMARY: echoed five rounds." in memory


def test_memory_from_one_session_appears_in_the_next(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "memory.md").write_text("The tests live in spec/.\n")
    fake_model.script(reply(text("ok")))
    tether("-p", "where are the tests?")
    assert "The tests live in spec/." in fake_model.requests[0].system()


def test_prompt_too_long_compacts_and_retries_once(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "200000")
    too_long = http_error(400, "prompt is too long: 210000 tokens > 200000 maximum")
    fake_model.script(
        *_rounds(5),  # type: ignore[arg-type]
        too_long,
        reply(text("SUMMARY: five rounds.")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert (result.exit_code, result.stdout) == (0, "done\n"), result.stderr
    assert "SUMMARY: five rounds." in str(fake_model.requests[-1].messages()[0]["content"])


async def test_compact_op_summarises_on_demand_with_a_focus(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    from tether.cli.setup import RunOptions, build_session
    from tether.protocol import Compact, ContextCompacted, Notice, StatusChanged, UserInput

    fake_model.script(*_rounds(5), reply(text("five")), reply(text("SUMMARY: manual.")))  # type: ignore[arg-type]
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    try:
        [e async for e in session.submit(UserInput(text="work"))]
        events = [e async for e in session.submit(Compact(focus="the echo commands"))]
    finally:
        await session.aclose()
    assert [type(e) for e in events] == [StatusChanged, StatusChanged, ContextCompacted, Notice]
    assert [(e.status, e.compact_result) for e in events[:2]] == [  # type: ignore[union-attr]
        ("compacting", None),
        (None, "success"),
    ]
    assert events[2].trigger == "manual"  # type: ignore[attr-defined]
    assert "compacted (manual)" in events[3].message  # type: ignore[attr-defined]
    assert "focus on: the echo commands" in fake_model.requests[-1].last_user_text()


def test_long_session_with_bulky_results_stays_inside_the_window(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Old results are sent as notes, so the raw history outgrows the window long before what
    # is sent does: the summary must be asked over what is sent, or it would be too long.
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "12000")
    fake_model.context_window = 12000
    # A file of its own each time: the same Read again and again, each reply compacted away,
    # is a loop the repeat guard ends (nothing new to the turn), not the work measured here.
    for n in range(60):
        (workspace / f"big{n}.txt").write_text(
            "".join(f"line {i}: {'x' * 40}\n" for i in range(200))
        )
    calls = 0

    def answer(request: object) -> object:
        nonlocal calls
        assert hasattr(request, "last_user_text")
        if "is about to be replaced by a summary" in request.last_user_text():  # type: ignore[attr-defined]
            return reply(text(f"Summary: read {calls} big files."))
        calls += 1
        read = tool_use("Read", file_path=f"big{calls}.txt")
        return reply(text("done")) if calls >= 60 else reply(read)

    fake_model.script(*([answer] * 120))  # type: ignore[arg-type]
    # A turn can jump past the window at once (a quarter of it per result): the API's "prompt
    # is too long" then triggers the compaction; those are the only refusals allowed.
    fake_model.expect_rejections = True
    result = tether("-p", "read them one after another", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert calls == 60
    summaries = [r for r in fake_model.requests if "replaced by a summary" in r.last_user_text()]
    assert summaries
    assert {(r.error or "").split(":")[0] for r in fake_model.rejections} <= {"prompt is too long"}


def _without_breakpoints(messages: list[dict[str, object]]) -> list[object]:
    """Messages as sent, minus cache_control (it moves to whichever message is newest)."""
    return [
        {
            **m,
            "content": [
                {k: v for k, v in block.items() if k != "cache_control"}
                for block in m["content"]  # type: ignore[union-attr]
            ]
            if isinstance(m["content"], list)
            else m["content"],
        }
        for m in messages
    ]


def test_a_resumed_session_sends_its_compacted_view_and_keeps_its_plan(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    plan = [
        {"content": "Echo the rounds", "status": "completed", "activeForm": "Echoing"},
        {"content": "Write the report", "status": "in_progress", "activeForm": "Writing"},
    ]
    fake_model.script(
        reply(tool_use("TodoWrite", todos=plan)),
        *_rounds(4, last_usage={"input_tokens": 9000, "output_tokens": 20}),  # type: ignore[arg-type]
        reply(text("SUMMARY: rounds echoed, report next.")),
        reply(text("paused")),
        reply(tool_use("Bash", command="echo writing")),
        reply(text("resumed")),
    )
    tools = ("--tools", "Bash,TodoWrite")  # all of them pass what a 10,000-token window holds
    first = tether("-p", "echo rounds, then report", *tools)
    assert first.exit_code == 0, first.stderr
    compacted = fake_model.requests[6]  # the request after the summary
    assert "SUMMARY: rounds echoed" in str(compacted.messages()[0]["content"])

    again = tether("-c", "-p", "go on", *tools)
    assert again.exit_code == 0, again.stderr
    resumed = fake_model.requests[7]
    # The compacted view as it was before the restart, then the reply and the new prompt.
    before = _without_breakpoints(compacted.messages())
    assert _without_breakpoints(resumed.messages())[: len(before)] == before
    assert len(resumed.messages()) == len(before) + 2
    assert resumed.last_user_text() == "go on"
    # The plan came back from the session file: the open-plan reminder names it again.
    after_tool = fake_model.requests[8].last_user_text()
    assert "Write the report" in after_tool
    assert "system-reminder" in after_tool


def test_the_summary_call_is_counted_in_the_cost(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    fake_model.script(
        *_rounds(3, last_usage={"input_tokens": 9000, "output_tokens": 20}),  # type: ignore[arg-type]
        reply(text("SUMMARY: three rounds.")),
        reply(text("done")),
    )
    result = tether("-p", "echo three rounds", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    usage = result.json()["usage"]
    sent = [r.usage for r in fake_model.requests]
    assert usage["output_tokens"] == sum(u["output_tokens"] for u in sent)  # type: ignore[index]
    assert usage["input_tokens"] == sum(u["input_tokens"] for u in sent)  # type: ignore[index]


async def test_a_manual_compaction_can_be_interrupted(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    import threading

    from tether.cli.setup import RunOptions, build_session
    from tether.protocol import Compact, Notice, UserInput

    asked, release = threading.Event(), threading.Event()

    def slow_summary(_request: object) -> object:
        asked.set()
        release.wait(10)
        return reply(text("SUMMARY: too late."))

    fake_model.script(*_rounds(5), reply(text("five")), slow_summary, reply(text("next")))  # type: ignore[arg-type]
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    try:
        [e async for e in session.submit(UserInput(text="work"))]
        before = session._history.view()  # pyright: ignore[reportPrivateUsage]
        events: list[object] = []

        async def compact() -> None:
            events.extend([e async for e in session.submit(Compact())])

        task = asyncio.create_task(compact())
        await asyncio.to_thread(asked.wait, 10)
        assert session.busy
        session.interrupt()
        await task
        release.set()
        assert events == [Notice(level="warning", message="compaction interrupted")]
        assert session._history.view() == before  # pyright: ignore[reportPrivateUsage]
        [e async for e in session.submit(UserInput(text="go on"))]
    finally:
        release.set()
        await session.aclose()
    assert "SUMMARY" not in str(fake_model.requests[-1].messages())
