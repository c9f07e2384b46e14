"""Loops that only make their own output through the shell are stopped: a file per number that
is empty or a copy of another (`touch`, `cp`, `echo checking >`), a directory that lists them,
random words written to a new file and shown back, a line of the command's own words appended
to files in rotation and shown, the clock written to a new file and shown. Each ran to the turn
limit: a file the turn made was headway whatever it held, a directory named again was a new
content each time, a file that grew was new for ever, and the clock's figures, new at each
call, were taken for another commit's. Over the wire."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.core.idle_runs import IDLE, Run
from tether.core.headway_rewrites import REWRITTEN_AT
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use

CAP = 4 * IDLE_STOP_AT
"""Replies the model would go on for: a loop not stopped by then runs for ever."""

FILES = 10
"""Files a rotation goes round."""

_WORDS = [
    "apple",
    "river",
    "stone",
    "cloud",
    "table",
    "lamp",
    "forest",
    "engine",
    "violet",
    "copper",
    "garden",
    "window",
    "paper",
    "rocket",
    "shadow",
    "silver",
    "market",
    "bridge",
    "canyon",
    "pepper",
    "orange",
    "tunnel",
    "harbor",
    "meadow",
    "castle",
    "dragon",
    "pillow",
]

LOOPS = {
    "an empty file per number": "touch junk_{n}.txt",
    "a copy per number": "cp seed.txt copy_{n}.txt",
    "the same words per number": "echo checking > out/check_{n}.log && echo ok",
    "a directory per number": "mkdir -p runs/r{n} && echo x > runs/r{n}/log",
    "files counted in their directory": "touch t/f{n} && ls t | wc -l",
    "random words to a new file": "echo {w} {w} > out/w_{n}.txt && cat out/w_{n}.txt",
    "a random word appended in rotation": "echo {w} >> m{r}.txt && tail -1 m{r}.txt",
    "the date per number": "date > snap_{n}.txt; cat snap_{n}.txt",
    "the time in nanoseconds per number": "date +%s%N > ns_{n}.txt; cat ns_{n}.txt",
    "an ISO time per number": "date -Ins > iso_{n}.txt; cat iso_{n}.txt",
}


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _workspace(workspace: Path) -> None:
    (workspace / "out").mkdir()
    (workspace / "t").mkdir()
    (workspace / "seed.txt").write_text("seed content\n")
    pick = random.Random(7)
    for r in range(FILES):
        lines = (" ".join(pick.choice(_WORDS) for _ in range(6)) for _ in range(100))
        (workspace / f"m{r}.txt").write_text("\n".join(lines) + "\n")


def _scripted(fake_model: FakeModelServer, command: str) -> list[int]:
    replies: list[int] = []
    pick = random.Random(11)

    def respond(request: RecordedRequest) -> Turn:
        replies.append(request.index)
        if len(replies) > CAP:
            return text("gave up")
        n = len(replies)
        spelled = command
        while "{w}" in spelled:  # a random word of a small set in each place
            spelled = spelled.replace("{w}", pick.choice(_WORDS), 1)
        return tool_use("Bash", command=spelled.format(n=n, r=n % FILES))

    fake_model.responder = respond
    return replies


def _stopped(result_json: dict[str, object], replies: list[int], bound: int) -> None:
    errors = result_json["errors"]
    assert isinstance(errors, list)
    assert str(errors[0]).startswith(f"stopped: the model {IDLE} in {IDLE_STOP_AT}"), errors
    assert len(replies) <= bound


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_loop_making_only_its_own_output_is_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path, loop: str
) -> None:
    _workspace(workspace)
    replies = _scripted(fake_model, LOOPS[loop])
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:]
    # The first file of each, and a file of the rotation read for the first time, are new.
    _stopped(result.json(), replies, IDLE_STOP_AT + 2 * FILES + REWRITTEN_AT + 3)


def test_files_reread_after_a_constant_line_appended_are_stopped(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _workspace(workspace)
    replies = _scripted(fake_model, "echo '# touched' >> m{r}.txt && cat m{r}.txt")
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:]
    # Each file is new when first read, and once more when it first grew.
    _stopped(result.json(), replies, IDLE_STOP_AT + 2 * FILES + 1)
