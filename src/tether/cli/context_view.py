"""`/context`: what fills the model's window, as Claude Code draws it: a grid of squares (each
a hundredth of the window) coloured by what takes it, and each part with its token count.

Counts are estimates (four characters a token) of what the next request sends: tether's
system prompt, the tools' definitions, the project's instructions and memory (parts of the
system prompt, counted apart), and the conversation.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from tether.core.session import Session

CHARS_PER_TOKEN = 4
CELLS = 100
ROW = 10
INSTRUCTIONS_MARK = "Project instructions (from the files named below"
MEMORY_MARK = "Memory from earlier sessions in this project"
COLOURS = {
    "System prompt": "grey62",
    "Tools": "cyan",
    "Instructions": "yellow",
    "Memory": "magenta",
    "Messages": "blue",
}


def context_parts(session: Session) -> list[tuple[str, int]]:
    """Each part of the next request and its tokens (estimated), in the order they are sent."""
    from tether.core.message_size import message_chars

    agent = session.agent
    system = agent.system_prompt
    instructions = _section(system, INSTRUCTIONS_MARK, MEMORY_MARK)
    memory = _section(system, MEMORY_MARK, None)
    rest = len(system) - len(instructions) - len(memory)
    tools = len(json.dumps([t.model_dump() for t in agent.tools.specs()]))
    messages = sum(message_chars(m) for m in session.messages)
    chars = [
        ("System prompt", rest),
        ("Tools", tools),
        ("Instructions", len(instructions)),
        ("Memory", len(memory)),
        ("Messages", messages),
    ]
    return [(name, count // CHARS_PER_TOKEN) for name, count in chars]


def _section(text: str, start: str, end: str | None) -> str:
    begin = text.find(start)
    if begin < 0:
        return ""
    stop = text.find(end, begin) if end is not None else -1
    return text[begin : stop if stop >= 0 else len(text)]


def describe_context(session: Session) -> Text:
    """The picture and its legend."""
    window = session.agent.compaction.policy.window if session.agent.compaction else 0
    parts = context_parts(session)
    used = sum(tokens for _, tokens in parts)
    size = window or max(used, 1)
    cells: list[str] = []
    for name, tokens in parts:
        cells += [name] * (max(1, round(CELLS * tokens / size)) if tokens else 0)  # seen
    cells = cells[:CELLS] + ["free"] * max(0, CELLS - len(cells))
    text = Text(f"Context: {session.agent.model_id} · {used:,} of {size:,} tokens")
    text.append(f" ({used * 100 // size}%)\n" if window else "\n")
    legend = [f"{name}: {tokens:,} tokens" for name, tokens in parts]
    legend.append(f"Free space: {max(0, size - used):,} tokens")
    styles = [*(COLOURS[name] for name, _ in parts), "grey30"]
    for row in range(CELLS // ROW):
        for cell in cells[row * ROW : (row + 1) * ROW]:
            text.append("⛁ " if cell != "free" else "⛶ ", COLOURS.get(cell, "grey30"))
        if row < len(legend):
            text.append("  ")
            text.append("⛁ ", styles[row])
            text.append(legend[row])
        text.append("\n")
    return text
