"""What the REPL's `/hooks` and `/output-style` print and change.

`/hooks`: every hook the settings configure, by event and matcher, with its type, what it runs
and the file it comes from (read-only: edit the `hooks` of that file). `/output-style [NAME]`:
the styles there are, the current one marked, or the choice saved in
`.claude/settings.local.json` (as Claude Code keeps it), in force from `/clear` on."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text

from tether.cli.terminal_text import terminal_safe
from tether.protocol import ConfigError

if TYPE_CHECKING:
    from tether.core.session import Session
HOOKS_EDIT = "To change a hook, edit the `hooks` of the file named (Claude Code's format)."


def describe_hooks(session: Session) -> Text:
    gate = session.agent.gate
    layers = gate.sources.layers if gate is not None else ()
    by_event: dict[str, list[tuple[str, str, str, Path]]] = {}
    for path, data in layers:
        table = data.get("hooks")
        if not isinstance(table, Mapping):
            continue
        for event, entries in cast(Mapping[str, Any], table).items():
            for entry in cast(list[Any], entries) if isinstance(entries, list) else []:
                if not isinstance(entry, Mapping):
                    continue
                group = cast(Mapping[str, Any], entry)
                matcher = str(group.get("matcher") or "*")
                hooks = group.get("hooks")
                for hook in cast(list[Any], hooks) if isinstance(hooks, list) else []:
                    if isinstance(hook, Mapping):
                        one = cast(Mapping[str, Any], hook)
                        kind = str(one.get("type", "command"))
                        runs = one.get("command") or one.get("prompt") or one.get("url") or ""
                        by_event.setdefault(str(event), []).append((matcher, kind, str(runs), path))
    if not by_event:
        return Text("No hooks configured. " + HOOKS_EDIT, style="dim")
    text = Text()
    for event, hooks in by_event.items():
        text.append(f"{terminal_safe(event)}\n", style="bold")
        for matcher, kind, runs, path in hooks:
            text.append(f"  [{terminal_safe(matcher)}] {kind}: {terminal_safe(runs)}\n")
            text.append(f"      {terminal_safe(str(path))}\n", style="dim")
    return text.append(HOOKS_EDIT, style="dim")


def output_style(args: str, workspace: Path, user_home: Path) -> Text:
    from tether.cli import output_styles

    styles = output_styles.discover(workspace, user_home)
    if args:
        found = output_styles.find(styles, args)
        if found is None and args.strip().lower() != output_styles.DEFAULT:
            known = ", ".join(["default", *styles])
            return Text(f"✗ No output style is named {terminal_safe(args)} (known: {known}).")
        name = found.name if found is not None else output_styles.DEFAULT
        try:
            output_styles.save_choice(workspace, name)
        except (ConfigError, OSError) as e:
            return Text(f"✗ {terminal_safe(str(e))}")
        return Text(
            f"Output style: {name} (in force from /clear; kept in .claude/settings.local.json)"
        )
    text = Text("Output styles (/output-style NAME to switch)\n", style="bold")
    text.append("  default      tether's own instructions\n")
    for style in styles.values():
        text.append(f"  {terminal_safe(style.name):<12} {terminal_safe(style.description)}\n")
    return text
