"""Which of the files on disk a session reads (`--setting-sources`, the Agent SDK's
`setting_sources`): one decision, by where a file was found, for every kind of file (settings,
instructions, skills, agents, the memory file).

As in Claude Code, a file is the `user`'s (found in `~/.claude`, `$TETHER_HOME`...: settings,
`~/.claude/CLAUDE.md`, the user's skills and agents), the `project`'s (found through the
workspace or the directories above it up to its repository's root: `.claude/settings.json`,
`CLAUDE.md`, `AGENTS.md`, the project's skills and agents, `.tether/memory.md`) or `local`
(`settings.local.json`, `CLAUDE.local.md`, and the answers the user gave for the project,
which Claude Code keeps in the local settings file). A session reads the files of the sources
it was given, all three by default; none with an empty list. Imports inside an instruction
file follow the file that imports them; tether's own skills and agents, and a `--settings`
file, are not files of any source and are always read.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Final, Literal

from tether.cli.ownership import Ownership
from tether.config.settings import SETTING_SOURCES
from tether.slotted import Slotted

Source = Literal["user", "project", "local"]

LOCAL_FILES = frozenset({"settings.local.json", "CLAUDE.local.md"})
"""Files of the local source, wherever in the project they are found."""


class SettingSources(Slotted):
    __slots__ = ("enabled", "owners")
    owners: Final[Ownership]
    enabled: Final[frozenset[str]]

    def __init__(
        self, owners: Ownership, enabled: frozenset[str] = frozenset(SETTING_SOURCES)
    ) -> None:
        self.owners = owners
        self.enabled = enabled

    @classmethod
    def of(cls, owners: Ownership, names: Collection[str] | None) -> SettingSources:
        """The sources named (None: all of them)."""
        return cls(owners, frozenset(SETTING_SOURCES if names is None else names))

    def source_of(self, path: Path) -> Source:
        """Whose `path` is, by where it was found."""
        remembered = self.owners.tether_home / "workspaces"
        if path.name in LOCAL_FILES or path.parent == remembered:
            return "local"
        return "project" if self.owners.needs_trust(path) else "user"

    def admits(self, path: Path) -> bool:
        """Whether the session reads `path`: the one test every loader applies."""
        return self.source_of(path) in self.enabled
