"""One self-contained HTML page per evaluation: plots (pass rate and cost per variant, time
per case) as inline SVG, the variants' figures, and every run with its judge's reasons."""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import quote

from tether.evals.results import EvalResults, RunResult
from tether.evals.summary import summarize
from tether.evals.svg import bar_chart, grouped_bar_chart

REPORT_FILE = "report.html"

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; }
.pass { color: #2a7a2a; font-weight: bold; } .fail { color: #b22; font-weight: bold; }
svg.chart { display: block; margin: 1em 0; font-size: 12px; }
svg .title { font-weight: bold; font-size: 14px; } svg .group { font-weight: bold; }
.charts { display: flex; flex-wrap: wrap; gap: 2em; }
pre { white-space: pre-wrap; max-width: 60em; font-size: 12px; }
"""


def write_html(out: Path, results: EvalResults) -> Path:
    path = out / REPORT_FILE
    part = path.with_suffix(".html.part")
    part.write_text(render_html(results, out), encoding="utf-8")
    part.replace(path)
    return path


def render_html(results: EvalResults, out: Path | None = None) -> str:
    """The page; transcripts under `out` are linked relatively (the directory can move)."""
    summaries = summarize(results)
    pass_rate = bar_chart(
        "pass-rate",
        "Pass rate per variant",
        [(s.variant, s.pass_rate) for s in summaries],
        lambda v: f"{v:.0%}",
        most=1.0,
    )
    cost = bar_chart(
        "cost",
        "Cost per variant (USD, all runs)",
        [(s.variant, s.cost_usd) for s in summaries],
        lambda v: f"${v:.4f}",
    )
    cases = list(dict.fromkeys(r.case for r in results.runs))
    groups = [
        (case, [(v, _mean_time(results.runs, case, v)) for v in results.variants]) for case in cases
    ]
    time_chart = grouped_bar_chart(
        "time-per-case",
        "Wall time per case (s, mean of repeats)",
        groups,
        results.variants,
        lambda v: f"{v:.1f}s",
    )
    rows = "".join(_summary_row(s.as_json()) for s in summaries)
    runs = "".join(_run_row(r, out) for r in results.runs)
    title = f"tether eval: {escape(results.suite)}"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{STYLE}</style></head><body>"
        f"<h1>{title}</h1>"
        f"<p>{escape(results.started)} to {escape(results.finished)} · "
        f"{len(results.runs)} run(s) · repeat {results.repeat} · parallel {results.parallel}</p>"
        f'<div class="charts">{pass_rate}{cost}</div>{time_chart}'
        '<h2>Variants</h2><table id="variants"><tr><th>variant</th><th>passed</th>'
        "<th>pass rate</th><th>cost</th><th>cost/run</th><th>time</th><th>judge</th></tr>"
        f"{rows}</table>"
        '<h2>Runs</h2><table id="runs"><tr><th>case</th><th>variant</th><th>#</th>'
        "<th>result</th><th>judge</th><th>turns</th><th>tools</th><th>tokens</th>"
        f"<th>cost</th><th>time</th><th>transcript</th></tr>{runs}</table>"
        "</body></html>\n"
    )


def _mean_time(runs: list[RunResult], case: str, variant: str) -> float:
    times = [r.wall_s for r in runs if r.case == case and r.variant == variant]
    return sum(times) / len(times) if times else 0.0


def _summary_row(s: dict[str, object]) -> str:
    judge = s["judge"]
    assert isinstance(judge, dict)
    judged = ", ".join(f"{escape(str(k))} {v:.1f}" for k, v in judge.items())  # type: ignore[union-attr]
    return (
        f"<tr><td>{escape(str(s['variant']))}</td><td class=num>{s['passed']}/{s['runs']}</td>"
        f"<td class=num>{s['pass_rate']:.0%}</td><td class=num>${s['cost_usd']:.4f}</td>"
        f"<td class=num>${s['cost_per_run_usd']:.4f}</td><td class=num>{s['wall_s']:.1f}s</td>"
        f"<td>{judged}</td></tr>"
    )


def _transcript_cell(run: RunResult, out: Path | None) -> str:
    if run.transcript is None:
        return ""
    path = Path(run.transcript)
    if out is not None and path.is_relative_to(out):
        relative = path.relative_to(out).as_posix()
        return f'<a href="{escape(quote(relative))}">{escape(relative)}</a>'
    return escape(run.transcript)


def _run_row(run: RunResult, out: Path | None) -> str:
    if run.passed:
        outcome = '<span class="pass">pass</span>'
    else:
        why = run.error or f"check exit {run.check_exit}"
        shown = escape(f"{why}\n{run.check_output[-800:]}")
        outcome = f'<span class="fail">fail</span><pre>{shown}</pre>'
    judge = ""
    if run.judge is not None:
        if run.judge.error is not None:
            judge = f"error: {escape(run.judge.error)}"
        else:
            low, high = run.judge.scale
            judge = "<br>".join(
                f"<b>{escape(name)}</b> {s.score} ({low}-{high}): {escape(s.reason)}"
                for name, s in run.judge.scores.items()
            )
    tools = ", ".join(f"{escape(k)} x{v}" for k, v in sorted(run.tool_calls.items()))
    t = run.tokens
    tokens = t.input + t.output + t.cache_read + t.cache_write
    return (
        f"<tr><td>{escape(run.case)}</td><td>{escape(run.variant)}</td>"
        f"<td class=num>{run.repeat}</td><td>{outcome}</td><td>{judge}</td>"
        f"<td class=num>{run.turns}</td><td>{tools}</td><td class=num>{tokens:,}</td>"
        f"<td class=num>${run.cost_usd:.4f}</td><td class=num>{run.wall_s:.1f}s</td>"
        f"<td>{_transcript_cell(run, out)}</td></tr>"
    )
