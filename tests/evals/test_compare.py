"""`tether eval compare A B`: runs paired by variant, case and repetition; the changes and
exact paired tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evals.conftest import SAMPLE_SUITE, run_eval
from tether.evals.stats import binomial_two_sided, mcnemar_exact, sign_test
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
    assert done.exit_code == 0, done.stderr

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
