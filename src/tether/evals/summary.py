"""Figures per variant across its runs: pass rate, spend, time, judge means."""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import mean

from tether.evals.results import EvalResults, RunResult


@dataclass
class VariantSummary:
    variant: str
    runs: int
    passed: int
    cost_usd: float
    wall_s: float
    tokens: int
    tool_calls: int
    judge: dict[str, float] = field(default_factory=dict[str, float])
    """criterion -> mean score over the runs judged."""

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0

    @property
    def cost_per_run(self) -> float:
        return self.cost_usd / self.runs if self.runs else 0.0

    def as_json(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "runs": self.runs,
            "passed": self.passed,
            "pass_rate": self.pass_rate,
            "cost_usd": self.cost_usd,
            "cost_per_run_usd": self.cost_per_run,
            "wall_s": self.wall_s,
            "tokens": self.tokens,
            "tool_calls": self.tool_calls,
            "judge": self.judge,
        }


def judge_cost(run: RunResult) -> float:
    return run.judge.cost_usd if run.judge is not None else 0.0


def summarize(results: EvalResults) -> list[VariantSummary]:
    summaries: list[VariantSummary] = []
    for variant in results.variants:
        runs = [r for r in results.runs if r.variant == variant]
        scores: dict[str, list[int]] = {}
        for run in runs:
            for name, score in (run.judge.scores if run.judge else {}).items():
                scores.setdefault(name, []).append(score.score)
        summaries.append(
            VariantSummary(
                variant=variant,
                runs=len(runs),
                passed=sum(r.passed for r in runs),
                cost_usd=sum(r.cost_usd for r in runs),
                wall_s=sum(r.wall_s for r in runs),
                tokens=sum(
                    r.tokens.input + r.tokens.output + r.tokens.cache_read + r.tokens.cache_write
                    for r in runs
                ),
                tool_calls=sum(sum(r.tool_calls.values()) for r in runs),
                judge={name: mean(values) for name, values in scores.items()},
            )
        )
    return summaries


def judge_mean(run: RunResult) -> float | None:
    if run.judge is None or not run.judge.scores:
        return None
    return mean(s.score for s in run.judge.scores.values())
