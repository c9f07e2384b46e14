"""A model stuck in a near-identical loop is told, then stopped, however it varies the calls:
two failing calls in turn, `./` in a path, a call that works beside the failing one, a changing
`offset`, `false # try N`, spaces in Edit's `old_string`. Before, only a reply that was exactly
the previous one with every call failing was counted, and each of these ran for ever. Over the
wire, on both wires; the session goes on after the stop. A model polling for what a running
background command will produce is told to end its reply instead, and not stopped."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.background_agents import WAIT_FOR_GO, WOKEN
from tests.core.idle_runs import Run, wire_model
from tether.core.repeated_calls import STUCK_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


_REMINDER = r"<system-reminder>(.*?)</system-reminder>"


def _reminders(fake_model: FakeModelServer) -> list[str]:
    """The reminders of each request's newest message (after the tool results, on either
    wire), a background command's end left out."""
    notes: list[str] = []
    for request in fake_model.requests:
        content = request.messages()[-1].get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            said = str(block.get("text", "")) if block.get("type") == "text" else ""
            notes += [
                n for n in re.findall(r"<system-reminder>(.*?)</system-reminder>", said, re.S)
            ]
    return [note for note in notes if WOKEN not in note]


LOOPS: dict[str, Callable[[int, Path], Any]] = {
    "alternating": lambda i, ws: reply(tool_use("Read", file_path=f"{ws}/{'ab'[i % 2]}.txt")),
    "path_variants": lambda i, ws: reply(tool_use("Read", file_path=f"{ws}/{'./' * i}x.txt")),
    "fail_beside_a_call_that_works": lambda i, ws: reply(
        tool_use("Read", file_path=f"{ws}/x.txt"), tool_use("Glob", pattern="*.nothing")
    ),
    "changing_offset": lambda i, ws: reply(tool_use("Read", file_path=f"{ws}/x.txt", offset=1 + i)),
    "shell_comment_counter": lambda i, ws: reply(tool_use("Bash", command=f"false # try {i}")),
    "edit_old_string_spaces": lambda i, ws: reply(
        tool_use("Edit", file_path=f"{ws}/f.txt", old_string="missing" + " " * i, new_string="x")
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_near_identical_loop_is_told_then_stopped_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "f.txt").write_text("hello\n")
    make = LOOPS[loop]
    # Answers every request (a guard with a hole runs until the test's time is up).
    fake_model.responder = lambda request: make(request.index, workspace)
    # The turn limit only bounds the test where the guard has a hole (the run went on for ever).
    result = tether("-p", "go", "--output-format", "json", "--max-turns", "40", *wire_model(wire))
    assert result.exit_code == 1, result.stdout
    outcome = result.json()
    assert outcome["errors"][0].startswith("stopped: the model made "), outcome["errors"][0]
    assert "the session is kept" in outcome["errors"][0]
    assert len(fake_model.requests) <= STUCK_STOP_AT
    told = _reminders(fake_model)
    assert told
    assert all("Do not" in note for note in told)
    assert len(told) < len(fake_model.requests)  # told first, stopped after
    fake_model.responder = reply(text("I will look elsewhere."))
    again = tether("-p", "-c", "try something else", "--output-format", "json", *wire_model(wire))
    assert again.exit_code == 0, again.stderr
    assert again.json()["result"] == "I will look elsewhere."


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_polling_for_what_a_running_background_command_will_make_is_not_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """The background command makes `ready` once `go` exists; the model polls twice the stop's
    count meanwhile, is told to end its reply instead, does, and is woken when it ends."""
    polls = 2 * STUCK_STOP_AT
    start = tool_use(
        "Bash", command=f"{WAIT_FOR_GO}; touch ready", run_in_background=True, description="make"
    )

    def enough(request: RecordedRequest) -> Any:
        (workspace / "go").touch()  # the background command may end now: not before
        return reply(text("I will wait for it."))

    fake_model.script(
        reply(start),
        *(reply(tool_use("Bash", command=f"test -f ready # poll {i}")) for i in range(polls)),
        enough,
        reply(text("ready now")),
    )
    result = tether("-p", "go", "--output-format", "json", *wire_model(wire))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "ready now"
    assert len(fake_model.requests) == polls + 3
    told = _reminders(fake_model)
    assert told
    assert all("Background work is still running (bash_1)" in note for note in told)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_fixing_failing_tests_one_by_one_is_work_not_a_repeat(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """The same test command fails again and again, but with one failure fewer each time
    (the model fixes one between runs): it is never told it repeats itself, nor stopped."""
    bugs = 12
    (workspace / "f.txt").write_text("".join(f"bug{i}\n" for i in range(bugs)))
    (workspace / "test.sh").write_text(
        'n=$(grep -c bug f.txt); echo "$n tests failing"; [ "$n" -eq 0 ]\n'
    )
    steps = [reply(tool_use("Read", file_path=str(workspace / "f.txt")))]
    for i in range(bugs):
        steps.append(reply(tool_use("Bash", command="sh test.sh")))
        fix = tool_use(
            "Edit", file_path=str(workspace / "f.txt"), old_string=f"bug{i}\n", new_string="ok\n"
        )
        steps.append(reply(fix))
    fake_model.script(*steps, reply(tool_use("Bash", command="sh test.sh")), reply(text("fixed")))
    result = tether("-p", "fix the tests", "--output-format", "json", *wire_model(wire))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "fixed"
    assert (workspace / "f.txt").read_text() == "ok\n" * bugs
    assert _reminders(fake_model) == []
