"""The terminal report: a row per run, then a row per variant. Names from the suite (its
name, case ids, variants, tools) are `Text`, never read as rich markup."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from tether.evals.results import EvalResults
from tether.evals.summary import judge_mean, summarize


def runs_table(results: EvalResults) -> Table:
    table = Table(title=Text(f"Eval {results.suite}: runs"), title_justify="left")
    for name, justify in (
        ("case", "left"),
        ("variant", "left"),
        ("#", "right"),
        ("pass", "center"),
        ("judge", "right"),
        ("turns", "right"),
        ("tools", "left"),
        ("tokens", "right"),
        ("cost", "right"),
        ("time", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for run in results.runs:
        judged = judge_mean(run)
        if run.judge is not None and run.judge.error is not None:
            judge = "error"
        else:
            judge = "" if judged is None else f"{judged:.1f}/{run.judge.scale[1]}"  # type: ignore[union-attr]
        tokens = (
            run.tokens.input + run.tokens.output + run.tokens.cache_read + run.tokens.cache_write
        )
        table.add_row(
            Text(run.case),
            Text(run.variant),
            str(run.repeat),
            Text("pass", style="green")
            if run.passed
            else Text("FAIL" if run.error is None else "ERROR", style="red"),
            judge,
            str(run.turns),
            Text(" ".join(f"{name} x{n}" for name, n in sorted(run.tool_calls.items()))),
            f"{tokens:,}",
            f"${run.cost_usd:.4f}",
            f"{run.wall_s:.1f}s",
        )
    return table


def variants_table(results: EvalResults) -> Table:
    table = Table(title="By variant", title_justify="left")
    for name in ("variant", "passed", "pass rate", "cost", "cost/run", "time", "judge"):
        table.add_column(name, justify="left" if name == "variant" else "right")
    for s in summarize(results):
        judge = Text(" ".join(f"{k} {v:.1f}" for k, v in s.judge.items()))
        table.add_row(
            Text(s.variant),
            f"{s.passed}/{s.runs}",
            f"{s.pass_rate:.0%}",
            f"${s.cost_usd:.4f}",
            f"${s.cost_per_run:.4f}",
            f"{s.wall_s:.1f}s",
            judge,
        )
    return table
