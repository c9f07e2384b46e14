"""Where sessions live and how they are found, forked and removed."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tether.protocol import ConfigError, TextBlock
from tether.store import (
    LoadedSession,
    SessionInfo,
    SessionNotFound,
    SessionWriter,
    UserRecord,
    find_session,
    fork_session,
    latest_session,
    list_sessions,
    load_session,
    project_dir,
    project_slug,
    remove_session,
    subagent_transcript_path,
)


def session(directory: Path, session_id: str, *texts: str, title: str | None = None) -> Path:
    with SessionWriter.create(directory, session_id, cwd=directory) as writer:
        if title is not None:
            writer.title(title)
        for text in texts:
            writer.user([TextBlock(text=text)])
    return writer.path


def touch(path: Path, seconds: int) -> datetime:
    os.utime(path, (seconds, seconds))
    return datetime.fromtimestamp(seconds, UTC)


def records(*texts: str) -> tuple[UserRecord, ...]:
    return tuple(UserRecord((TextBlock(text=t),)) for t in texts)


def test_a_project_slug_keeps_only_ascii_letters_and_digits() -> None:
    assert project_slug(Path("/home/u/my proj")) == "-home-u-my-proj"
    assert project_slug(Path("/srv/café_2.0")) == "-srv-caf--2-0"


def test_a_very_deep_path_gets_a_short_slug_that_stays_distinct() -> None:
    deep = Path("/" + "/".join(["directory"] * 30))
    slugs = {project_slug(deep / "a"), project_slug(deep / "b")}
    assert len(slugs) == 2
    assert all(len(s) == 200 and s.startswith("-directory-directory") for s in slugs)


def test_the_project_dir_follows_symlinks_to_the_real_directory(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    home = tmp_path / "home"
    assert project_dir(home, tmp_path / "link") == home / "projects" / project_slug(real)


def test_list_shows_this_projects_sessions_newest_first(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    here = project_dir(home, workspace)
    old = session(here, "aaa", "hi", title="Old work")
    new = session(here, "bbb", "one", "two")
    with SessionWriter.reopen(new, cwd=workspace, last_uuid=None) as writer:
        writer.title("Named late")
        writer.title("Renamed")
    fork = fork_session(load_session(old), here, "ccc", cwd=workspace)
    fork.close()
    session(project_dir(home, tmp_path / "elsewhere"), "ddd", "not here")
    (here / "notes.txt").write_text("not a session")
    (here / "aaa").mkdir()  # subagent transcripts live beside their session
    times = [
        touch(path, seconds) for path, seconds in ((old, 1000), (new, 2000), (fork.path, 3000))
    ]

    assert list_sessions(home, workspace) == [
        SessionInfo("ccc", fork.path, "Old work", times[2], 3, "aaa", str(here)),
        SessionInfo("bbb", new, "Renamed", times[1], 4, None, str(here)),
        SessionInfo("aaa", old, "Old work", times[0], 2, None, str(here)),
    ]
    assert list_sessions(home, tmp_path / "nowhere") == []


@pytest.mark.parametrize("shift", [-17, -16, -9, -1, 0, 1, 5])
def test_list_finds_a_title_written_after_a_megabyte(tmp_path: Path, shift: int) -> None:
    """The title line starting just before, on and after the boundary of the 1 MiB reads."""
    with SessionWriter.create(tmp_path, "probe", cwd=tmp_path) as probe:
        probe.user([TextBlock(text="x")])
    padding = (1 << 20) + shift - probe.path.stat().st_size + 1
    with SessionWriter.create(tmp_path / "p", "probe", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="x" * padding)])
        assert writer.path.stat().st_size == (1 << 20) + shift
        writer.title("Late title")
        writer.user([TextBlock(text="more")])
    home = tmp_path / "home"
    (home / "projects").mkdir(parents=True)
    (tmp_path / "p").rename(project_dir(home, tmp_path))

    [info] = list_sessions(home, tmp_path)
    assert (info.title, info.entries) == ("Late title", 3)


def test_a_session_is_found_by_id_or_unique_prefix_here_first(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    here, there = project_dir(home, workspace), project_dir(home, tmp_path / "other")
    session(here, "abc123")
    session(here, "abd456")
    session(here, "abd456x")
    session(there, "abc999")
    session(there, "zzz000")

    assert find_session(home, workspace, "abc") == here / "abc123.jsonl"
    assert find_session(home, workspace, "abd456") == here / "abd456.jsonl"  # exact beats prefix
    assert find_session(home, workspace, "zz") == there / "zzz000.jsonl"
    with pytest.raises(SessionNotFound) as ambiguous:
        find_session(home, workspace, "ab")
    assert str(ambiguous.value) == (
        "session 'ab' is ambiguous; it could be: abc123, abd456, abd456x"
    )
    with pytest.raises(SessionNotFound) as elsewhere:
        find_session(home, tmp_path / "third", "abc")
    assert str(elsewhere.value) == (
        "session 'abc' is ambiguous; it could be: "
        f"abc999 (in {there.name}), abc123 (in {here.name})"
    )
    for ref in ("nope", ""):
        with pytest.raises(SessionNotFound) as missing:
            find_session(home, workspace, ref)
        assert str(missing.value) == f"no session {ref!r} in {home / 'projects'}"
    assert issubclass(SessionNotFound, ConfigError)


def test_nothing_is_found_before_the_first_session(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound):
        find_session(tmp_path / "home", tmp_path, "abc")
    assert latest_session(tmp_path / "home", tmp_path) is None


def test_the_latest_session_is_the_last_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    here = project_dir(home, tmp_path)
    first, second = session(here, "first"), session(here, "second")
    touch(first, 2_000)
    touch(second, 1_000)
    session(project_dir(home, tmp_path / "other"), "newer-elsewhere")
    assert latest_session(home, tmp_path) == first


def test_remove_deletes_the_session_and_its_subagent_transcripts(tmp_path: Path) -> None:
    kept, removed = session(tmp_path, "kept", "a"), session(tmp_path, "gone", "b")
    transcript = subagent_transcript_path(removed, "x1")
    assert transcript == tmp_path / "gone" / "subagents" / "agent-x1.jsonl"
    session(transcript.parent, transcript.stem, "sub")
    session(subagent_transcript_path(kept, "x2").parent, "agent-x2", "sub")

    remove_session(removed)

    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "kept",
        "kept.jsonl",
        "kept/subagents",
        "kept/subagents/agent-x2.jsonl",
    ]
    with pytest.raises(SessionNotFound, match="no session file at"):
        remove_session(removed)


def test_a_fork_copies_the_source_and_then_grows_alone(tmp_path: Path) -> None:
    source = session(tmp_path, "src", "one", "two", title="Original")
    original = load_session(source)
    before = source.read_bytes()

    with fork_session(original, tmp_path / "forks", "fork1", cwd=tmp_path / "ws") as fork:
        fork.user([TextBlock(text="only in the fork")])
    with SessionWriter.reopen(source, cwd=tmp_path, last_uuid=original.last_uuid) as writer:
        writer.user([TextBlock(text="only in the source")])

    copied, source_lines = fork.path.read_bytes().splitlines(), before.splitlines()
    assert [json.loads(line) for line in copied[:3]] == [
        {**json.loads(line), "sessionId": "fork1"} for line in source_lines
    ]
    assert [json.loads(line)["type"] for line in copied[3:]] == ["fork", "user"]
    assert json.loads(copied[3])["forkedFrom"] == {"sessionId": "src", "uuid": original.last_uuid}
    assert source.read_bytes().startswith(before)
    forked = load_session(fork.path)
    assert forked == LoadedSession(
        session_id="fork1",
        path=fork.path,
        title="Original",
        forked_from=("src", original.last_uuid),
        last_uuid=fork.last_uuid,
        warnings=(),
        branch=forked.branch,
    )
    assert tuple(forked.records()) == records("one", "two", "only in the fork")
    assert tuple(load_session(source).records()) == records("one", "two", "only in the source")


def test_a_fork_leaves_the_source_byte_identical_and_skips_its_bad_lines(tmp_path: Path) -> None:
    source = session(tmp_path, "src", "one")
    with source.open("ab") as file:
        file.write(b"garbage\n")
    before = source.read_bytes()

    with fork_session(load_session(source), tmp_path, "fork1", cwd=tmp_path) as fork:
        fork.title("Forked")
    with fork_session(load_session(fork.path), tmp_path, "fork2", cwd=tmp_path) as grandchild:
        pass

    assert source.read_bytes() == before
    child = load_session(fork.path)
    assert (tuple(child.records()), child.title, child.warnings) == (records("one"), "Forked", ())
    loaded = load_session(grandchild.path)
    assert (tuple(loaded.records()), loaded.title, loaded.forked_from) == (
        records("one"),
        "Forked",
        ("fork1", child.last_uuid),
    )


def test_list_takes_in_sessions_kept_where_the_projects_task_worktrees_were(
    tmp_path: Path,
) -> None:
    """Earlier workers kept a worktree task's session under the worktree's own slug: still
    the project's, listed with it (and with where it worked)."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    worktree = workspace / ".tether" / "worktrees" / "docs" / "3"
    with SessionWriter.create(project_dir(home, worktree), "www", cwd=worktree) as writer:
        writer.user([TextBlock(text="task work")])
    session(project_dir(home, tmp_path / "ws-other"), "xxx", "another project")
    [found] = list_sessions(home, workspace)
    assert (found.session_id, found.cwd) == ("www", str(worktree))


def test_list_reads_a_first_line_whose_damaged_header_looks_like_bookkeeping(
    tmp_path: Path,
) -> None:
    """A torn key (`parent:uid`) leaves a line with no parentUuid: read as another program's
    bookkeeping, it is passed over in the listing's quick look as on resume (the listing
    raised the reader's internal signal for it)."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    path = session(project_dir(home, workspace), "damaged", "hi", title="Kept")
    lines = path.read_bytes().splitlines(keepends=True)
    assert b'"parentUuid"' in lines[0]
    assert b'"cwd"' in lines[0]
    path.write_bytes(lines[0].replace(b'"parentUuid"', b'"parent:uid"') + b"".join(lines[1:]))

    [info] = list_sessions(home, workspace)  # the torn title line is none: no title
    assert (info.session_id, info.title, info.entries) == ("damaged", None, 2)
