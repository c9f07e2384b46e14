"""Sessions on disk: one JSONL file each, under `<home>/projects/<slug of the working dir>/`,
beside a `<session-id>/` directory for the transcripts of its subagents."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from tether.protocol import ConfigError
from tether.slotted import Slotted


class SessionNotFound(ConfigError):
    """No session file is there, or no single session matches the id asked for."""


_MAX_SLUG = 200  # directory names stop at 255 bytes; deeper paths are cut and end in a hash
_CHUNK = 1 << 20
# Every line we write starts with its type (see `encode_entry`), so the last title or fork entry
# of a file can be found with a byte search instead of parsing every line.
_TITLE_LINE = b'\n{"type":"title",'
_FORK_LINE = b'\n{"type":"fork",'
_CWD_FIELD = b'"cwd":"'
_WORKTREE_SLUG = "--tether-worktrees-"
"""What follows a project's slug in the slugs of its task worktrees (`.tether/worktrees/...`):
where workers kept their sessions before they were kept with the project's."""


class SessionInfo(Slotted):
    __slots__ = ("cwd", "entries", "forked_from", "path", "session_id", "title", "updated")
    session_id: Final[str]
    path: Final[Path]
    title: Final[str | None]
    updated: Final[datetime]
    """When the file was last written (its mtime, UTC)."""
    entries: Final[int]
    """Complete lines in the file, entries of every type: counted, not parsed."""
    forked_from: Final[str | None]
    """The id of the session this one was forked from."""
    cwd: Final[str | None]
    """The directory it worked in (its first entry's `cwd`): a task worktree's, for a
    worker's session kept with its project's."""

    def __init__(
        self,
        session_id: str,
        path: Path,
        title: str | None,
        updated: datetime,
        entries: int,
        forked_from: str | None,
        cwd: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.path = path
        self.title = title
        self.updated = updated
        self.entries = entries
        self.forked_from = forked_from
        self.cwd = cwd


def project_slug(cwd: Path) -> str:
    """'/home/u/my proj' -> '-home-u-my-proj': every character but ASCII letters and digits
    becomes '-'. A slug longer than 200 characters is cut and ends in a hash of the path."""
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    if len(slug) <= _MAX_SLUG:
        return slug
    digest = hashlib.sha256(str(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return f"{slug[: _MAX_SLUG - 17]}-{digest}"


def project_dir(home: Path, cwd: Path) -> Path:
    """Where the sessions started in `cwd` live."""
    return home / "projects" / project_slug(cwd.resolve())


def list_sessions(home: Path, cwd: Path, skipped: list[str] | None = None) -> list[SessionInfo]:
    """This project's sessions, the most recently written first. Reads each file once, in
    large chunks, without parsing it (see `_scan`). A file that cannot be read is left out
    and said in `skipped`."""
    infos: list[SessionInfo] = []
    here = project_dir(home, cwd)
    worktrees = [
        d
        for d in _subdirectories(home / "projects", skipped)
        if d.name.startswith(here.name + _WORKTREE_SLUG)
    ]
    for path in [f for d in (here, *sorted(worktrees)) for f in _session_files(d, skipped)]:
        try:
            updated = path.stat().st_mtime
            entries, title, forked_from, worked_in = _scan(path)
        except FileNotFoundError:  # removed while we were listing
            continue
        except OSError as e:
            _skip(skipped, path, e)
            continue
        infos.append(
            SessionInfo(
                session_id=path.stem,
                path=path,
                title=title,
                updated=datetime.fromtimestamp(updated, UTC),
                entries=entries,
                forked_from=forked_from,
                cwd=worked_in,
            )
        )
    infos.sort(key=lambda info: (info.updated, info.session_id), reverse=True)
    return infos


def find_session(home: Path, cwd: Path, ref: str, skipped: list[str] | None = None) -> Path:
    """The session whose id is `ref`, or the only one whose id starts with it: in this
    project first, then in every project. Raises SessionNotFound if none or several match.
    Entries that cannot be examined are left out and said in `skipped`."""
    here = project_dir(home, cwd)
    matches = _matching(_session_files(here, skipped), ref)
    if not matches:
        everywhere = home / "projects"
        projects = sorted(p for p in _subdirectories(everywhere, skipped) if p != here)
        matches = _matching([f for p in projects for f in _session_files(p, skipped)], ref)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(f"no session {ref!r} in {home / 'projects'}")
    names = [f.stem if f.parent == here else f"{f.stem} (in {f.parent.name})" for f in matches]
    raise SessionNotFound(f"session {ref!r} is ambiguous; it could be: {', '.join(names)}")


def latest_session(
    home: Path,
    cwd: Path,
    skipped: list[str] | None = None,
    *,
    passed_over: Callable[[Path], bool] | None = None,
) -> Path | None:
    """This project's most recently written session, if it has any, leaving out those
    `passed_over` names. Entries that cannot be examined are left out and said in
    `skipped`."""
    dated: list[tuple[int, str, Path]] = []
    for path in _session_files(project_dir(home, cwd), skipped):
        try:
            dated.append((path.stat().st_mtime_ns, path.name, path))
        except FileNotFoundError:  # removed meanwhile
            continue
        except OSError as e:
            _skip(skipped, path, e)
    for _, _, path in sorted(dated, reverse=True):
        if passed_over is None or not passed_over(path):
            return path
    return None


class SessionOpen(ConfigError):
    """The session is held by a running tether process (its writer's lock)."""


def remove_session(path: Path) -> None:
    """Delete a session file and its subagents' transcripts. Refuses (`SessionOpen`) while a
    running tether holds the session: it would go on writing into a file nobody can find."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise SessionNotFound(f"no session file at {path}") from None
    except OSError as e:
        raise ConfigError(f"cannot open session file {path}: {e.strerror or e}") from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SessionOpen(
                f"session {path.stem} is open in a running tether process; end it there "
                "first, then remove it"
            ) from None
        except OSError:
            pass  # a file system without locks: nothing can hold it
        try:  # while we hold the lock: no writer can take the file meanwhile
            path.unlink()
        except FileNotFoundError:
            raise SessionNotFound(f"no session file at {path}") from None
        except OSError as e:
            raise ConfigError(f"cannot remove session file {path}: {e.strerror or e}") from e
    finally:
        os.close(fd)
    transcripts = path.with_suffix("")
    if transcripts.is_dir() and not transcripts.is_symlink():
        shutil.rmtree(transcripts)


def subagent_transcript_path(session_path: Path, agent_id: str) -> Path:
    """Where a subagent of this session keeps its transcript."""
    return session_path.with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"


def _skip(skipped: list[str] | None, path: Path, error: OSError) -> None:
    if skipped is not None:
        skipped.append(f"skipped {path}: {error.strerror or error}")


def _entries(directory: Path, skipped: list[str] | None) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as found:
            return list(found)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as e:
        _skip(skipped, directory, e)
        return []


def _is(entry: os.DirEntry[str], kind: str, skipped: list[str] | None) -> bool:
    """Whether a directory entry is a file (or a directory), following symbolic links; one
    that cannot be followed (a loop, no permission) is said in `skipped`, a dangling one is
    just not there."""
    try:
        return entry.is_file() if kind == "file" else entry.is_dir()
    except OSError as e:
        _skip(skipped, Path(entry.path), e)
        return False


def _session_files(directory: Path, skipped: list[str] | None = None) -> list[Path]:
    return sorted(
        Path(e.path)
        for e in _entries(directory, skipped)
        if e.name.endswith(".jsonl") and _is(e, "file", skipped)
    )


def _subdirectories(directory: Path, skipped: list[str] | None = None) -> list[Path]:
    return [Path(e.path) for e in _entries(directory, skipped) if _is(e, "dir", skipped)]


def _matching(files: list[Path], ref: str) -> list[Path]:
    if not ref:
        return []
    exact = [f for f in files if f.stem == ref]
    return exact or [f for f in files if f.stem.startswith(ref)]


def _scan(path: Path) -> tuple[int, str | None, str | None, str | None]:
    """(lines, last title, forked-from id, first cwd) of a session file, in one pass over its
    bytes. A torn title, fork or first entry reads as none."""
    # The reader only once sessions are listed: a new session never reads one back.
    from tether.store.entry_lines import entry_at, fork_origin

    lines = 0
    starts: dict[bytes, int] = {}
    tail = b"\n"  # the file's first line starts a line too
    offset = 0
    cwd_at: int | None = None
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            lines += chunk.count(b"\n")
            window = tail + chunk
            if cwd_at is None and (at := chunk.find(_CWD_FIELD)) >= 0:
                cwd_at = offset + chunk.rfind(b"\n", 0, at) + 1
            for marker in (_TITLE_LINE, _FORK_LINE):
                at = window.rfind(marker)
                if at >= 0:
                    starts[marker] = offset - len(tail) + at + 1
            tail = window[-len(_TITLE_LINE) :]
            offset += len(chunk)
        title = fork = None
        if _TITLE_LINE in starts and (entry := entry_at(file, starts[_TITLE_LINE])):
            found = entry.fields.get("title")
            title = found if isinstance(found, str) else None
        if _FORK_LINE in starts and (entry := entry_at(file, starts[_FORK_LINE])):
            origin = fork_origin(entry.fields)
            fork = origin[0] if origin is not None else None
        worked_in = None
        if cwd_at is not None and (entry := entry_at(file, cwd_at)):
            found = entry.fields.get("cwd")
            worked_in = found if isinstance(found, str) else None
    return lines, title, fork, worked_in
