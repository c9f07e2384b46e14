"""A case's run is confined to its copy by default: the suite's default allow rules do not
unlock Read, Grep or Glob outside it, so nothing outside reaches the transcript or the judge."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path

from tests.evals.conftest import results, run_eval
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.script import Turn

SUITE = """\
name: confined
cases:
  - id: peek
    prompt: Look around.
    files: {a.txt: "inside-text"}
    check: "true"
"""


def test_default_rules_refuse_read_grep_and_glob_outside_the_copy(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("SECRET-KEY-123\n")

    def respond(request: RecordedRequest) -> Turn:
        if len(request.messages()) == 1:
            return reply(
                tool_use("Read", file_path=str(outside / "id_rsa")),
                tool_use("Grep", pattern="SECRET", path=str(outside), output_mode="content"),
                tool_use("Glob", pattern="*", path=str(outside)),
                tool_use("Read", file_path="a.txt"),
            )
        return text("done")

    model_env.responder = respond
    (tmp_path / "suite.yaml").write_text(SUITE)
    done = run_eval("suite.yaml", "--out", "out", cwd=tmp_path)
    assert done.exit_code == 0, done.stderr
    (run,) = results(tmp_path / "out")["runs"]
    assert run["turns"] == 2  # model calls: four tool calls in one reply, then the answer
    answers = next(r.tool_results() for r in model_env.requests if r.tool_results())
    assert [a.split(":")[0] for a in answers[:3]] == ["Permission denied"] * 3, answers
    assert "inside-text" in answers[3]
    transcript = (tmp_path / "out" / run["transcript"]).read_text()
    assert "SECRET-KEY" not in transcript
    assert "id_rsa" not in "".join(answers[1:3])


def _sleeping(seconds: str) -> list[int]:
    """The processes running `sleep SECONDS`."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes() == f"sleep\0{seconds}\0".encode():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_daemons_a_setup_or_check_leaves_in_a_session_of_their_own_end_with_the_run(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    model_env.responder = lambda request: text("done")
    setup_s, check_s = (str(random.randint(100_000, 999_999)) for _ in range(2))
    daemon = "setsid sleep {} >/dev/null 2>&1 < /dev/null &"
    (tmp_path / "suite.yaml").write_text(
        "cases:\n"
        f"  - id: d\n    prompt: p\n    files: {{a: a}}\n"
        f"    setup: '{daemon.format(setup_s)}'\n"
        f"    check: '{daemon.format(check_s)} sleep 0'\n"
    )
    try:
        done = run_eval("suite.yaml", "--out", "out", cwd=tmp_path)
        assert done.exit_code == 0, done.stderr
        (run,) = results(tmp_path / "out")["runs"]
        assert run["passed"], run
        assert _sleeping(setup_s) == []
        assert _sleeping(check_s) == []
    finally:  # what the test started, were it left behind
        for pid in _sleeping(setup_s) + _sleeping(check_s):
            os.kill(pid, signal.SIGKILL)
