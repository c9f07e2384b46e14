"""What a run records when it does not get as far as a clean check: a setup that fails, a
run out of time, a judge whose answer is not scores."""

from __future__ import annotations

from pathlib import Path

from tests.evals.conftest import results, run_eval
from tether.evals.judge import JUDGE_MARK
from tether.evals.suite import load_suite
from tether.testing import FakeModelServer, RecordedRequest, reply, text
from tether.testing.evals import suite_answers
from tether.testing.recorded import content_text
from tether.testing.script import Turn

SUITE = """\
name: failures
limits: {timeout_s: 120, step_timeout_s: 60}
cases:
  - id: setup-fails
    prompt: Case one.
    files: {a.txt: "a"}
    setup: echo preparing; exit 3
    check: "true"
  - id: stalls
    prompt: Case two.
    files: {a.txt: "a"}
    timeout_s: 4
    check: test -f b.txt
  - id: too-few-turns
    prompt: Case five.
    files: {a.txt: "a"}
    max_turns: 1
    check: test -f b.txt
  - id: judged
    prompt: Case four.
    files: {a.txt: "a"}
    check: test -f b.txt
    rubric: {scale: [0, 10]}
"""


def test_each_failure_is_recorded_with_its_reason(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(SUITE)
    fixes = suite_answers(
        load_suite(suite_file), {"judged": {"b.txt": "b"}, "too-few-turns": {"b.txt": "b"}}
    )

    def respond(request: RecordedRequest) -> Turn:
        first = content_text(request.messages()[0]["content"])
        if first.startswith(JUDGE_MARK):
            return text("Looks good to me!")  # no scores
        if "Case two." in first:
            return reply(text("thinking..."), stall_after=0)  # never answers
        return fixes(request)

    model_env.responder = respond
    out = tmp_path / "out"
    done = run_eval(str(suite_file), "--parallel", "4", "--out", str(out), cwd=tmp_path)
    assert done.exit_code == 1, done.stderr  # the report is written all the same
    runs = {r["case"]: r for r in results(out)["runs"]}
    assert {c: (r["passed"], r["error"]) for c, r in runs.items()} == {
        "setup-fails": (False, "setup failed (exit 3): preparing\n"),
        "stalls": (False, "timed out after 4 s"),
        "too-few-turns": (False, "the run stopped: error_max_turns"),
        "judged": (True, None),
    }
    assert runs["too-few-turns"]["tool_calls"] == {"Read": 1}  # one model call, then stopped
    assert runs["stalls"]["check_exit"] == 1  # checked all the same: what it left is judged
    assert runs["judged"]["judge"] == {
        "scores": {},
        "scale": [0, 10],
        "model": None,
        "cost_usd": runs["judged"]["judge"]["cost_usd"],
        "error": "no JSON object in the judge's answer: 'Looks good to me!'",
    }
    assert runs["judged"]["judge"]["cost_usd"] > 0
    assert "judged #1: judge: no JSON object" in done.stdout
