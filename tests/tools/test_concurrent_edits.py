"""A file changed by someone else since the model read it is never overwritten: Edit and
Write (and Revert) refuse, asking for a fresh Read. By content, so that a change of the same
size in the same clock tick (or with its time set back) is seen; and checked again just before
the rename, so that two tether sessions editing one file lose nothing that was reported done.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tether.protocol import ToolUseBlock
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.recorded import RecordedRequest
from tether.testing.script import Reply
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

from .conftest import RunTool

CHANGED = (
    "Error: {} changed on disk since it was last read (another program or session wrote it); "
    "Read it again before changing it."
)


async def test_a_same_size_change_with_its_time_set_back_is_still_seen(
    run_tool: RunTool, ws: Path
) -> None:
    target = ws / "a.txt"
    target.write_text("alpha\n")
    await run_tool("Read", file_path="a.txt")
    before = target.stat()
    target.write_text("omega\n")  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # same time
    for call in (
        {"name": "Edit", "old_string": "omega", "new_string": "x"},
        {"name": "Write", "content": "mine\n"},
    ):
        name = call.pop("name")
        outcome = await run_tool(name, file_path="a.txt", **call)
        assert outcome == ToolOutcome(CHANGED.format("a.txt"), True)
    assert target.read_text() == "omega\n"


async def test_a_file_created_meanwhile_is_not_overwritten_by_a_write(
    ctx: ToolContext, ws: Path
) -> None:
    registry = ToolRegistry(builtin_tools())
    call = ToolUseBlock(id="c1", name="Write", input={"file_path": "new.txt", "content": "x\n"})
    # The precondition passes (no file yet); then another program creates it.
    assert registry.check(call, ctx) is None
    (ws / "new.txt").write_text("theirs\n")
    outcome = await registry.run(call, ctx)
    assert (outcome.content, outcome.is_error) == (
        CHANGED.format("new.txt").replace(
            "changed on disk since it was last read (another program or session wrote it); "
            "Read it again before changing it.",
            "has not been read in this session; Read it before changing it.",
        ),
        True,
    )
    assert (ws / "new.txt").read_text() == "theirs\n"


async def test_revert_does_not_undo_what_someone_else_wrote_since(
    run_tool: RunTool, ws: Path
) -> None:
    await run_tool("Write", file_path="a.txt", content="mine\n")
    (ws / "a.txt").write_text("theirs\n")
    outcome = await run_tool("Revert", file_path="a.txt")
    assert outcome == ToolOutcome(CHANGED.format("a.txt"), True)
    assert (ws / "a.txt").read_text() == "theirs\n"
    await run_tool("Read", file_path="a.txt")
    assert (await run_tool("Revert", file_path="a.txt")).is_error is False
    assert not (ws / "a.txt").exists()


EDITS_PER_REPLY = 8
BATCHES = 6


class _Editor:
    """A scripted model that Reads the file, then sends replies of EDITS_PER_REPLY Edits,
    each putting a marker of its own before the END line; after a refused Edit it Reads
    again. It stops after BATCHES replies of Edits once one of its Edits was reported done
    (a session can lose every race while the other one is editing, never after it ended).
    `succeeded`: the markers whose Edit was reported done."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.batches = 0
        self.pending: list[str] = []
        self.succeeded: list[str] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        errors = request.tool_result_errors()
        if self.pending:
            self.succeeded += [
                m for m, error in zip(self.pending, errors, strict=True) if not error
            ]
        refused = bool(self.pending) and any(errors)
        self.pending = []
        if self.batches >= BATCHES and self.succeeded:
            return reply(text("done"))
        if not errors or refused:
            return reply(tool_use("Read", file_path="shared.txt"))
        self.batches += 1
        self.pending = [f"{self.name}-{self.batches}-{i}" for i in range(EDITS_PER_REPLY)]
        return reply(
            *(
                tool_use("Edit", file_path="shared.txt", old_string="END", new_string=f"{m}\nEND")
                for m in self.pending
            )
        )


def test_two_sessions_editing_one_file_lose_no_reported_edit(
    tmp_path: Path, workspace: Path
) -> None:
    (workspace / "shared.txt").write_text("START\nEND\n")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    editors = [_Editor("a"), _Editor("b")]
    servers = [FakeModelServer().start() for _ in editors]
    try:
        for server, editor in zip(servers, editors, strict=True):
            # Enough replies for an editor that lost every race until the other one ended.
            server.script(*[editor] * (12 * BATCHES))
        processes = [
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "tether", "-p", "edit", "--cwd", str(workspace)),
                    *("--permission-mode", "bypassPermissions", "--output-format", "json"),
                ],
                env={
                    **os.environ,
                    "ANTHROPIC_BASE_URL": server.url,
                    "ANTHROPIC_API_KEY": "test-key",
                    "TETHER_HOME": str(home),
                },
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for server in servers
        ]
        for process in processes:
            out, err = process.communicate(timeout=240)
            assert process.returncode == 0, err
            assert json.loads(out)["result"] == "done"
    finally:
        for server in servers:
            server.stop()
    lines = (workspace / "shared.txt").read_text().splitlines()
    reported = [m for editor in editors for m in editor.succeeded]
    assert (lines[0], lines[-1]) == ("START", "END")
    assert sorted(lines[1:-1]) == sorted(reported)
    assert all(editor.succeeded for editor in editors)
