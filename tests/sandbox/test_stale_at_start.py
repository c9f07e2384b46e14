"""What a killed tether left in a workspace (placeholders) is removed off a session's start: the
first request does not wait for it, and the session's first command and its end do."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tether.sandbox.placeholders import placeholders_for
from tether.sandbox.protected import Protected
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text
from tether.testing.cli_runner import run_cli_process

from .conftest import needs_bwrap

pytestmark = needs_bwrap


def test_the_first_request_does_not_wait_for_removing_what_a_killed_tether_left(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """Another tether's removal at work in the workspace holds its turn until the first
    request has arrived: a start that removed the stale placeholders itself would wait for
    it, and the request would never come."""
    placeholders = placeholders_for(workspace.resolve())
    held = placeholders.hold()
    try:  # what a tether killed while its command ran leaves
        assert placeholders.ensure(workspace / ".vscode", Protected(".vscode", True, "", "x"))
    finally:
        os.close(held)
    turn = os.open(placeholders.turn_file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(turn, fcntl.LOCK_EX)
    seen: list[list[str]] = []

    def answer(request: RecordedRequest) -> Turn:
        seen.append(sorted(os.listdir(workspace)))
        os.close(turn)  # the other removal ends
        return reply(text("ok"))

    model_env.script(answer)
    try:
        result = run_cli_process(["-p", "hi"], cwd=workspace, timeout_s=60)
    finally:
        if not seen:
            os.close(turn)
    assert (result.exit_code, result.stdout.strip()) == (0, "ok"), result.stderr
    assert seen == [[".vscode"]]
    # The session's end waited for the removal.
    assert os.listdir(workspace) == []
