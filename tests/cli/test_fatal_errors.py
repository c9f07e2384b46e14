"""A fatal model error reaches the user once, on one line: in the REPL, and in headless mode
with and without --verbose."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, http_error
from tether.testing.cli_runner import CliResult

from .repl_terminal import CTRL_D, Terminal

REJECTED = "temperature: range: 0..1"


async def test_repl_prints_a_fatal_error_once(model_env: FakeModelServer, workspace: Path) -> None:
    model_env.script(http_error(400, REJECTED))
    terminal = Terminal()
    code = await terminal.run(workspace, "hello\r" + CTRL_D)
    assert code == 0
    assert terminal.output.count(REJECTED) == 1
    assert f"✗ anthropic rejected the request (HTTP 400) at {model_env.url}: {REJECTED}" in (
        terminal.output
    )


@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_headless_prints_a_fatal_error_once(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], verbose: list[str]
) -> None:
    fake_model.script(http_error(400, REJECTED))
    result = tether("-p", "hello", *verbose)
    assert result.exit_code == 1
    assert result.stderr.count(REJECTED) == 1, result.stderr
    # On one line, whole, wherever stderr goes.
    line = f"anthropic rejected the request (HTTP 400) at {fake_model.url}: {REJECTED}"
    assert line in result.stderr.splitlines()[0]
    assert result.stdout.startswith("API Error: 400 "), result.stdout  # as Claude Code


PAGE = (
    "<html><head><title>502 Bad Gateway</title></head><body>"
    + "<h1>502 Bad Gateway</h1>" * 50
    + "</body></html>"
)


class _GatewayPage(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = PAGE.encode()
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def wrong_url(monkeypatch: pytest.MonkeyPatch, model_env: FakeModelServer) -> Iterator[str]:
    """ANTHROPIC_BASE_URL set to a web server that answers every request with a 502 page."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GatewayPage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_a_wrong_url_answering_an_html_page_gets_one_line(
    wrong_url: str, tether: Callable[..., CliResult], verbose: list[str]
) -> None:
    result = tether("-p", "hello", *verbose)
    assert result.exit_code == 1
    error = (
        f"anthropic had a server error (HTTP 502) at {wrong_url}: "
        'an HTML page titled "502 Bad Gateway"'
    )
    assert "<h1>" not in result.stderr
    # Ten retries (Claude Code's) announced with --verbose only, then the error once.
    assert result.stderr.count(error) == (11 if verbose else 1)
    [last] = [line for line in result.stderr.splitlines() if line.endswith(error)][-1:]
    assert "retry" not in last


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_an_unreachable_endpoint_is_one_line_unless_verbose(
    tether: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
    wire: str,
    verbose: list[str],
    refused_port: int,
) -> None:
    """The README's promise: one line naming the endpoint; the retries before it are progress,
    shown with --verbose."""
    url = f"http://127.0.0.1:{refused_port}"
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")
    if wire == "openai":
        endpoint = f"{url}/v1"
        monkeypatch.setenv("OPENAI_BASE_URL", endpoint)
        model = ["--model", "openai/gpt-4.1"]
    else:
        endpoint = url
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint)
        model = []
    result = tether("-p", "hi", *model, *verbose)
    assert result.exit_code == 1
    error = f"cannot reach {endpoint}: connection refused"
    assert result.stdout == ""
    if verbose:
        retries = [line for line in result.stderr.splitlines() if "Model call failed" in line]
        assert len(retries) == 10, result.stderr  # as Claude Code retries it
        assert result.stderr.count(error) == 11  # in each retry, then once as the error
    else:
        assert result.stderr == f"tether: {error}\n"


def test_an_internal_error_is_printed_once(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault tether does not know (here, in the HTTP library) stops the turn: its first line
    once, not again as the result (the traceback made the two differ)."""
    import httpx2

    async def broken_send(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a fault in the HTTP library")

    monkeypatch.setattr(httpx2.AsyncClient, "send", broken_send)
    result = tether("-p", "hello")
    assert result.exit_code == 1
    assert result.stderr == (
        "tether: internal error: RuntimeError: a fault in the HTTP library\n"
    ), result.stderr
    assert fake_model.requests == []
