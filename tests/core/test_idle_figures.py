"""Loops new only in figures that the turn's own inputs drive are stopped, over the wire: a
command asked anew by a counter whose output is that counter worked on (`expr N * 7`,
`echo $((N*N))`, a clock printed beside it), and a background job printing progress counts for
ever while the model polls it. Each ran to the test's cap before (a layout shown before with
figures none showed counted as another commit, another code)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, Run, wire_model
from tests.hooks.helpers import wait_until
from tether.core.repeated_calls import IDLE_STOP_AT, WAITING_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

CAP = 3 * WAITING_STOP_AT
"""Where the scripted model gives up: reached only where the guard has a hole."""


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _bash(command: str, **more: Any) -> Any:
    return tool_use("Bash", command=command, **more)


LOOPS: dict[str, Callable[[int], Any]] = {
    "a_counter_multiplied": lambda i: _bash(f"expr {i} \\* 7"),
    "a_counter_squared": lambda i: _bash(f"i={i}; echo $((i*i))"),
    "a_counter_squared_and_labelled": lambda i: _bash(f"echo square: $(({i}*{i}))"),
    "a_clock_beside_a_counter": lambda i: _bash(f"echo {i}; date +%s%N"),
    "a_clock_in_a_counted_loop": lambda i: _bash(f"for k in $(seq {i}); do :; done; date +%s%N"),
    "a_counter_through_bc": lambda i: _bash(f"echo '{i} * 13' | bc"),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_loop_new_only_in_the_figures_it_drives_is_stopped(
    fake_model: FakeModelServer, tether: Run, wire: str, loop: str
) -> None:
    make = LOOPS[loop]
    fake_model.responder = lambda r: reply(make(r.index + 2)) if r.index < CAP else text("gave up")
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")
    assert len(fake_model.requests) <= IDLE_STOP_AT + 3


PROGRESS: dict[str, str] = {
    "a_counter_it_was_given": (
        'n=0; while :; do n=$((n+1)); echo "progress $n"; : > printed; sleep 0.01; done'
    ),
    "a_count_in_its_own_words": "sh copy.sh",
}


@pytest.mark.parametrize("job", sorted(PROGRESS))
def test_polling_a_job_that_prints_progress_counts_for_ever_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, job: str
) -> None:
    """Each poll shows new counts, and only counts: while the job runs the waiting bound ends
    the turn (and `-p` stops the job). The first poll waits for the job's first line (it
    writes `printed` after it): the poll that first shows a line is headway, so a poll that
    came before it would have moved the bound by one (the count of requests raced the job)."""
    (workspace / "copy.sh").write_text(
        'n=0\nwhile :; do n=$((n+1)); echo "Copied $n blocks of $((n*512)) bytes"; '
        ": > printed; sleep 0.01; done\n"
    )

    def respond(request: RecordedRequest) -> Any:
        if request.index == 0:
            return reply(_bash(PROGRESS[job], run_in_background=True))
        if request.index >= CAP:
            return text("gave up")
        if request.index == 1:
            assert wait_until(lambda: (workspace / "printed").exists()), "the job printed nothing"
        return reply(tool_use("BashOutput", bash_id="bash_1"))

    fake_model.responder = respond
    result = tether("-p", "watch it", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {WAITING_STOP_AT}")
    # The start, the first poll (its first lines are new), then the bound's polls.
    assert len(fake_model.requests) == 2 + WAITING_STOP_AT
    assert "still running, stopped with the turn the guard ended: bash_1" in result.stderr
