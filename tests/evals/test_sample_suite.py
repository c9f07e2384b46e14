"""The shipped sample suite, run for real (`tether eval` starting `tether -p` per case)
against the fake model that writes each case's reference fix."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.evals.conftest import SAMPLE_SUITE, results, run_eval
from tether.evals.judge import JUDGE_MARK
from tether.evals.suite import Suite
from tether.testing import FakeModelServer
from tether.testing.evals import suite_answers
from tether.testing.recorded import content_text

JUDGED = {
    name: {"score": 4, "reason": f"{name} looks fine"}
    for name in ("accuracy", "tool_efficiency", "plan_adherence")
}


def test_every_sample_case_passes_with_its_fix_and_everything_is_recorded(
    eval_model: FakeModelServer, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_eval(str(SAMPLE_SUITE), "--parallel", "4", "--out", str(out), cwd=tmp_path)
    assert done.exit_code == 0, done.stderr
    body = results(out)
    assert (body["suite"], body["variants"], body["parallel"]) == ("sample", ["default"], 4)
    runs = {r["case"]: r for r in body["runs"]}
    assert list(runs) == [
        "sum-to-off-by-one",
        "adult-boundary",
        "word-count-split",
        "average-empty",
    ]
    for case, run in runs.items():
        transcript = Path(run["transcript"])
        assert transcript == out / "transcripts" / "default" / f"{case}-r1.jsonl"
        lines = [json.loads(line) for line in transcript.read_text().splitlines()]
        final = lines[-1]
        assert final["type"] == "result"
        assert {
            k: run[k] for k in ("passed", "error", "check_exit", "turns", "tool_calls", "cost_usd")
        } == {
            "passed": True,
            "error": None,
            "check_exit": 0,
            "turns": 3,
            "tool_calls": {"Read": 1, "Write": 1},
            "cost_usd": final["total_cost_usd"],
        }
        usage = final["usage"]
        assert run["tokens"] == {
            "input": usage["input_tokens"],
            "output": usage["output_tokens"],
            "cache_read": usage["cache_read_input_tokens"],
            "cache_write": usage["cache_creation_input_tokens"],
        }
        assert run["session_id"] == final["session_id"]
        assert run["wall_s"] > 0
    judged = {case: run["judge"] and run["judge"]["scores"] for case, run in runs.items()}
    assert judged == {
        "sum-to-off-by-one": JUDGED,
        "adult-boundary": None,
        "word-count-split": JUDGED,
        "average-empty": None,
    }
    assert runs["sum-to-off-by-one"]["judge"]["error"] is None
    # Each judge read its run's transcript: the fix written is in what it was shown.
    asked = [content_text(r.messages()[0]["content"]) for r in eval_model.requests]
    judged_prompts = [text for text in asked if text.startswith(JUDGE_MARK)]
    assert len(judged_prompts) == 2
    assert any("range(1, n + 1)" in text and "TOOL CALL Write" in text for text in judged_prompts)
    assert (out / "report.html").is_file()
    for case in runs:
        assert case in done.stdout
    assert "4/4" in done.stdout  # the variant's row: passed of runs


def test_a_case_left_unfixed_fails_its_check_and_says_why(
    model_env: FakeModelServer,
    sample: Suite,
    solutions: dict[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    model_env.responder = suite_answers(
        sample, solutions, unsolved={("claude-haiku-5-5", "adult-boundary")}
    )
    out = tmp_path / "out"
    done = run_eval(
        str(SAMPLE_SUITE),
        "--model",
        "claude-sonnet-5-5",
        "--model",
        "claude-haiku-5-5",
        "--parallel",
        "4",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert done.exit_code == 1, done.stderr  # one run failed: a CI step fails
    assert "7 of 8 runs passed (87.5%)" in done.stderr
    body = results(out)
    assert body["variants"] == ["claude-sonnet-5-5", "claude-haiku-5-5"]
    outcome = {(r["variant"], r["case"]): r["passed"] for r in body["runs"]}
    assert outcome == {
        (model, case.id): not (model == "claude-haiku-5-5" and case.id == "adult-boundary")
        for case in sample.cases
        for model in ("claude-sonnet-5-5", "claude-haiku-5-5")
    }
    failed = next(r for r in body["runs"] if not r["passed"])
    assert (failed["error"], failed["check_exit"], failed["tool_calls"]) == (None, 1, {})
    assert "assert is_adult(18)" in failed["check_output"]
    models = {r.body["model"] for r in model_env.requests}
    assert models == {"claude-sonnet-5-5", "claude-haiku-5-5"}
    assert "3/4" in done.stdout
    assert "4/4" in done.stdout


def test_a_git_repository_case_runs_in_a_worktree_and_leaves_the_repository_as_it_was(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "greet.py").write_text("def greet(name):\n    return 'Hello ' + nam\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "start"], check=True)
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        "name: repo\n"
        "cases:\n"
        "  - id: greet\n"
        "    repo: project\n"
        "    prompt: Fix the NameError in greet.py.\n"
        '    setup: test "$(git rev-parse --is-inside-work-tree)" = true\n'
        "    check: python3 -c \"from greet import greet; assert greet('a') == 'Hello a'\"\n"
    )
    from tether.evals.suite import load_suite

    fixed = "def greet(name):\n    return 'Hello ' + name\n"
    model_env.responder = suite_answers(load_suite(suite_file), {"greet": {"greet.py": fixed}})
    out = tmp_path / "out"
    done = run_eval(
        str(suite_file), "--repeat", "2", "--parallel", "2", "--out", str(out), cwd=tmp_path
    )
    assert done.exit_code == 0, done.stderr
    runs = results(out)["runs"]
    assert [(r["case"], r["repeat"], r["passed"]) for r in runs] == [
        ("greet", 1, True),
        ("greet", 2, True),
    ], [(r["error"], r["check_output"]) for r in runs]
    assert "nam\n" in (repo / "greet.py").read_text()  # the original is untouched
    listed = subprocess.run(
        ["git", "-C", str(repo), "worktree", "list", "--porcelain"], capture_output=True, text=True
    ).stdout
    assert listed.count("worktree ") == 1  # the runs' worktrees are gone
