"""Honest long work that looks like a counter runs to its end, over the wire: a fix loop that
tunes a figure (an edit that changes only a number, then the test, which says the same with the
figure written), and a subagent per file whose review finds nothing without a call the lead sees.
Both were stopped at the stop's count of replies (the edit's content is not new with its numbers
masked, nor is the test's output; the task's answer is the same each time). What still stops: a
figure the run does not show, one flipped back and forth, a task asked about the same file."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, LONG_HUNT, Run, wire_model
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

EDITS = IDLE_STOP_AT + 10
"""More edit-and-run rounds than the stop's count of replies (each round two replies)."""

ARGS = ["-p", "fix it", "--output-format", "json", "--dangerously-skip-permissions"]


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _word() -> str:
    return "".join(random.choice(string.ascii_lowercase) for _ in range(9))


def _lead_replies(fake_model: FakeModelServer, calls: list[Any], answer: str = "") -> list[int]:
    """The lead's replies in turn (then "all done"; past the long cap, "gave up"); a subagent's
    request (its prompt starts "SUB:") answered with `answer`. The lead's requests, kept."""
    leads: list[int] = []

    def respond(request: RecordedRequest) -> Any:
        first = next(m for m in request.messages() if m["role"] == "user")
        if "SUB:" in json.dumps(first["content"]):
            return text(answer.format(word=_word()))
        leads.append(request.index)
        if len(leads) > len(calls):
            return text("all done" if len(leads) <= LONG_HUNT else "gave up")
        return reply(calls[len(leads) - 1])

    fake_model.responder = respond
    return leads


def _ends(result: Any) -> None:
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["result"] == "all done"


def _stopped(result: Any) -> None:
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}")


TEST_SHOWING = 'echo "FAILED test_limit: expected 997, got $(cat {name}) (0.$RANDOM s)"\n'
TEST_SILENT = 'echo "FAILED test_limit (0.$RANDOM s)"; cat {name} > /dev/null\n'
TEST_FAILING = 'echo "FAILED test_limit - assert $(cat {name}) >= 997"; exit 1\n'
"""A test that fails (its run an error) until the figure is right, showing the figure."""
TEST_FAILING_SILENT = 'echo "FAILED test_limit (run $$)"; cat {name} > /dev/null; exit 1\n'


def _write_rounds(ws: Path, figures: list[int]) -> list[Any]:
    return [
        call
        for figure in figures
        for call in (
            tool_use("Write", file_path=f"{ws}/limit.txt", content=f"{figure}\n"),
            tool_use("Bash", command="sh t.sh"),
        )
    ]


def _edit_rounds(ws: Path, figures: list[int]) -> list[Any]:
    (ws / "limit.txt").write_text("LIMIT = 0\n")
    calls: list[Any] = [tool_use("Read", file_path=f"{ws}/limit.txt")]
    for before, figure in zip([0, *figures], figures, strict=False):
        old, new = f"LIMIT = {before}", f"LIMIT = {figure}"
        calls.append(tool_use("Edit", file_path=f"{ws}/limit.txt", old_string=old, new_string=new))
        calls.append(tool_use("Bash", command="sh t.sh"))
    return calls


ROUNDS: dict[str, Callable[[Path, list[int]], list[Any]]] = {
    "write": _write_rounds,
    "edit": _edit_rounds,
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("how", sorted(ROUNDS))
@pytest.mark.parametrize("test", [TEST_SHOWING, TEST_FAILING], ids=["passing", "failing"])
def test_a_fix_loop_tuning_a_figure_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, how: str, wire: str, test: str
) -> None:
    """Its test run shows the figure written, whether it exits 0 or fails until it is right
    (a failing run was not looked at: stopped at the 37th reply)."""
    (workspace / "t.sh").write_text(test.format(name="limit.txt"))
    calls = ROUNDS[how](workspace, list(range(1, EDITS + 1)))
    leads = _lead_replies(fake_model, calls)
    _ends(tether(*ARGS, *wire_model(wire)))
    assert len(leads) == len(calls) + 1
    assert str(EDITS) in (workspace / "limit.txt").read_text()


def _flipped(count: int) -> list[int]:
    return [7 + k % 2 for k in range(count)]


LOOPS: dict[str, tuple[str, Callable[[Path, list[int]], list[Any]], Callable[[int], list[int]]]]
LOOPS = {
    "figure_the_run_does_not_show": (TEST_SILENT, _write_rounds, lambda n: list(range(n))),
    "figure_flipped_back_and_forth_failing": (TEST_FAILING, _edit_rounds, _flipped),
    "figure_flipped_back_and_forth_written": (TEST_SHOWING, _write_rounds, _flipped),
    "figure_flipped_back_and_forth_edited": (TEST_SHOWING, _edit_rounds, _flipped),
}


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_figure_written_that_no_run_shows_anew_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, loop: str
) -> None:
    script, rounds, figures = LOOPS[loop]
    (workspace / "t.sh").write_text(script.format(name="limit.txt"))
    leads = _lead_replies(fake_model, rounds(workspace, figures(LONG_HUNT)))
    _stopped(tether(*ARGS))
    assert len(leads) <= IDLE_STOP_AT + 6  # the first rounds are new


def test_a_failing_run_that_does_not_show_the_figure_written_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """A failing run counts only by the figure it shows: one that shows none (the same
    failure each time) is the same failing call, stopped by that bound first."""
    (workspace / "t.sh").write_text(TEST_FAILING_SILENT.format(name="limit.txt"))
    leads = _lead_replies(fake_model, _edit_rounds(workspace, list(range(1, LONG_HUNT))))
    result = tether(*ARGS)
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"][0].startswith("stopped: the model made the same failing call")
    assert len(leads) <= IDLE_STOP_AT + 6


def _task(prompt: str) -> Any:
    return tool_use("Task", prompt=prompt, description="review", subagent_type="general-purpose")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_subagent_per_file_finding_nothing_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """Each subagent answers "No issues found." without a call: the file its task names is
    the work asked (each file alike but for its numbers)."""
    files = IDLE_STOP_AT + 15
    for k in range(files):
        (workspace / f"mod{k}.py").write_text(f"def f{k}():\n    return {k}\n")
    calls = [_task(f"SUB: review `mod{k}.py` for bugs.") for k in range(files)]
    leads = _lead_replies(fake_model, calls, "No issues found.")
    _ends(tether(*ARGS, *wire_model(wire)))
    assert len(leads) == files + 1


@pytest.mark.parametrize("named", ["app.py", "./app.py", "missing.py"])
def test_tasks_about_the_same_file_or_none_are_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, named: str
) -> None:
    (workspace / "app.py").write_text("print('hello')\n")
    calls = [_task(f"SUB: is {named} still used? ({k})") for k in range(LONG_HUNT)]
    leads = _lead_replies(fake_model, calls, "checked: {word} is not used")
    _stopped(tether(*ARGS))
    assert len(leads) <= IDLE_STOP_AT + 2
