"""Hooks on what changes around a session, as Claude Code fires them: the shell's working
directory (CwdChanged), the files FileChanged matchers name (`.envrc|.env`, in the working
directory), the settings files (ConfigChange), and the instruction files loaded into the
context (InstructionsLoaded: those of the system prompt at the session's start, a
subdirectory's `CLAUDE.md` when the model first reads a file there).

Claude Code watches these; tether looks at them between steps, after each batch of tool calls
and before each prompt, so a change is told at the next step, once. What CwdChanged and
FileChanged hooks export to `CLAUDE_ENV_FILE` reaches later Bash commands. tether reads
settings once, at the start: a ConfigChange hook is told of the change, which applies from
the next session."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.core.lifecycle import surface
from tether.hooks.env_file import env_file_variables
from tether.hooks.matcher import file_names
from tether.protocol import Event
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.hooks import HookRunner

Stamp = tuple[int, int, int] | None
"""A file's inode, size and modification time; None when it is not there."""


def _stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def settings_source(path: Path, user_dirs: Sequence[Path]) -> str:
    """Claude Code's name for where a settings file sits (ConfigChange's `source`)."""
    if path.name.endswith(".local.json"):
        return "local_settings"
    if any(path.is_relative_to(d) for d in user_dirs):
        return "user_settings"
    return "project_settings"


class Surroundings(Slotted):
    __slots__ = (
        "_cwd",
        "_files",
        "_loaded",
        "_settings",
        "hooks",
        "on_env",
        "settings",
        "shell_cwd",
    )
    hooks: HookRunner
    shell_cwd: Callable[[], Path]
    settings: Sequence[tuple[str, Path]]
    """The settings files watched, each with its ConfigChange `source`."""
    on_env: Callable[[dict[str, str]], None] | None
    _cwd: Path | None
    _files: dict[Path, Stamp]
    _settings: dict[Path, Stamp]
    _loaded: list[dict[str, Any]]

    def __init__(
        self,
        hooks: HookRunner,
        shell_cwd: Callable[[], Path],
        settings: Sequence[tuple[str, Path]] = (),
        on_env: Callable[[dict[str, str]], None] | None = None,
        _cwd: Path | None = None,
        _files: dict[Path, Stamp] | None = None,
        _settings: dict[Path, Stamp] | None = None,
        _loaded: list[dict[str, Any]] | None = None,
    ) -> None:
        self.hooks = hooks
        self.shell_cwd = shell_cwd
        self.settings = settings
        self.on_env = on_env
        self._cwd = _cwd
        self._files = {} if _files is None else _files
        self._settings = {} if _settings is None else _settings
        self._loaded = [] if _loaded is None else _loaded
        self.__post_init__()

    def __post_init__(self) -> None:
        self._cwd = self.shell_cwd()
        self._files = {p: _stamp(p) for p in self._watched()}
        self._settings = {p: _stamp(p) for _, p in self.settings}

    def _watched(self) -> list[Path]:
        """The files FileChanged matchers name, in the shell's working directory."""
        names: list[str] = []
        for spec in self.hooks.specs:
            if spec.event == "FileChanged":
                names.extend(n for n in file_names(spec.matcher) if n not in names)
        cwd = self.shell_cwd()
        return [cwd / name for name in names]

    def instructions_loaded(
        self,
        path: Path,
        memory_type: str,
        reason: str,
        trigger: Path | None = None,
        parent: Path | None = None,
        globs: tuple[str, ...] = (),
    ) -> None:
        """An instruction file went into the context: its InstructionsLoaded hooks fire at the
        next look (`reason`: "session_start", "nested_traversal", "path_glob_match"...;
        `memory_type`: "User", "Project", "Local"; `reason` "include" names the importing file,
        `parent`; "path_glob_match" the rule's `globs`)."""
        if not self.hooks.has("InstructionsLoaded"):
            return
        payload: dict[str, Any] = {
            "file_path": str(path),
            "memory_type": memory_type,
            "load_reason": reason,
        }
        if trigger is not None:
            payload["trigger_file_path"] = str(trigger)
        if parent is not None:  # an `@path` import: the file that imports it
            payload["parent_file_path"] = str(parent)
        if globs:  # a rule's `paths`, for "path_glob_match"
            payload["globs"] = list(globs)
        self._loaded.append(payload)

    async def tell_loaded(self, emit: Callable[[Event], None]) -> None:
        """Fire InstructionsLoaded for the files loaded since the last time."""
        loaded, self._loaded = self._loaded, []
        for payload in loaded:
            outcome = await self.hooks.fire(
                "InstructionsLoaded", payload, match=payload["load_reason"]
            )
            surface(outcome, emit)

    async def look(self, emit: Callable[[Event], None]) -> None:
        """Fire the hooks of whatever changed since the last look."""
        await self.tell_loaded(emit)
        fired_env = await self._cwd_changed(emit)
        fired_env = await self._files_changed(emit) or fired_env
        await self._settings_changed(emit)
        if fired_env and self.hooks.env_file is not None and self.on_env is not None:
            found = await env_file_variables(self.hooks.env_file, self.hooks.env)
            if found:
                self.on_env(found)

    async def _cwd_changed(self, emit: Callable[[Event], None]) -> bool:
        cwd = self.shell_cwd()
        if cwd == self._cwd:
            return False
        old, self._cwd = self._cwd, cwd
        # The watched files are those of the new directory, as they are now.
        self._files = {p: _stamp(p) for p in self._watched()}
        if not self.hooks.has("CwdChanged"):
            return False
        payload = {"old_cwd": str(old), "new_cwd": str(cwd)}
        surface(await self.hooks.fire("CwdChanged", payload), emit)
        return True

    async def _files_changed(self, emit: Callable[[Event], None]) -> bool:
        fired = False
        for path, before in list(self._files.items()):
            now = _stamp(path)
            if now == before:
                continue
            self._files[path] = now
            change = "add" if before is None else "unlink" if now is None else "change"
            payload = {"file_path": str(path), "event": change}
            surface(await self.hooks.fire("FileChanged", payload, match=path.name), emit)
            fired = True
        return fired

    async def _settings_changed(self, emit: Callable[[Event], None]) -> None:
        for source, path in self.settings:
            now = _stamp(path)
            if now == self._settings.get(path):
                continue
            self._settings[path] = now
            if self.hooks.has("ConfigChange"):
                payload = {"source": source, "file_path": str(path)}
                surface(await self.hooks.fire("ConfigChange", payload, match=source), emit)
