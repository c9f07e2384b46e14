"""A model for `tether eval` against the fake server: each case's session is told apart by
its prompt (runs of many cases share one server, in parallel), and answered with the case's
reference fix (a `Write` per file, then "fixed"); a judge's request gets scores.

    fake.responder = suite_answers(suite, load_solutions(Path("evals/sample/solutions.yaml")))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

import yaml

from tether.evals.judge import JUDGE_MARK
from tether.evals.suite import CRITERIA, Suite
from tether.testing.recorded import RecordedRequest, content_text
from tether.testing.script import Turn, reply, text, tool_use


def load_solutions(path: Path) -> dict[str, dict[str, str]]:
    """case id -> {file: content}, from a solutions YAML file."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(raw, dict)
    return {str(k): {str(f): str(c) for f, c in v.items()} for k, v in raw.items()}  # type: ignore[union-attr]


def suite_answers(
    suite: Suite,
    solutions: Mapping[str, Mapping[str, str]],
    *,
    unsolved: Collection[tuple[str, str]] = (),
    score: int = 4,
) -> Callable[[RecordedRequest], Turn]:
    """A responder: each case fixed with its solution, except the (model, case id) pairs in
    `unsolved` (answered "cannot fix" at once); a judge scores every criterion `score`."""
    prompts = [(" ".join(case.prompt.split()), case) for case in suite.cases]

    def respond(request: RecordedRequest) -> Turn:
        messages = request.messages()
        first = " ".join(content_text(messages[0].get("content")).split()) if messages else ""
        if JUDGE_MARK in first:
            criteria = _criteria(suite, first)
            verdict = {name: {"score": score, "reason": f"{name} looks fine"} for name in criteria}
            return text(json.dumps(verdict))
        case = next((c for p, c in prompts if p in first), None)
        if case is None:
            return text("no eval case in this session")
        model = str(request.body.get("model"))
        if (model, case.id) in unsolved:
            return text(f"cannot fix {case.id}")
        files = solutions[case.id]
        match len(messages):
            case 1:  # read what it will change (Write refuses a file it has not read)
                return reply(*(tool_use("Read", file_path=name) for name in files))
            case 3:
                return reply(*(tool_use("Write", file_path=n, content=c) for n, c in files.items()))
            case _:
                return text(f"fixed {case.id}")

    return respond


def _criteria(suite: Suite, prompt: str) -> Collection[str]:
    for case in suite.cases:
        if case.rubric is not None and " ".join(case.prompt.split()) in prompt:
            return case.rubric.criteria
    return CRITERIA
