"""Each recalled memory is shown with when it was saved, so that of two that disagree the model
can tell the current one whatever their wording: MemorySearch's results, the memories offered
with a session's first prompt, and `tether memory search`. Sessions of `tether -p` against the
fake model; the times are the memory file's own (`tether memory list --json`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import memory_cli

Run = Callable[..., CliResult]

STALE = "Deploys use kubectl apply."
CORRECTION = "Vi deployar nu med helm i stället för kubectl apply."
"""A correction no wording rule reads (Swedish): only its date says it is the newer."""


def _minute(created_at: str) -> str:
    day, _, time = created_at.partition("T")
    return f"{day} {time[:5]} UTC"


def test_recalled_memories_are_shown_with_when_they_were_saved(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        tool_use("MemorySave", text=STALE),
        tool_use("MemorySave", text=CORRECTION),
        text("saved"),
    )
    assert tether("-p", "remember how we deploy").exit_code == 0
    listed = memory_cli("--cwd", str(workspace), "list", "--json")
    saved = {row["text"]: _minute(row["created_at"]) for row in json.loads(listed.stdout)}
    assert set(saved) == {STALE, CORRECTION}

    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySearch", query="kubectl apply"), text("found"))
    assert tether("-p", "kubectl apply").exit_code == 0
    offered = fake_model.requests[0].messages()[-1]["content"]
    reminder = next(b["text"] for b in offered if "Memories saved" in b.get("text", ""))
    assert reminder == (
        "<system-reminder>\nMemories saved in earlier sessions of this project that may bear "
        "on this request (MemorySearch finds more; they may be out of date: of two that "
        "disagree, the one saved later is likely the current one):\n"
        f"- Memory 1 (saved {saved[STALE]}): {STALE}\n"
        f"- Memory 2 (saved {saved[CORRECTION]}): {CORRECTION}\n</system-reminder>"
    )
    assert fake_model.requests[1].tool_results() == [
        f"Memory 1 (saved {saved[STALE]}): {STALE}\n\n"
        f"Memory 2 (saved {saved[CORRECTION]}): {CORRECTION}"
    ]

    searched = memory_cli("--cwd", str(workspace), "search", "kubectl apply")
    assert searched.exit_code == 0, searched.stderr
    assert searched.stdout.splitlines() == [
        f"    1  {saved[STALE]} (both)  {STALE}",
        f"    2  {saved[CORRECTION]} (both)  {CORRECTION}",
    ]
