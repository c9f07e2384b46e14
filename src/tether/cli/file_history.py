"""The file checkpoints of a session kept beside its session file, so that a rewind (the SDK's
`rewind_files`, the REPL's Esc Esc) reaches a prompt made before a resume, as Claude Code's file
history does: after each prompt's turn, what the files that turn changed held when it began.

`<session>/file-history/index.jsonl` lists the prompts in order (`{"uuid", "files": {path:
blob or null}, "text"?}`, null: the file did not exist; `text`: the prompt as typed, from the
REPL); each content is a blob named by its SHA-256,
written beside and renamed into place, so a killed process leaves no half blob."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from tether.bounded_json import loads as loads_bounded

INDEX = "index.jsonl"


def file_history_dir(session_path: Path) -> Path:
    """Where the file checkpoints of the session kept in `session_path` go."""
    return session_path.with_suffix("") / "file-history"


class FileHistory:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def record(
        self, uuid: str, before: Mapping[Path, bytes | None], text: str | None = None
    ) -> None:
        """The prompt `uuid` (typed as `text`, when known)'s turn changed the files of
        `before`, which held that when it began. Raises OSError when the disk refuses."""
        self.directory.mkdir(parents=True, exist_ok=True)
        files = {str(path): self._blob(content) for path, content in before.items()}
        entry: dict[str, object] = {"uuid": uuid, "files": files}
        if text is not None:
            entry["text"] = text
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        fd = os.open(self.directory / INDEX, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def prompts(self) -> dict[str, str | None]:
        """Every prompt with a checkpoint kept, oldest first: its uuid and the text typed
        (None: not recorded)."""
        return {uuid: text for uuid, _, text in self._entries()}

    def changed(self) -> dict[str, dict[str, str | None]]:
        """Every prompt with a checkpoint kept, oldest first: the files its turn changed, each
        with the blob of what it held when the turn began (None: it did not exist)."""
        return {uuid: files for uuid, files, _ in self._entries()}

    def blob(self, name: str) -> bytes:
        """A content kept, by its name (`changed`). Raises OSError when it cannot be read."""
        return (self.directory / name).read_bytes()

    def state_at(self, uuid: str) -> dict[Path, bytes | None] | None:
        """What every file changed from the prompt `uuid`'s turn on held when it began (None:
        it did not exist); None when no checkpoint of that prompt is kept. Raises OSError when
        a blob cannot be read."""
        entries = self._entries()
        start = next((i for i, e in enumerate(entries) if e[0] == uuid), None)
        if start is None:
            return None
        earliest: dict[str, str | None] = {}
        for _, files, _ in entries[start:]:
            for path, blob in files.items():
                earliest.setdefault(path, blob)
        return {
            Path(path): None if blob is None else (self.directory / blob).read_bytes()
            for path, blob in earliest.items()
        }

    def _blob(self, content: bytes | None) -> str | None:
        if content is None:
            return None
        name = hashlib.sha256(content).hexdigest()
        target = self.directory / name
        if not target.exists():
            temp = self.directory / f".{name}.{os.getpid()}.tmp"
            temp.write_bytes(content)
            temp.replace(target)
        return name

    def _entries(self) -> list[tuple[str, dict[str, str | None], str | None]]:
        try:
            text = (self.directory / INDEX).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        entries: list[tuple[str, dict[str, str | None], str | None]] = []
        for line in text.splitlines():
            try:
                entry = loads_bounded(line)
            except ValueError:
                continue  # a line cut by a kill: that prompt's checkpoint is lost, not the rest
            if not isinstance(entry, dict):
                continue
            uuid, files = entry.get("uuid"), entry.get("files")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            text = entry.get("text")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(uuid, str) and isinstance(files, dict):
                entries.append(
                    (
                        uuid,
                        {
                            str(p): b if isinstance(b, str) and _is_blob(b) else None
                            for p, b in files.items()  # pyright: ignore[reportUnknownVariableType]
                        },
                        text if isinstance(text, str) else None,
                    )
                )
        return entries


def _is_blob(name: str) -> bool:
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)
