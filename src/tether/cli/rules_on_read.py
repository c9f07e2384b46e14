"""The rules that name `paths` (`tether.config.rule_paths`), told to the model the first time it
reads or edits a file one of their globs matches, as Claude Code loads them: a reminder with
that tool's result, once per session. The globs are relative to the directory holding the
rule's `.claude` (the workspace for the user's own rules) and match as gitignore patterns do,
as Claude Code matches them (`tether.path_globs`): `build/` is everything under a
`build` directory, `*.md` matches at any depth, `!glob` takes files back out. (Claude Code's
documentation has `*.md` match at the top only; its code matches at any depth; tether follows
the code.)"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from tether.config.rule_paths import rule_globs
from tether.core.lifecycle import reminder
from tether.path_globs import expanded, paths_matcher
from tether.protocol import TextBlock
from tether.slotted import Slotted
from tether.text_files import UnreadableFile, read_instructions, real_path
from tether.tools.context import ToolContext

Told = Callable[[Path, tuple[str, ...], Path], None]
"""Given each rule told, its globs (expanded, as Claude Code tells InstructionsLoaded hooks:
braces expanded, a trailing `/**` taken off) and the file read or edited that brought it."""


class _Rule(Slotted):
    __slots__ = ("base", "globs", "path", "patterns", "test")
    path: Final[Path]
    base: Final[Path]
    globs: Final[tuple[str, ...]]
    patterns: Final[tuple[str, ...]]
    test: Final[Callable[[str], bool]]

    def __init__(
        self,
        path: Path,
        base: Path,
        globs: tuple[str, ...],
        patterns: tuple[str, ...],
        test: Callable[[str], bool],
    ) -> None:
        self.path = path
        self.base = base
        self.globs = globs
        self.patterns = patterns
        self.test = test

    def matches(self, path: Path) -> bool:
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return False  # outside the rule's project
        return relative != "." and self.test(relative)


def rules_on_read(
    context: ToolContext,
    rules: Iterable[tuple[Path, Path]],
    workspace: Path,
    refused: Callable[[Path], bool] | None = None,
    on_told: Told | None = None,
) -> Callable[[], list[TextBlock]]:
    """A pending-input source: the `rules` (each with the directory its globs are relative to)
    that match a file the model has read or written since it last ran, not `refused` (the
    permission rules deny reading them) and not told before."""
    pending: list[_Rule] = []
    for path, base in rules:
        globs = rule_globs(path)
        if globs:
            patterns = expanded(globs)
            pending.append(
                _Rule(path, real_path(base), globs, tuple(patterns), paths_matcher(patterns))
            )
    seen: set[Path] = set()

    def take() -> list[TextBlock]:
        blocks: list[TextBlock] = []
        for path in list(context.files.reads):
            if path in seen or not pending:
                continue
            seen.add(path)
            real = real_path(path)
            for rule in [r for r in pending if r.matches(real)]:
                pending.remove(rule)
                if refused is not None and refused(real_path(rule.path)):
                    continue
                blocks.append(TextBlock(text=reminder(_told(rule, workspace))))
                if on_told is not None:
                    on_told(rule.path, rule.patterns, path)
        return blocks

    return take


def _told(rule: _Rule, workspace: Path) -> str:
    root = workspace.resolve()
    real = real_path(rule.path)
    shown = real.relative_to(root) if real.is_relative_to(root) else rule.path
    try:
        text, _ = read_instructions(rule.path, str(shown))  # cut, with a note, when large
    except UnreadableFile as e:
        return f"{shown} could not be read: it {e.reason}"
    return (
        f"Contents of {shown} (rules for the files matching {', '.join(rule.globs)}, which "
        f"apply with the project's instructions):\n\n{_body(text or '')}"
    )


def _body(text: str) -> str:
    """The rule without its front matter."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].rstrip() == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.rstrip() in ("---", "..."):
                return "".join(lines[index + 1 :]).lstrip("\n")
    return text
