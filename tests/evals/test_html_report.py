"""The HTML report opened in headless Chromium: its plots are there and drawn, nothing is
fetched from anywhere, and the console stays quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.chromium import find_chromium, visit
from tests.evals.conftest import SAMPLE_SUITE, run_eval
from tether.evals.suite import Suite
from tether.testing import FakeModelServer
from tether.testing.evals import suite_answers

needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="no chromium on PATH (scripts/test installs Debian's with apt-get when it can)",
)

EXPRESSION = """
(() => {
  const charts = {};
  for (const id of ["pass-rate", "cost", "time-per-case"]) {
    const svg = document.getElementById(id);
    if (!svg) { charts[id] = null; continue; }
    const box = svg.getBoundingClientRect();
    charts[id] = {
      drawn: box.width > 0 && box.height > 0,
      bars: [...svg.querySelectorAll("rect.bar")].map(b => ({
        label: b.querySelector("title").textContent,
        width: b.getBoundingClientRect().width,
      })),
    };
  }
  const external = [...document.querySelectorAll("[src], link[href], script")].length;
  return {
    title: document.title,
    charts,
    runs: document.querySelectorAll("#runs tr").length - 1,
    transcripts: [...document.querySelectorAll("#runs a")].map(a => a.getAttribute("href")),
    external,
  };
})()
"""


@needs_chromium
def test_the_report_renders_its_plots_in_headless_chromium(
    model_env: FakeModelServer,
    sample: Suite,
    solutions: dict[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    model_env.responder = suite_answers(
        sample, solutions, unsolved={("claude-haiku-5-5", "word-count-split")}
    )
    models = ("--model", "claude-sonnet-5-5", "--model", "claude-haiku-5-5")
    more = ("--parallel", "4", "--fail-under", "85")  # 7 of 8 pass: 87.5%
    done = run_eval(str(SAMPLE_SUITE), *models, *more, "--out", "out", cwd=tmp_path)
    assert done.exit_code == 0, done.stderr

    seen = visit(tmp_path / "out" / "report.html", EXPRESSION)
    assert seen.errors == []
    page = seen.value
    assert (page["title"], page["runs"], page["external"]) == ("tether eval: sample", 8, 0)
    assert sorted(page["transcripts"]) == sorted(
        f"transcripts/{model}/{case.id}-r1.jsonl"
        for model in ("claude-sonnet-5-5", "claude-haiku-5-5")
        for case in sample.cases
    )
    charts = page["charts"]
    assert all(chart is not None and chart["drawn"] for chart in charts.values()), charts
    pass_rate = {bar["label"]: bar["width"] for bar in charts["pass-rate"]["bars"]}
    assert list(pass_rate) == ["claude-sonnet-5-5: 100%", "claude-haiku-5-5: 75%"]
    sonnet, haiku = pass_rate.values()
    assert haiku == pytest.approx(sonnet * 0.75, abs=1)
    assert [bar["label"].split(":")[0] for bar in charts["cost"]["bars"]] == [
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
    ]
    assert all(bar["width"] > 0 for bar in charts["cost"]["bars"])
    assert len(charts["time-per-case"]["bars"]) == 8  # a bar per case and model


@needs_chromium
def test_the_browser_check_sees_console_errors_and_missing_files(tmp_path: Path) -> None:
    """The check above would notice a broken page: an error logged, an exception, a file
    that is not there."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="missing.png">'
        '<script>console.error("boom"); notDefined();</script></body></html>'
    )
    seen = visit(page, "document.body.children.length")
    assert seen.value == 2
    kinds = sorted(error.split(":")[0] for error in seen.errors)
    assert kinds == ["console.error", "log", "uncaught"]
