"""Claude Code's `~/.claude.json` is read once per change: a `-p` run's start-up (its MCP
servers of two scopes, Claude Code's `/mcp` decisions, its trust answers) opens it once, the
next run in the same process not at all while it is unchanged, and once more after it changed;
what it holds is shared, and refuses to change."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.claude_state_file import read_claude_state
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

_opened: list[str] = []
_counting: list[Path] = []


def _count_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _counting and args and str(args[0]) == str(_counting[0]):
        _opened.append(event)


sys.addaudithook(_count_opens)  # audit hooks stay for the process: it counts only when asked


def _state(workspace: Path, model: str) -> dict[str, object]:
    entry = {"hasTrustDialogAccepted": True, "disabledMcpServers": ["cc"]}
    return {
        "mcpServers": {"cc": {"command": "never-run"}},
        "projects": {str(workspace): entry},
        "note": model,
    }


def test_claude_json_is_read_once_per_change(
    tether: Callable[..., CliResult],
    fake_model: FakeModelServer,
    workspace: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    claude = home / ".claude.json"
    fake_model.script(reply(text("one")), reply(text("two")), reply(text("three")))
    reads: list[int] = []
    for said, note in (("one", "first"), ("two", None), ("three", "second, longer")):
        if note is not None:  # the second run finds the file as the first left it
            claude.write_text(json.dumps(_state(workspace, note)))
        _counting.append(claude)
        try:
            ran = tether("-p", "hi")
        finally:
            _counting.clear()
        assert (ran.exit_code, ran.stdout) == (0, f"{said}\n"), ran.stderr
        reads.append(len(_opened))
    assert reads == [1, 1, 2]


def test_the_shared_state_refuses_changes_and_copies_are_ones_own(tmp_path: Path) -> None:
    claude = tmp_path / ".claude.json"
    claude.write_text(json.dumps({"projects": {"/p": {"list": [1]}}}))
    state = read_claude_state(claude)
    assert isinstance(state, dict)
    projects = state["projects"]
    with pytest.raises(TypeError, match="shared by every reader"):
        projects["/q"] = {}
    with pytest.raises(TypeError, match="shared by every reader"):
        projects["/p"]["list"].append(2)
    mine = copy.deepcopy(state)
    mine["projects"]["/p"]["list"].append(2)
    assert (type(mine["projects"]), mine) == (dict, {"projects": {"/p": {"list": [1, 2]}}})
    assert read_claude_state(claude) == {"projects": {"/p": {"list": [1]}}}
    assert read_claude_state(claude) is state  # unchanged: the same shared copy
