"""`tether events tail`: the last matching records across rotated files, and `-f` following
new ones (through a rotation) in a real process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tether.cli.events_cmd import main
from tether.observe.log_file import AppendFile
from tether.observe.records import EventRecord, log_dir, log_files, parse_record


def record(n: int, session: str, kind: str) -> EventRecord:
    payload = {"message": f"note {n}"} if kind == "notice" else {"text": f"t{n}"}
    return EventRecord(session, "main", None, f"2026-01-01T00:00:{n:02d}.000000Z", kind, payload)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TETHER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _write(home: Path, records: list[EventRecord], max_bytes: int = 600) -> None:
    log = AppendFile(log_dir(home) / "events.jsonl", max_bytes=max_bytes, keep=100)
    for r in records:
        log.append([r.to_json()])
    log.close()


def test_the_last_matching_records_across_rotated_files(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        record(n, "s2-aaaa" if n % 2 else "s1-bbbb", "notice" if n % 3 else "text_delta")
        for n in range(40)
    ]
    _write(home, records)
    assert len(log_files(home)) > 3
    assert main(["tail", "-n", "4", "--session", "s2", "--kind", "notice", "--json"]) == 0
    printed = [parse_record(line) for line in capsys.readouterr().out.splitlines()]
    wanted = [r for r in records if r.session_id == "s2-aaaa" and r.kind == "notice"]
    assert printed == wanted[-4:]
    current = [parse_record(x) for x in log_files(home)[-1].read_text().splitlines()]
    assert wanted[-4] not in current  # found in a rotated file

    assert main(["tail", "-n", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2026-01-01 00:00:38.000  s1-bbbb  main  notice  note 38",
        "2026-01-01 00:00:39.000  s2-aaaa  main  text_delta  t39",
    ]


def test_an_unknown_kind_is_named(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tail", "--kind", "tool_done"]) == 2
    assert "unknown event kind(s) tool_done (known: block_completed," in capsys.readouterr().err


def test_nothing_logged_yet_says_where_it_looked(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tail"]) == 0
    assert capsys.readouterr().err == f"tether events: no matching events in {log_dir(home)}\n"


def test_a_log_folder_that_is_a_file_is_said_not_a_traceback(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home.mkdir(parents=True)
    log_dir(home).write_text("not a folder")
    assert main(["tail"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tether events: cannot read the event log in {log_dir(home)}: ")


def test_follow_prints_new_records_through_a_rotation(home: Path) -> None:
    _write(home, [record(0, "s", "notice")])
    follower = subprocess.Popen(
        [sys.executable, "-m", "tether", "events", "tail", "-f", "-n", "1", "--kind", "notice"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TETHER_HOME": str(home)},
    )
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline().endswith("notice  note 0\n")  # it is reading now
        later = [record(n, "s", "notice" if n % 2 else "text_delta") for n in range(1, 30)]
        _write(home, later, max_bytes=300)  # rotates several times under the follower
        expected = [r for r in later if r.kind == "notice"]
        lines = [follower.stdout.readline() for _ in expected]
        assert [line.rsplit("  ", 1)[-1] for line in lines] == [
            f"{r.payload['message']}\n" for r in expected
        ]
    finally:
        follower.send_signal(signal.SIGINT)
        code = follower.wait(timeout=30)
        if follower.stdout is not None:
            follower.stdout.close()
    assert code == 0


def test_a_session_is_one_session_whatever_its_reference(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(home, [record(n, ("8a8f-1", "8a0c-2", "8a8f")[n % 3], "notice") for n in range(9)])
    assert main(["tail", "--session", "8a8f-"]) == 0  # the start of one id
    assert {line.split()[2] for line in capsys.readouterr().out.splitlines()} == {"8a8f-1"}
    assert main(["tail", "--session", "8a8f"]) == 0  # a whole id, though it starts another
    assert {line.split()[2] for line in capsys.readouterr().out.splitlines()} == {"8a8f"}

    assert main(["tail", "--session", "8a"]) == 2  # several: none shown, the ids named
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "tether events: --session '8a' is ambiguous: it starts 3 sessions' ids "
        "(8a0c-2, 8a8f, 8a8f-1); give more of it\n",
    )
    assert main(["tail", "--session", ""]) == 2
    assert capsys.readouterr().err == (
        "tether events: --session '': give a session id, or its first characters\n"
    )


def test_the_last_records_are_read_from_the_end_of_a_huge_log(home: Path) -> None:
    # 8 GiB of a hole (a sparse file: no disk used) before the last records: reading the log
    # whole cannot fit in the 1 GiB of memory the process is given; reading backwards can.
    current = log_dir(home) / "events.jsonl"
    current.parent.mkdir(parents=True)
    with current.open("wb") as file:
        file.truncate(8 << 30)
    _write(home, [record(n, "s", "notice") for n in range(3)], max_bytes=None)  # type: ignore[arg-type]
    limit = "import resource,sys,runpy; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            limit + "sys.argv=['tether','events','tail','-n','2'];"
            "runpy.run_module('tether', run_name='__main__')",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "TETHER_HOME": str(home)},
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [line.rsplit("  ", 1)[-1] for line in result.stdout.splitlines()] == [
        "note 1",
        "note 2",
    ]


def test_follow_starts_again_when_the_log_is_emptied_in_place(home: Path) -> None:
    _write(home, [record(0, "s" * 200, "notice")], max_bytes=None)  # type: ignore[arg-type]
    follower = subprocess.Popen(
        [sys.executable, "-m", "tether", "events", "tail", "-f", "-n", "1"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TETHER_HOME": str(home)},
    )
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline().endswith("note 0\n")  # it is reading now
        current = log_dir(home) / "events.jsonl"
        with current.open("r+b") as file:
            file.truncate(0)  # as `: > events.jsonl` does: the same file, emptied
        # shorter than what was read: the follower sees the file is smaller than its place
        _write(home, [record(1, "s", "notice")], max_bytes=None)  # type: ignore[arg-type]
        assert follower.stdout.readline().endswith("note 1\n")
    finally:
        follower.send_signal(signal.SIGINT)
        code = follower.wait(timeout=30)
        if follower.stdout is not None:
            follower.stdout.close()
    assert code == 0
