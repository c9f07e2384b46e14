"""Every request fits the window, whatever one response or one tool put in the conversation:
the fake server enforces the window, and no request may be refused as too long."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

WINDOW = 20_000
WIRES = ["claude-sonnet-4-5", "openai/gpt-4.1"]


@pytest.fixture
def small_window(fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW


def _cut(request: RecordedRequest) -> bool:
    return "characters cut here to fit the context window" in str(request.messages())


def answers_then_summaries(*texts: str) -> Callable[[RecordedRequest], object]:
    """Each conversation request gets the next of `texts`; a summary request gets a summary."""
    left = list(texts)

    def answer(request: RecordedRequest) -> object:
        if "is about to be replaced by a summary" in request.last_user_text():
            return reply(text("Summary: a big file was written."))
        return reply(text(left.pop(0)))

    return answer


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("model", WIRES)
def test_a_tool_input_bigger_than_the_window_runs_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    content = "".join(f"line {i}: {'data ' * 12}\n" for i in range(2500))  # ~170k characters
    fake_model.script(reply(tool_use("Write", file_path="big.txt", content=content)))
    fake_model.script(*[answers_then_summaries("written", "still here")] * 6)  # type: ignore[list-item]
    first = tether("-p", "write the big file", "--model", model)
    assert (first.exit_code, first.stdout) == (0, "written\n"), first.stderr
    assert (workspace / "big.txt").read_text() == content  # the call ran with all of it
    assert _cut(fake_model.requests[1])
    again = tether("-c", "-p", "and now?", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "still here\n"), again.stderr
    assert fake_model.requests[-1].last_user_text() == "and now?"


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("model", WIRES)
def test_a_reply_longer_than_the_window_does_not_end_the_session(
    fake_model: FakeModelServer, tether: Run, model: str
) -> None:
    essay = "".join(f"Paragraph {i}. " + "words " * 40 + "\n" for i in range(800))  # ~200k
    fake_model.script(reply(text(essay)), *[answers_then_summaries("short now", "and again")] * 6)  # type: ignore[list-item]
    assert tether("-p", "write an essay", "--model", model).exit_code == 0
    for prompt, answer in (("summarise it", "short now\n"), ("once more", "and again\n")):
        result = tether("-c", "-p", prompt, "--model", model)
        assert (result.exit_code, result.stdout) == (0, answer), result.stderr
        assert fake_model.requests[-1].last_user_text() == prompt
    # The first request after the essay carried it cut; by the next, it was summarised.
    [after_essay] = [r for r in fake_model.requests if r.last_user_text() == "summarise it"]
    assert _cut(after_essay)


def test_summary_requests_fit_a_small_window_with_bulky_results(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 30k window and results of about 6k tokens each: the summary request, asked over
    # what was sent, did not fit (5 of 5 refused). Nothing may be refused now.
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "30000")
    fake_model.context_window = 30000
    for n in range(12):  # about 4k tokens each
        (workspace / f"part{n}.txt").write_text("".join(f"{n}: line {i}\n" for i in range(1600)))
    summaries: list[RecordedRequest] = []
    reads = 0

    def answer(request: RecordedRequest) -> object:
        nonlocal reads
        if "is about to be replaced by a summary" in request.last_user_text():
            summaries.append(request)
            return reply(text(f"Summary: {reads} parts read so far."))
        reads += 1
        if reads > 12:
            return reply(text("read them all"))
        return reply(tool_use("Read", file_path=f"part{reads - 1}.txt"))

    fake_model.script(*([answer] * 40))  # type: ignore[arg-type]
    result = tether("-p", "read every part")
    assert (result.exit_code, result.stdout) == (0, "read them all\n"), result.stderr
    assert summaries, "the window never filled: the test needs bigger parts"
    assert fake_model.rejections == []


def test_a_long_session_never_compacted_resumes_in_a_small_window(
    fake_model: FakeModelServer, tether: Run, workspace: Path, small_window: None
) -> None:
    # 1,500 rounds of small reads: even with every result a note and every block cut short,
    # the summary request of the whole conversation is past the window. Its oldest part is
    # left out of that request (the user's words are carried verbatim all the same).
    from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from tether.store import SessionWriter, project_dir

    home = Path(os.environ["TETHER_HOME"])
    with SessionWriter.create(project_dir(home, workspace), "long", cwd=workspace) as writer:
        writer.user([TextBlock(text="Read every file, one by one.")])
        for n in range(1500):
            call = ToolUseBlock(id=f"toolu_{n}", name="Read", input={"file_path": f"f{n}.py"})
            writer.assistant(Message(role="assistant", content=(call,)), None)
            writer.user([ToolResultBlock(tool_use_id=call.id, content=f"contents of f{n}")])
        writer.assistant(Message(role="assistant", content=(TextBlock(text="Done."),)), None)
    fake_model.script(*[answers_then_summaries("resumed")] * 4)  # type: ignore[list-item]

    result = tether("-c", "-p", "what did you read?")
    assert (result.exit_code, result.stdout) == (0, "resumed\n"), result.stderr
    [summary] = [r for r in fake_model.requests if "replaced by a summary" in r.last_user_text()]
    assert "oldest messages of this conversation are left out" in str(summary.messages())
    assert "Read every file, one by one." in str(fake_model.requests[-1].messages()[0])


@pytest.mark.parametrize("model", WIRES)
def test_a_window_the_endpoint_reported_is_kept_for_the_next_resume(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    """The catalogue says 200k; the endpoint takes 20k and says so when it refuses a request.
    That is learnt once: the session file keeps it, and a resumed session never sends a
    request known to be too long again."""
    fake_model.context_window = WINDOW
    fake_model.expect_rejections = True
    essay = "".join(f"Paragraph {i}. " + "words " * 40 + "\n" for i in range(300))  # ~75k
    fake_model.script(reply(text(essay)), *[answers_then_summaries("short now", "and again")] * 6)  # type: ignore[list-item]
    assert tether("-p", "write an essay", "--model", model).exit_code == 0
    first = tether("-c", "-p", "summarise it", "--model", model)
    assert (first.exit_code, first.stdout) == (0, "short now\n"), first.stderr
    assert len(fake_model.rejections) == 1  # learnt here: the endpoint named its window

    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    kept = [json.loads(line) for line in info.path.read_bytes().splitlines()]
    model_id = model.split("/")[-1]
    assert [(e["model"], e["tokens"]) for e in kept if e["type"] == "window"] == [
        (model_id, WINDOW)
    ]
    again = tether("-c", "-p", "once more", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "and again\n"), again.stderr
    assert len(fake_model.rejections) == 1


STRUCTURED = {
    "a plan of 800 entries": tool_use(
        "TodoWrite",
        todos=[
            {"content": f"step {i}", "status": "pending", "activeForm": "x"} for i in range(800)
        ],
    ),
    "6,000 keys": tool_use("Bash", {"command": "echo hi", **{f"k{i}": "v" for i in range(6000)}}),
    "an array of 12,000 items": tool_use("Bash", command="echo hi", extra=["abcdefghij"] * 12000),
}


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("model", WIRES)
@pytest.mark.parametrize("call", STRUCTURED.values(), ids=list(STRUCTURED))
def test_a_tool_input_too_big_in_its_shape_is_cut_whole_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, model: str, call: object
) -> None:
    """Many small items, not one long string: cutting strings left it past the window, and
    the session could never be resumed ("cannot be made to fit even cut short"). The input is
    now replaced by a note saying so, the call keeps its result, and nothing sent is refused
    (the fixture fails the test on any refusal)."""
    fake_model.script(reply(call), *[answers_then_summaries("done", "still here", "again")] * 8)  # type: ignore[list-item]
    first = tether("-p", "go", "--model", model)
    assert (first.exit_code, first.stdout) == (0, "done\n"), first.stderr
    for prompt, answer in (("and now?", "still here\n"), ("once more", "again\n")):
        result = tether("-c", "-p", prompt, "--model", model)
        assert (result.exit_code, result.stdout) == (0, answer), result.stderr
        assert fake_model.requests[-1].last_user_text() == prompt
    assert "was cut whole to fit the context window" in str(fake_model.requests[1].messages())


@pytest.mark.parametrize(
    ("model", "what"),
    [
        *[(model, what) for model in WIRES for what in ("Bash", "Write", "text")],
        ("claude-sonnet-5-5", "text"),
        ("openai/gpt-5", "Bash"),
    ],
)
def test_megabytes_in_one_block_are_refused_once_at_most_live_or_resumed(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    what: str,
) -> None:
    """One block ten times the window (a tool input or a reply: two megabytes at a 200k
    window, here 200k characters at a 20k one), live and on `-c`. Where the window is known
    (Claude Sonnet 4.5's, here set to the endpoint's), nothing is refused. A model the
    catalogue gives a larger window than this endpoint has (1M, 400k) may be refused once,
    live or on the first resume: the window the endpoint names is kept in the session, and
    nothing is refused after, however often it is resumed."""
    fake_model.context_window = WINDOW
    if model == "claude-sonnet-4-5":
        monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    big = "x" * (10 * WINDOW)
    first = {
        "Bash": reply(tool_use("Bash", command=f"true {big}")),
        "Write": reply(tool_use("Write", file_path="w.txt", content=big)),
        "text": reply(text(big)),
    }[what]
    fake_model.expect_rejections = True
    fake_model.script(first)
    fake_model.script(*[answers_then_summaries("went on", "resumed", "again")] * 9)  # type: ignore[list-item]
    run = tether("-p", "go", "--model", model)
    assert run.exit_code == 0, run.stderr
    again = tether("-c", "-p", "and now?", "--model", model)
    assert again.exit_code == 0, again.stderr
    assert fake_model.requests[-1].last_user_text() == "and now?"
    refused = len(fake_model.rejections)
    assert refused <= (0 if model == "claude-sonnet-4-5" else 1), [
        r.error for r in fake_model.rejections
    ]
    third = tether("-c", "-p", "still?", "--model", model)
    assert third.exit_code == 0, third.stderr
    assert len(fake_model.rejections) == refused


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("model", WIRES)
def test_a_summary_bigger_than_the_window_is_cut_not_taken_for_the_prompt(
    fake_model: FakeModelServer, tether: Run, model: str
) -> None:
    # Compacted mid-turn, the summary is merged before the turn's prompt: the summary is
    # tether's and may be cut; the prompt it stands beside is not, and is not too long.
    long_summary = "Summary: " + "what was done, at length. " * 6000  # ~150k characters
    big_usage = {"input_tokens": WINDOW - 500}
    fake_model.script(
        reply(tool_use("Bash", command="echo one")),
        reply(tool_use("Bash", command="echo two"), usage=big_usage),
        reply(text(long_summary)),
        reply(text("carried on")),
    )
    result = tether("-p", "work", "--model", model, "--permission-mode", "bypassPermissions")
    assert (result.exit_code, result.stdout) == (0, "carried on\n"), result.stderr
    after = fake_model.requests[-1]
    assert "what was done, at length" in str(after.messages())
    assert _cut(after)


@pytest.mark.usefixtures("small_window")
@pytest.mark.parametrize("model", WIRES)
def test_a_batch_of_results_past_the_window_is_fitted_before_it_is_sent(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: str
) -> None:
    """One reply's calls whose results together pass the window, from a prompt far under the
    point where compaction starts: the size is checked before each request, the one that
    carries a batch of results too, so nothing is sent that the endpoint refuses."""
    for n in range(5):  # about 4k tokens each: 20k together, the whole window
        (workspace / f"log{n}.txt").write_text("".join(f"{n} entry {i} ok\n" for i in range(1100)))
    reads = [tool_use("Read", file_path=f"log{n}.txt") for n in range(5)]

    def answer(request: RecordedRequest) -> object:
        if "is about to be replaced by a summary" in request.last_user_text():
            return reply(text("Summary: five logs were read."))
        if request.index == 0:
            return reply(*reads)
        return reply(text("read the logs"))

    fake_model.script(*([answer] * 6))  # type: ignore[arg-type]
    result = tether("-p", "read the logs", "--model", model)
    assert (result.exit_code, result.stdout) == (0, "read the logs\n"), result.stderr
    assert fake_model.rejections == []
