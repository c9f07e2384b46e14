"""What a judge's answer is read as: whole numbers in the scale are scores; anything else
(a boolean, a number in a string, a fraction, a missing criterion) is the judge's error, never
a score made up from it."""

from __future__ import annotations

import json

import pytest

from tether.evals.judge import parse_verdict
from tether.evals.suite import Rubric

RUBRIC = Rubric(criteria={"accuracy": "right?"}, scale=(0, 5))


def _answer(score: object) -> str:
    return "Here: " + json.dumps({"accuracy": {"score": score, "reason": "r"}})


def test_a_whole_number_in_the_scale_is_a_score() -> None:
    assert parse_verdict(_answer(4), RUBRIC)["accuracy"].score == 4


@pytest.mark.parametrize("score", [True, False, "4", 4.0, 4.5, None, [4]])
def test_anything_but_a_whole_number_is_the_judges_error(score: object) -> None:
    with pytest.raises(ValueError, match="the judge's 'accuracy' is not"):
        parse_verdict(_answer(score), RUBRIC)


def test_a_score_outside_the_scale_is_the_judges_error() -> None:
    with pytest.raises(ValueError, match="score 6 is outside 0-5"):
        parse_verdict(_answer(6), RUBRIC)
