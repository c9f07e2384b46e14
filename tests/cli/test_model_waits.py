"""A silent endpoint through the whole CLI: the idle timeout from the environment or the
settings, the waiting notice headless --verbose prints and the REPL shows, the retry counted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

from .repl_terminal import CTRL_D, Terminal

Run = Callable[..., CliResult]


IDLE_MS = "3000"
"""The idle timeout of the tests whose first answer stalls: it gives up that one, and must not
give up the good answer after it, whose bytes a loaded machine delays (400 ms was too short:
the good answer was given up too, and the next call found no turn scripted)."""


def stall_then_answer(server: FakeModelServer) -> None:
    server.script(reply(text("never said"), stall_after=1), reply(text("Here it is.")))


def test_headless_verbose_prints_the_wait_then_the_retry(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", IDLE_MS)
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    stall_then_answer(fake_model)
    result = tether("-p", "hello", "--verbose")
    assert (result.exit_code, result.stdout) == (0, "Here it is.\n")
    lines = result.stderr.splitlines()
    waiting = [n for n, line in enumerate(lines) if "waiting for the model" in line]
    retried = [n for n, line in enumerate(lines) if "Model call failed" in line]
    assert waiting
    assert len(retried) == 1
    assert max(waiting) < retried[0]
    assert "retried at 0s" not in result.stderr
    assert "retried at 3.0s" in lines[waiting[0]]
    assert "idle timeout" in lines[retried[0]]
    assert len(fake_model.requests) == 2


def test_the_setting_applies_and_the_quiet_headless_shows_the_wait(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    (workspace / ".tether").mkdir()
    # Kept from an untrusted workspace too: a timeout grants nothing.
    (workspace / ".tether" / "settings.json").write_text('{"tether": {"modelIdleTimeoutMs": 3000}}')
    stall_then_answer(fake_model)
    result = tether("-p", "hello")
    assert (result.exit_code, result.stdout) == (0, "Here it is.\n")
    waiting = result.stderr.splitlines()
    # Without --verbose too: a stall is visible while it lasts; the retry it ends in is told
    # by the notice itself ("retried at"), and printed with --verbose only.
    assert waiting
    assert all(
        line.startswith("tether: waiting for the model (") and line.endswith("retried at 3.0s)")
        for line in waiting
    ), waiting


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_stall_with_pings_times_out_says_pings_only_and_counts_the_retry(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, wire: str
) -> None:
    """Keep-alives (a `ping` event, an SSE comment) every 50 ms are no answer: the idle
    timeout still fires, the notice says what arrives, and the retry is counted."""
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", IDLE_MS)
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    model: list[str] = []
    if wire == "openai":
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
        model = ["--model", "openai/gpt-4.1"]
    fake_model.script(
        reply(text("never said"), stall_after=1, stall_pings_s=0.05), reply(text("Here it is."))
    )
    result = tether("-p", "hello", "--verbose", *model)
    assert (result.exit_code, result.stdout) == (0, "Here it is.\n")
    lines = result.stderr.splitlines()
    waiting = [line for line in lines if "waiting for the model" in line]
    assert waiting
    assert all(
        "waiting for the model (pings only, " in line and line.endswith("s; retried at 3.0s)")
        for line in waiting
    ), waiting
    retried = [line for line in lines if "Model call failed" in line]
    assert len(retried) == 1, lines
    assert "sent only keep-alive pings for 3s" in retried[0], retried
    assert len(fake_model.requests) == 2


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf"])
def test_a_bad_timeout_says_what_to_set(
    tether: Run, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", value)
    result = tether("-p", "hello")
    assert result.exit_code == 2
    assert result.stderr == (
        "tether: TETHER_MODEL_IDLE_TIMEOUT_MS must be a number of milliseconds from 1 to "
        f"86,400,000, not {json.dumps(value)}\n"
    )


async def test_the_repl_shows_the_wait_and_recovers(
    model_env: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", IDLE_MS)
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    stall_then_answer(model_env)
    terminal = Terminal()
    assert await terminal.run(workspace, "hello\r" + CTRL_D) == 0
    out = terminal.output
    assert "… waiting for the model (" in out
    assert "⚠ Model call failed (" in out
    assert out.index("… waiting for the model (") < out.index("⚠ Model call failed (")
    assert "Here it is." in out


async def test_the_repl_says_pings_only_while_the_endpoint_only_pings(
    model_env: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", IDLE_MS)
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    model_env.script(
        reply(text("never said"), stall_after=1, stall_pings_s=0.05), reply(text("Here it is."))
    )
    terminal = Terminal()
    assert await terminal.run(workspace, "hello\r" + CTRL_D) == 0
    out = terminal.output
    assert "… waiting for the model (pings only, " in out
    assert out.index("… waiting for the model (pings only, ") < out.index("⚠ Model call failed (")
    assert "Here it is." in out


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_slow_steady_stream_says_it_is_waited_for_once_per_answer(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, wire: str
) -> None:
    """An answer whose events come 1.2 s apart, with a first notice at 1 s of silence: one
    "waiting for the model" line for the answer, not one at every pause (20 lines for one
    trickling answer); it is never given up (the pauses are short of the 4 s timeout)."""
    monkeypatch.setenv("TETHER_MODEL_IDLE_TIMEOUT_MS", "4000")
    model: list[str] = []
    if wire == "openai":
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
        model = ["--model", "openai/gpt-4.1"]
    fake_model.script(reply(text("slowly but surely"), delay_s=1.2))
    result = tether("-p", "hello", *model)
    assert (result.exit_code, result.stdout) == (0, "slowly but surely\n"), result.stderr
    waiting = [line for line in result.stderr.splitlines() if "waiting for the model" in line]
    assert len(waiting) == 1, result.stderr
    assert len(fake_model.requests) == 1
