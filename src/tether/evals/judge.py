"""A model judge: scores a run from its transcript on the rubric's criteria and scale, each
with a reason. It is a headless tether run with no tools, so it speaks to any model tether
can, and its spend is known."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tether.evals.results import Judgement, Score
from tether.evals.steps import run_to_file, tether_argv
from tether.evals.suite import Case, Rubric

JUDGE_MARK = "You are grading the work of a coding agent."
"""The judge prompt's first line (a fake model tells a judge's request by it)."""


def judge_prompt(case: Case, rubric: Rubric, transcript: str, check_passed: bool) -> str:
    low, high = rubric.scale
    criteria = "\n".join(f"- {name}: {question}" for name, question in rubric.criteria.items())
    shape = ", ".join(f'"{name}": {{"score": N, "reason": "..."}}' for name in rubric.criteria)
    notes = f"\nWhat a good answer looks like: {rubric.notes}\n" if rubric.notes else ""
    return (
        f"{JUDGE_MARK}\n\n"
        f"The task it was given:\n<task>\n{case.prompt}\n</task>\n{notes}\n"
        f"The automatic check {'passed' if check_passed else 'failed'}.\n\n"
        f"Score each criterion with a whole number from {low} (worst) to {high} (best):\n"
        f"{criteria}\n\n"
        f"The transcript:\n<transcript>\n{transcript}\n</transcript>\n\n"
        f"Answer with one JSON object and nothing else: {{{shape}}}"
    )


class _Answer(BaseModel):
    """One criterion's answer, strictly: `true` is not a score of 1, nor `"4"` or `4.0` a 4
    (the prompt asks for a whole number; a judge that answers otherwise is misreading it)."""

    model_config = ConfigDict(strict=True)

    score: int
    reason: str


def parse_verdict(text: str, rubric: Rubric) -> dict[str, Score]:
    """The scores in a judge's answer; ValueError saying what is wrong with it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"no JSON object in the judge's answer: {text[:200]!r}")
    try:
        raw = json.loads(text[start : end + 1])
    except ValueError as e:
        raise ValueError(f"the judge's JSON does not parse: {e}") from e
    if not isinstance(raw, dict):
        raise ValueError("the judge's answer is not a JSON object")
    low, high = rubric.scale
    scores: dict[str, Score] = {}
    for name in rubric.criteria:
        if name not in raw:
            raise ValueError(f"the judge gave no score for {name!r}")
        try:
            answer = _Answer.model_validate(raw[name])
        except ValidationError as e:
            raise ValueError(f"the judge's {name!r} is not {{score, reason}}: {e}") from e
        if not low <= answer.score <= high:
            raise ValueError(f"the judge's {name!r} score {answer.score} is outside {low}-{high}")
        scores[name] = Score(score=answer.score, reason=answer.reason)
    return scores


async def judge_run(
    case: Case,
    rubric: Rubric,
    transcript: str,
    check_passed: bool,
    model: str | None,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> Judgement:
    """The judge's scores, or a `Judgement` whose `error` says why there are none. It runs in
    an empty directory: the case's own instructions files are not the judge's."""
    argv = [*tether_argv(), "-p", judge_prompt(case, rubric, transcript, check_passed)]
    argv += ["--output-format", "json", "--tools", "", "--no-session-persistence"]
    argv += ["--max-turns", "1", "--permission-mode", "dontAsk"]
    if model is not None:
        argv += ["--model", model]
    verdict = Judgement(scale=rubric.scale, model=model)
    with tempfile.TemporaryDirectory(prefix="tether-judge-") as scratch:
        out, err = Path(scratch) / "out", Path(scratch) / "err"
        cwd = Path(scratch) / "judge"
        cwd.mkdir()
        code = await run_to_file(argv, cwd, out, err, timeout_s, env=env)
        lines = out.read_text(encoding="utf-8", errors="replace").splitlines()
        problem = err.read_text(encoding="utf-8", errors="replace").strip()[-500:]
    result = _last_json(lines)
    if result is not None:
        cost = result.get("total_cost_usd")
        verdict.cost_usd = float(cost) if isinstance(cost, int | float) else 0.0
    if code is None:
        verdict.error = f"the judge timed out after {timeout_s:g} s"
    elif code != 0 or result is None:
        verdict.error = f"the judge's run failed (exit {code}): {problem or 'no output'}"
    else:
        try:
            verdict.scores = parse_verdict(str(result.get("result") or ""), rubric)
        except ValueError as e:
            verdict.error = str(e)
    return verdict


def _last_json(lines: list[str]) -> dict[str, object] | None:
    for line in reversed(lines):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value  # type: ignore[return-value]
    return None
