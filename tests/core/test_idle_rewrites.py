"""Loops that the idle bound let run for ever, over the wire, on both wires: a write of what
the file held already, or held before (an A/B flip, an Edit undone by the next); a Read of a
stamp the loop itself rewrites; output new only in a random token (letters, a `mktemp -u`
name, a word longer than 64 letters); random punctuation, blanks or separators between words,
two such commands in turn; a plan rewritten with a new word. Each is stopped now, at the stop's
count of replies (what varies from run to run is no new content); a write of new content each
reply still runs on."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import IDLE, LONG_HUNT, Run, wire_model
from tether.core.repeated_calls import IDLE_STOP_AT, WAITING_STOP_AT
from tether.testing import FakeModelServer, reply, text, tool_use

CAP = LONG_HUNT
"""Where the scripted model gives up: reached only where the guard has a hole."""


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _read(ws: Path, name: str) -> Any:
    return tool_use("Read", file_path=f"{ws}/{name}")


def _edit(ws: Path, old: str, new: str) -> Any:
    return tool_use("Edit", file_path=f"{ws}/state.txt", old_string=old, new_string=new)


def _random_letters(command: str) -> str:
    return f"head -c 400 /dev/urandom | tr -dc 'g-z' | head -c 8; {command}"


def _random(letters: str, length: int) -> str:
    """A command printing `length` characters of `letters` drawn at random."""
    return f"head -c 20000 /dev/urandom | tr -dc '{letters}' | head -c {length}; echo"


_SEPARATED = (
    "s=' ,;/'; w=(ok fail); for k in 1 2 3 4 5 6 7 8 9 10 11 12; "
    'do printf "%s%s" "${w[RANDOM % 2]}" "${s:RANDOM % 4:1}"; done; echo'
)
"""Twelve words of {ok, fail}, each followed by one of four separators at random."""


_JOB = f"while true; do if [ -e go ]; then {_random_letters('echo')}; rm go; fi; sleep 0.005; done"
"""A job printing a random word each time it is told (`go` made), then saying it did (`go`
gone): each poll shows exactly one new word, whatever the machine's load (a job printing at
its own pace made the count of polls between two words a race)."""


def _poll_after_a_word(i: int, ws: Path) -> Any:
    """The job started, then each poll made once the job printed one more word."""
    if i == 0:
        return reply(tool_use("Bash", command=f"cd {ws} && {_JOB}", run_in_background=True))
    go = ws / "go"
    go.touch()
    for _ in range(6000):  # the job takes the word in within milliseconds; at most a minute
        if not go.exists():
            break
        time.sleep(0.01)
    return reply(tool_use("BashOutput", bash_id="bash_1"))


LOOPS: dict[str, tuple[Callable[[int, Path], Any], int]] = {
    "write_the_same_content": (
        lambda i, ws: reply(
            _read(ws, "state.txt"), tool_use("Write", file_path=f"{ws}/state.txt", content="A\n")
        ),
        IDLE_STOP_AT,
    ),
    "write_two_contents_in_turn": (
        lambda i, ws: reply(
            _read(ws, "state.txt"),
            tool_use("Write", file_path=f"{ws}/state.txt", content="AB"[i % 2] + "\n"),
        ),
        IDLE_STOP_AT,
    ),
    "edit_undone_by_the_next_edit": (
        lambda i, ws: reply(_read(ws, "state.txt"), _edit(ws, *("AB" if i % 2 == 0 else "BA"))),
        IDLE_STOP_AT,
    ),
    "read_a_stamp_the_loop_rewrites": (
        lambda i, ws: reply(
            tool_use("Bash", command="date +%s%N > stamp.txt"), _read(ws, "stamp.txt")
        ),
        IDLE_STOP_AT,
    ),
    "a_plan_with_a_new_word": (
        lambda i, ws: reply(
            tool_use(
                "TodoWrite",
                todos=[
                    {
                        "content": f"check {'qwzx'[i % 4] * (2 + i % 7)}",
                        "status": "pending",
                        "activeForm": "checking",
                    }
                ],
            )
        ),
        IDLE_STOP_AT,
    ),
    "random_letters": (
        lambda i, ws: reply(tool_use("Bash", command=_random_letters("echo"))),
        IDLE_STOP_AT,
    ),
    "a_mktemp_name": (
        lambda i, ws: reply(tool_use("Bash", command="mktemp -u")),
        IDLE_STOP_AT,
    ),
    "read_a_stamp_of_random_letters": (
        lambda i, ws: reply(
            tool_use("Bash", command=_random_letters("echo") + " > stamp.txt"),
            _read(ws, "stamp.txt"),
        ),
        IDLE_STOP_AT,
    ),
    "poll_a_job_printing_random_letters": (_poll_after_a_word, WAITING_STOP_AT),
    "a_random_word_longer_than_a_token": (
        lambda i, ws: reply(tool_use("Bash", command=_random("a-zA-Z", 80))),
        IDLE_STOP_AT,
    ),
    "random_punctuation": (
        lambda i, ws: reply(tool_use("Bash", command=_random(".,;:-", 40))),
        IDLE_STOP_AT,
    ),
    "random_blanks_before_a_word": (
        lambda i, ws: reply(tool_use("Bash", command='printf "%$((RANDOM % 9000 + 3))s\\n" ok')),
        IDLE_STOP_AT,
    ),
    "words_of_a_small_set_with_random_separators": (
        lambda i, ws: reply(tool_use("Bash", command=_SEPARATED)),
        IDLE_STOP_AT,
    ),
    "two_commands_in_turn_printing_random_punctuation": (
        lambda i, ws: reply(tool_use("Bash", command=f"echo {'AB'[i % 2]}; {_random('.,;:', 30)}")),
        IDLE_STOP_AT,
    ),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_loop_new_only_in_what_it_undoes_or_in_a_token_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str, loop: str
) -> None:
    (workspace / "state.txt").write_text("A\n")
    make, bound = LOOPS[loop]
    fake_model.responder = lambda r: make(r.index, workspace) if r.index < CAP else text("gave up")
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 1, result.stdout + result.stderr
    stop = WAITING_STOP_AT if loop.startswith("poll") else IDLE_STOP_AT
    assert result.json()["errors"][0].startswith(f"stopped: the model {IDLE} in {stop}")
    assert len(fake_model.requests) <= bound + 10  # the first outputs of each shape are new


def test_writing_new_content_each_reply_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """Each reply edits the next line: the file never holds a content it held before."""
    lines = IDLE_STOP_AT + 10
    state = workspace / "state.txt"
    state.write_text("".join(f"todo {k}\n" for k in range(lines)))
    edits = (_edit(workspace, f"todo {k}\n", f"done {k}\n") for k in range(lines))
    read = reply(_read(workspace, "state.txt"))
    fake_model.script(read, *(reply(e) for e in edits), reply(text("all done")))
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "all done"
    assert state.read_text() == "".join(f"done {k}\n" for k in range(lines))


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_undoing_a_refactor_of_many_files_runs_to_its_end(
    fake_model: FakeModelServer, tether: Run, workspace: Path, wire: str
) -> None:
    """Each file edited, then each edited back: a return to an earlier content is work once
    per file (a flip of the same file again is not)."""
    files = [workspace / f"m{k}.py" for k in range(IDLE_STOP_AT + 5)]
    for path in files:
        path.write_text("use_old_api()\n")
    reads = (reply(tool_use("Read", file_path=str(path))) for path in files)

    def edit(path: Path, old: str, new: str) -> Any:
        return reply(tool_use("Edit", file_path=str(path), old_string=old, new_string=new))

    forth = (edit(path, "use_old_api", "use_new_api") for path in files)
    back = (edit(path, "use_new_api", "use_old_api") for path in files)
    fake_model.script(*reads, *forth, *back, reply(text("reverted")))
    args = ["-p", "go", "--output-format", "json", "--dangerously-skip-permissions"]
    result = tether(*args, *wire_model(wire))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.json()["result"] == "reverted"
    assert all(path.read_text() == "use_old_api()\n" for path in files)
