"""Files tether writes into a project that belong to this machine, not the repository: the
`.tether/*.local*` files and the memory file. Like Claude Code with its local settings, tether
keeps them out of git: `.tether/.gitignore` names them (made when tether first writes there,
a missing line added to one the user keeps, nothing else in it touched). One tether made names
itself too (`/.gitignore`), as Claude Code's own ignore files do, so `git status` stays clean;
one the user keeps is theirs to track or not.
"""

from __future__ import annotations

from pathlib import Path

from tether.text_files import read_text_file

LOCAL_PATTERNS = ("*.local*",)
"""Always ignored in `.tether/`, beside the names of the files tether writes there."""

HEADER = "# Written by tether: this machine's files, not the repository's.\n"
SELF = ".gitignore"
"""What an ignore file tether made also names: itself, untracked and so never shown by git."""


def ignore_local_files(directory: Path, *names: str) -> None:
    """Make `directory/.gitignore` ignore `LOCAL_PATTERNS` and `names` (files tether writes
    there); a pattern already listed is left as it is."""
    ignore = directory / ".gitignore"
    try:
        existing = read_text_file(ignore, limit_bytes=1_000_000) or ""
    except OSError:
        return  # not a text file we can read whole: not ours to rewrite
    listed = {line.strip() for line in existing.splitlines()}
    ours = not existing or existing.startswith(HEADER)
    wanted = (*LOCAL_PATTERNS, *(f"/{n}" for n in (*names, *((SELF,) if ours else ()))))
    missing = [p for p in wanted if p not in listed]
    if not missing:
        return
    directory.mkdir(parents=True, exist_ok=True)
    head = existing if not existing or existing.endswith("\n") else existing + "\n"
    ignore.write_text(head + (HEADER if not existing else "") + "\n".join(missing) + "\n")
