"""Token counts, prompt caching and a turn's totals as short lines for the terminal."""

from __future__ import annotations

from tether.protocol import TurnFinished, Usage


def cache_line(usage: Usage) -> str:
    """One model call's prompt caching, for --verbose: hit or miss, and the tokens it saved."""
    read, wrote = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    total = usage.context_tokens
    verdict = "hit" if read else "miss"
    share = f"{read / total:.0%} of {format_tokens(total)} from cache" if total else "no prompt"
    # A cache read costs a tenth of a plain input token: 90% of each is saved.
    saved = f", ~{format_tokens(int(read * 0.9))} tokens' worth saved" if read else ""
    return f"  cache {verdict}: {share}, {format_tokens(wrote)} written{saved}"


def format_tokens(count: int) -> str:
    """1234 -> '1.2k', 2_500_000 -> '2.5M': short counts for footers."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def format_usage(usage: Usage) -> str:
    """'12.3k in (10.0k cached) · 456 out'."""
    text = f"{format_tokens(usage.context_tokens)} in"
    if usage.cache_read_input_tokens:
        text += f" ({format_tokens(usage.cache_read_input_tokens)} cached)"
    return f"{text} · {format_tokens(usage.output_tokens)} out"


def turn_footer(event: TurnFinished, given_up: int = 0) -> str:
    """The dim line after a turn: model calls (`given_up` of them tried again: each was
    made, and may have cost), tokens, cost, time."""
    made = event.num_turns + given_up
    calls = f"{made} model call" + ("" if made == 1 else "s")
    if given_up:
        calls += f" ({given_up} given up and retried)"
    parts = [calls, format_usage(event.usage)]
    if event.cost_usd:
        parts.append(f"${event.cost_usd:.4f}")
    parts.append(f"{event.duration_ms / 1000:.1f}s")
    return "─ " + " · ".join(parts)
