"""A compaction asked for (`/compact`, the `Compact` op) reaches the session's observers as an
automatic one does (it did not): the ledger follows what the compaction kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.cli.setup import RunOptions, build_session
from tether.protocol import Compact, ContextCompacted, Event, UserInput
from tether.testing import FakeModelServer, reply, text, tool_use

from .conftest import rows
from .formula import charges_in


async def test_a_compaction_asked_for_is_observed(
    model_env: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workspace.parent / "user-home"))
    model_env.script(
        reply(tool_use("Bash", command="echo one")),
        reply(text("ran it")),
        reply(text("SUMMARY: ran echo one")),
        reply(text("still here"), usage={"input_tokens": 400, "output_tokens": 3}),
    )
    options = RunOptions(cwd=workspace, permission_mode="bypassPermissions")
    session = build_session(options)
    seen: list[Event] = []
    session.observers.append(seen.append)
    try:
        async for _ in session.submit(UserInput(text="run it")):
            pass
        async for _ in session.submit(Compact(focus=None)):
            pass
        async for _ in session.submit(UserInput(text="and now?")):
            pass
    finally:
        await session.aclose()
    assert [e.trigger for e in seen if isinstance(e, ContextCompacted)] == ["manual"]
    [bash] = rows("tool_calls")
    charged = (bash["cache_read_tokens"], bash["cache_write_tokens"], bash["input_tokens"])
    # The compaction kept the short exchange whole: its result is charged after it too.
    first, last = (charges_in(model_env.requests[n])["toolu_1"] for n in (1, 3))
    assert charged == tuple(a + b for a, b in zip(first, last, strict=True))
