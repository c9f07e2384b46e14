"""`tether eval SUITE.yaml`: run an evaluation suite and report it (terminal table, results
JSON, one HTML page); `tether eval compare A B`: what changed between two evaluations."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tether.evals.compare import Comparison, compare
from tether.evals.compare_html import judge_text
from tether.evals.html_report import write_html
from tether.evals.results import EvalResults, ResultsError, RunResult, read_results, write_results
from tether.evals.runner import EvalRunner, choose_variants, slug
from tether.evals.suite import SuiteError, load_suite
from tether.evals.table import runs_table, variants_table


def main(argv: list[str]) -> int:
    if argv and argv[0] == "compare":
        return compare_main(argv[1:])
    if argv and argv[0] == "worker":
        from tether.cli.eval_team import worker_main

        return worker_main(argv[1:])
    return run_main(argv)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be 1 or more")
    return value


def _model_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("a model name cannot be empty")
    return text.strip()


def _percent(text: str) -> float:
    try:
        value = float(text.removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text} must be between 0 and 100")
    return value


def run_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether eval",
        description="Run an evaluation suite: each case in its own copy of its repository, as "
        "a headless tether run, then its check (and judge). `tether eval compare A B` compares "
        "two evaluations' results; `tether eval worker` runs what --team posted.",
    )
    parser.add_argument("suite", type=Path, help="the suite's YAML file")
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        type=_model_name,
        help="a model to run (repeat for side by side)",
    )
    parser.add_argument("--parallel", type=_positive, default=1, help="runs at once (default 1)")
    parser.add_argument("--repeat", type=_positive, default=1, help="runs of each case (default 1)")
    parser.add_argument("--out", type=Path, help="where the reports go (default eval-runs/...)")
    parser.add_argument(
        "--team", help="post the runs on this team's board for `tether eval worker` to run"
    )
    parser.add_argument("--store", help="with --team: the board's store URL or file")
    parser.add_argument(
        "--fail-under",
        type=_percent,
        default=100.0,
        metavar="PERCENT",
        help="exit 1 when fewer runs than this pass (default 100: any failing run); "
        "0 exits 0 whatever the outcome",
    )
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite)
    except SuiteError as e:
        print(f"tether eval: {e}", file=sys.stderr)
        return 2
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out: Path = (args.out or Path("eval-runs") / f"{slug(suite.name)}-{stamp}").resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(
            f"tether eval: --out {out}: cannot make the directory: {e.strerror or e}",
            file=sys.stderr,
        )
        return 2
    variants = choose_variants(suite, args.model)
    if args.team is not None or args.store is not None:
        from tether.cli.eval_team import run_on_team

        team_results = run_on_team(suite, args.suite, variants, args.repeat, args.team, args.store)
        if team_results is None:
            return 2
        results = team_results
    else:
        err = Console(stderr=True, highlight=False)

        def said(run: RunResult) -> None:
            outcome = "pass" if run.passed else ("error" if run.error else "fail")
            err.print(f"{run.variant} {run.case} #{run.repeat}: {outcome}", markup=False)

        runner = EvalRunner(suite, args.suite, out, parallel=args.parallel, on_done=said)
        results = asyncio.run(runner.run_all(variants, args.repeat))
    print_report(results, out)
    return verdict(results, args.fail_under)


def verdict(results: EvalResults, fail_under: float) -> int:
    """0 when at least `fail_under` percent of the runs passed, else 1 (as a test runner
    does, so a CI step fails on a regression), with the figures on stderr."""
    runs = len(results.runs)
    passed = sum(run.passed for run in results.runs)
    rate = 100.0 * passed / runs if runs else 100.0
    if rate >= fail_under:
        return 0
    print(
        f"tether eval: {passed} of {runs} runs passed ({rate:.4g}%), under --fail-under "
        f"{fail_under:g}%",
        file=sys.stderr,
    )
    return 1


def _console() -> Console:
    """Wide enough for the tables when the output is a file or a pipe (rich takes 80)."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def print_report(results: EvalResults, out: Path) -> None:
    json_path = write_results(out, results)
    html_path = write_html(out, results)
    console = _console()
    console.print(runs_table(results))
    console.print(variants_table(results))
    for run in results.runs:
        if run.error is not None:
            console.print(f"{run.variant} {run.case} #{run.repeat}: {run.error}", markup=False)
        if run.judge is not None and run.judge.error is not None:
            console.print(
                f"{run.variant} {run.case} #{run.repeat}: judge: {run.judge.error}", markup=False
            )
    console.print(f"results: {json_path}\nreport:  {html_path}", markup=False)


def compare_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether eval compare",
        description="Pair two evaluations' runs (same variant, or one variant each; same case "
        "and repetition): per-case changes, an exact McNemar test on pass/fail and sign tests "
        "on cost and time.",
    )
    parser.add_argument("run_a", type=Path, help="the first run's --out directory or results.json")
    parser.add_argument("run_b", type=Path, help="the second run's")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--html", type=Path, help="also write the comparison as an HTML page")
    args = parser.parse_args(argv)
    try:
        comparison = compare(read_results(args.run_a), read_results(args.run_b))
    except ResultsError as e:
        print(f"tether eval compare: {e}", file=sys.stderr)
        return 2
    if args.html is not None:
        from tether.evals.compare_html import write_comparison_html

        try:
            write_comparison_html(args.html, comparison, str(args.run_a), str(args.run_b))
        except OSError as e:
            print(f"tether eval compare: cannot write {args.html}: {e}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(comparison.as_json(), indent=2))
        return 0
    console = _console()
    console.print(_comparison_table(comparison))
    for line in comparison.unpaired:
        console.print(line, markup=False)
    console.print(
        f"pass→fail {comparison.pass_to_fail}, fail→pass {comparison.fail_to_pass}: "
        f"exact McNemar p = {comparison.mcnemar_p:.4g}",
        markup=False,
    )
    for name, (up, down, p) in (("cost", comparison.cost), ("time", comparison.time)):
        console.print(
            f"{name}: higher in B {up}, lower {down}: sign test p = {p:.4g}", markup=False
        )
    for j in comparison.judge:
        console.print(
            f"judge {j.criterion} ({j.scale[0]}-{j.scale[1]}, {j.pairs} pairs): "
            f"mean {j.mean_a:.2f} → {j.mean_b:.2f}, higher in B {j.higher}, lower {j.lower}: "
            f"Wilcoxon signed-rank p = {j.p:.4g}",
            markup=False,
        )
    return 0


def _comparison_table(comparison: Comparison) -> Table:
    table = Table(title="A → B", title_justify="left")
    judged = bool(comparison.judge)
    names = ["case", "#", "variant", "change", "cost A", "cost B", "time A", "time B"]
    for name in names + (["judge A", "judge B"] if judged else []):
        table.add_column(name, justify="right" if name.startswith(("cost", "time")) else "left")
    for p in comparison.pairs:
        variant = p.variant_a if p.variant_a == p.variant_b else f"{p.variant_a} → {p.variant_b}"
        colour = {"pass→fail": "red", "fail→pass": "green"}.get(p.change, "")
        table.add_row(  # names as text, never read as markup
            Text(p.case),
            str(p.repeat),
            Text(variant),
            Text(p.change, style=colour),
            f"${p.a.cost_usd:.4f}",
            f"${p.b.cost_usd:.4f}",
            f"{p.a.wall_s:.1f}s",
            f"{p.b.wall_s:.1f}s",
            *((Text(judge_text(p, "a")), Text(judge_text(p, "b"))) if judged else ()),
        )
    return table
