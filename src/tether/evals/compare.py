"""`tether eval compare A B`: the runs of two evaluations paired by variant, case and
repetition; what changed in each pair, and whether the changes are more than chance."""

from __future__ import annotations

from dataclasses import dataclass

from tether.evals.results import EvalResults, ResultsError, RunResult
from tether.evals.stats import mcnemar_exact, sign_test, wilcoxon_signed_rank


@dataclass(frozen=True)
class Pair:
    case: str
    repeat: int
    variant_a: str
    variant_b: str
    a: RunResult
    b: RunResult

    @property
    def change(self) -> str:
        if self.a.passed == self.b.passed:
            return "pass" if self.a.passed else "fail"
        return "pass→fail" if self.a.passed else "fail→pass"


@dataclass(frozen=True)
class JudgeChange:
    """One judge criterion over the pairs both of whose runs were scored on it, on one
    scale: the means, and Wilcoxon's signed-rank test on the paired differences."""

    criterion: str
    scale: tuple[int, int]
    pairs: int
    mean_a: float
    mean_b: float
    higher: int
    lower: int
    p: float

    def as_json(self) -> dict[str, object]:
        return {
            "criterion": self.criterion,
            "scale": list(self.scale),
            "pairs": self.pairs,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "higher_in_b": self.higher,
            "lower_in_b": self.lower,
            "wilcoxon_p": self.p,
        }


@dataclass(frozen=True)
class Comparison:
    pairs: list[Pair]
    unpaired: list[str]
    pass_to_fail: int
    fail_to_pass: int
    mcnemar_p: float
    cost: tuple[int, int, float]
    """(pairs costlier in B, cheaper in B, sign-test p)."""
    time: tuple[int, int, float]
    judge: list[JudgeChange]
    """Per criterion a judge scored in both runs of some pairs (none without a judge)."""

    def as_json(self) -> dict[str, object]:
        return {
            "pairs": [
                {
                    "case": p.case,
                    "repeat": p.repeat,
                    "variant_a": p.variant_a,
                    "variant_b": p.variant_b,
                    "change": p.change,
                    "cost_usd": [p.a.cost_usd, p.b.cost_usd],
                    "wall_s": [p.a.wall_s, p.b.wall_s],
                    "judge": [_scores(p.a), _scores(p.b)],
                }
                for p in self.pairs
            ],
            "unpaired": self.unpaired,
            "pass_to_fail": self.pass_to_fail,
            "fail_to_pass": self.fail_to_pass,
            "mcnemar_p": self.mcnemar_p,
            "cost_sign_test": dict(zip(("higher", "lower", "p"), self.cost, strict=True)),
            "time_sign_test": dict(zip(("higher", "lower", "p"), self.time, strict=True)),
            "judge": [j.as_json() for j in self.judge],
        }


def variant_pairing(a: EvalResults, b: EvalResults) -> dict[str, str]:
    """Which variant of A each of B's is compared with: the same name where both have it;
    else, when each ran one variant (a model against another), those two."""
    shared = [v for v in a.variants if v in b.variants]
    if shared:
        return {v: v for v in shared}
    if len(a.variants) == 1 and len(b.variants) == 1:
        return {a.variants[0]: b.variants[0]}
    raise ResultsError(
        f"nothing to pair: A ran {a.variants}, B ran {b.variants} "
        "(pair runs of the same variants, or of one variant each)"
    )


def compare(a: EvalResults, b: EvalResults) -> Comparison:
    mapping = variant_pairing(a, b)
    in_b = {r.key: r for r in b.runs}
    pairs: list[Pair] = []
    unpaired: list[str] = []
    matched: set[tuple[str, str, int]] = set()
    for run in a.runs:
        if run.variant not in mapping:
            continue
        key = (mapping[run.variant], run.case, run.repeat)
        other = in_b.get(key)
        if other is None:
            unpaired.append(f"A only: {run.variant} {run.case} #{run.repeat}")
            continue
        matched.add(key)
        pairs.append(Pair(run.case, run.repeat, run.variant, other.variant, run, other))
    unpaired += [
        f"B only: {r.variant} {r.case} #{r.repeat}"
        for r in b.runs
        if r.variant in mapping.values() and r.key not in matched
    ]
    p2f = sum(1 for p in pairs if p.change == "pass→fail")
    f2p = sum(1 for p in pairs if p.change == "fail→pass")
    return Comparison(
        pairs=pairs,
        unpaired=unpaired,
        pass_to_fail=p2f,
        fail_to_pass=f2p,
        mcnemar_p=mcnemar_exact(p2f, f2p),
        cost=sign_test([p.b.cost_usd - p.a.cost_usd for p in pairs]),
        time=sign_test([p.b.wall_s - p.a.wall_s for p in pairs]),
        judge=judge_changes(pairs),
    )


def judge_changes(pairs: list[Pair]) -> list[JudgeChange]:
    """Each criterion's scores, paired: only pairs whose two runs were both judged on it
    on the same scale (a judge error, or another rubric, leaves the pair out)."""
    paired: dict[tuple[str, tuple[int, int]], list[tuple[int, int]]] = {}
    for p in pairs:
        ja, jb = p.a.judge, p.b.judge
        if ja is None or jb is None or ja.error or jb.error or ja.scale != jb.scale:
            continue
        for criterion, score in ja.scores.items():
            other = jb.scores.get(criterion)
            if other is not None:
                paired.setdefault((criterion, ja.scale), []).append((score.score, other.score))
    changes: list[JudgeChange] = []
    for (criterion, scale), scores in paired.items():
        up, down, p_value = wilcoxon_signed_rank([float(b - a) for a, b in scores])
        changes.append(
            JudgeChange(
                criterion,
                scale,
                len(scores),
                sum(a for a, _ in scores) / len(scores),
                sum(b for _, b in scores) / len(scores),
                up,
                down,
                p_value,
            )
        )
    return changes


def _scores(run: RunResult) -> dict[str, int] | None:
    if run.judge is None or run.judge.error:
        return None
    return {name: s.score for name, s in run.judge.scores.items()}
