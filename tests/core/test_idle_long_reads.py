"""Long legitimate reading that the idle bound must let run to its end, over the wire: a log
read page by page with Read, many numbered files read (with Read or `cat`), two logs paged in
turn with `sed -n`. Each call shows what none did before: new lines, a new path, new numbers
asked; the bound on outputs that only vary (a random word a run) must not take that from them
(measured: the first two stopped at request 131, the third at 132)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import LONG_HUNT, Run, wire_model
from tether.testing import FakeModelServer, reply, text, tool_use

CALLS = LONG_HUNT + 50
"""More calls than the bound on outputs that vary: reached only if they are counted in it."""

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "omega",
    "kappa",
    "sigma",
    "theta",
    "lambda",
    "zeta",
    "iota",
    "rho",
    "tau",
    "phi",
    "chi",
    "psi",
]


def _line(k: int) -> str:
    """A line of text whose words (not only its numbers) differ from page to page."""
    return f"{WORDS[k % 16]} {WORDS[k // 16 % 16]} {WORDS[k // 256 % 16]} {k}\n"


ARGS = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _runs_to_its_end(fake_model: FakeModelServer, tether: Run, calls: list[Any], wire: str) -> None:
    fake_model.script(*(reply(c) for c in calls), reply(text("all read")))
    result = tether(*ARGS, *wire_model(wire))
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["result"] == "all read"
    assert len(fake_model.requests) == len(calls) + 1


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_log_read_page_by_page_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    log = workspace / "build.log"
    log.write_text("".join(_line(k) for k in range(CALLS * 100)))
    pages = [
        tool_use("Read", file_path=str(log), offset=1 + 100 * k, limit=100) for k in range(CALLS)
    ]
    _runs_to_its_end(fake_model, tether, pages, wire)


@pytest.mark.parametrize("tool", ["Read", "cat"])
def test_many_numbered_files_read_one_by_one_run_to_their_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tool: str
) -> None:
    names = [f"migrations/m{k:04d}.py" for k in range(1, CALLS + 1)]
    (workspace / "migrations").mkdir()
    for k, name in enumerate(names):
        (workspace / name).write_text(f"def up():\n    add_column({_line(k)!r})\n")

    def read(name: str) -> Any:
        if tool == "Read":
            return tool_use("Read", file_path=str(workspace / name))
        return tool_use("Bash", command=f"cat {name}")

    _runs_to_its_end(fake_model, tether, [read(n) for n in names], "anthropic")


def test_two_logs_paged_in_turn_with_sed_run_to_their_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    pages = CALLS // 2 + 1
    for name in ("a.log", "b.log"):
        (workspace / name).write_text("".join(name + _line(k) for k in range(pages * 50)))
    calls = [
        tool_use("Bash", command=f"sed -n '{1 + 50 * k},{50 * (k + 1)}p' {name}")
        for k in range(pages)
        for name in ("a.log", "b.log")
    ]
    _runs_to_its_end(fake_model, tether, calls, "anthropic")
