"""Text files in other encodings than UTF-8 (UTF-16 with or without a byte-order mark, UTF-32,
Latin-1) are read as text, as Claude Code reads UTF-16 files, and Edit and Write keep the
file's encoding and line endings; after `-c` they are checked byte for byte, so what Read's
text leaves out (CRs, the end of a long line) is neither missed nor taken for a change. Real
runs against the fake model, real files."""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
CHANGED = "changed on disk since it was last read (another program or session wrote it)"

ENCODINGS = [
    pytest.param(lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"), id="utf16-le-bom"),
    pytest.param(lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"), id="utf16-be-bom"),
    pytest.param(lambda t: t.encode("utf-16-le"), id="utf16-le"),
    pytest.param(lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"), id="utf32-le-bom"),
    pytest.param(lambda t: t.encode("latin-1"), id="latin1"),
    pytest.param(lambda t: t.encode(), id="utf8"),
]
Encode = Callable[[str], bytes]


def _run(
    tether: Run, fake_model: FakeModelServer, *calls: object, how: tuple[str, ...] = ()
) -> list[str]:
    """One `-p` run in which the model makes `calls` one after another; their results."""
    fake_model.script(*(reply(call) for call in calls), reply(text("done")))  # type: ignore[arg-type]
    ran = tether(*how, "-p", "go")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    requests = fake_model.requests[-len(calls) :]
    return [result for request in requests for result in request.tool_results()]


@pytest.mark.parametrize("encode", ENCODINGS)
def test_read_edit_and_write_keep_the_encoding_and_line_endings(
    tether: Run, fake_model: FakeModelServer, workspace: Path, encode: Encode
) -> None:
    target = workspace / "notes.txt"
    target.write_bytes(encode("héllo\r\nwörld\r\n"))
    read = tool_use("Read", file_path=str(target))
    edit = tool_use("Edit", file_path=str(target), old_string="wörld", new_string="wörld\nçà")
    [shown, edited] = _run(tether, fake_model, read, edit)
    assert shown.split("\n")[:2] == ["     1\théllo", "     2\twörld"], shown
    assert edited == "Edited notes.txt: replaced 1 occurrence (first at line 2)."
    assert target.read_bytes() == encode("héllo\r\nwörld\r\nçà\r\n")
    write = tool_use("Write", file_path=str(target), content="un\ndeux été\n")
    [written] = _run(tether, fake_model, write, how=("-c",))
    assert written == "Wrote 2 lines to notes.txt"
    assert target.read_bytes() == encode("un\r\ndeux été\r\n")


@pytest.mark.parametrize("encode", ENCODINGS)
def test_a_file_read_before_resuming_is_edited_after_it_whatever_its_form(
    tether: Run, fake_model: FakeModelServer, workspace: Path, encode: Encode
) -> None:
    forms = {
        "crlf.txt": "hello world\r\n",
        "long.txt": "hello world " + "x" * 3000 + "\n",
        "plain.txt": "héllo world\n",
    }
    for name, form in forms.items():
        (workspace / name).write_bytes(encode(form))
    _run(tether, fake_model, *(tool_use("Read", file_path=name) for name in forms))
    edits = [
        tool_use("Edit", file_path=name, old_string="world", new_string="there") for name in forms
    ]
    said = _run(tether, fake_model, *edits, how=("-c",))
    assert said == [f"Edited {name}: replaced 1 occurrence (first at line 1)." for name in forms]
    assert {name: (workspace / name).read_bytes() for name in forms} == {
        name: encode(form.replace("world", "there")) for name, form in forms.items()
    }


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(b"one\r\n", b"one\n", id="a CR gone"),
        pytest.param(b"one\n", b"one\r\n", id="a CR added"),
        pytest.param(b"one " + b"x" * 3000 + b"\n", b"one " + b"x" * 2999 + b"y\n", id="long line"),
        pytest.param(b"caf\xe9\n", "café\n".encode(), id="latin1 to utf8"),
    ],
)
def test_a_change_read_did_not_show_is_seen_after_resuming(
    tether: Run, fake_model: FakeModelServer, workspace: Path, before: bytes, after: bytes
) -> None:
    target = workspace / "f.txt"
    target.write_bytes(before)
    _run(tether, fake_model, tool_use("Read", file_path="f.txt"))
    target.write_bytes(after)  # another program, between the runs
    edit = tool_use("Edit", file_path="f.txt", old_string="one", new_string="uno")
    [said] = _run(tether, fake_model, edit, how=("-c",))
    assert said == f"Error: f.txt {CHANGED}; Read it again before changing it."
    assert target.read_bytes() == after


def test_a_transcript_without_digests_says_a_difference_cannot_be_checked(
    tether: Run, fake_model: FakeModelServer, workspace: Path
) -> None:
    # Sessions written before results carried the digest of the bytes read.
    target = workspace / "f.txt"
    target.write_bytes(b"one\n")
    _run(tether, fake_model, tool_use("Read", file_path="f.txt"))
    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    entries = [json.loads(line) for line in session.path.read_text().splitlines()]
    for entry in entries:
        if isinstance(entry.get("toolUseResult"), dict):
            del entry["toolUseResult"]["sha256"]
    session.path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    target.write_bytes(b"one\ntwo\n")
    edit = tool_use("Edit", file_path="f.txt", old_string="one", new_string="uno")
    [said] = _run(tether, fake_model, edit, how=("-c",))
    assert said == (
        "Error: f.txt is not as the earlier session's transcript shows it, and that transcript "
        "keeps only the text shown, so whether the file changed since cannot be checked; Read "
        "it again before changing it."
    )
    target.write_bytes(b"one\n")
    [said] = _run(tether, fake_model, edit, how=("-c",))
    assert (said, target.read_bytes()) == (
        "Edited f.txt: replaced 1 occurrence (first at line 1).",
        b"uno\n",
    )
