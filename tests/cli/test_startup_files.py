"""Every file tether reads at start, made unreadable in every way a file can be: a directory,
a link to nothing or to itself, a FIFO, binary bytes, a huge file, a read error, nesting a
hundred thousand levels deep. Each gives one precise line and the session goes on, or, for the
files that may hold deny rules (settings, the seed permissions file), a clear error that stops
it. Never a traceback, never a hang."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

FORMS = ("directory", "dangling", "loop", "fifo", "binary", "huge", "unreadable", "deep")


def _make(path: Path, form: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if form == "directory":
        (path / "inside").mkdir(parents=True)  # not empty: not a sandbox placeholder
    elif form == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif form == "loop":
        path.symlink_to(path)
    elif form == "fifo":
        os.mkfifo(path)
    elif form == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe" * 8)
    elif form == "huge":
        with path.open("wb") as f:
            f.truncate(300 * 1024 * 1024)  # sparse: no disk used
    elif form == "unreadable":
        path.symlink_to("/proc/self/mem")  # opens, and every read fails with EIO
    else:
        path.write_text("[" * 100_000 + "]" * 100_000)


def _reason(path: Path, form: str, limit: str = "8 MiB") -> str:
    return {
        "directory": "is a directory, not a file",
        "dangling": f"is a link to {path.parent / 'nowhere'}, which does not exist",
        "loop": "is a link that leads back to itself (a symbolic link loop)",
        "fifo": "is a FIFO, not a regular file",
        "binary": "is not UTF-8 text (byte 0x89 at offset 0)",
        "huge": f"is 300 MiB, larger than the {limit} read",
        "unreadable": "cannot be read: input/output error",
    }[form]


@pytest.fixture
def user_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home


def _run(fake_model: FakeModelServer, tether: Run) -> CliResult:
    fake_model.script(reply(text("hello")))
    return tether("-p", "hi", "--trust-workspace")


def _lines(result: CliResult) -> list[str]:
    assert "Traceback" not in result.stderr
    return result.stderr.splitlines()


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    "where", ["~/.claude/settings.json", "$TETHER_HOME/settings.json", ".claude/settings.json"]
)
def test_a_settings_file_that_cannot_be_read_stops_the_start(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    user_home: Path,
    tmp_path: Path,
    where: str,
    form: str,
) -> None:
    path = {
        "~/.claude/settings.json": user_home / ".claude" / "settings.json",
        "$TETHER_HOME/settings.json": tmp_path / "home" / "settings.json",
        ".claude/settings.json": workspace / ".claude" / "settings.json",
    }[where]
    _make(path, form)
    result = _run(fake_model, tether)
    if form in ("dangling", "loop"):  # nothing there to hold rules: skipped, said once
        assert result.exit_code == 0, result.stderr
        assert f"tether: settings file {path} {_reason(path, form)}; skipped" in _lines(result)
        return
    assert (result.exit_code, result.stdout) == (2, "")
    assert fake_model.requests == []
    if form == "deep":
        expected = (
            f"tether: settings file {path} is not usable: it is nested 100000 levels deep, "
            "more than the 100 allowed"
        )
    else:
        expected = (
            f"tether: settings file {path} {_reason(path, form)}. It may hold deny rules, so "
            "tether does not start without it: fix it or move it away."
        )
    assert _lines(result) == [expected]


@pytest.mark.parametrize("form", FORMS)
def test_a_seed_permissions_file_that_cannot_be_read_stops_the_start(
    fake_model: FakeModelServer, tether: Run, workspace: Path, form: str
) -> None:
    path = workspace / ".tether" / "permissions.yaml"
    _make(path, form)
    result = _run(fake_model, tether)
    assert (result.exit_code, fake_model.requests) == (2, [])
    why = "nests too deeply to be read" if form == "deep" else None
    shown = path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path
    expected = (
        f"tether: permissions file {shown} {why}"
        if why
        else f"tether: cannot read permissions file {shown}: it {_reason(path, form)}"
    )
    assert _lines(result) == [expected]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md"])
def test_an_instructions_file_that_cannot_be_read_is_reported_and_skipped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, name: str, form: str
) -> None:
    if form == "deep":
        pytest.skip("brackets are text in Markdown")
    path = workspace / name
    _make(path, form)
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    if form == "unreadable":  # a link into /proc: never read into the prompt at all
        line = (
            f"tether: instructions: {name} not read: /proc holds processes' memory and "
            "devices, not instructions."
        )
    else:
        # Instructions are read only up to a cap (the rest would be cut anyway): the huge
        # file's first bytes are what is judged, and they are NULs.
        binary = form in ("binary", "huge")
        reason = "is a binary file (it holds NUL bytes), not text" if binary else None
        line = f"tether: instructions: {name} {reason or _reason(path, form)}; not read."
    assert line in _lines(result)
    assert "Contents of" not in fake_model.requests[0].system()


@pytest.mark.parametrize("form", FORMS)
def test_a_memory_file_that_cannot_be_read_is_reported_and_left_alone(
    fake_model: FakeModelServer, tether: Run, workspace: Path, form: str
) -> None:
    path = workspace / ".tether" / "memory.md"
    _make(path, form)
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    if form == "deep":  # brackets are text in Markdown: loaded as it is
        assert "[[[[" in fake_model.requests[0].system()
        return
    # Read only up to a cap, as instructions: the huge file's first bytes are NULs.
    reason = "is a binary file (it holds NUL bytes), not text" if form == "huge" else None
    assert (
        f"tether: memory: {path} {reason or _reason(path, form)}; not loaded, and compaction "
        "summaries are not added to it this session"
    ) in _lines(result)


@pytest.mark.parametrize("form", FORMS)
def test_skill_and_agent_files_that_cannot_be_read_are_reported(
    fake_model: FakeModelServer, tether: Run, workspace: Path, form: str
) -> None:
    skill = workspace / ".claude" / "skills" / "demo" / "SKILL.md"
    agent = workspace / ".claude" / "agents" / "helper.md"
    _make(skill, form)
    _make(agent, form)
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    if form == "deep":  # text: a skill without front matter is described by its first line
        why = "no front matter: the file must start with a '---' line"
        used = f"its first line is used: '{'[' * 79}…'"
        lines = [
            f"tether: skill {skill}: 'description' is missing (it says what the skill does and "
            f"when to use it); {used}",
            f"tether: agent {agent} is unusable: {why}",
        ]
    else:
        lines = [
            f"tether: skill {skill} is unusable: cannot read the file: it {_reason(skill, form)}",
            f"tether: agent {agent} is unusable: cannot read the file: it {_reason(agent, form)}",
        ]
    assert set(lines) <= set(_lines(result))


@pytest.mark.parametrize("form", FORMS)
def test_mcp_configuration_that_cannot_be_read_is_reported(
    fake_model: FakeModelServer, tether: Run, workspace: Path, form: str
) -> None:
    path = workspace / ".mcp.json"
    _make(path, form)
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    if form == "deep":
        line = (
            f"tether: MCP: {path} is not usable: it is nested 100000 levels deep, more than "
            "the 100 allowed"
        )
    else:
        line = f"tether: MCP: cannot read {path}: it {_reason(path, form)}"
    assert line in _lines(result)


@pytest.mark.parametrize("form", FORMS)
def test_trust_answers_that_cannot_be_read_count_for_nothing_and_are_reported(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path, form: str
) -> None:
    path = tmp_path / "home" / "trust.json"
    _make(path, form)
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(ls)"]}})
    )
    fake_model.script(reply(text("hello")))
    result = tether("-p", "hi")  # no --trust-workspace: the answers are read
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    why = (
        "it is not valid JSON (nested 100000 levels deep, more than the 100 allowed)"
        if form == "deep"
        else f"it {_reason(path, form)}"
    )
    assert f"tether: trust: the trust answers in {path} do not count: {why}" in _lines(result)
    assert any("the workspace is not trusted" in line for line in _lines(result))


def test_a_sandbox_placeholder_is_no_configuration_and_no_problem(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / ".mcp.json").mkdir()  # what the sandbox leaves there while a command runs
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("where", ["project", "project-nested", "user"])
def test_a_command_file_that_cannot_be_read_is_reported_and_skipped(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    user_home: Path,
    where: str,
    form: str,
) -> None:
    """A link loop under `~/.claude/commands/` stopped every start, in every project."""
    base = user_home if where == "user" else workspace
    path = base / ".claude" / "commands" / ("sub/y.md" if where == "project-nested" else "y.md")
    _make(path, form)
    (path.parent / "fine.md").write_text("Say fine.\n")
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    lines = _lines(result)
    if form != "deep":  # brackets are text in Markdown: a command like any other
        reason = f"cannot read {path}: it {_reason(path, form)}"
        assert f"tether: command {path} is unusable: {reason}" in lines
    assert not any("fine.md" in line for line in lines)


def test_an_import_of_a_link_loop_is_reported_and_skipped(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "CLAUDE.md").write_text("Be brief.\n@loop.md\n")
    _make(workspace / "loop.md", "loop")
    result = _run(fake_model, tether)
    assert (result.exit_code, result.stdout) == (0, "hello\n"), result.stderr
    assert any("loop.md" in line and "symbolic link loop" in line for line in _lines(result))
    assert "Be brief." in fake_model.requests[0].system()
