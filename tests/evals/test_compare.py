"""`tether eval compare A B`: runs paired by variant, case and repetition; the changes and
exact paired tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evals.chromium import find_chromium, visit
from tests.evals.conftest import SAMPLE_SUITE, run_eval
from tether.evals.compare import compare
from tether.evals.results import (
    EvalResults,
    Judgement,
    ResultsError,
    RunResult,
    Score,
    write_results,
)
from tether.evals.stats import (
    binomial_two_sided,
    mcnemar_exact,
    sign_test,
    wilcoxon_signed_rank,
)
from tether.evals.suite import Suite
from tether.testing import FakeModelServer
from tether.testing.cli_runner import run_cli_process
from tether.testing.evals import suite_answers


def test_exact_tests_match_the_binomial_tables() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)  # 0.03125
    assert mcnemar_exact(1, 5) == pytest.approx(2 * 7 / 64)  # 0.21875
    assert mcnemar_exact(5, 1) == mcnemar_exact(1, 5)
    assert mcnemar_exact(3, 3) == 1.0
    assert binomial_two_sided(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar_exact(2, 20) == pytest.approx(2 * (1 + 22 + 231) / 2**22)
    assert sign_test([0.1, 0.2, -0.1, 0.0, 0.3]) == (3, 1, pytest.approx(0.625))
    # Signed ranks: the one fall is the smallest but one, so p is below the sign test's 0.22.
    assert wilcoxon_signed_rank([1, -2, 3, 4, 5, 6]) == (5, 1, pytest.approx(6 / 64))
    # Tied sizes share their mean rank, counted exactly; zeros are left out.
    assert wilcoxon_signed_rank([1, 1, 1, 1, -1, 0]) == (4, 1, pytest.approx(12 / 32))
    assert wilcoxon_signed_rank([0, 0]) == (0, 0, 1.0)


def test_compare_two_evaluations_of_the_sample_suite(
    model_env: FakeModelServer,
    sample: Suite,
    solutions: dict[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    model_env.responder = suite_answers(sample, solutions)
    common = ("--model", "claude-sonnet-5-5", "--parallel", "4")
    done = run_eval(str(SAMPLE_SUITE), *common, "--out", "a", cwd=tmp_path)
    assert done.exit_code == 0, done.stderr
    model_env.responder = suite_answers(
        sample,
        solutions,
        unsolved={("claude-sonnet-5-5", "adult-boundary"), ("claude-sonnet-5-5", "average-empty")},
    )
    done = run_eval(str(SAMPLE_SUITE), *common, "--out", "b", cwd=tmp_path)
    assert done.exit_code == 1, done.stderr
    assert "2 of 4 runs passed (50%), under --fail-under 100%" in done.stderr

    shown = run_cli_process(["eval", "compare", "a", "b/results.json", "--json"], cwd=tmp_path)
    assert shown.exit_code == 0, shown.stderr
    body = json.loads(shown.stdout)
    assert [(p["case"], p["change"]) for p in body["pairs"]] == [
        ("sum-to-off-by-one", "pass"),
        ("adult-boundary", "pass→fail"),
        ("word-count-split", "pass"),
        ("average-empty", "pass→fail"),
    ]
    assert (body["pass_to_fail"], body["fail_to_pass"], body["mcnemar_p"]) == (2, 0, 0.5)
    assert body["unpaired"] == []
    # The unsolved runs stopped at once: cheaper in B than their solved runs in A.
    cheaper = {p["case"] for p in body["pairs"] if p["cost_usd"][1] < p["cost_usd"][0]}
    assert {"adult-boundary", "average-empty"} <= cheaper
    assert body["cost_sign_test"]["lower"] >= 2

    table = run_cli_process(["eval", "compare", "a", "b"], cwd=tmp_path)
    assert table.exit_code == 0, table.stderr
    assert "pass→fail 2, fail→pass 0: exact McNemar p = 0.5" in table.stdout
    assert "adult-boundary" in table.stdout


def test_compare_refuses_what_it_cannot_pair_or_read(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    done = run_cli_process(["eval", "compare", "missing", "x.json"], cwd=tmp_path)
    assert done.exit_code == 2
    assert done.stderr.startswith("tether eval compare: missing: cannot read: ")
    done = run_cli_process(["eval", "compare", "x.json", "x.json"], cwd=tmp_path)
    assert done.exit_code == 2
    assert done.stderr.startswith("tether eval compare: x.json: not an evaluation's results: ")


def _results(variant: str, outcomes: dict[str, bool]) -> EvalResults:
    runs = [
        RunResult(case=case, variant=variant, model=variant, repeat=1, passed=ok, cost_usd=1.0)
        for case, ok in outcomes.items()
    ]
    return EvalResults(
        suite="s",
        suite_file="s.yaml",
        started="",
        finished="",
        variants=[variant],
        repeat=1,
        parallel=1,
        runs=runs,
    )


def test_one_variant_each_is_paired_across_names_and_the_unmatched_are_listed() -> None:
    a = _results("model-a", {"x": True, "y": False, "only-a": True})
    b = _results("model-b", {"x": False, "y": True, "only-b": True})
    found = compare(a, b)
    assert [(p.case, p.variant_a, p.variant_b, p.change) for p in found.pairs] == [
        ("x", "model-a", "model-b", "pass→fail"),
        ("y", "model-a", "model-b", "fail→pass"),
    ]
    assert found.unpaired == ["A only: model-a only-a #1", "B only: model-b only-b #1"]
    assert (found.pass_to_fail, found.fail_to_pass, found.mcnemar_p) == (1, 1, 1.0)
    assert found.cost == (0, 0, 1.0)  # equal costs: ties, left out


def test_several_variants_with_no_name_in_common_are_refused() -> None:
    a = _results("m1", {"x": True})
    a.variants.append("m2")
    with pytest.raises(ResultsError, match="nothing to pair: A ran"):
        compare(a, _results("m3", {"x": True}))


def _judged(variant: str, scores: list[tuple[int, int] | None]) -> EvalResults:
    """Runs of case c0, c1... judged on accuracy and efficiency (None: the judge failed)."""
    results = _results(variant, {f"c{i}": True for i in range(len(scores))})
    for run, pair in zip(results.runs, scores, strict=True):
        run.judge = Judgement(scale=(1, 5), error="no answer" if pair is None else None)
        if pair is not None:
            run.judge.scores = {
                "accuracy": Score(score=pair[0], reason="r"),
                "efficiency": Score(score=pair[1], reason="r"),
            }
    return results


def test_judge_scores_are_compared_by_a_signed_rank_test_in_text_json_and_html(
    tmp_path: Path,
) -> None:
    a = _judged("m", [(2, 3), (2, 3), (3, 3), (1, 3), (2, 3), (2, 3), (3, 4)])
    b = _judged("m", [(4, 3), (5, 3), (4, 3), (4, 3), (3, 3), (5, 3), None])
    write_results(tmp_path / "a", a)
    write_results(tmp_path / "b", b)
    argv = ["eval", "compare", "a", "b", "--html", "cmp.html"]
    shown = run_cli_process([*argv, "--json"], cwd=tmp_path)
    assert shown.exit_code == 0, shown.stderr
    judge = {j["criterion"]: j for j in json.loads(shown.stdout)["judge"]}
    # accuracy rose in all 6 pairs judged both times (the 7th's judge failed in B): with
    # ranks, p = 2/64; a sign test would say the same here, ranks tell 1 step from 3.
    assert judge["accuracy"] == {
        "criterion": "accuracy",
        "scale": [1, 5],
        "pairs": 6,
        "mean_a": 2.0,
        "mean_b": 25 / 6,
        "higher_in_b": 6,
        "lower_in_b": 0,
        "wilcoxon_p": 2 / 64,
    }
    assert (judge["efficiency"]["pairs"], judge["efficiency"]["wilcoxon_p"]) == (6, 1.0)
    pairs = json.loads(shown.stdout)["pairs"]
    assert pairs[6]["judge"] == [{"accuracy": 3, "efficiency": 4}, None]

    text = run_cli_process(argv, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    assert (
        "judge accuracy (1-5, 6 pairs): mean 2.00 → 4.17, higher in B 6, lower 0: "
        "Wilcoxon signed-rank p = 0.03125"
    ) in text.stdout
    assert "accuracy 2, efficiency 3" in text.stdout  # the pairs' table has the scores

    if find_chromium() is None:
        pytest.skip("no chromium to check the page in")
    seen = visit(
        tmp_path / "cmp.html",
        "[...document.querySelectorAll('#judge tr')].map(r => r.innerText)",
    )
    assert seen.errors == []
    rows = seen.value
    assert len(rows) == 3
    assert rows[1].split("\t") == ["accuracy", "1-5", "6", "2.00", "4.17", "6", "0", "0.03125"]
