"""`/cost` after `/clear` counts from the clear, all of it: the money, the model calls' time,
the lines changed and the wall duration, as Claude Code resets its totals with the
conversation. On a real terminal against the fake model server."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.cli.repl_restarts import CLEARED
from tether.testing import FakeModelServer, reply, text

WALL = re.compile(r"Total duration \(wall\):\s+(?:(\d+)h\s+)?(?:(\d+)m\s+)?([0-9.]+)s")


def _walls(screen: str) -> list[float]:
    return [
        int(h or 0) * 3600 + int(m or 0) * 60 + float(s)
        for h, m, s in WALL.findall(" ".join(screen.split()))
    ]


@pytest.mark.timeout(120)
def test_the_wall_duration_counts_from_the_clear(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(text("Hello.")))
    launched = time.monotonic()
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("hi\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        # The REPL has run a while before the clear (a wait, not a measure).
        repl.wait_until(lambda _s: time.monotonic() - launched > 3, "three seconds")
        before_clear = time.monotonic()
        repl.send("/clear\r")
        repl.wait_for(CLEARED.split(":")[0])
        repl.send("/cost\r")
        repl.wait_until(lambda s: len(_walls(s)) == 1, "the /cost answer")
        since_clear = time.monotonic() - before_clear
        screen = repl.screen
    finally:
        repl.close()
    # Counted from the clear: at most the time since the test sent it (rounded to tenths).
    assert _walls(screen)[0] <= since_clear + 0.05, screen
    assert "$0.0000" in " ".join(screen.split()) or "Total cost: $0" in screen, screen
