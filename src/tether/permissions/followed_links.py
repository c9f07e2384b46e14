"""What a copy that follows symlinks reads (`rclone copy -L SRC DEST`): each symlink below its
source is opened where it leads, so each is judged as a read of the link itself is (`rclone
cat SRC/LINK`), a directory it leads to searched for links in turn."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tether.permissions.access import FileAccess
from tether.permissions.verdict import Verdict, ask

MAX_DEPTH = 8
"""Directories reached through links, one inside another, that are searched for more."""


def links_followed(files: FileAccess, top: Path, *, explicit: bool) -> list[Verdict]:
    """The verdicts (those not allowing) on what the symlinks below `top` lead to; a tree
    that cannot be listed is asked where a Read rule denies or asks."""
    found: list[Verdict] = []
    pending = [(top, 0)]
    seen: set[Path] = set()
    while pending:
        path, depth = pending.pop()
        real = files.real(path)
        if real is None or real in seen:
            continue
        seen.add(real)
        below = files.ctx.list_tree_unentered(real)
        if below is None:
            near = files.ctx.rules.of("deny", "Read") or files.ctx.rules.of("ask", "Read")
            if near and real.is_dir():
                reason = f"follows the symlinks below {path}, which may reach files"
                found.append(ask(f"{reason} {near[0].text} covers", near[0].text, hard=True))
            continue
        for name in below:
            link = real / name
            if not link.is_symlink():
                continue
            verdict = files.read(link, explicit=explicit, recursive=True, follows=False)
            if verdict.outcome != "allow":
                reason = f"follows the symlink {link}: {verdict.reason}"
                found.append(replace(verdict, reason=reason))
            target = files.real(link)
            if target is not None and target.is_dir() and depth < MAX_DEPTH:
                pending.append((target, depth + 1))
    return found
