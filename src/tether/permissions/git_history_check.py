"""Whether a git command that prints what git's objects hold (git_history.py) can print a
file a Read rule denies, asked of the repository it runs in (git_probes.py)."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.access import FileAccess
from tether.permissions.git_history import denied_in_history
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.verdict import Verdict, ask


def history_verdicts(
    shows: str, where: str | None, places: ShellPlaces, files: FileAccess
) -> list[Verdict]:
    """Asked when the command prints what git's objects hold and a Read deny rule covers a
    path the repository git finds from `where` (its `-C` directory; None: `--git-dir`) ever
    held, or when that is not known."""
    ctx = files.ctx
    rule = next(iter(ctx.rules.of("deny", "Read")), None)
    if not shows or rule is None:
        return []
    if shows == "store":
        return [
            ask(
                "prints every object git stores, unreachable ones too, which may hold a file "
                f"{rule.text} covers that was once staged",
                rule.text,
                hard=True,
            )
        ]
    for target in places.targets(where) if where is not None else [None]:
        real = files.real(target) if isinstance(target, Path) else None
        paths = ctx.git_history(real) if real is not None else None
        if paths is None:
            return [
                ask(
                    "prints what git's history holds, and whether it ever held a file "
                    f"{rule.text} covers is not known",
                    rule.text,
                    hard=True,
                )
            ]
        denied = denied_in_history(paths, ctx.rules, workspace=ctx.workspace, home=ctx.home)
        first = next(iter(denied), None)
        if first is not None:
            more = f" and {len(denied) - 1} more" if len(denied) > 1 else ""
            return [
                ask(
                    f"prints what git's history holds, which holds {first}{more}: "
                    "a denied file git has tracked (commits, stashes, reflog or the index)",
                    rule.text,
                    hard=True,
                )
            ]
    return []
