"""Shared fixtures: the fake model server and env come from the tether pytest plugin."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tether.testing.cli_runner import CliResult, run_cli


def pytest_configure(config: pytest.Config) -> None:
    """Started in the background by a shell without job control (`cmd &` in a script, as CI
    runners may), pytest inherits SIGINT ignored, and so does every process a test starts: a
    Python child then never turns SIGINT into KeyboardInterrupt, and a test that sends it
    Ctrl+C waits for nothing. A handler here is reset to the default by exec in each child."""
    del config
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A user's home directory of the test's own, beside the workspace."""
    path = tmp_path / "user-home"  # not "home": model_env puts TETHER_HOME there
    path.mkdir()
    return path


@pytest.fixture
def trusted_workspace(model_env: object, workspace: Path) -> Path:
    """The workspace, trusted by the user (recorded under TETHER_HOME, as the REPL's yes is):
    for tests whose repository's own hooks, servers or allow rules must run."""
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(workspace, True, tether_home=tether_home(), user_home=Path.home())
    return workspace


@pytest.fixture
def tether(model_env: object, workspace: Path) -> Callable[..., CliResult]:
    """Run `tether ARGS` in-process against the fake model, in the test's workspace. Tests of
    the loop run every call (bypassPermissions) unless they choose a mode themselves."""

    def run(*argv: str, stdin: str = "") -> CliResult:
        mode = [] if "--permission-mode" in argv else ["--permission-mode", "bypassPermissions"]
        return run_cli(["--cwd", str(workspace), *mode, *argv], stdin=stdin)

    return run


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests talk to servers they start on loopback; anything else is a bug in the test."""
    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if isinstance(host, str) and not _is_loopback(host):
            raise ConnectionRefusedError(f"tests may not reach {host}: only loopback")
        real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis server's URL: the one `scripts/test` started (`TETHER_TEST_REDIS_URL`),
    else one started here for the session; skipped, saying why, when none can be started."""
    from tether.testing.redis_server import REDIS_URL_ENV, RedisServer, RedisUnavailable

    given = os.environ.get(REDIS_URL_ENV)
    if given:
        yield given
        return
    try:
        server = RedisServer.start()
    except RedisUnavailable as e:
        if os.environ.get("CI") == "true":  # CI installs it: a skip there would hide a gap
            pytest.fail(f"no Redis server for the Redis store's tests: {e}")
        pytest.skip(f"no Redis server for the Redis store's tests: {e}")
    try:
        yield server.url
    finally:
        server.stop()
