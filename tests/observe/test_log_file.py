"""The log's files: whole lines from several processes at once, rotation by size, nothing lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tether.observe.log_file import AppendFile
from tether.observe.records import log_files

WRITER = """
import sys
from pathlib import Path
from tether.observe.log_file import AppendFile

path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
log = AppendFile(path, max_bytes=20_000, keep=10_000)
def line(n):
    return f'{{"w":"{name}","n":{n},"pad":"{"x" * (n % 90)}"}}'
for start in range(0, count, 7):
    log.append([line(n) for n in range(start, min(start + 7, count))])
log.close()
"""


def test_processes_appending_at_once_lose_and_tear_no_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / "events" / "events.jsonl"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{i}", "1500"])
        for i in range(4)
    ]
    for writer in writers:
        assert writer.wait() == 0
    files = log_files(home)
    assert len(files) > 10  # rotated many times while all four wrote
    seen: dict[str, list[int]] = {}

    for file in files:
        for line in file.read_text().splitlines():
            record = json.loads(line)  # a torn line would not parse
            assert record["pad"] == "x" * (record["n"] % 90)
            seen.setdefault(record["w"], []).append(record["n"])
    assert {name: sorted(ns) for name, ns in seen.items()} == {
        f"w{i}": list(range(1500)) for i in range(4)
    }
    for name, numbers in seen.items():  # each writer's lines in order, oldest file first
        assert numbers == sorted(numbers), name


def test_rotation_keeps_the_newest_files(tmp_path: Path) -> None:
    path = tmp_path / "events" / "events.jsonl"
    log = AppendFile(path, max_bytes=100, keep=2)
    for n in range(10):
        log.append([f"line {n:02d} " + "x" * 40])
    log.close()
    names = [p.name for p in log_files(tmp_path)]
    assert names == ["events.2.jsonl", "events.1.jsonl", "events.jsonl"]
    texts = [p.read_text().splitlines() for p in log_files(tmp_path)]
    assert [line[:7] for lines in texts for line in lines] == [
        f"line {n:02d}" for n in range(4, 10)
    ]


def test_a_file_rotated_by_another_writer_is_left_for_the_new_one(tmp_path: Path) -> None:
    path = tmp_path / "events" / "events.jsonl"
    first, second = AppendFile(path, max_bytes=70), AppendFile(path, max_bytes=70)
    first.append(["a" * 30])
    second.append(["b" * 30])  # full now: the next line rotates
    second.append(["c" * 30])
    first.append(["d" * 30])  # its descriptor is on the rotated file: it reopens the path
    for log in (first, second):
        log.close()
    assert [p.read_text() for p in log_files(tmp_path)] == [
        "a" * 30 + "\n" + "b" * 30 + "\n",
        "c" * 30 + "\n" + "d" * 30 + "\n",
    ]


def test_a_line_cut_short_before_is_not_glued_to_the_next(tmp_path: Path) -> None:
    # A full disk or a writer killed mid-write leaves the last line without its newline: the
    # next writer (another process, or this one after the failed write) starts a line of its own.
    path = tmp_path / "events.jsonl"
    path.write_text('{"kind": "whole"}\n{"kind": "cut sh')
    log = AppendFile(path)
    log.append(['{"kind": "next"}'])
    log.close()
    assert path.read_text().splitlines()[-1] == '{"kind": "next"}'


FULL = """
import resource, signal, sys
from pathlib import Path
from tether.observe.log_file import AppendFile

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit: EFBIG, as ENOSPC on a full disk
log = AppendFile(Path(sys.argv[1]))
log.append(['{"kind": "first"}'])
sys.dont_write_bytecode = True  # no bytecode cut short by the limit in the shared cache
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
for n in range(3):
    try:
        log.append(['{"kind": "big", "pad": "' + "x" * 300 + '"}'])  # written in part, then fails
    except OSError:
        pass
    try:
        log.append(['{"kind": "small"}'])
    except OSError:
        pass
log.close()
"""


def test_a_batch_the_disk_takes_in_part_leaves_whole_lines_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    subprocess.run([sys.executable, "-c", FULL, str(path)], check=True)
    lines = path.read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["first", "small", "small", "small"]
