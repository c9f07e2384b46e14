"""Running a suite: every case under every variant, `repeat` times, `parallel` at once, each
in its own copy as a real headless `tether -p` process; then its check and its judge."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tether.evals.judge import judge_run
from tether.evals.results import EvalResults, RunResult
from tether.evals.steps import kill_marked, run_mark, run_shell, run_to_file, tether_argv
from tether.evals.suite import Case, Suite, Variant
from tether.evals.transcript import condensed, parse_stream
from tether.evals.workspace import CopyError, make_copy, remove_copy


@dataclass(frozen=True)
class Planned:
    case: Case
    variant: Variant
    repeat: int


def plan_runs(suite: Suite, variants: list[Variant], repeat: int) -> list[Planned]:
    """Cases in suite order, each with every variant side by side, repetitions last."""
    return [
        Planned(case, variant, k)
        for k in range(1, repeat + 1)
        for case in suite.cases
        for variant in variants
    ]


def choose_variants(suite: Suite, models: list[str]) -> list[Variant]:
    """`--model` given: one variant per model (the suite's settings); else the suite's
    variants; else tether's default model."""
    if models:
        return [Variant(model=m) for m in dict.fromkeys(models)]
    return list(suite.variants) or [Variant()]


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


def agent_argv(suite: Suite, planned: Planned) -> list[str]:
    """The headless command line of one run."""
    case, variant = planned.case, planned.variant
    argv = [*tether_argv(), "-p", "--output-format", "stream-json", "--verbose"]
    argv += ["--permission-mode", variant.permission_mode or suite.permission_mode]
    if variant.model is not None:
        argv += ["--model", variant.model]
    budget = case.max_budget_usd or suite.limits.max_budget_usd
    if budget is not None:
        argv += ["--max-budget-usd", f"{budget:g}"]
    turns = case.max_turns or suite.limits.max_turns
    if turns is not None:
        argv += ["--max-turns", str(turns)]
    if variant.append_system_prompt:
        argv += ["--append-system-prompt", variant.append_system_prompt]
    settings: dict[str, object] = {"sandbox": {"enabled": suite.sandbox, "required": suite.sandbox}}
    settings.update(variant.settings or {})
    argv += ["--settings", json.dumps(settings)]
    if suite.trust_workspace:
        argv.append("--trust-workspace")
    tools = variant.allowed_tools if variant.allowed_tools is not None else suite.allowed_tools
    if tools:
        argv += ["--allowedTools", *tools]
    # `--` ends the tools' list, and lets a prompt start with a dash.
    return [*argv, "--", case.prompt]


class EvalRunner:
    def __init__(
        self,
        suite: Suite,
        suite_file: Path,
        out: Path,
        *,
        parallel: int = 1,
        on_done: Callable[[RunResult], None] | None = None,
        suite_dir: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.suite = suite
        self.env = env
        """Added to the environment of the runs' tether sessions (and their judge's): a
        worker's agent id and its claim on the run's task, whose events and spend they are."""
        self.suite_file = suite_file
        self.suite_dir = suite_dir or suite_file.resolve().parent
        """Where a case's `repo` is found from (the suite file's directory)."""
        self.out = out
        self.parallel = parallel
        self.on_done = on_done

    async def run_all(self, variants: list[Variant], repeat: int) -> EvalResults:
        started = _now()
        plans = plan_runs(self.suite, variants, repeat)
        gate = asyncio.Semaphore(self.parallel)
        scratch = Path(tempfile.mkdtemp(prefix="tether-eval-"))
        try:

            async def one(planned: Planned) -> RunResult:
                async with gate:
                    result = await self.run_one(planned, scratch)
                if self.on_done is not None:
                    self.on_done(result)
                return result

            runs = await asyncio.gather(*(one(p) for p in plans))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return EvalResults(
            suite=self.suite.name,
            suite_file=str(self.suite_file),
            started=started,
            finished=_now(),
            variants=[v.label for v in variants],
            repeat=repeat,
            parallel=self.parallel,
            runs=list(runs),
        )

    async def run_one(self, planned: Planned, scratch: Path) -> RunResult:
        case, variant = planned.case, planned.variant
        name = f"{slug(variant.label)}/{case.id}-r{planned.repeat}"
        copy = scratch / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        transcripts = self.out / "transcripts" / slug(variant.label)
        transcripts.mkdir(parents=True, exist_ok=True)
        transcript = transcripts / f"{case.id}-r{planned.repeat}.jsonl"
        result = RunResult(
            case=case.id,
            variant=variant.label,
            model=variant.model,
            repeat=planned.repeat,
            passed=False,
        )
        limits = self.suite.limits
        began = time.monotonic()
        try:
            await asyncio.to_thread(make_copy, case, self.suite_dir, copy)
        except CopyError as e:
            result.error = str(e)
            return result
        mark = run_mark()
        try:
            if case.setup is not None:
                setup = await run_shell(case.setup, copy, limits.step_timeout_s, mark)
                if setup.exit_code != 0:
                    result.error = f"setup failed (exit {setup.exit_code}): {setup.output}"
                    return result
            timeout = case.timeout_s or limits.timeout_s
            argv = agent_argv(self.suite, planned)
            code = await run_to_file(
                argv, copy, transcript, transcript.with_suffix(".stderr"), timeout, mark, self.env
            )
            result.wall_s = time.monotonic() - began
            result.transcript = str(transcript)
            lines = transcript.read_text(encoding="utf-8", errors="replace").splitlines()
            facts = parse_stream(lines)
            result.turns, result.tool_calls = facts.turns, facts.tool_calls
            result.tokens, result.cost_usd = facts.tokens, facts.cost_usd
            result.session_id, result.stop_reason = facts.session_id, facts.stop_reason
            if code is None:
                result.error = f"timed out after {timeout:g} s"
            elif not facts.finished:
                stderr = transcript.with_suffix(".stderr").read_text(errors="replace")
                result.error = f"tether exited {code} without a result: {stderr[-500:].strip()}"
            elif facts.is_error:  # a limit reached (turns, budget) or a failed turn
                said = (facts.result_text or "").strip()[:300]
                result.error = f"the run stopped: {facts.subtype}" + (f": {said}" if said else "")
            check = await run_shell(case.check, copy, limits.step_timeout_s, mark)
            result.check_exit, result.check_output = check.exit_code, check.output
            result.passed = check.exit_code == 0 and result.error is None
            if case.rubric is not None:
                result.judge = await judge_run(
                    case,
                    case.rubric,
                    condensed(lines),
                    result.passed,
                    self.suite.judge.model or variant.model,
                    timeout,
                    self.env,
                )
            return result
        finally:  # what the run's processes left running (`setsid` daemons) ends with it
            await asyncio.to_thread(kill_marked, mark)
            await asyncio.to_thread(remove_copy, case, self.suite_dir, copy)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
