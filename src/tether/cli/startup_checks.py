"""Start-up's upkeep and what it tells the user: killed runs cleaned up and this one recorded,
the memory file read, rules and tool names that match nothing, prices unknown under a budget;
background commands that ended, as reminders for the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether.cli.model_options import priced_but_unknown
from tether.cli.run_options import RunOptions
from tether.cli.setting_sources import SettingSources
from tether.core.lifecycle import reminder
from tether.core.memory import load_memory, memory_for_prompt, memory_index
from tether.core.session import Session
from tether.models.resolve import ResolvedModel
from tether.permissions.rules import RuleSet
from tether.protocol import TextBlock
from tether.tools.context import ToolContext
from tether.tools.run_record import RunRecord, reap_dead_runs


def project_memory(
    settings_root: Path, sources: SettingSources, *, semantic: bool = False
) -> tuple[str, list[str], Path | None, list[str]]:
    """What of the project's memory file goes into the prompt, the lines to tell the user, the
    file compaction summaries are added to (None: not read, or not read whole, so not
    rewritten), and (`semantic`: with MemorySearch) the file's pieces semantic memory keeps:
    the prompt then has an index of a large file, not its first 40,000 characters."""
    path = settings_root / ".tether" / "memory.md"
    if not sources.admits(path):
        return "", [], None, []  # the project's file, and the project's files are not read
    try:
        memory, notes, whole = memory_for_prompt(path, ".tether/memory.md")
        if semantic and whole:
            memory, pieces, cut = memory_index(load_memory(path), ".tether/memory.md")
            notes = [f"memory: {cut}"] if cut is not None else []
            return memory, notes, path, pieces
    except OSError as e:  # an UnreadableFile: a directory, not UTF-8, unreadable...
        why = f"memory: {e}; not loaded, and compaction summaries are not added to it this session"
        return "", [why], None, []
    # What could not be read whole must not be rewritten.
    return memory, notes, path if whole else None, []


def record_run(
    context: ToolContext, session: Session, home: Path, adopt: str | None = None
) -> list[str]:
    """Clean up after earlier runs that were killed (their commands, temporary files and
    scratch directories: `tether.tools.run_record`), then start this run's record (adopting
    the processes of the run `adopt` names, which `/clear` ended), closed (with the scratch
    directory and the snapshots) when the session ends, last: what carries its marker is
    stopped only once the MCP servers had their own orderly end. What was cleaned up, for
    the user."""
    notices = [n for reaped in reap_dead_runs(home) if (n := reaped.notice()) is not None]
    try:
        run = RunRecord.start(home, scratch_dir=context.scratch_dir, session_id=session.session_id)
    except OSError as e:
        notices.append(
            f"cannot keep this run's record under {home} ({e.strerror or e}): if tether is "
            "killed, the commands it leaves running are not stopped at the next start"
        )
        return notices
    context.run = run
    if adopt is not None:
        run.adopt(adopt)

    async def end_run() -> None:
        context.files.snapshots.close()
        run.close()

    session.on_close_last.append(end_run)
    return notices


def background_notices(context: ToolContext) -> list[TextBlock]:
    """Background commands that ended since the model was last told, as reminders."""
    return [TextBlock(text=reminder(n)) for n in context.background.finished_unreported()]


def unmatched_rules(rules: RuleSet) -> list[str]:
    """A path rule no check matches (`Write(secret*)`) is told: it denies nothing."""
    if all(rule.path is None for rule in rules.rules):
        return []  # no path rule: the tools' names (the permission defaults' tables) stay unloaded
    from tether.permissions.tool_names import unmatched_rule_notes

    return unmatched_rule_notes(rules)


def unknown_tools(opts: RunOptions) -> list[str]:
    """A misspelled tool in --allowedTools / --disallowedTools is told: the rule would match
    nothing."""
    if not opts.allowed_tools and not opts.disallowed_tools:
        return []  # and the tools' names (the permission defaults' tables) stay unloaded
    from tether.permissions.tool_names import unknown_tool_notes

    return [
        *unknown_tool_notes("--allowedTools", opts.allowed_tools),
        *unknown_tool_notes("--disallowedTools", opts.disallowed_tools),
    ]


def unoffered_tools(
    opts: RunOptions, could_offer: Sequence[str], offered: Sequence[str], resolved: ResolvedModel
) -> list[str]:
    """A tool `--tools` (the SDK's `tools=[...]`) or `--allowedTools` names that this session
    does not have is told, once each, never dropped silently: a Claude Code tool tether lacks,
    WebSearch on a provider without server-side search, a tool not offered here."""
    if not opts.tools and not opts.allowed_tools:
        return []
    from tether.cli.web_search_backend import no_search_reason
    from tether.permissions.tool_names import (
        CLAUDE_CODE_ONLY,
        KNOWN_TOOLS,
        TOOL_ALIASES,
        unknown_tool,
    )

    def why(tool: str) -> str:
        if tool == "WebSearch" and resolved.provider.wire != "anthropic":
            return f" ({no_search_reason(resolved)})"
        return " (a Claude Code tool tether does not have)" if tool in CLAUDE_CODE_ONLY else ""

    notes: list[str] = []
    told: set[str] = set()
    for label, names, effect in (
        ("--tools", opts.tools or (), "it is not offered"),
        ("--allowedTools", opts.allowed_tools, "the rule allows nothing"),
    ):
        for name in names:
            tool = TOOL_ALIASES.get(name.split("(", 1)[0].strip(), name.split("(", 1)[0].strip())
            if tool in ("", "default") or tool.startswith("mcp__") or tool in told:
                continue
            if label == "--allowedTools" and (
                (tool not in CLAUDE_CODE_ONLY and tool != "WebSearch")
                or tool in could_offer
                or unknown_tool(tool)
            ):
                continue  # a tool tether has, or one told as unknown already
            if tool in offered and label == "--tools":
                continue
            if label == "--tools" and tool not in KNOWN_TOOLS and tool not in could_offer:
                notes.append(f'warning: --tools: unknown tool "{tool}"; it is not offered')
            else:
                notes.append(
                    f'warning: {label}: this session has no "{tool}" tool{why(tool)}; {effect}'
                )
            told.add(tool)
    return notes


def unknown_prices(opts: RunOptions, resolved: ResolvedModel) -> list[str]:
    """A model that costs money but whose prices are unknown is told at the start: its use
    counts as $0 in `/cost` and the result's `total_cost_usd`, which would otherwise read as
    free in silence; with `--max-budget-usd`, that the budget cannot stop the session. A local
    server's model (no key) is free and says nothing."""
    if not priced_but_unknown(resolved):
        return []
    said = f"the prices of {resolved.model_id} are unknown to tether: its use counts as $0"
    if opts.max_budget_usd is None:
        return [f"{said} in /cost and total_cost_usd, which leave it out"]
    return [f"{said}, so --max-budget-usd cannot stop this session"]


def option_notices(
    opts: RunOptions,
    resolved: ResolvedModel,
    offered: Sequence[str],
    registered: Sequence[str],
    rules: RuleSet,
    thinking: tuple[int, int],
) -> list[str]:
    """What the user is told at the start of the tools and rules given: tools named that do
    not exist or are not offered (`offered`: the tools before `--tools` chose; `registered`:
    those the session has), rules matching no tool; an effort level the model does not take
    (`thinking`: the session's thinking budget and reply cap)."""
    return [
        *unknown_tools(opts),
        *unoffered_tools(opts, offered, registered, resolved),
        *unmatched_rules(rules),
        *effort_not_taken(opts, resolved, *thinking),
    ]


def effort_not_taken(
    opts: RunOptions, resolved: ResolvedModel, thinking: int, max_tokens: int
) -> list[str]:
    """`--effort` for a model that takes no effort level, said once at the start, with what
    its requests carry instead (`thinking`: the session's thinking budget, 0: none)."""
    from tether.models.anthropic_request import thinking_and_effort
    from tether.models.effort import nearest_effort

    info = resolved.info
    if opts.effort is None or nearest_effort(opts.effort, info.efforts) is not None:
        return []
    said = f"--effort {opts.effort}: {resolved.model_id} takes no"
    if resolved.provider.wire != "anthropic":
        return [f"{said} reasoning effort; nothing is sent for it"]
    sent, _ = thinking_and_effort(thinking, max_tokens, None, (), info.thinking)
    match sent:
        case None | {"type": "disabled"}:
            carried = "no thinking either"
        case {"budget_tokens": int(budget)}:
            carried = f"thinking with a budget of {budget} tokens, as at every level"
        case _:
            carried = "adaptive thinking, as at every level"
    return [f"{said} effort level; none is sent: its requests ask for {carried}"]
