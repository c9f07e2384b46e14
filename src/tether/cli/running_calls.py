"""Tool calls as the terminal shows them: the calls running now (the spinner names them), the
block under a finished call (its diff, the plan it set, or its result), and the change an Edit
or Write awaiting approval would make."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from tether.cli.toolview import (
    DIFF_LINES,
    PREVIEW_LINES,
    TODO_TOOL,
    VERBOSE_DIFF_LINES,
    VERBOSE_PREVIEW_LINES,
    PlanItem,
    diff_view,
    display_path,
    plan_checklist,
    plan_items,
    proposed_diff,
    result_preview,
)
from tether.protocol import PermissionAsked, ToolFinished, ToolStarted

PREVIEW_MAX_BYTES = 1_000_000
"""Files larger than this are not read to preview an Edit or Write that awaits approval."""


class RunningCalls:
    """The calls started and not finished yet, by id, and the plan the last TodoWrite that
    succeeded set (None before the first)."""

    def __init__(self) -> None:
        self.started: dict[str, ToolStarted] = {}
        self.plan: list[PlanItem] | None = None

    def activity(self) -> str:
        """The activity while tools run: calls of one response run side by side."""
        names = [started.name for started in self.started.values()]
        if len(names) <= 1:
            return f"Running {names[0]}" if names else "Thinking"
        return f"Running {len(names)} tools ({', '.join(names)})"

    def result_view(
        self,
        event: ToolFinished,
        started: ToolStarted | None,
        *,
        workspace: Path | None,
        width: int,
        verbose: bool,
    ) -> Text:
        """What is printed under a finished call: the change it made, the plan it set, or
        its result's first lines."""
        if event.diff and not event.is_error:
            raw_path = started.input.get("file_path") if started else None
            path = display_path(raw_path, workspace) if isinstance(raw_path, str) else None
            limit = VERBOSE_DIFF_LINES if verbose else DIFF_LINES
            made = event.diff.startswith("--- /dev/null")  # the file did not exist before
            verb = "Created" if made else "Updated"
            return diff_view(event.diff, path, width=width, max_lines=limit, verb=verb)
        if (plan := self._new_plan(event, started)) is not None:
            return plan_checklist(plan, width=width)
        limit = VERBOSE_PREVIEW_LINES if verbose else PREVIEW_LINES
        return result_preview(
            event.name, event.content, is_error=event.is_error, width=width, max_lines=limit
        )

    def _new_plan(self, event: ToolFinished, started: ToolStarted | None) -> list[PlanItem] | None:
        """The plan a TodoWrite call set, remembered for `/todos`; None for other calls and
        for a TodoWrite the tool refused (its error is shown instead)."""
        if event.name != TODO_TOOL or event.is_error or started is None:
            return None
        plan = plan_items(started.input)
        if plan is not None:
            self.plan = plan
        return plan


def proposed_change(
    event: PermissionAsked, *, workspace: Path | None, width: int, verbose: bool
) -> Text | None:
    """The diff an Edit or Write that awaits approval would make (None for other calls, or
    when it would change nothing)."""
    raw_path = event.input.get("file_path")
    if not isinstance(raw_path, str) or event.tool not in ("Edit", "Write"):
        return None
    path = Path(raw_path)
    if not path.is_absolute() and workspace is not None:
        path = workspace / path
    diff = proposed_diff(event.tool, event.input, _text_for_preview(path))
    if not diff:
        return None
    verb = "Would create" if event.tool == "Write" and not path.exists() else "Would update"
    limit = VERBOSE_DIFF_LINES if verbose else DIFF_LINES
    shown = display_path(raw_path, workspace)
    return diff_view(diff, shown, width=width, max_lines=limit, verb=verb)


def _text_for_preview(path: Path) -> str | None:
    """The file a proposed change applies to, read for its preview only: a file that cannot
    be read (or is too large to be worth it) shows the change alone."""
    try:
        if not path.is_file() or path.stat().st_size > PREVIEW_MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
