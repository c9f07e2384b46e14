"""A session file damaged anywhere (a line dropped, repeated, cut, garbled or moved, in the
middle as well as at the end) still resumes with a request the API accepts, and tether says
what it could not resume as written."""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
Damage = Callable[[list[bytes]], list[bytes]]


def _session(fake_model: FakeModelServer, tether: Run, workspace: Path) -> Path:
    """A real session: parallel calls, a single call, a final answer, an entry per block and
    per result as Claude Code writes them. Its lines: 1 meta, 2 user, 3 title, 4-6 assistant
    (text, two calls), 7-8 their results, 9 assistant (one call), 10 its result, 11 assistant
    (text), 12 the prompt as the last one asked (no entry of the conversation: no uuid, no
    parent)."""
    fake_model.script(
        reply(
            text("Looking."),
            tool_use("Bash", command="echo one"),
            tool_use("Bash", command="echo two"),
        ),
        reply(tool_use("Bash", command="echo three")),
        reply(text("All three ran.")),
    )
    assert tether("-p", "run three commands").exit_code == 0
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    return info.path


def _types(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["type"] for line in lines]


def _drop(index: int, count: int = 1) -> Damage:
    return lambda lines: lines[:index] + lines[index + count :]


def _cut(index: int) -> Damage:
    return lambda lines: [
        *lines[:index],
        lines[index][: len(lines[index]) // 2],
        *lines[index + 1 :],
    ]


def _garble(index: int) -> Damage:
    def damage(lines: list[bytes]) -> list[bytes]:
        line = bytearray(lines[index])
        for at in range(10, len(line), 17):
            line[at] = 0x7B  # '{' sprinkled through: not JSON any more
        return [*lines[:index], bytes(line), *lines[index + 1 :]]

    return damage


def _misanswer(lines: list[bytes]) -> list[bytes]:
    """Valid JSON, wrong content: the second result names a call that does not exist."""
    entry = json.loads(lines[7])
    entry["message"]["content"][0]["tool_use_id"] = "toolu_nobody"
    return [*lines[:7], json.dumps(entry).encode(), *lines[8:]]


DAMAGE: dict[str, tuple[Damage, str | None]] = {
    "results of two calls dropped": (_drop(6, 2), "2 tool calls without a result"),
    "a call dropped, its result left": (_drop(8), "1 tool result without a matching call"),
    "the first prompt dropped": (_drop(1), "followed an entry missing"),
    "the final answer dropped": (_drop(10), None),
    "a line repeated in the middle": (
        lambda lines: [*lines[:5], lines[3], *lines[5:]],
        "line 6 repeated an earlier entry",
    ),
    "the first line repeated at the end": (
        lambda lines: [*lines, lines[0]],
        "line 13 repeated an earlier entry",
    ),
    "a line cut in the middle": (_cut(6), "line 7 could not be read"),
    "a line garbled in the middle": (_garble(3), "line 4 could not be read"),
    "a result answering nobody": (_misanswer, "1 tool call without a result"),
    "two lines swapped": (lambda lines: [*lines[:7], lines[8], lines[7], *lines[9:]], None),
    "the final answer moved first": (lambda lines: [lines[10], *lines[:10], *lines[11:]], None),
    "the last line moved first": (lambda lines: [lines[-1], *lines[:-1]], None),
    "every line reversed": (lambda lines: lines[::-1], None),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_file_resumes_with_a_valid_request_and_says_what_was_lost(
    fake_model: FakeModelServer, tether: Run, workspace: Path, kind: str
) -> None:
    path = _session(fake_model, tether, workspace)
    lines = path.read_bytes().splitlines()
    assert _types(lines) == [
        "meta",
        "user",
        "title",
        "assistant",
        "assistant",
        "assistant",
        "user",
        "user",
        "assistant",
        "user",
        "assistant",
        "last-prompt",
    ]
    damage, said = DAMAGE[kind]
    path.write_bytes(b"".join(line + b"\n" for line in damage(lines)))

    fake_model.script(reply(text("Resumed.")), reply(text("Again.")))
    result = tether("-c", "-p", "go on")
    assert (result.exit_code, result.stdout) == (0, "Resumed.\n"), result.stderr
    sent = fake_model.requests[-1]
    assert sent.last_user_text() == "go on"
    roles = [m["role"] for m in sent.messages()]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    if said is None:
        assert "session file" not in result.stderr
    else:
        assert said in result.stderr
    again = tether("-c", "-p", "and again")  # what the resumed session appended replays too
    assert again.exit_code == 0, again.stderr


def test_a_byte_that_is_not_utf8_loses_one_character_not_the_message(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = _session(fake_model, tether, workspace)
    lines = path.read_bytes().splitlines(keepends=True)
    assert b"All three ran." in lines[10]
    lines[10] = lines[10].replace(b"All three ran.", b"All three ran\xe9")  # one Latin-1 byte
    path.write_bytes(b"".join(lines))
    fake_model.script(reply(text("Still here.")))
    resumed = tether("-c", "-p", "and now?")
    assert resumed.exit_code == 0, resumed.stderr
    [said] = [m for m in fake_model.requests[-1].messages() if "All three ran" in str(m)]
    assert "All three ran\ufffd" in str(said)
    assert "line 11 held bytes that are not UTF-8; read with U+FFFD in their place" in (
        resumed.stderr
    )
    assert "could not be read" not in resumed.stderr


def test_silent_repairs_are_said_once_each(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = _session(fake_model, tether, workspace)
    entries = [json.loads(line) for line in path.read_bytes().splitlines()]
    [call] = [b for b in entries[8]["message"]["content"] if b["type"] == "tool_use"]
    [result] = [b for b in entries[9]["message"]["content"] if b["type"] == "tool_result"]
    call["id"] = result["tool_use_id"] = "functions.Bash:0"  # an id Anthropic refuses
    entries[10]["message"]["content"] = []  # the final answer, empty
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    fake_model.script(reply(text("Still here.")))
    resumed = tether("-c", "-p", "and now?")
    assert resumed.exit_code == 0, resumed.stderr
    assert resumed.stderr.count("1 message with no content (or blank text only) not replayed") == 1
    assert resumed.stderr.count("1 tool call with an id the API would refuse") == 1


@pytest.mark.parametrize("digits", [5000, 4000])
def test_a_number_too_long_to_read_loses_the_count_not_the_message(
    fake_model: FakeModelServer, tether: Run, workspace: Path, digits: int
) -> None:
    # Python's json refuses an int of more than 4,300 digits with a bare ValueError: each
    # line holding one was dropped as torn, and with it a whole reply. One it reads (4,000
    # digits) overflowed a float when the resumed session's spend was priced.
    path = _session(fake_model, tether, workspace)
    fake_model.script(reply(text("Whole.")))
    assert tether("-c", "-p", "and now?").exit_code == 0
    whole = fake_model.requests[-1].messages()
    lines = path.read_bytes().splitlines(keepends=True)
    damaged = [n for n, line in enumerate(lines, 1) if b'"input_tokens":' in line]
    assert len(damaged) >= 5
    huge = b'"input_tokens":' + b"9" * digits
    path.write_bytes(
        b"".join(re.sub(rb'"input_tokens":\d+', huge, line) for line in lines[:-4])
        + b"".join(lines[-4:])  # the resume's own lines, as they were
    )
    fake_model.script(reply(text("Still here.")))
    resumed = tether("-c", "-p", "and now?")
    assert (resumed.exit_code, resumed.stdout) == (0, "Still here.\n"), resumed.stderr
    uncached = re.compile(r', "cache_control": \{"type": "ephemeral"\}')
    now = uncached.sub("", json.dumps(fake_model.requests[-1].messages()))
    assert now.startswith(uncached.sub("", json.dumps(whole[:-1]))[:-1])  # every reply kept
    said = [line for line in resumed.stderr.splitlines() if "too long to read" in line]
    assert len(said) == (digits > 4300), resumed.stderr
    assert all("read as unknown, the rest of each entry kept" in line for line in said)
    assert "could not be read" not in resumed.stderr
