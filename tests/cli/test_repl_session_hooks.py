"""SessionStart and SessionEnd in the REPL as Claude Code fires them: SessionStart as soon as
the session is on screen (no message needed), `/clear` ends one session with reason `clear`
and starts the next with source `clear`, `/resume` ends with `resume`, and leaving at the
prompt ends with `prompt_input_exit`."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from prompt_toolkit.input import create_pipe_input

from tests.hooks.wire import dump_command, dumped, python_hook, write_settings
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text

from .repl_terminal import CTRL_D, AfterTurn, Terminal

SAY = """\
import json, sys
data = json.load(sys.stdin)
what = data.get("source") or data.get("reason")
print(json.dumps({"systemMessage": f"hook saw {data['hook_event_name']} {what}"}))
"""


def _hooks(workspace: Path) -> Path:
    dumps = workspace.parent / "dumps"
    say = python_hook(workspace.parent / "say.py", SAY)
    group = [{"hooks": [{"type": "command", "command": dump_command(dumps)}]}]
    said = [{"hooks": [{"type": "command", "command": say}]}]
    write_settings(workspace, {"SessionStart": group + said, "SessionEnd": group})
    return dumps


async def test_session_start_fires_at_start_and_clear_is_said_to_both_hooks(
    model_env: FakeModelServer, trusted_workspace: Path
) -> None:
    dumps = _hooks(trusted_workspace)
    terminal = Terminal()
    with create_pipe_input() as pipe:
        repl = asyncio.create_task(terminal.run_with(trusted_workspace, pipe))
        await terminal.wait_for("hook saw SessionStart startup")
        pipe.send_text("/clear\r")
        await terminal.wait_for("hook saw SessionStart clear")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    assert [d["source"] for d in dumped(dumps, "SessionStart")] == ["startup", "clear"]
    assert [d["reason"] for d in dumped(dumps, "SessionEnd")] == ["clear", "prompt_input_exit"]
    assert model_env.requests == []  # no message was needed for either


async def test_session_start_context_reaches_the_first_message_and_resume_is_said(
    model_env: FakeModelServer, trusted_workspace: Path
) -> None:
    dumps = _hooks(trusted_workspace)
    context = python_hook(trusted_workspace.parent / "ctx.py", "print('the build uses make')\n")
    write_settings(
        trusted_workspace,
        {
            "SessionStart": [{"hooks": [{"type": "command", "command": context}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": dump_command(dumps)}]}],
        },
    )
    model_env.script(reply(text("Noted.")))
    assert await Terminal().run(trusted_workspace, "hello\r" + CTRL_D) == 0
    assert "the build uses make" in str(model_env.requests[0].messages())
    [earlier] = list_sessions(Path(os.environ["TETHER_HOME"]), trusted_workspace)
    assert await Terminal().run(trusted_workspace, f":resume {earlier.session_id}\r" + CTRL_D) == 0
    reasons = [d["reason"] for d in dumped(dumps, "SessionEnd")]
    assert reasons == ["prompt_input_exit", "resume", "prompt_input_exit"]


async def test_compaction_fires_session_start_compact_and_its_context_reaches_the_model(
    model_env: FakeModelServer, trusted_workspace: Path
) -> None:
    dumps = trusted_workspace.parent / "dumps"
    context = python_hook(
        trusted_workspace.parent / "ctx.py",
        "import json, sys\nprint('context after ' + json.load(sys.stdin)['source'])\n",
    )
    hooks = [
        {"hooks": [{"type": "command", "command": dump_command(dumps)}]},
        {"matcher": "compact", "hooks": [{"type": "command", "command": context}]},
    ]
    write_settings(trusted_workspace, {"SessionStart": hooks})
    said = ("one", "two", "three", "Summary of it all.", "four")
    model_env.script(*(reply(text(s)) for s in said))
    steps = ("a\r", AfterTurn("b\r"), AfterTurn("c\r"), AfterTurn("/compact\rd\r"))
    assert await Terminal().type_steps(trusted_workspace, *steps, AfterTurn(CTRL_D)) == 0
    assert [d["source"] for d in dumped(dumps, "SessionStart")] == ["startup", "compact"]
    last = model_env.requests[-1]
    assert "context after compact" in str(last.messages())
    assert "context after startup" not in str(model_env.requests[0].messages())


async def test_add_dir_goes_on_with_the_session_and_fires_no_session_end_nor_start(
    model_env: FakeModelServer, trusted_workspace: Path
) -> None:
    """/add-dir rebuilds the session but it goes on: no SessionEnd, no second SessionStart,
    and what SessionStart added before the first message still reaches it."""
    dumps = trusted_workspace.parent / "dumps"
    context = python_hook(trusted_workspace.parent / "ctx.py", "print('the build uses make')\n")
    dump = [{"hooks": [{"type": "command", "command": dump_command(dumps)}]}]
    say = python_hook(trusted_workspace.parent / "say.py", SAY)
    write_settings(
        trusted_workspace,
        {
            "SessionStart": [
                *dump,
                {"hooks": [{"type": "command", "command": context}]},
                {"hooks": [{"type": "command", "command": say}]},
            ],
            "SessionEnd": dump,
        },
    )
    for name in ("first", "second"):
        (trusted_workspace.parent / name).mkdir()
    model_env.script(reply(text("Noted.")), reply(text("Again.")))
    terminal = Terminal()
    with create_pipe_input() as pipe:
        repl = asyncio.create_task(terminal.run_with(trusted_workspace, pipe))
        await terminal.wait_for("hook saw SessionStart startup")
        pipe.send_text("/add-dir ../first\r")  # before any message
        await terminal.wait_for("✓ Added")
        pipe.send_text("hello\r")
        await terminal.wait_for("Noted.")
        pipe.send_text("/add-dir ../second\r")  # after one
        await terminal.wait_for("✓ Added", count=2)
        pipe.send_text("again\r")
        await terminal.wait_for("Again.")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    assert [d["source"] for d in dumped(dumps, "SessionStart")] == ["startup"]
    assert [d["reason"] for d in dumped(dumps, "SessionEnd")] == ["prompt_input_exit"]
    assert "the build uses make" in str(model_env.requests[0].messages())
