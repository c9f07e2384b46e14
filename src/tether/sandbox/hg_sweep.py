"""Mercurial configuration that sandboxed commands made in a new repository, disabled before
hg outside runs it.

A repository's `.hg/hgrc` runs programs at the user's next `hg` command there: `[hooks]`
(`pre-<command>` hooks run for any command, `hg status` included), `[extensions]` (Python
loaded from any path), `[alias]` (`!` runs a shell), `[ui]` (`merge`, `editor`, `ssh`),
`[merge-tools]`, `[pager]`, `%include` of another file. A `.hg` there when the session
starts is protected (`protected.hg_protected`); one a command makes is not (no mount stops a
directory being made), so when its `hgrc` is new or changed it is moved aside to
`hgrc.tether-disabled` (hg never reads it) and replaced by its `[paths]` entries alone, what
`hg clone` writes: nothing is lost, and `hg pull` still knows where from. hg reads
`hgrc-not-shared` after it (7.x), judged the same way; and other repositories' config runs
too: a shared repository's source (`.hg/sharedpath`, whose `hgrc` a share-safe share reads),
and the subrepositories `.hgsub` names (`hg summary`, `hg status -S`, `hg commit` enter
them), swept wherever they are under the writable roots, skipped directories included.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tether.sandbox.nofollow import read_regular_file

HGRC = "hgrc"
HG_CONFIGS = (HGRC, "hgrc-not-shared")
"""The config files hg reads in a repository's `.hg`, in order."""
DISABLED = ".tether-disabled"
MAX_BYTES = 1 << 20

_SECTION = re.compile(r"\[([^\]]*)\]\s*$")
_ENTRY = re.compile(r"([^=\s][^=]*?)\s*=\s*(.*)$")


def safe_paths(text: str) -> list[tuple[str, str]]:
    """The `[paths]` entries of an hgrc's text (name, URL), continuation lines dropped."""
    section = ""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;" or line[0] in " \t":
            continue
        header = _SECTION.match(stripped)
        if header is not None:
            section = header.group(1).strip()
            continue
        entry = _ENTRY.match(stripped)
        if section == "paths" and entry is not None and "\n" not in entry.group(2):
            found.append((entry.group(1), entry.group(2)))
    return found


def related_hg_dirs(hg_dir: Path) -> list[Path]:
    """The other repositories whose config hg run in `hg_dir`'s work tree reads: the share
    source `sharedpath` names, the subrepositories of its `.hgsub` (local paths)."""
    found: list[Path] = []
    data = read_regular_file(hg_dir / "sharedpath", 4096)
    if data is not None:
        text = data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape").strip()
        if text:
            found.append(_resolved(hg_dir / text))
    subs = read_regular_file(hg_dir.parent / ".hgsub", MAX_BYTES)
    if subs is not None:
        for line in subs.decode("utf-8", "surrogateescape").splitlines():
            entry = _ENTRY.match(line.strip())
            if entry is not None and not line.lstrip().startswith(("#", ";", "[")):
                found.append(_resolved(hg_dir.parent / entry.group(1)) / ".hg")
    return [path for path in found if path.is_dir()]


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def disable_hgrc(hg_dir: Path, name: str = HGRC) -> list[str]:
    """Disable `hg_dir/name` unless it holds `[paths]` entries only; what was done."""
    hgrc = hg_dir / name
    if not (hgrc.is_symlink() or hgrc.is_file()):
        return []
    data = None if hgrc.is_symlink() else read_regular_file(hgrc, MAX_BYTES)
    text = data.decode("utf-8", "replace") if data is not None else None
    kept = safe_paths(text) if text is not None else []
    if text is not None and _only_paths(text, kept):
        return []
    aside = _free(hgrc.with_name(name + DISABLED))
    os.replace(hgrc, aside)
    hgrc.write_text("".join(["[paths]\n", *(f"{k} = {v}\n" for k, v in kept)]) if kept else "")
    return [
        f"{hgrc} set what hg outside the sandbox would run (hooks, extensions, aliases, "
        f"tools): disabled, its [paths] kept (the original is {aside})"
    ]


def _only_paths(text: str, kept: list[tuple[str, str]]) -> bool:
    """Whether the text says nothing but its `[paths]` entries (and comments): no other
    section, no `%include`, no continuation line."""
    lines = [ln for ln in text.splitlines() if ln.strip() and ln.strip()[0] not in "#;"]
    if not lines:
        return True
    entries = lines[1:]
    return (
        lines[0].strip() == "[paths]"
        and len(entries) == len(kept)
        and not any(ln[0] in " \t" or ln.startswith(("[", "%")) for ln in entries)
    )


def _free(path: Path) -> Path:
    candidate, n = path, 1
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}.{n}")
        n += 1
    return candidate
