"""A session's project instructions, and the question about their external imports.

A workspace's CLAUDE.md (or AGENTS.md, CLAUDE.local.md, a file they import) may import files
outside the workspace; they are read only once the user approved that for the workspace, as
Claude Code asks about "external imports" once per project (`tether.config.instructions`). The
REPL asks before the first turn, listing them; yes reads them into this session's prompt and
is remembered, no is remembered too. Headless sessions never ask: a notice says what was left
out and how to approve it (`tether trust --external-imports`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tether.config.instructions import Instructions, load_instructions
from tether.config.trust import external_imports_answer, record_external_imports
from tether.core.questions import StartupQuestion
from tether.slotted import Slotted

APPROVE_HINT = "tether trust --external-imports"
MAX_LISTED = 5
"""Imports named in the question and the notice; the rest are counted."""


class ProjectInstructions(Slotted):
    """The instructions of one session, read again when the user approves external imports."""

    __slots__ = (
        "admits",
        "answer",
        "current",
        "cwd",
        "env",
        "local_from",
        "on_change",
        "refuse",
        "tether_home",
        "trusted",
        "user_home",
        "workspace",
    )
    workspace: Path
    user_home: Path
    tether_home: Path
    env: Mapping[str, str]
    trusted: bool
    refuse: Callable[[Path], bool]
    """Whether a Read deny rule covers a file (never imported then)."""
    cwd: Path | None
    """Where tether started, below the workspace root: its directories' files are read too."""
    admits: Callable[[Path], bool] | None
    """Whether a file is of a source the session reads (`--setting-sources`)."""
    local_from: Path | None
    """A task worktree's main workspace: its `CLAUDE.local.md` files apply."""
    answer: bool | None
    current: Instructions
    on_change: list[Callable[[Instructions], None]]
    """Called with the new instructions when they are read again (the prompt is rebuilt)."""

    def __init__(
        self,
        workspace: Path,
        user_home: Path,
        tether_home: Path,
        env: Mapping[str, str],
        trusted: bool,
        refuse: Callable[[Path], bool],
        cwd: Path | None = None,
        admits: Callable[[Path], bool] | None = None,
        local_from: Path | None = None,
        answer: bool | None = None,
        current: Instructions | None = None,
        on_change: list[Callable[[Instructions], None]] | None = None,
    ) -> None:
        self.workspace = workspace
        self.user_home = user_home
        self.tether_home = tether_home
        self.env = env
        self.trusted = trusted
        self.refuse = refuse
        self.cwd = cwd
        self.admits = admits
        self.local_from = local_from
        self.answer = answer
        self.current = Instructions() if current is None else current
        self.on_change = [] if on_change is None else on_change

    def load(self) -> Instructions:
        self.answer = external_imports_answer(
            self.workspace, tether_home=self.tether_home, user_home=self.user_home, env=self.env
        )
        self.current = self._read(approved=self.trusted and self.answer is True)
        return self.current

    def reload(self) -> Instructions:
        """Read the files again (one was edited), the prompt rebuilt from them."""
        self.current = self._read(approved=self.trusted and self.answer is True)
        for call in self.on_change:
            call(self.current)
        return self.current

    def _read(self, *, approved: bool) -> Instructions:
        return load_instructions(
            self.workspace,
            home=self.user_home,
            cwd=self.cwd,
            trusted=self.trusted,
            external_imports=approved,
            refuse=self.refuse,
            admits=self.admits,
            local_from=self.local_from,
        )

    def notices(self) -> list[str]:
        """What the user should hear at start-up: problems, and external imports left out."""
        found = [f"instructions: {p}" for p in self.current.problems]
        if self.current.external:
            why = (
                "you said no to imports from outside the workspace"
                if self.answer is False
                else "imports from outside the workspace wait for your approval"
            )
            found.append(
                f"instructions: {_listed(self.current.external)} not read: {why} "
                f"(answer the question in tether, or run `{APPROVE_HINT}`)"
            )
        return found

    def questions(self) -> list[StartupQuestion]:
        """The REPL's question, when a trusted workspace has external imports nobody answered."""
        if not self.trusted or self.answer is not None or not self.current.external:
            return []
        question = (
            "This workspace's instructions import files from outside it: "
            f"{_listed(self.current.external)}. Read them into the prompt, now and in later "
            "sessions here?"
        )
        return [StartupQuestion(question, self._answered)]

    def _answered(self, yes: bool, remember: bool) -> None:
        if remember:
            record_external_imports(
                self.workspace, yes, tether_home=self.tether_home, user_home=self.user_home
            )
            self.answer = yes
        if yes:
            self.current = self._read(approved=True)
            for call in self.on_change:
                call(self.current)


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    more = len(items) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")
