"""Property: whatever prompts a session is given around the window, on an endpoint that counts
more tokens than tether's estimate (the fake server's `token_factor`), every later prompt is
answered, and every resume ends with a request the endpoint accepts.

A prompt the endpoint refuses as too long is taken back (`History.take_back`); one known not
to fit is never sent nor kept. Both wire formats, the real headless CLI (`-p`, `-c`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, RecordedRequest, reply, text
from tether.testing.cli_runner import CliResult, run_cli
from tether.testing.pytest_plugin import TEST_API_KEY

WINDOW = 20_000
TOO_LONG = ("Prompt is too long", "cannot be made to fit", "leave too little room")
"""How a prompt refused before it is sent is said: the prompt, the exchange, or the system
prompt and tools beside it (about half of this window) past what a request may fill."""


@pytest.fixture(scope="module")
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(context_window=WINDOW) as fake:
        fake.responder = lambda _request: reply(text("ok"))
        yield fake


@contextlib.contextmanager
def _environment(server: FakeModelServer, home: Path) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(
        ANTHROPIC_BASE_URL=server.url,
        ANTHROPIC_API_KEY=TEST_API_KEY,
        OPENAI_BASE_URL=server.openai_base_url,
        OPENAI_API_KEY=TEST_API_KEY,
        TETHER_HOME=str(home),
        TETHER_RETRY_DELAY_MS="1",
        TETHER_CONTEXT_WINDOW=str(WINDOW),
    )
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _prompt(index: int, chars: int) -> str:
    return f"prompt {index}: " + "lorem ipsum dolor sit amet " * (chars // 27)


@settings(
    max_examples=int(os.environ.get("TETHER_PROPERTY_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    model=st.sampled_from(["claude-sonnet-4-5", "openai/gpt-4.1"]),
    factor=st.floats(1.05, 1.8),
    sizes=st.lists(st.integers(100, 90_000), min_size=1, max_size=4),
)
# Found refused at the resume's first request, before the estimate learnt from requests as
# sent was kept in the session file (a cut request's usage read against the whole history).
@example(model="openai/gpt-4.1", factor=1.071, sizes=[28461, 39909, 238])
@example(model="claude-sonnet-4-5", factor=1.124, sizes=[31584, 3187, 33664, 19847])
@example(model="claude-sonnet-4-5", factor=1.537, sizes=[21181, 15909])
# The system prompt and tools about half of the window: the prompt is refused before it is sent.
@example(model="openai/gpt-4.1", factor=1.671875, sizes=[100, 6145, 15930])
def test_every_later_prompt_is_answered_and_every_resume_is_accepted(
    server: FakeModelServer, model: str, factor: float, sizes: list[int]
) -> None:
    server.reset()
    server.responder = lambda _request: reply(text("ok"))
    server.token_factor = factor
    with tempfile.TemporaryDirectory() as tmp, _environment(server, Path(tmp) / "home"):
        workspace = Path(tmp) / "ws"
        workspace.mkdir()

        def run(*argv: str, stdin: str = "") -> CliResult:
            flags = ["--cwd", str(workspace), "--model", model]
            return run_cli([*flags, "--permission-mode", "bypassPermissions", *argv], stdin=stdin)

        for index, chars in enumerate(sizes):
            said = _prompt(index, chars)
            resumed = index > 0
            before = len(server.requests)
            result = run(*(["-c"] if resumed else []), "-p", stdin=said)
            if result.exit_code != 0:
                assert any(s in result.stderr for s in TOO_LONG), result.stderr
            else:
                assert result.stdout == "ok\n", result.stderr
            if resumed and result.exit_code == 0:
                _accepted_first(server, before, result)
            before = len(server.requests)
            after = run("-c", "-p", f"small {index}")
            assert (after.exit_code, after.stdout) == (0, "ok\n"), after.stderr
            _accepted_first(server, before, after)
            if result.exit_code != 0:  # taken back: no later request carries it
                assert said[:40] not in server.requests[-1].last_user_text()
        [info] = list_sessions(Path(tmp) / "home", workspace)
        assert not load_session(info.path).warnings


def _accepted_first(server: FakeModelServer, before: int, result: CliResult) -> None:
    """A resumed run's requests (if any): none refused. It estimates as the session it
    resumes did: with the ratio its accepted requests, as sent, and the endpoint's refusals
    taught (both kept in the session file), and its newest reply's usage."""
    sent = server.requests[before:]
    if not sent:
        return
    rejected = {id(r) for r in server.rejections}
    refused = [r for r in sent if id(r) in rejected]
    assert not refused, ([r.error for r in refused], result.stderr)
    last: RecordedRequest = sent[-1]
    assert id(last) not in rejected, (last.error, result.stderr)
