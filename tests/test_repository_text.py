"""The repository's own text files carry no merge left unfinished: a conflict's markers in a
README or a settings file are not caught by the linters, and one reached a package's README."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    names = [name for name in listed.decode().split("\0") if name]
    return [ROOT / name for name in names if (ROOT / name).is_file()]


def test_no_file_holds_a_conflict_marker() -> None:
    found: list[str] = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: not text a merge leaves markers in
        if MARKER.search(text):
            found.append(str(path.relative_to(ROOT)))
    assert found == []
