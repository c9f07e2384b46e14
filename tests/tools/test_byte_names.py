"""A file whose name is not UTF-8 (`bad\\xff.txt`) is listed to the model with U+FFFD in place
of the bytes; named back that way, it is that file, for every tool that takes a path. Played
over the wire: the model's calls come from the fake server, the names from a real directory."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _make(workspace: Path, name: bytes, content: str) -> None:
    with open(os.path.join(os.fsencode(workspace), name), "w") as f:
        f.write(content)


def test_a_listed_name_that_is_not_utf8_can_be_read_and_edited(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _make(workspace, b"bad\xff.txt", "hello bytes\n")
    shown = "bad\ufffd.txt"
    fake_model.script(
        reply(tool_use("Glob", pattern="*.txt")),
        reply(tool_use("Read", file_path=shown)),
        reply(tool_use("Edit", file_path=shown, old_string="hello", new_string="bye")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    listed, read, edited = (r.tool_results()[-1] for r in fake_model.requests[1:])
    assert shown in listed
    assert "hello bytes" in read
    assert "does not exist" not in edited
    assert (workspace / os.fsdecode(b"bad\xff.txt")).read_text() == "bye bytes\n"
    assert not (workspace / shown).exists()


def test_two_names_shown_the_same_are_told_apart_in_the_error(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _make(workspace, b"a\xff.txt", "one")
    _make(workspace, b"a\xfe.txt", "two")
    fake_model.script(reply(tool_use("Read", file_path="a\ufffd.txt")), reply(text("done")))
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    [error] = fake_model.requests[-1].tool_results()
    assert "could name 2 files whose names are not UTF-8" in error
    assert json.dumps(error).count("\\\\x") == 2  # each name's bytes, written out


@pytest.mark.parametrize("name", ["new\ufffd.txt"])
def test_a_name_with_u_fffd_that_matches_nothing_is_taken_as_given(
    fake_model: FakeModelServer, tether: Run, workspace: Path, name: str
) -> None:
    fake_model.script(reply(tool_use("Write", file_path=name, content="x")), reply(text("ok")))
    assert tether("-p", "go").exit_code == 0
    assert (workspace / name).read_text() == "x"
