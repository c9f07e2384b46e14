"""What one run of a case recorded, and a whole evaluation's results file (`results.json`)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError


class Tokens(BaseModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


class Score(BaseModel):
    score: int
    reason: str


class Judgement(BaseModel):
    """A judge's scores, criterion -> score and reason, on `scale`; or why there are none."""

    scores: dict[str, Score] = Field(default_factory=dict[str, Score])
    scale: tuple[int, int] = (1, 5)
    model: str | None = None
    cost_usd: float = 0.0
    error: str | None = None


class RunResult(BaseModel):
    """One case, one variant, one repetition."""

    case: str
    variant: str
    model: str | None
    repeat: int
    passed: bool
    error: str | None = None
    """Why the run did not get as far as the check (setup failed, timed out, tether failed)."""
    check_exit: int | None = None
    check_output: str = ""
    judge: Judgement | None = None
    turns: int = 0
    tool_calls: dict[str, int] = Field(default_factory=dict[str, int])
    tokens: Tokens = Tokens()
    cost_usd: float = 0.0
    wall_s: float = 0.0
    transcript: str | None = None
    session_id: str | None = None
    stop_reason: str | None = None
    where: str = "local"
    """`local`, or `team:<name> task <id>` for a run a worker did."""

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.variant, self.case, self.repeat)


class EvalResults(BaseModel):
    suite: str
    suite_file: str
    started: str
    finished: str
    variants: list[str]
    repeat: int
    parallel: int
    runs: list[RunResult]


RESULTS_FILE = "results.json"


class ResultsError(Exception):
    """A results file or directory that cannot be read."""


def write_results(out: Path, results: EvalResults) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS_FILE
    part = path.with_suffix(".json.part")
    part.write_text(results.model_dump_json(indent=2) + "\n", encoding="utf-8")
    part.replace(path)
    return path


def read_results(where: Path) -> EvalResults:
    """A run's results from its `--out` directory or its `results.json`."""
    path = where / RESULTS_FILE if where.is_dir() else where
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror or e}") from e
    try:
        return EvalResults.model_validate(json.loads(text))
    except ValidationError as e:
        first = e.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "the top"
        more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
        raise ResultsError(
            f"{path}: not an evaluation's results: {key}: {first['msg']}{more}"
        ) from e
    except ValueError as e:  # JSON's own error: one line
        raise ResultsError(f"{path}: not an evaluation's results: {e}") from e
