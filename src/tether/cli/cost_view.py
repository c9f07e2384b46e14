"""The ledger's spend for the terminal: a table with a bar per line (`tether cost`), and the
same as plain lines for the REPL's `/cost`."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

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


def cost_table(lines: list[Line], by: Grouping) -> Table:
    """One row per group, most expensive first, tokens by kind, and the total."""
    table = Table(title=f"Cost by {by}", title_justify="left", show_footer=len(lines) > 1)
    total = sum(line.cost_usd for line in lines)
    table.add_column(by, footer="total", no_wrap=True)
    table.add_column("calls", justify="right", footer=str(sum(line.calls for line in lines)))
    table.add_column("input", justify="right")
    table.add_column("cache rd", justify="right")
    table.add_column("cache wr", justify="right")
    table.add_column("output", justify="right")
    table.add_column("cost", justify="right", footer=f"${total:.4f}", no_wrap=True)
    for line in lines:
        table.add_row(
            line.key,
            str(line.calls),
            format_tokens(line.input_tokens),
            format_tokens(line.cache_read_tokens),
            format_tokens(line.cache_write_tokens),
            format_tokens(round(line.output_tokens)),
            f"${line.cost_usd:.4f}",
        )
    return table


def cost_lines(lines: list[Line], title: str) -> list[str]:
    """The breakdown as plain lines: key, calls, cost and its bar."""
    if not lines:
        return [f"{title}: nothing recorded yet"]
    most = max(line.cost_usd for line in lines)
    width = max(len(line.key) for line in lines)
    out = [f"{title}:"]
    for line in lines:
        calls = f"{line.calls} call" + ("" if line.calls == 1 else "s")
        out.append(
            f"  {line.key:<{width}}  {calls:>10}  ${line.cost_usd:.4f}  {bar(line.cost_usd, most)}"
        )
    return out


def session_breakdown(session_id: str, home: Path) -> list[str]:
    """What `/cost` adds from the ledger: the session's spend by tool, by model and, when
    subagents worked, by agent; or why the ledger cannot say."""
    path = ledger_path(home)
    flush_process_ledger(path, FLUSH_WAIT_S)  # this session's last calls are in it
    if not path.exists():
        return ["Cost ledger: nothing recorded"]
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
        return [f"Cost ledger: {e}"]
    out = [*cost_lines(groups["tool"], "By tool"), *cost_lines(groups["model"], "By model")]
    if len(groups["agent"]) > 1:
        out.extend(cost_lines(groups["agent"], "By agent"))
    return out
