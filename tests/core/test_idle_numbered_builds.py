"""A build asked unit by unit (`sh build.sh N`) whose output is the last one's with the number
it was given runs to its end when each step leaves a new file in the workspace (the object it
compiled): it was stopped at the idle bound, its output read as a counter echoed back. The
same command asked again making files, and a numbered step that makes nothing, stay stopped.
Over the wire."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.idle_runs import IDLE, Run, numbered_bash
from tether.core.headway_rewrites import REWRITTEN_AT
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer

UNITS = 2 * IDLE_STOP_AT
"""Units built one per reply: past the idle bound."""

_BUILD = (
    'mkdir -p obj/units; echo "int u$1;" > obj/units/unit_$1.o; '
    'echo "[$1/{n}] CC src/unit_$1.c ok"\n'
)


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def test_a_build_unit_by_unit_writing_objects_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "build.sh").write_text(_BUILD.format(n=UNITS))
    replies = numbered_bash(fake_model, "sh build.sh {n}", UNITS, "built")
    result = tether("-p", "build it", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 0, result.stdout[-2000:]
    assert result.json()["result"] == "built"
    assert len(replies) == UNITS + 1
    assert sorted(p.name for p in (workspace / "obj" / "units").iterdir()) == sorted(
        f"unit_{n}.o" for n in range(1, UNITS + 1)
    )


@pytest.mark.parametrize(
    "command",
    [
        "sh steps.sh {n}",  # a numbered step that leaves nothing: a counter echoed back
        "mkdir -p junk; touch junk/$(date +%s%N); echo made",  # the same, a new file each time
    ],
)
def test_steps_that_make_nothing_new_by_their_numbers_are_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, command: str
) -> None:
    (workspace / "steps.sh").write_text(f'echo "[$1/{UNITS}] step $1 ok"\n')
    replies = numbered_bash(fake_model, command, UNITS, "built")
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:]
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    assert len(replies) <= IDLE_STOP_AT + REWRITTEN_AT + 3  # the first of each is new
