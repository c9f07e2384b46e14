"""Tool inputs that no operating system or library can take go back to the model as precise
error results, and the turn goes on: NUL bytes in paths, commands and patterns, file names
and paths too long for any file system, lone surrogates, arguments nested a thousand levels
deep, a scratch directory that cannot be written. Driven through the CLI over the wire: the
model makes the bad call, the next request carries the error result, the run ends normally.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.script import ToolCallPart, raw_tool_use

Run = Callable[..., CliResult]

NUL_MESSAGE = "holds a NUL byte (character 2); no path, command or argument can hold one"
LONG_NAME = "n" * 300
LONG_NAME_MESSAGE = (
    f"The file name '{'n' * 40}…' is 300 bytes long; file names can be at most 255 bytes."
)
WIRES = ["claude-sonnet-5-5", "openai/gpt-4.1"]


def _results(
    fake_model: FakeModelServer, tether: Run, *calls: ToolCallPart, model: str = WIRES[0]
) -> list[tuple[str, bool]]:
    fake_model.script(reply(*calls), reply(text("done")))
    result = tether("-p", "work", "--model", model, "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["result"] == "done"
    follow_up = fake_model.requests[1]
    return list(zip(follow_up.tool_results(), follow_up.tool_result_errors(), strict=True))


def _invalid(tool: str, field: str, message: str, given: str) -> tuple[str, bool]:
    return (f"Error: Invalid input for {tool}: {field}: {message} (got {json.dumps(given)})", True)


def test_a_nul_byte_in_what_becomes_a_path_command_or_argument_is_refused(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    results = _results(
        fake_model,
        tether,
        tool_use("Bash", command="e\x00cho hi"),
        tool_use("Grep", pattern="a\x00b"),
        tool_use("Grep", pattern="a", glob="*\x00.py"),
        tool_use("Grep", pattern="a", type="p\x00y"),
        tool_use("Grep", pattern="a", path="s\x00rc"),
        tool_use("Glob", pattern="*\x00.py"),
        tool_use("Glob", pattern="*.py", path="s\x00rc"),
        tool_use("Read", file_path="a\x00.txt"),
        tool_use("Write", file_path="a\x00.txt", content="x"),
        tool_use("Edit", file_path="a\x00.txt", old_string="x", new_string="y"),
        tool_use("Revert", file_path="a\x00.txt"),
    )
    assert results == [
        _invalid("Bash", "command", NUL_MESSAGE, "e\x00cho hi"),
        _invalid("Grep", "pattern", NUL_MESSAGE, "a\x00b"),
        _invalid("Grep", "glob", NUL_MESSAGE, "*\x00.py"),
        _invalid("Grep", "type", NUL_MESSAGE, "p\x00y"),
        _invalid("Grep", "path", NUL_MESSAGE, "s\x00rc"),
        _invalid("Glob", "pattern", NUL_MESSAGE, "*\x00.py"),
        _invalid("Glob", "path", NUL_MESSAGE, "s\x00rc"),
        _invalid("Read", "file_path", NUL_MESSAGE, "a\x00.txt"),
        _invalid("Write", "file_path", NUL_MESSAGE, "a\x00.txt"),
        _invalid("Edit", "file_path", NUL_MESSAGE, "a\x00.txt"),
        _invalid("Revert", "file_path", NUL_MESSAGE, "a\x00.txt"),
    ]
    assert sorted(p.name for p in workspace.iterdir()) == []


def test_a_file_name_over_255_bytes_is_refused_by_every_file_tool(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "ok.txt").write_text("x\n")
    results = _results(
        fake_model,
        tether,
        tool_use("Write", file_path=LONG_NAME, content="x"),
        tool_use("Edit", file_path=f"{LONG_NAME}/a.py", old_string="x", new_string="y"),
        tool_use("Read", file_path=LONG_NAME),
        tool_use("Revert", file_path=LONG_NAME),
        tool_use("Glob", pattern="*.txt", path=LONG_NAME),
        tool_use("Glob", pattern=f"{LONG_NAME}/*.txt"),
        tool_use("Grep", pattern="x", path=LONG_NAME),
    )
    assert results == [(f"Error: {LONG_NAME_MESSAGE}", True)] * 7
    assert sorted(p.name for p in workspace.iterdir()) == ["ok.txt"]


def test_a_path_too_long_for_the_kernel_is_refused(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    deep = "/".join(["d" * 200] * 25)  # every name fits, the whole does not
    size = len(deep.encode())
    results = _results(
        fake_model,
        tether,
        tool_use("Write", file_path=deep, content="x"),
        tool_use("Read", file_path=deep),
    )
    # The rules refuse it before the tool runs, naming the tool and the kernel's bound.
    assert results == [
        (
            f"Permission denied: {tool}: the path is {size} bytes, longer than the system "
            "opens (4095, PATH_MAX); no file can be named by it",
            True,
        )
        for tool in ("Write", "Read")
    ]


def test_a_file_where_a_directory_should_be_is_named_precisely(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # A file where a directory should be: the kernel says ENOTDIR at every step.
    (workspace / "plain").write_text("x\n")
    results = _results(
        fake_model,
        tether,
        tool_use("Write", file_path="plain/sub/new.txt", content="x"),
        tool_use("Read", file_path="plain/inner.txt"),
        tool_use("Glob", pattern="*", path="plain/sub"),
    )
    assert results == [
        (
            "Error: Could not write plain/sub/new.txt: a parent of the path is not a directory."
            " The file was not changed.",
            True,
        ),
        (
            "Error: Could not read plain/inner.txt: a parent of the path is not a directory.",
            True,
        ),
        ("Error: Directory does not exist: plain/sub.", True),
    ]


@pytest.mark.parametrize("model", WIRES)
def test_arguments_nested_a_thousand_levels_deep_are_refused(
    fake_model: FakeModelServer, tether: Run, model: str
) -> None:
    deep = "[" * 1000 + "]" * 1000
    results = _results(
        fake_model,
        tether,
        raw_tool_use("Bash", '{"command": "echo hi", "extra": ' + deep + "}"),
        raw_tool_use("TodoWrite", '{"todos": ' + deep + "}"),
        model=model,
    )
    assert results == [
        (
            f"Error: The arguments for {tool} were not a valid JSON object (the arguments are "
            "nested 1001 levels deep, more than the 100 allowed). Call the tool again with a "
            "JSON object matching its schema.",
            True,
        )
        for tool in ("Bash", "TodoWrite")
    ]


def test_a_lone_surrogate_in_any_argument_is_refused(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # On the OpenAI wire: a lone surrogate kept in the history is the session half's to make
    # encodable for the Anthropic wire; here the tool's answer is what is checked.
    results = _results(
        fake_model,
        tether,
        raw_tool_use("Write", '{"file_path": "a\\ud800.txt", "content": "x"}'),
        raw_tool_use("Write", '{"file_path": "b.txt", "content": "x\\udc80y"}'),
        raw_tool_use("Bash", '{"command": "echo \\ud83d"}'),
        raw_tool_use("TodoWrite", '{"todos": [{"content": "\\udfff", "status": "pending"}]}'),
        model="openai/gpt-4.1",
    )
    assert results == [
        (
            f"Error: Invalid input for {tool}: {field}: holds a lone surrogate ({code} at "
            f"character {position}), which is not Unicode text and cannot be written, run or "
            "sent; use the character itself, or escape a pair of surrogates together.",
            True,
        )
        for tool, field, code, position in (
            ("Write", "file_path", "U+D800", 2),
            ("Write", "content", "U+DC80", 2),
            ("Bash", "command", "U+D83D", 6),
            ("TodoWrite", "todos.0.content", "U+DFFF", 1),
        )
    ]
    assert list(workspace.iterdir()) == []


def test_a_scratch_directory_that_cannot_be_made_is_an_error_for_bash(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    # TETHER_HOME/scratch is a file: no session can keep command output there.
    (tmp_path / "home" / "scratch").write_text("not a directory\n")
    (bash, is_error), written = _results(
        fake_model,
        tether,
        tool_use("Bash", command="echo hi"),
        tool_use("Write", file_path="a.txt", content="x\n"),  # its snapshot goes elsewhere
    )
    assert is_error
    assert bash.startswith(f"Error: Could not keep the command's output in {tmp_path}")
    assert bash.endswith(": a parent of the path is not a directory.")
    assert written == ("Created a.txt (1 lines)", False)
