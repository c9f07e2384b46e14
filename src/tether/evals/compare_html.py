"""`tether eval compare A B --html PATH`: the comparison as one self-contained HTML page:
the paired runs with their judge's scores, the pass/fail test, the cost and time sign tests,
and each judge criterion's means and signed-rank test."""

from __future__ import annotations

from html import escape
from pathlib import Path

from tether.evals.compare import Comparison, Pair
from tether.evals.html_report import STYLE


def write_comparison_html(path: Path, comparison: Comparison, a: str, b: str) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(render_comparison(comparison, a, b), encoding="utf-8")
    part.replace(path)


def render_comparison(comparison: Comparison, a: str, b: str) -> str:
    c = comparison
    tests = [
        f"pass→fail {c.pass_to_fail}, fail→pass {c.fail_to_pass}: "
        f"exact McNemar p = {c.mcnemar_p:.4g}",
        *(
            f"{name}: higher in B {up}, lower {down}: sign test p = {p:.4g}"
            for name, (up, down, p) in (("cost", c.cost), ("time", c.time))
        ),
    ]
    judge_rows = "".join(
        f"<tr><td>{escape(j.criterion)}</td><td>{j.scale[0]}-{j.scale[1]}</td>"
        f'<td class="num">{j.pairs}</td><td class="num">{j.mean_a:.2f}</td>'
        f'<td class="num">{j.mean_b:.2f}</td><td class="num">{j.higher}</td>'
        f'<td class="num">{j.lower}</td><td class="num">{j.p:.4g}</td></tr>'
        for j in c.judge
    )
    judge = (
        "<h2>Judge scores</h2><p>Per criterion, the pairs both of whose runs were scored; "
        "Wilcoxon signed-rank test (exact) on the paired differences.</p>"
        "<table id='judge'><tr><th>criterion</th><th>scale</th><th>pairs</th><th>mean A</th>"
        "<th>mean B</th><th>higher in B</th><th>lower in B</th><th>p</th></tr>"
        f"{judge_rows}</table>"
        if c.judge
        else "<p>No judge scores in both runs of any pair.</p>"
    )
    unpaired = "".join(f"<li>{escape(line)}</li>" for line in c.unpaired)
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>tether eval compare</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(a)} → {escape(b)}</h1>"
        f"<ul id='tests'>{''.join(f'<li>{escape(t)}</li>' for t in tests)}</ul>"
        f"{judge}<h2>Pairs</h2><table id='pairs'><tr><th>case</th><th>#</th><th>variant</th>"
        "<th>change</th><th>cost A</th><th>cost B</th><th>time A</th><th>time B</th>"
        "<th>judge A</th><th>judge B</th></tr>"
        f"{''.join(_pair_row(p) for p in c.pairs)}</table>"
        f"{f'<ul id=unpaired>{unpaired}</ul>' if unpaired else ''}</body></html>\n"
    )


def judge_text(pair_run: Pair, side: str) -> str:
    """A run's judge scores as `criterion score, ...` (`-`: not judged; the error's start)."""
    run = pair_run.a if side == "a" else pair_run.b
    if run.judge is None:
        return "-"
    if run.judge.error:
        return "error"
    return ", ".join(f"{name} {s.score}" for name, s in run.judge.scores.items())


def _pair_row(p: Pair) -> str:
    variant = p.variant_a if p.variant_a == p.variant_b else f"{p.variant_a} → {p.variant_b}"
    css = {"pass→fail": "fail", "fail→pass": "pass"}.get(p.change, "")
    return (
        f"<tr><td>{escape(p.case)}</td><td>{p.repeat}</td><td>{escape(variant)}</td>"
        f"<td class='{css}'>{escape(p.change)}</td>"
        f"<td class='num'>${p.a.cost_usd:.4f}</td><td class='num'>${p.b.cost_usd:.4f}</td>"
        f"<td class='num'>{p.a.wall_s:.1f}s</td><td class='num'>{p.b.wall_s:.1f}s</td>"
        f"<td>{escape(judge_text(p, 'a'))}</td><td>{escape(judge_text(p, 'b'))}</td></tr>"
    )
