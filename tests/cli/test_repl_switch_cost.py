"""`/cost` after `:fork` or `:resume` in the REPL: the wall duration is the session's stored
time plus the time since the switch. The stored figure already holds this REPL's time up to
the switch, and that time was added again (32 s shown as 1m 4s after forking the session). On a
real terminal against the fake model server."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_clear_cost import _walls  # pyright: ignore[reportPrivateUsage]
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text


@pytest.mark.timeout(120)
def test_the_wall_duration_after_forking_this_session_is_not_counted_twice(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(text("Hello.")))
    launched = time.monotonic()
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        # Time passes before the turn whose end stores the session's wall time: the figure
        # under test is a duration (nothing is ordered by this wait).
        time.sleep(3)
        repl.send("hi\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
        repl.send(f":fork {session.session_id}\r")
        repl.wait_for("forked from")
        repl.send("/cost\r")
        repl.wait_until(lambda s: len(_walls(s)) == 1, "the /cost answer")
        since_launch = time.monotonic() - launched
        screen = repl.screen
    finally:
        repl.close()
    # All of it happened since the test launched the REPL: at most that (rounded to tenths).
    [wall] = _walls(screen)
    assert 0 < wall <= since_launch + 0.05, screen
