"""Wiring the hooks on a session's surroundings (`tether.core.surroundings`): CwdChanged,
FileChanged, ConfigChange and InstructionsLoaded, when any is configured."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tether.config.settings import settings_files
from tether.core.session import Session
from tether.core.surroundings import Surroundings, settings_source

WATCHED_EVENTS = ("CwdChanged", "FileChanged", "ConfigChange", "InstructionsLoaded")


def watch_surroundings(
    session: Session,
    *,
    workspace: Path,
    home: Path,
    user_home: Path,
    instruction_files: Sequence[Path] = (),
    imported_by: Mapping[Path, Path] | None = None,
) -> Surroundings | None:
    """The session's surroundings, watched (None when no hook cares); the instruction files
    of its system prompt are told to InstructionsLoaded hooks as it starts (a file an `@path`
    import brought in, `imported_by`, as Claude Code's `include` with its importer)."""
    gate = session.agent.gate
    hooks = gate.hooks if gate is not None else None
    if hooks is None or not any(hooks.has(e) for e in WATCHED_EVENTS):
        return None
    context = session.agent.tool_context
    files = settings_files(workspace, home=home, user_home=user_home)
    user_dirs = (user_home / ".claude", home)
    surroundings = Surroundings(
        hooks,
        lambda: context.shell_cwd,
        [(settings_source(p, user_dirs), p) for p in files],
        on_env=lambda found: setattr(context, "env", {**context.env, **found}),
    )
    session.agent.surroundings = session.lifecycle.surroundings = surroundings
    importers = imported_by or {}
    for path in instruction_files:
        kind = memory_type(path, user_home)
        if (parent := importers.get(path)) is not None:
            surroundings.instructions_loaded(path, kind, "include", parent=parent)
        else:
            surroundings.instructions_loaded(path, kind, "session_start")
    return surroundings


def memory_type(path: Path, user_home: Path) -> str:
    """Claude Code's kind of an instruction file: the user's own, a local one, the project's."""
    if path.name == "CLAUDE.local.md":
        return "Local"
    if path.is_relative_to(user_home / ".claude"):
        return "User"
    return "Project"


def nested_told(
    surroundings: Surroundings | None, user_home: Path
) -> Callable[[Path, Path], None] | None:
    """What tells InstructionsLoaded hooks of a subdirectory's instruction file the model's
    read brought in (`tether.cli.nested_instructions`)."""
    if surroundings is None:
        return None

    def told(path: Path, trigger: Path) -> None:
        kind = memory_type(path, user_home)
        surroundings.instructions_loaded(path, kind, "nested_traversal", trigger)

    return told


def rules_told(
    surroundings: Surroundings | None, user_home: Path
) -> Callable[[Path, tuple[str, ...], Path], None] | None:
    """What tells InstructionsLoaded hooks of a rule with `paths` that a read or an edit of a
    file it matches brought in (`tether.cli.rules_on_read`): `path_glob_match`, with its globs
    and the file, as Claude Code."""
    if surroundings is None:
        return None

    def told(path: Path, globs: tuple[str, ...], trigger: Path) -> None:
        kind = memory_type(path, user_home)
        surroundings.instructions_loaded(path, kind, "path_glob_match", trigger, globs=globs)

    return told
