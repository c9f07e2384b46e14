"""An attempt the model call gives up (the endpoint stalled mid-answer) and tries again, as a
user sees it: the partial text it streamed is withdrawn from the REPL's screen (the session
keeps none of it), a plain output marks it abandoned, and the footer counts every call."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

PARTIAL = "PARTIAL_ONE " * 3


def stall_twice_then_answer(server: FakeModelServer) -> None:
    """Two attempts that stream some text and then fall silent, then the answer."""
    server.script(
        reply(text(PARTIAL), stall_after=4),
        reply(text(PARTIAL), stall_after=4),
        reply(text("FINAL_ANSWER")),
    )


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", "500")
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


@pytest.mark.timeout(90)
@pytest.mark.usefixtures("quick_retries")
def test_the_repl_withdraws_an_abandoned_attempts_text_and_counts_every_call(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    stall_twice_then_answer(model_env)
    repl = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("> ")
        repl.send("hello\r")
        footer = repl.wait_shown(" model call")  # the turn's footer
        shown = repl.lines
    finally:
        repl.close()
    assert len(model_env.requests) == 3
    assert not [line for line in shown if "PARTIAL" in line], "\n".join(shown)
    assert sum("FINAL_ANSWER" in line for line in shown) == 1, "\n".join(shown)
    retries = [line for line in shown if "Model call failed" in line]
    assert len(retries) == 2, "\n".join(shown)
    # Each attempt's text reached the live region (whether a frame drew it is the refresh's
    # timing), and was withdrawn from it: the retry's line says so (it wraps at 120 columns).
    said = "".join(shown).replace(" ", "")
    assert said.count("itspartialreplywaswithdrawn;retrying") == 2, "\n".join(shown)
    # Three calls were made: two given up, one answered.
    assert "3 model calls (2 given up and retried)" in footer, footer


@pytest.mark.usefixtures("quick_retries")
def test_headless_verbose_marks_the_abandoned_text_and_prints_only_the_answer(
    fake_model: FakeModelServer, tether: Run
) -> None:
    """`-p` prints the answer alone; --verbose streams the attempts' text to stderr as it
    comes, where it cannot be taken back: each abandoned one is marked so, after its text."""
    stall_twice_then_answer(fake_model)
    result = tether("-p", "hello", "--verbose")
    assert (result.exit_code, result.stdout) == (0, "FINAL_ANSWER\n")
    lines = result.stderr.splitlines()
    partial = [n for n, line in enumerate(lines) if "PARTIAL_ONE" in line]
    marked = [n for n, line in enumerate(lines) if "the partial reply above is discarded" in line]
    assert len(partial) == 2, lines
    assert len(marked) == 2, lines
    assert partial[0] < marked[0] < partial[1] < marked[1], lines
    assert lines[-1].startswith("─ 3 model calls (2 given up and retried)"), lines


@pytest.mark.usefixtures("quick_retries")
def test_stream_json_voids_an_abandoned_attempt_with_its_api_retry_line(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """What a stream-json client reads: a block that closed before the stall was sent as an
    assistant line (as Claude Code sends each block as it closes); the `api_retry` line after
    it voids it, the answer comes as another message, and the session file holds none of
    the abandoned attempt."""
    fake_model.script(
        reply(text("ABANDONED_BLOCK"), tool_use("Bash", command="echo hi"), stall_after=6),
        reply(text("FINAL_ANSWER")),
    )
    prompt = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
    result = tether(
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
        stdin=prompt + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    said = [
        (line["type"], line.get("subtype"), line.get("message", {}).get("content"))
        for line in lines
        if line["type"] in ("assistant", "result") or line.get("subtype") == "api_retry"
    ]
    assert said == [
        ("assistant", None, [{"type": "text", "text": "ABANDONED_BLOCK"}]),
        ("system", "api_retry", None),
        ("assistant", None, [{"type": "text", "text": "FINAL_ANSWER"}]),
        ("result", "success", None),
    ]
    abandoned, answer = [line for line in lines if line["type"] == "assistant"]
    assert abandoned["message"]["id"] != answer["message"]["id"]
    assert [line["result"] for line in lines if line["type"] == "result"] == ["FINAL_ANSWER"]
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    saved = info.path.read_text()
    assert "ABANDONED_BLOCK" not in saved
    assert abandoned["uuid"] not in saved
    assert answer["uuid"] in saved
