"""The ledger's spend for the terminal: a table with a bar per line (`tether cost`), and the
same as plain lines for the REPL's `/cost`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.table import Table
from rich.text import Text

from tether.cli.ledger_setup import flush_process_ledger
from tether.cli.usage_text import format_tokens
from tether.ledger import Grouping, LedgerError, LedgerFile, Line, breakdown, ledger_path

BAR_WIDTH = 24
FLUSH_WAIT_S = 2.0
"""How long `/cost` waits for the session's queued ledger writes (only while another process
holds the ledger's lock); then it shows what is written."""


def bar(cost: float, most: float, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells at most, eighths of a cell for precision."""
    if most <= 0 or cost <= 0:
        return ""
    eighths = round(cost / most * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if part == 0 else " ▏▎▍▌▋▊▉"[part])


@dataclass(frozen=True)
class Shown:
    """The most expensive `lines` of a breakdown, and what the rest add up to."""

    lines: list[Line]
    more_lines: int
    more_calls: int
    more_usd: float
    total_calls: int
    total_usd: float

    @property
    def more(self) -> str | None:
        """The line that stands for the rest, or None when every line is shown."""
        if not self.more_lines:
            return None
        return f"and {self.more_lines} more"


def shown(lines: list[Line], limit: int) -> Shown:
    """The first `limit` lines (0: all) of `lines` (most expensive first), the rest summed."""
    kept = lines if limit == 0 else lines[:limit]
    rest = lines[len(kept) :]
    return Shown(
        kept,
        len(rest),
        sum(line.calls for line in rest),
        sum(line.cost_usd for line in rest),
        sum(line.calls for line in lines),
        sum(line.cost_usd for line in lines),
    )


def cost_table(view: Shown, by: Grouping) -> Table:
    """One row per group, most expensive first, tokens by kind, what the groups past the
    limit add up to, and the total. The numbers are never cut; a long key (a session id) is,
    and its start is enough for `--session`."""
    lines = view.lines
    projects = any(line.project is not None for line in lines)
    table = Table(
        title=f"Cost by {by}",
        title_justify="left",
        show_footer=len(lines) + view.more_lines > 1,
    )
    rows = [
        [
            line.key,
            str(line.calls),
            format_tokens(line.input_tokens),
            format_tokens(line.cache_read_tokens),
            format_tokens(line.cache_write_tokens),
            format_tokens(line.output_tokens),
            f"${line.cost_usd:.4f}",
        ]
        for line in lines
    ]
    if view.more is not None:
        rows.append([view.more, str(view.more_calls), "", "", "", "", f"${view.more_usd:.4f}"])
    footers = ["total", str(view.total_calls), "", "", "", "", f"${view.total_usd:.4f}"]
    headers = [by, "calls", "input", "cache rd", "cache wr", "output", "cost"]
    for n, header in enumerate(headers):
        if n == 0:  # the one that gives way on a narrow terminal
            table.add_column(header, footer=footers[0], overflow="ellipsis", min_width=9)
            if projects:  # a task's id or a member's name is one team's in one project
                table.add_column("project", overflow="ellipsis", min_width=9)
            continue
        widest = max(len(cell) for cell in [header, footers[n], *(row[n] for row in rows)])
        table.add_column(header, justify="right", footer=footers[n], no_wrap=True, min_width=widest)
    places = [line.project or "" for line in lines] + [""] * (len(rows) - len(lines))
    for row, place in zip(rows, places, strict=True):  # keys and paths are text, never markup
        table.add_row(Text(row[0]), *([Text(place)] if projects else []), *row[1:])
    return table


def cost_lines(
    lines: list[Line], title: str, view: Shown | None = None, columns: int | None = None
) -> list[str]:
    """The breakdown as plain lines: key, calls, cost and its bar (and, past a limit, what
    the rest add up to); within `columns` when given, a long key cut to fit."""
    if not lines:
        return [f"{title}: nothing recorded yet"]
    most = max(line.cost_usd for line in lines)
    costs = [f"${line.cost_usd:.4f}" for line in lines]
    labels = _labels(lines)
    width = max(map(len, labels))
    if columns is not None:
        room = columns - (2 + 2 + 10 + 2 + max(map(len, costs)) + 2 + BAR_WIDTH)
        width = max(9, min(width, room))
    out = [f"{title}:"]
    for line, spent, label in zip(lines, costs, labels, strict=True):
        calls = f"{line.calls} call" + ("" if line.calls == 1 else "s")
        key = label if len(label) <= width else label[: width - 1] + "…"
        out.append(f"  {key:<{width}}  {calls:>10}  {spent}  {bar(line.cost_usd, most)}")
    if view is not None and view.more is not None:
        out.append(f"  {view.more} (${view.more_usd:.4f})")
    return out


def _labels(lines: list[Line]) -> list[str]:
    """Each line's key, and its project's name when the lines are of several projects."""
    if len({line.project for line in lines}) < 2:
        return [line.key for line in lines]
    return [
        line.key if line.project is None else f"{line.key} ({Path(line.project).name})"
        for line in lines
    ]


def session_spend(session_id: str, home: Path) -> tuple[list[Line], list[str]]:
    """What `/cost` takes from the ledger: the session's spend by model, and its lines by
    tool and, when subagents worked, by agent; or why the ledger cannot say."""
    path = ledger_path(home)
    flush_process_ledger(path, FLUSH_WAIT_S)  # this session's last calls are in it
    if not path.exists():
        return [], ["Cost ledger: nothing recorded"]
    try:
        ledger = LedgerFile(path, read_only=True)
        try:
            groups = {
                by: breakdown(ledger, by, session_id=session_id)
                for by in ("tool", "model", "agent")
            }
        finally:
            ledger.close()
    except LedgerError as e:
        return [], [f"Cost ledger: {e}"]
    out = cost_lines(groups["tool"], "By tool")
    if len(groups["agent"]) > 1:
        out.extend(cost_lines(groups["agent"], "By agent"))
    return groups["model"], out
