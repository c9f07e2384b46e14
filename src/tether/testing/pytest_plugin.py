"""pytest fixtures for testing tether over the wire (registered as the `tether` pytest plugin).

`fake_model` gives a running `FakeModelServer`. Any request it refused (an invalid transcript,
an empty script) fails the test, unless the test set `fake_model.expect_rejections = True`.
`model_env` points the SDKs, and tether, at it through environment variables.
`refused_port` is a port on 127.0.0.1 that refuses every connection for the test's whole run.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tether.testing.loopback import refused_port as refusing
from tether.testing.recorded import RecordedRequest
from tether.testing.server import FakeModelServer

TEST_API_KEY = "test-key"


def rejection_report(rejections: list[RecordedRequest]) -> str:
    """A failure message listing each refused request."""
    lines = [f"FakeModelServer refused {len(rejections)} request(s):"]
    lines.extend(
        f"  #{r.index} {r.wire} {r.path} -> HTTP {r.status}: {r.error}" for r in rejections
    )
    return "\n".join(lines)


# How many rejections the call phase already reported, so teardown reports only later ones.
_REPORTED = pytest.StashKey[int]()


def _unexpected_rejections(item: pytest.Item) -> list[RecordedRequest]:
    funcargs = getattr(item, "funcargs", None)
    server = funcargs.get("fake_model") if isinstance(funcargs, dict) else None
    if not isinstance(server, FakeModelServer) or server.expect_rejections:
        return []
    return list(server.rejections)


@pytest.fixture
def fake_model(request: pytest.FixtureRequest) -> Iterator[FakeModelServer]:
    """A started `FakeModelServer`, stopped after the test.

    A request it refused fails the test, unless the test set `expect_rejections = True`.
    """
    server = FakeModelServer().start()
    try:
        yield server
    finally:
        server.stop()
    late = server.rejections[request.node.stash.get(_REPORTED, 0) :]
    if late and not server.expect_rejections:
        pytest.fail(rejection_report(late), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Fail a test whose requests the fake server refused, as soon as its body has run."""
    try:
        result = yield
    except BaseException as error:
        # The refusals are often why the test failed: show them beside its own error.
        rejections = _unexpected_rejections(item)
        if rejections:
            error.add_note(rejection_report(rejections))
            item.stash[_REPORTED] = len(rejections)
        raise
    rejections = _unexpected_rejections(item)
    item.stash[_REPORTED] = len(rejections)
    if rejections:
        pytest.fail(rejection_report(rejections), pytrace=False)
    return result


@pytest.fixture
def model_env(
    fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> FakeModelServer:
    """Environment pointing both SDKs at `fake_model`, with TETHER_HOME in the test's tmp dir."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_model.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)
    monkeypatch.setenv("TETHER_HOME", str(home))
    for name in _OUTSIDE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    return fake_model


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses every connection until the test ends (an endpoint, a
    store or a hook nobody answers at): held bound, so no other process can take it."""
    with refusing() as port:
        yield port


_OUTSIDE_SETTINGS = (
    "TETHER_MODEL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_MAX_RETRIES",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
)
"""Variables of the developer's shell that would change what a test's session sends."""
