"""The lines a shell command shows of the files it names (`headway_file_lines.FileLines`): found
by text and number, for more files than it keeps indexed at once."""

from __future__ import annotations

from pathlib import Path

from tether.core.headway_file_lines import INDEXED_FILES, FileLines


def test_a_file_evicted_from_the_index_is_read_again_when_named(tmp_path: Path) -> None:
    files = [tmp_path / f"log{k}.txt" for k in range(INDEXED_FILES + 2)]
    for k, path in enumerate(files):
        path.write_text(f"first of {k}\nsecond of {k}\n")
    lines = FileLines()
    shown = {
        path.name: list(lines.places(str(path), (k, b""), f"2:second of {k}\n"))
        for k, path in enumerate(files)
    }
    again = list(lines.places(str(files[0]), (0, b""), "first of 0\nsecond of 0\n"))
    assert shown == {path.name: [(str(path), 2)] for path in files}
    assert again == [(str(files[0]), 1), (str(files[0]), 2)]
