"""Property: whatever damage a session file takes, resuming it sends requests the API accepts,
and tether says what it could not resume as written.

Real sessions are made once by running tether against the fake model server (tool calls in
parallel, a compaction, a subagent, a fork); each example damages a copy at random (lines
dropped, repeated, cut short, garbled, swapped; a second writer's entries interleaved, as two
processes without a lock would have written them) and resumes it twice."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.core.history import LIGHT_CAP
from tether.core.plan_tracker import last_plan
from tether.core.resume import restore
from tether.core.shrink import shrink_message
from tether.store import list_sessions, load_session, project_dir
from tether.testing import FakeModelServer, RecordedRequest, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli
from tether.testing.pytest_plugin import TEST_API_KEY

SUMMARY_MARK = "is about to be replaced by a summary"


class Pool:
    """The fake server, and session files by name as tether wrote them."""

    def __init__(self, server: FakeModelServer, files: dict[str, bytes]) -> None:
        self.server = server
        self.files = files

    def __repr__(self) -> str:  # hypothesis prints its arguments: not the whole files
        return f"Pool({sorted(self.files)})"


@contextlib.contextmanager
def _environment(server: FakeModelServer, home: Path) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(
        ANTHROPIC_BASE_URL=server.url,
        ANTHROPIC_API_KEY=TEST_API_KEY,
        TETHER_HOME=str(home),
        TETHER_RETRY_DELAY_MS="1",
    )
    os.environ.pop("TETHER_CONTEXT_WINDOW", None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _tether(workspace: Path, *argv: str) -> CliResult:
    return run_cli(["--cwd", str(workspace), "--permission-mode", "bypassPermissions", *argv])


def _answer(request: RecordedRequest) -> object:
    if SUMMARY_MARK in request.last_user_text():
        return reply(text("Summary: work was done."))
    return reply(text("resumed"))


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    with FakeModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        files: dict[str, bytes] = {}
        with _environment(server, home):

            def made(name: str, *argv: str) -> str:
                result = _tether(workspace, *argv, "--output-format", "json")
                assert result.exit_code == 0, result.stderr
                session_id: str = result.json()["session_id"]
                path = project_dir(home, workspace) / f"{session_id}.jsonl"
                files[name] = path.read_bytes()
                return session_id

            server.script(
                reply(
                    text("Two at once."),
                    tool_use("Bash", command="echo a"),
                    tool_use("Bash", command="echo b"),
                ),
                reply(tool_use("Bash", command="echo c")),
                reply(text("Three ran.")),
                reply(
                    tool_use(
                        "TodoWrite",
                        todos=[{"content": "x", "status": "pending", "activeForm": "x"}],
                    )
                ),
                reply(text("Planned.")),
            )
            tools = made("tools", "-p", "run some commands")
            made("tools", "-r", tools, "-p", "now plan")
            server.script(
                reply(
                    tool_use(
                        "Task", description="job", prompt="do it", subagent_type="general-purpose"
                    )
                ),
                reply(text("sub done")),
                reply(tool_use("Bash", command="echo after")),
                http_error(400, "prompt is too long: 1100000 tokens > 1000000 maximum"),
                reply(text("Summary: a subagent ran, then a command.")),
                reply(text("Compacted and done.")),
            )
            made("compacted", "-p", "delegate, then go on")
            server.script(reply(text("forked reply")))
            made("forked", "-r", tools, "--fork-session", "-p", "go another way")
        assert server.rejections == []
        server.reset()
        yield Pool(server, files)


# --- damage ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Damaged:
    lines: list[bytes]
    must_say: bool
    """Whether the damage loses or repeats something a reader can tell (tether must say so)."""


def _garble(line: bytes, rng: random.Random) -> bytes:
    data = bytearray(line)
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.choice(b'{}[]",:\\x\xff\x00')
    return bytes(data)


def _header(line: bytes) -> tuple[object, ...] | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    # What links and sorts entries; a garbled timestamp, session id or cwd loses nothing.
    return tuple(entry.get(k) for k in ("type", "uuid", "parentUuid"))


def _is_message(line: bytes) -> bool:
    header = _header(line)
    return header is not None and header[0] in ("user", "assistant")


def _is_entry(line: bytes) -> bool:
    """Whether a line is an entry at all: Claude Code's `last-prompt` line after each turn
    has no uuid and no parent, so a reader can tell nothing of it repeated or lost."""
    header = _header(line)
    return header is not None and (header[1] is not None or header[2] is not None)


def _second_writer(
    out: list[bytes], original: list[bytes], fork_at: int, count: int, rng: random.Random
) -> list[bytes]:
    """`count` entries a second process appended after `original[fork_at]` (intact in `out`),
    interleaved with what the first appended after it: copies of the original's later entries,
    given ids and parents of their own."""
    base = json.loads(original[fork_at])
    parent, out = base["uuid"], list(out)
    start = out.index(original[fork_at])
    later = [json.loads(line) for line in original[fork_at + 1 :]] or [base]
    for n in range(count):
        entry = {**later[n % len(later)], "uuid": f"second-{n}", "parentUuid": parent}
        entry["timestamp"] = (
            "2000-01-01T00:00:00.000Z"  # older: the first writer's branch is newest
        )
        parent = entry["uuid"]
        out.insert(rng.randint(start + 1, len(out)), json.dumps(entry).encode())
    return out


def _copied_first(original: list[bytes], fork_at: int) -> bytes:
    """What `_second_writer` copies as its first entry."""
    return original[fork_at + 1] if fork_at + 1 < len(original) else original[fork_at]


@st.composite
def damaged(draw: st.DrawFn, pool: Pool) -> tuple[str, Damaged]:
    name = draw(st.sampled_from(sorted(pool.files)))
    lines = pool.files[name].splitlines()
    rng = random.Random(draw(st.integers(0, 2**32)))
    kinds = draw(
        st.lists(
            st.sampled_from(["drop", "repeat", "cut", "garble", "swap"]),
            min_size=1,
            max_size=4,
        )
    )
    targets = draw(
        st.lists(
            st.integers(0, len(lines) - 1), min_size=len(kinds), max_size=len(kinds), unique=True
        )
    )
    must_say = False
    relinked: set[int] = set()
    swaps: list[int] = []  # after the other kinds, which each damage one original line
    damaged_lines: list[bytes | None] = list(lines)
    extra: list[tuple[int, bytes]] = []
    for kind, at in zip(kinds, targets, strict=True):
        original = lines[at]
        if kind == "drop":
            damaged_lines[at] = None
        elif kind == "repeat":
            extra.append((rng.randint(at + 1, len(lines)), original))
            must_say = must_say or _is_entry(original)
        elif kind == "cut":
            damaged_lines[at] = original[: rng.randint(1, len(original) - 2)]
            must_say = True
        elif kind == "garble":
            garbled = _garble(original, rng)
            damaged_lines[at] = garbled
            header = _header(garbled)
            if header is None:  # an unreadable line is always reported
                must_say = True
            elif header != _header(original) and _is_message(original):
                relinked.add(at)  # lost from the chain as a dropped message is
        else:
            swaps.append(at)
    # A dropped message (or one whose type or links were garbled) is noticed unless no
    # message after it survives (a shorter file). Other entries hang off the chain (as in
    # Claude Code's files): nothing names them, so losing one (a title, a spend, a
    # compaction), or reading its garbled type as a kind a newer writer made, cannot be told
    # from the file.
    messages = [i for i, line in enumerate(lines) if _is_message(line)]
    lost = {i for i in messages if damaged_lines[i] is None} | relinked
    kept = [i for i in messages if i not in lost]
    if any(i < max(kept, default=-1) for i in lost):
        must_say = True
    for at in swaps:  # with the next line, where both are still there
        if at + 1 < len(lines) and None not in damaged_lines[at : at + 2]:
            damaged_lines[at], damaged_lines[at + 1] = damaged_lines[at + 1], damaged_lines[at]
    out = [line for line in damaged_lines if line is not None]
    for position, line in sorted(extra, reverse=True):
        out.insert(min(position, len(out)), line)
    entries = [i for i in range(len(lines) - 2) if _is_entry(lines[i])]
    if entries and draw(st.booleans()):  # a second writer appended at the same time
        fork_at = rng.choice(entries)
        if damaged_lines[fork_at : fork_at + 2] == lines[fork_at : fork_at + 2]:
            count = rng.randint(1, 4)
            out = _second_writer(out, lines, fork_at, count, rng)
            # One entry that is not a message, hanging off a message, forks nothing: it is
            # kept with that message, as a title or a spend is.
            must_say = must_say or not (
                count == 1
                and _is_message(lines[fork_at])
                and not _is_message(_copied_first(lines, fork_at))
            )
    return name, Damaged(out, must_say)


def _resume(pool: Pool, damage: Damaged) -> list[CliResult]:
    server = pool.server
    server.reset()
    server.script(*[_answer] * 12)  # type: ignore[arg-type]
    results: list[CliResult] = []
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        sessions = project_dir(home, workspace)
        sessions.mkdir(parents=True)
        (sessions / "damaged.jsonl").write_bytes(b"".join(line + b"\n" for line in damage.lines))
        with _environment(server, home):
            for prompt in ("go on", "and again"):
                results.append(_tether(workspace, "-c", "-p", prompt))
                assert [s.session_id for s in list_sessions(home, workspace)] == ["damaged"]
        shutil.rmtree(home)
    return results


@settings(
    max_examples=int(os.environ.get("TETHER_PROPERTY_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_damaged_file_resumes_with_accepted_requests_and_says_what_it_dropped(
    pool: Pool, data: st.DataObject
) -> None:
    name, damage = data.draw(damaged(pool))
    first, second = _resume(pool, damage)
    rejected = [f"#{r.index}: {r.error}" for r in pool.server.rejections]
    assert rejected == [], (name, rejected)
    for result in (first, second):
        assert (result.exit_code, result.stdout) == (0, "resumed\n"), (name, result.stderr)
        assert "Traceback" not in result.stderr
    asked = [r.last_user_text() for r in pool.server.requests]
    prompts = [text for text in asked if SUMMARY_MARK not in text]
    # A prompt the damage left unanswered (its reply lost) goes with the new one.
    assert len(prompts) == 2, asked
    assert prompts[0].endswith("go on")
    assert prompts[1] == "and again"
    if damage.must_say:
        assert "session file" in first.stderr, (name, first.stderr)


@settings(
    max_examples=int(os.environ.get("TETHER_PROPERTY_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), tail=st.integers(0, 4000))
def test_a_window_bounded_resume_keeps_the_transcript_of_a_whole_one(
    pool: Pool, data: st.DataObject, tail: int
) -> None:
    """Resuming with only the newest `tail` bytes kept in full (what a resume for a small
    window does) gives the transcript the whole replay gives: the same messages, each the
    same once its long strings are cut as the older part's are; the newest part unchanged."""
    _, damage = data.draw(damaged(pool))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in damage.lines))
        whole = restore(load_session(path))
        bounded = restore(load_session(path), full_bytes=tail or 1)
        roomy = restore(load_session(path), full_bytes=path.stat().st_size)
    assert roomy.history.messages == whole.history.messages
    assert bounded.damage == whole.damage
    assert bounded.todos == whole.todos == last_plan(whole.history.messages)
    assert (bounded.side_usage, bounded.side_cost_usd) == (whole.side_usage, whole.side_cost_usd)
    assert (bounded.usage, bounded.cost_usd) == (whole.usage, whole.cost_usd)
    # The oldest part is folded (held as compressed JSON): read back, it is all there.
    folded = list(bounded.history.folded.messages())
    old, new = whole.history.messages, (*folded, *bounded.history.messages)
    assert len(new) == len(old) == len(bounded.history)
    assert [shrink_message(m, LIGHT_CAP) for m in new] == [
        shrink_message(m, LIGHT_CAP) for m in old
    ]
    # What a request sends: a note for the folded part, then the held part as it is; when
    # the view starts after the folded part (a compaction cut there), what it sent before.
    view, held = bounded.history.view(), bounded.history.messages
    if view and "oldest messages of this conversation are left out" in view[0].text():
        assert folded
        assert view[-len(held) :][1:] == held[1:]
    else:
        light = [shrink_message(m, LIGHT_CAP) for m in whole.history.view()]
        assert [shrink_message(m, LIGHT_CAP) for m in view] == light
