"""The sample suite against the fake model: each case's reference fix written by the fake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.evals.suite import Suite, load_suite
from tether.testing import FakeModelServer
from tether.testing.cli_runner import CliResult, run_cli_process
from tether.testing.evals import load_solutions, suite_answers

SAMPLE = Path(__file__).resolve().parents[2] / "evals" / "sample"
SAMPLE_SUITE = SAMPLE / "suite.yaml"


@pytest.fixture
def sample() -> Suite:
    return load_suite(SAMPLE_SUITE)


@pytest.fixture
def solutions() -> dict[str, dict[str, str]]:
    return load_solutions(SAMPLE / "solutions.yaml")


@pytest.fixture
def eval_model(
    model_env: FakeModelServer, sample: Suite, solutions: dict[str, dict[str, str]]
) -> FakeModelServer:
    """The fake model answering every sample case with its fix, and judges with 4s."""
    model_env.responder = suite_answers(sample, solutions)
    return model_env


def run_eval(*argv: str, cwd: Path) -> CliResult:
    """`tether eval ARGV` as a real process (it starts one `tether -p` per run)."""
    return run_cli_process(["eval", *argv], cwd=cwd, timeout_s=300)


def results(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text())
