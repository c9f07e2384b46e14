"""Shared fixtures: the fake model server and env come from the tether pytest plugin."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import pytest

from tether.processes import RUN_MARKER
from tether.testing.cli_runner import CliResult, run_cli


def pytest_configure(config: pytest.Config) -> None:
    """Started in the background by a shell without job control (`cmd &` in a script, as CI
    runners may), pytest inherits SIGINT ignored, and so does every process a test starts: a
    Python child then never turns SIGINT into KeyboardInterrupt, and a test that sends it
    Ctrl+C waits for nothing. A handler here is reset to the default by exec in each child."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    given = getattr(config, "workerinput", {}).get(_SIZE_KEY)
    if isinstance(given, dict):
        _restore_size_variables(cast(dict[str, str | None], given))


_SIZE_KEY = "tether_terminal_size_variables"
_SIZE_VARIABLES = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:  # pytest-xdist's WorkerController
    """pytest imports readline at start, and GNU readline, finding no terminal in a
    pytest-xdist worker, exports COLUMNS=80 and LINES=24 from terminfo: every tether process a
    test starts would then lay out its output for 80 columns. Each worker gets the values the
    run was started with."""
    node.workerinput[_SIZE_KEY] = {name: os.environ.get(name) for name in _SIZE_VARIABLES}


def _restore_size_variables(given: dict[str, str | None]) -> None:
    for name in _SIZE_VARIABLES:
        value = given.get(name)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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
def run_marker_given_back() -> Iterator[None]:
    """A run record started in a test's own process marks the process's environment until it
    is closed (every child carries the mark, and the next start stops what a killed run
    left): one a test leaves open must not mark the children of the tests after it."""
    before = os.environ.get(RUN_MARKER)
    yield
    if before is None:
        os.environ.pop(RUN_MARKER, None)
    else:
        os.environ[RUN_MARKER] = before


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
        yield worker_database(given)
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


def worker_database(url: str) -> str:
    """The URL of one shared Redis server with the database of this pytest-xdist worker: gw0
    gets 1, gw1 gets 2... (a run without workers keeps the one it was given), so tests in
    parallel never see each other's keys. A server has 16 databases unless told otherwise."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    index = int(worker.removeprefix("gw"))
    if index >= 15:
        raise pytest.UsageError(
            f"{REDIS_DATABASES_NOTE}: worker {worker} has no database of its own on {url}"
        )
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{index + 1}"))


REDIS_DATABASES_NOTE = "the test Redis server gives each of at most 15 workers a database"
