"""Context compaction: micro notes, cut points, the summary round trip, memory, too-long prompts."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest

from tether.core.compaction import (
    EARLIER_PROMPT_MARK,
    SUMMARY_INSTRUCTION,
    SUMMARY_MARK,
    CompactionPolicy,
    append_memory,
    compacted_messages,
    cut_point,
    cut_points,
    is_prompt_too_long,
    load_memory,
    micro_compact,
    needs_compaction,
    plan_cut,
    summarize,
    summary_cut_points,
    summary_request,
)
from tether.core.memory import ENTRY_MARK
from tether.core.shrink import shrink_to_fit
from tether.models.anthropic import AnthropicModel
from tether.models.base import ModelRequest
from tether.protocol import (
    ContentBlock,
    Message,
    ModelError,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from tether.testing import FakeModelServer, reply, text

TOOLS = (
    ToolSpec(
        name="Read",
        description="Read a file.",
        input_schema={"type": "object", "properties": {"file_path": {"type": "string"}}},
    ),
    ToolSpec(
        name="Bash",
        description="Run a command.",
        input_schema={"type": "object", "properties": {"command": {"type": "string"}}},
    ),
)
POLICY = CompactionPolicy(window=200_000)
REMINDER = "<system-reminder>\nThe plan has open items.\n</system-reminder>"


def claude(server: FakeModelServer) -> AnthropicModel:
    return AnthropicModel(model="claude-sonnet-5-5", api_key="test-key", base_url=server.url)


def base_request(messages: tuple[Message, ...] = ()) -> ModelRequest:
    return ModelRequest(
        model="claude-sonnet-5-5", system="You help.", messages=messages, tools=TOOLS
    )


def user(*blocks: ContentBlock) -> Message:
    return Message(role="user", content=blocks)


def assistant(*blocks: ContentBlock) -> Message:
    return Message(role="assistant", content=blocks)


def read_call(call_id: str, path: str) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="Read", input={"file_path": path})


def result(call_id: str, content: str, is_error: bool = False) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error)


def file_text(lines: int) -> str:
    return "".join(f"line {n} of a long file\n" for n in range(lines))


def tool_round(n: int, size: int) -> list[Message]:
    """One assistant turn reading a file, and its result."""
    call_id = f"toolu_{n}"
    return [
        assistant(TextBlock(text=f"Reading file {n}."), read_call(call_id, f"src/f{n}.py")),
        user(result(call_id, file_text(size))),
    ]


def random_history(rng: random.Random) -> list[Message]:
    """A valid transcript: prompts, tool rounds (several calls, reminders, prompts merged
    after results), ending with a user message or an assistant answer."""
    messages = [Message.user_text("prompt 0")]
    call = 0
    for step in range(rng.randint(1, 12)):
        calls = [
            read_call(f"toolu_{call + i}", f"f{call + i}.py") for i in range(rng.randint(0, 3))
        ]
        call += len(calls)
        messages.append(assistant(TextBlock(text=f"step {step}"), *calls))
        if calls:
            blocks: list[ContentBlock] = [result(c.id, "x" * rng.randint(1, 50)) for c in calls]
            if rng.random() < 0.3:
                blocks.append(TextBlock(text=REMINDER))
            if rng.random() < 0.2:
                blocks.append(TextBlock(text=f"prompt after results {step}"))
            messages.append(user(*blocks))
        elif rng.random() < 0.8:
            messages.append(Message.user_text(f"prompt {step + 1}"))
        else:
            break
    return messages


def transcript_problem(messages: tuple[Message, ...] | list[Message]) -> str | None:
    """Why the API would refuse this transcript, if it would."""
    if not messages or messages[0].role != "user":
        return "first message is not from the user"
    for before, after in itertools.pairwise(messages):
        if before.role == after.role:
            return "roles do not alternate"
    for index, message in enumerate(messages):
        results = [r.tool_use_id for r in message.tool_results()]
        asked = [u.id for u in messages[index - 1].tool_uses()] if index else []
        if set(results) - set(asked):
            return f"orphan tool result in message {index}"
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message.tool_uses() and following is not None:
            answered = {r.tool_use_id for r in following.tool_results()}
            if {u.id for u in message.tool_uses()} - answered:
                return f"unanswered tool use in message {index}"
        kinds = [isinstance(b, ToolResultBlock) for b in message.content]
        if kinds != sorted(kinds, reverse=True):
            return f"tool results not first in message {index}"
    return None


# --- micro-compaction ---------------------------------------------------------------------


def test_old_bulky_results_become_notes_and_recent_ones_stay_whole() -> None:
    history = [Message.user_text("read them all")]
    for n in range(8):
        history += tool_round(n, 200)
    sent = micro_compact(history, POLICY)
    assert len(sent) == len(history)
    assert transcript_problem(sent) is None
    first = sent[2].tool_results()[0]
    assert first == ToolResultBlock(
        tool_use_id="toolu_0",
        content=(
            "[Read of src/f0.py, 200 lines / 4,690 characters, omitted from context to save "
            "space; call Read again if needed]"
        ),
    )
    # Eight turns, at least four kept whole: the boundary moves in fours, so 0..3 are noted.
    assert sent[8].tool_results()[0].content.startswith("[Read of src/f3.py")
    assert sent[9:] == tuple(history[9:])
    assert sent[1] == history[1]


def test_small_results_and_errors_flags_survive() -> None:
    history = [Message.user_text("go")]
    history += [
        assistant(ToolUseBlock(id="toolu_a", name="Bash", input={"command": "make  test\n-j4"})),
        user(result("toolu_a", "E" * 3000, is_error=True), TextBlock(text=REMINDER)),
        assistant(read_call("toolu_b", "a.py")),
        user(result("toolu_b", "short")),
    ]
    sent = micro_compact(history, CompactionPolicy(window=1000, micro_keep_recent=1))
    assert sent[2] == user(
        result(
            "toolu_a",
            "[Bash of make test -j4, 1 lines / 3,000 characters, omitted from context to save "
            "space; call Bash again if needed]",
            is_error=True,
        ),
        TextBlock(text=REMINDER),
    )
    assert sent[4] == history[4]


def test_notes_are_stable_as_the_history_grows() -> None:
    history = [Message.user_text("read them all")]
    earlier: tuple[Message, ...] = ()
    prefix_changes = 0
    for n in range(12):
        history += tool_round(n, 150)
        sent = micro_compact(history, POLICY)
        assert micro_compact(history, POLICY) == sent
        assert transcript_problem(sent) is None
        for index, before in enumerate(earlier):
            if before != history[index]:
                assert sent[index] == before, f"round {n} changed a note in message {index}"
            elif sent[index] != before:
                assert sent[index].tool_results()[0].content.startswith("[Read of")
        if sent[: len(earlier)] != earlier:
            prefix_changes += 1
        earlier = sent
    notes = [r.content for m in earlier for r in m.tool_results() if r.content.startswith("[Read")]
    assert len(notes) == 8
    # The boundary moves four turns at a time: the sent prefix changed twice in twelve rounds.
    assert prefix_changes == 2


def test_calls_no_longer_in_the_messages_are_named_from_the_map() -> None:
    history = [
        user(result("toolu_gone", "y" * 2500), TextBlock(text="continue")),
        assistant(TextBlock(text="ok")),
        Message.user_text("next"),
        assistant(TextBlock(text="done")),
    ]
    policy = CompactionPolicy(window=1000, micro_keep_recent=1)
    sent = micro_compact(history, policy, tool_names={"toolu_gone": ("Grep", {"pattern": "TODO"})})
    assert sent[0].tool_results()[0].content.startswith("[Grep of TODO, 1 lines / 2,500 char")


# --- cut points -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(200))
def test_cut_points_never_split_a_tool_exchange(seed: int) -> None:
    history = random_history(random.Random(seed))
    assert transcript_problem(history) is None
    for cut in cut_points(history):
        prefix, tail = history[:cut], history[cut:]
        asked = {u.id for m in prefix for u in m.tool_uses()}
        assert asked == {r.tool_use_id for m in prefix for r in m.tool_results()}
        assert not asked & {r.tool_use_id for m in tail for r in m.tool_results()}
        compacted = compacted_messages(history, cut, "Summary.", plan=None)
        assert transcript_problem(compacted) is None, (seed, cut)
    for keep in (1, 2, 3):
        cut = cut_point(history, keep)
        points = summary_cut_points(history)
        assert cut == (points[-keep] if len(points) >= keep else None)
    for cut in summary_cut_points(history):
        # The newest message stays whole behind the summary: a History can take the view.
        compacted = compacted_messages(history, cut, "Summary.", plan=None)
        assert compacted[-1] is history[-1], (seed, cut)


def test_cut_point_before_a_prompt_or_after_answering_results() -> None:
    history = [
        Message.user_text("first"),
        *tool_round(1, 3),
        assistant(TextBlock(text="done")),
        Message.user_text("second"),
        *tool_round(2, 3),
    ]
    assert cut_points(history) == [1, 3, 4, 5]
    assert cut_point(history, 1) == 5
    assert cut_point(history, 2) == 4
    assert cut_point([Message.user_text("only")], 1) is None
    assert cut_point(history, 4) == 1
    assert cut_point(history, 5) is None


def test_plan_cut_keeps_fewer_exchanges_when_they_do_not_fit_the_target() -> None:
    history = [Message.user_text("go"), *tool_round(1, 5), *tool_round(2, 5), *tool_round(3, 500)]
    policy = CompactionPolicy(window=10_000, keep_recent_exchanges=3)
    assert plan_cut(history, policy, context_tokens=1_000) == 1
    # The huge last result alone is most of 9,000 tokens: over the 4,000 target, so one kept.
    assert plan_cut(history, policy, context_tokens=9_000) == 5
    assert plan_cut([Message.user_text("go")], policy, context_tokens=9_000) is None


def test_needs_compaction_uses_the_measured_context() -> None:
    policy = CompactionPolicy(window=1000)
    assert not needs_compaction(None, policy)
    assert not needs_compaction(Usage(input_tokens=10, cache_read_input_tokens=839), policy)
    assert needs_compaction(Usage(input_tokens=10, cache_read_input_tokens=840), policy)


# --- compacted transcript -------------------------------------------------------------------


def test_compacted_messages_carry_prompts_summary_and_plan() -> None:
    history = [
        Message.user_text("Fix the bug in parser.py; do not touch tests."),
        *tool_round(1, 3),
        assistant(TextBlock(text="Fixed.")),
        user(TextBlock(text="Now add a test.")),
        *tool_round(2, 3),
    ]
    history[2] = user(*history[2].content, TextBlock(text=REMINDER))
    out = compacted_messages(history, 5, "## Next step\nRun the tests.", plan="◐ Add a test")
    assert out[0].role == "user"
    texts = [b.text for b in out[0].content if isinstance(b, TextBlock)]
    assert SUMMARY_MARK in texts[0]
    assert "Run the tests." in texts[0]
    assert texts[1:] == [
        EARLIER_PROMPT_MARK + "Fix the bug in parser.py; do not touch tests.",
        EARLIER_PROMPT_MARK + "Now add a test.",
        "[Plan state at compaction]\n◐ Add a test",
    ]
    assert out[1:] == tuple(history[5:])
    # A second compaction carries the earlier prompts again, not the earlier summary.
    again = [*out, assistant(TextBlock(text="Added.")), Message.user_text("Thanks, commit it.")]
    second = compacted_messages(again, len(again) - 1, "Second summary.", plan=None)
    assert [b.text for b in second[0].content if isinstance(b, TextBlock)][1:] == [
        EARLIER_PROMPT_MARK + "Fix the bug in parser.py; do not touch tests.",
        EARLIER_PROMPT_MARK + "Now add a test.",
        "Thanks, commit it.",
    ]
    assert len(second) == 1
    with pytest.raises(ValueError, match="not a point"):
        compacted_messages(history, 2, "x", plan=None)


async def test_compacted_transcripts_are_accepted_over_the_wire(
    fake_model: FakeModelServer,
) -> None:
    model = claude(fake_model)
    histories = [random_history(random.Random(seed)) for seed in range(12)]
    cases = [
        compacted_messages(h, cut, "Summary of the work.", plan="☐ Next")
        for h in histories
        for cut in cut_points(h)[-2:]
    ]
    fake_model.script(*[text("ok") for _ in cases])
    try:
        for messages in cases:
            request = base_request(messages)
            if messages[-1].role == "assistant":
                request = summary_request(request, messages, None)
            assert await summarize(model, request) == "ok"
    finally:
        await model.aclose()
    assert fake_model.rejections == []
    assert len(fake_model.requests) == len(cases)


# --- summary round trip ---------------------------------------------------------------------


def test_summary_request_reuses_the_prefix_and_appends_the_instruction() -> None:
    ends_with_results = [Message.user_text("go"), *tool_round(1, 3)]
    base = base_request(tuple(ends_with_results))
    request = summary_request(base, ends_with_results, "focus on the parser")
    assert (request.model, request.system, request.tools) == (base.model, base.system, TOOLS)
    assert request.messages[:-1] == tuple(ends_with_results[:-1])
    last = request.messages[-1]
    assert last.content[:-1] == ends_with_results[-1].content
    instruction = last.content[-1]
    assert isinstance(instruction, TextBlock)
    assert instruction.text.startswith(SUMMARY_INSTRUCTION)
    assert instruction.text.endswith("focus on: focus on the parser")
    for section in ("User requests and constraints", "Decisions", "Files touched"):
        assert f"## {section}" in SUMMARY_INSTRUCTION
    ends_with_answer = [*ends_with_results, assistant(TextBlock(text="Done."))]
    request = summary_request(base, ends_with_answer, None)
    assert request.messages == (*ends_with_answer, Message.user_text(SUMMARY_INSTRUCTION))


async def test_summarize_over_the_wire(fake_model: FakeModelServer) -> None:
    history = [Message.user_text("go"), *tool_round(1, 3)]
    fake_model.script(reply(text("## Decisions\n"), text("Use the parser.\n")))
    model = claude(fake_model)
    try:
        summary = await summarize(model, summary_request(base_request(), history, None))
    finally:
        await model.aclose()
    assert summary == "## Decisions\nUse the parser."
    sent = fake_model.requests[0]
    assert sent.system() == "You help."
    assert [t["name"] for t in sent.body["tools"]] == ["Read", "Bash"]
    assert sent.last_user_text().startswith(SUMMARY_INSTRUCTION[:40])


async def test_summarize_without_text_is_a_model_error(fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text(" ")))
    model = claude(fake_model)
    try:
        with pytest.raises(ModelError):
            await summarize(model, summary_request(base_request(), [Message.user_text("go")], None))
    finally:
        await model.aclose()


# --- too long -------------------------------------------------------------------------------


async def test_prompt_too_long_is_recognised_from_the_real_400() -> None:
    with FakeModelServer(context_window=500) as server:
        model = claude(server)
        request = base_request((Message.user_text("word " * 3000),))
        try:
            with pytest.raises(ModelError) as caught:
                await summarize(model, request)
        finally:
            await model.aclose()
        assert len(server.rejections) == 1
    assert caught.value.status == 400
    assert is_prompt_too_long(caught.value)
    assert not is_prompt_too_long(
        ModelError("rejected (HTTP 400): tools: Field required", status=400)
    )
    assert not is_prompt_too_long(ModelError("overloaded: prompt is too long", status=529))
    # A request too large in bytes is not a prompt too long (before: cut, compacted, resent).
    assert not is_prompt_too_long(ModelError("Request exceeds the maximum bytes", status=413))
    openai_message = "This model's maximum context length is 500 tokens. However, ..."
    assert is_prompt_too_long(ModelError(openai_message, status=400))


def test_shrink_to_fit_cuts_the_biggest_blocks_of_any_kind() -> None:
    big_input = {"file_path": "src/a.py", "content": "x" * 50_000, "more": [{"y": "y" * 30_000}]}
    history = [
        Message.user_text("go " * 10_000),
        assistant(
            TextBlock(text="z" * 40_000), ToolUseBlock(id="t1", name="Write", input=big_input)
        ),
        Message(role="user", content=(ToolResultBlock(tool_use_id="t1", content="r" * 60_000),)),
        assistant(TextBlock(text="small, kept whole")),
    ]

    def size(message: Message) -> int:
        return len(message.model_dump_json())

    shrunk, fits = shrink_to_fit(history, size, 20_000)
    assert fits
    assert 15_000 < sum(size(m) for m in shrunk) <= 20_000  # about the largest cap that fits
    assert transcript_problem(shrunk) is None
    assert shrunk[3] is history[3]
    [call] = shrunk[1].tool_uses()
    assert (call.id, call.input["file_path"]) == ("t1", "src/a.py")
    for text_of in (
        lambda m: m[0].text(),
        lambda m: m[1].text(),
        lambda m: m[1].tool_uses()[0].input["content"],
        lambda m: m[1].tool_uses()[0].input["more"][0]["y"],
        lambda m: m[2].tool_results()[0].content,
    ):
        cut, whole = text_of(shrunk), text_of(history)
        assert "characters cut here" in cut
        assert cut.startswith(whole[:100])
        assert cut.endswith(whole[-50:])
    assert shrink_to_fit(shrunk, size, 20_000) == (shrunk, True)
    # Past cutting every string: the exchange folds into notes (see test_fold_calls.py).
    folded, fits = shrink_to_fit(history, size, 1_000)
    assert fits
    assert not folded[1].tool_uses()
    assert transcript_problem(folded) is None
    assert shrink_to_fit(history, size, 100)[1] is False


# --- memory ---------------------------------------------------------------------------------


def test_memory_appends_and_keeps_the_newest_under_the_cap(tmp_path: Path) -> None:
    path = tmp_path / ".tether" / "memory.md"
    assert load_memory(path) == ""
    for n in range(10):
        append_memory(
            path, f"Summary number {n}.\n" + "detail " * 40, cap_chars=1200, when=f"day {n}"
        )
    memory = load_memory(path)
    assert len(memory) <= 1200
    assert "Summary number 9." in memory
    assert "Summary number 0." not in memory
    kept = [n for n in range(10) if f"Summary number {n}." in memory]
    assert kept == list(range(10 - len(kept), 10))
    assert memory.count(ENTRY_MARK) == len(kept)
    assert "## Session summary, day 9" in memory
    no_temp_file = [".gitignore", "memory.md"]
    assert sorted(p.name for p in path.parent.iterdir()) == no_temp_file


def test_memory_keeps_the_users_own_preamble(tmp_path: Path) -> None:
    path = tmp_path / "memory.md"
    path.write_text("# Notes\nAlways use tabs.\n")
    append_memory(path, "First.", when="monday")
    append_memory(path, "Second.", when="tuesday")
    assert load_memory(path) == (
        f"# Notes\nAlways use tabs.\n\n{ENTRY_MARK}\n## Session summary, monday\n\nFirst.\n\n"
        f"{ENTRY_MARK}\n## Session summary, tuesday\n\nSecond.\n"
    )


def test_memory_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "memory.md"
    append_memory(path, "Kept.", when="monday")
    before = path.read_text()

    def broken_replace(*args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("tether.core.memory.os.replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        append_memory(path, "Lost.", when="tuesday")
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".gitignore", "memory.md"]


def test_memory_entry_over_the_cap_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "memory.md"
    append_memory(path, "z" * 500, cap_chars=100, when="now")
    assert len(load_memory(path)) <= 100
