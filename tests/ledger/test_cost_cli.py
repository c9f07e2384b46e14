"""`tether cost` with what a stranger gives it: a session's first characters (as `events
tail` prints them), an ambiguous or empty one, thousands of sessions, a narrow terminal, a
home it cannot write to."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tether.ledger import LedgerFile

from .conftest import cost, cost_json

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _record(home: Path, sessions: dict[str, float]) -> Path:
    """A ledger with one model call per session, costing what `sessions` says."""
    path = home / "ledger.db"
    ledger = LedgerFile(path)
    with ledger.transaction() as db:
        db.executemany(
            "INSERT INTO model_calls (at, session_id, agent_id, task_id, model, input_tokens, "
            "cache_read_tokens, cache_write_tokens, output_tokens, input_cost, "
            "cache_read_cost, cache_write_cost, output_cost, cost) "
            "VALUES ('2026-12-01T10:00:00.000', ?, 'main', NULL, 'm', 1000, 0, 0, 100, "
            "0, 0, 0, 0, ?)",
            list(sessions.items()),
        )
    ledger.close()
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TETHER_HOME", str(home))
    return home


def test_a_session_is_named_by_its_start_as_events_tail_prints_it(home: Path) -> None:
    _record(home, {"8a8f3b21-aaaa": 1.5, "8a0c4d11-bbbb": 2.0, "77e0a9c3-cccc": 4.0})
    assert cost_json("--by", "session", "--session", "8a8f3b21")["lines"] == [
        {
            "key": "8a8f3b21-aaaa",
            "calls": 1,
            "input_tokens": 1000,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "output_tokens": 100,
            "cost_usd": 1.5,
        }
    ]
    ambiguous = cost("--session", "8a")
    assert (ambiguous.exit_code, ambiguous.stdout) == (2, "")
    assert ambiguous.stderr == (
        "tether cost: --session '8a' is ambiguous: it starts 2 sessions' ids "
        "(8a0c4d11-bbbb, 8a8f3b21-aaaa); give more of it\n"
    )
    empty = cost("--session", "")
    assert (empty.exit_code, empty.stderr) == (
        2,
        "tether cost: --session '': give a session id, or its first characters\n",
    )
    unknown = cost("--session", "ffff")
    assert (unknown.exit_code, unknown.stderr) == (
        1,
        f"tether cost: no session 'ffff' in the cost ledger {home / 'ledger.db'}\n",
    )
    percent = cost("--session", "%")  # not a pattern: SQL's wildcards match only themselves
    assert percent.exit_code == 1


def test_thousands_of_sessions_show_the_most_expensive_and_the_rest_summed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    sessions = {f"{n:08x}-5f0e-4c1a-9a57-3f4a5b6c7d8e": n / 100 for n in range(1, 3001)}
    _record(home, sessions)
    shown = cost("--by", "session")
    assert shown.exit_code == 0, shown.stderr
    assert all(len(row) <= 80 for row in shown.stdout.splitlines())
    table = [
        [cell.strip() for cell in row.split("│")[1:-1]]
        for row in shown.stdout.splitlines()
        if row.startswith("│")
    ]
    assert len(table) == 20 + 2  # the 20 most expensive, the rest, the total
    for row, n in zip(table, range(3000, 2980, -1), strict=False):
        assert row[0].startswith(f"{n:08x}-")  # the most expensive first, its start shown
        assert row[-1] == f"${n / 100:.4f}"  # every figure whole at 80 columns
    rest = sum(range(1, 2981)) / 100
    assert table[20] == ["and 2980 more", "2980", "", "", "", "", f"${rest:.4f}"]
    assert table[21] == ["total", "3000", "", "", "", "", f"${sum(range(1, 3001)) / 100:.4f}"]
    chart = shown.stdout.split("Share of the cost:\n")[1].splitlines()
    assert len(chart) == 21
    assert chart[-1] == f"  and 2980 more (${rest:.4f})"

    body = cost_json("--by", "session", "--limit", "3")
    assert [line["key"][:8] for line in body["lines"]] == ["00000bb8", "00000bb7", "00000bb6"]
    assert (body["more_lines"], round(body["more_usd"], 4)) == (2997, sum(range(1, 2998)) / 100)
    assert len(cost_json("--by", "session", "--limit", "0")["lines"]) == 3000
    bad = cost("--limit", "-1")
    assert bad.exit_code == 2
    assert "must be 0 (all) or more" in bad.stderr


def _cost_process(home: Path, *, as_user: bool = False, no_writes: bool = False) -> str:
    def limits() -> None:
        if as_user and os.geteuid() == 0:  # root writes anywhere: without that power here
            libc = ctypes.CDLL(None, use_errno=True)
            for power in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
                if libc.prctl(PR_CAPBSET_DROP, power, 0, 0, 0) != 0:
                    raise OSError(ctypes.get_errno(), "cannot drop root's file powers")
        if no_writes:  # any write fails, as on a full disk (and no signal for it)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    done = subprocess.run(
        [sys.executable, "-m", "tether", "cost", "--by", "session", "--json"],
        env={**os.environ, "TETHER_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limits,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_ledger_on_a_read_only_home_is_read(home: Path) -> None:
    _record(home, {"s1": 1.0})
    assert not (home / "ledger.db-wal").exists()  # closed: a reader must make its -shm
    home.chmod(0o555)
    try:
        body = json.loads(_cost_process(home, as_user=True))
    finally:
        home.chmod(0o755)
    assert [(line["key"], line["cost_usd"]) for line in body["lines"]] == [("s1", 1.0)]
    assert sorted(p.name for p in home.iterdir()) == ["ledger.db"]


def test_a_ledger_that_cannot_be_written_is_read(home: Path) -> None:
    _record(home, {"s1": 1.0})
    body = json.loads(_cost_process(home, no_writes=True))
    assert [(line["key"], line["cost_usd"]) for line in body["lines"]] == [("s1", 1.0)]


def test_a_key_with_brackets_is_shown_as_text_not_markup(home: Path) -> None:
    _record(home, {"[/x] session": 1.0, "[bold]s": 2.0})
    done = cost("--by", "session")
    assert done.exit_code == 0, done.stderr
    assert "[/x] session" in done.stdout
    assert "[bold]s" in done.stdout


def test_output_tokens_are_whole_numbers_by_tool_and_by_model(home: Path) -> None:
    """A turn's output is shared between its tool calls (1.5 tokens each of 3), but a count
    of tokens is whole: `--json` gave `3.0` by model and `1.5` by tool."""
    ledger = LedgerFile(home / "ledger.db")
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO model_calls (at, session_id, agent_id, task_id, model, input_tokens, "
            "cache_read_tokens, cache_write_tokens, output_tokens, input_cost, "
            "cache_read_cost, cache_write_cost, output_cost, cost) "
            "VALUES ('2026-12-01T10:00:00.000', 's1', 'main', NULL, 'm', 10, 0, 0, 3, "
            "0, 0, 0, 0, 0.25)"
        )
        db.executemany(
            "INSERT INTO tool_calls (session_id, call_id, at, agent_id, task_id, tool, model, "
            "output_tokens, output_cost) "
            "VALUES ('s1', ?, '2026-12-01T10:00:01.000', 'main', NULL, ?, 'm', 1.5, 0.1)",
            [("c1", "Read"), ("c2", "Grep")],
        )
    ledger.close()
    by_model = cost("--by", "model", "--json")
    by_tool = cost("--by", "tool", "--json")
    assert (by_model.exit_code, by_tool.exit_code) == (0, 0), by_model.stderr + by_tool.stderr
    [model_line] = json.loads(by_model.stdout)["lines"]
    tool_lines = json.loads(by_tool.stdout)["lines"]
    assert (model_line["key"], model_line["output_tokens"]) == ("m", 3)
    assert [(line["key"], line["output_tokens"]) for line in tool_lines] == [
        ("Grep", 2),
        ("Read", 2),
    ]
    assert '"output_tokens": 3,' in by_model.stdout, by_model.stdout
    assert '"output_tokens": 2,' in by_tool.stdout, by_tool.stdout
