"""What a tool handler may know about the session: the workspace, the shell's directory,
which files were read, and the snapshots that make writes revertible."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from tether.kernel_paths import expand_tilde, kernel_resolve
from tether.protocol import ToolError
from tether.slotted import Slotted
from tether.tools.background_shells import BackgroundShells
from tether.tools.byte_names import matching_name
from tether.tools.file_state import FileState
from tether.tools.memory_index import MemoryIndex
from tether.tools.run_record import RunRecord

if TYPE_CHECKING:  # the search's records load with WebSearch's first call
    from tether.tools.web_searcher import WebSearcher

CommandWrapper = Callable[[list[str], Path], list[str]]
"""Turns a command's argv and working directory into the argv that runs it confined
(a sandbox's `wrap`); set by whoever builds the context, since tools do not know sandboxes.
It may return a `ConfinedCommand`, which the runner then starts and finishes as it says."""


_approved: ContextVar[bool] = ContextVar("tether_call_approved", default=False)


@contextlib.contextmanager
def approved_call() -> Generator[None]:
    """Run a tool call that the permission gate approved (its rules allowed it, or the user
    said yes): its writes outside the workspace happen, since that is what was approved.
    Without it (a tool run with no gate at all) writes stay inside the workspace."""
    token = _approved.set(True)
    try:
        yield
    finally:
        _approved.reset(token)


NAME_MAX = 255
"""The longest file name, in bytes, that Linux file systems take (ext4, xfs, btrfs, tmpfs)."""
PATH_MAX = 4096
"""The longest path, in bytes and with its final NUL, that the kernel takes."""


def require_nameable(path: Path, given: str) -> None:
    """Refuse, with the reason, a path no file system can name: a name over NAME_MAX bytes,
    a path over PATH_MAX, text that is no file name (a lone surrogate). Checked before any
    system call, which would only say "File name too long" or fail to encode."""
    try:
        whole = os.fsencode(path)
    except UnicodeEncodeError as e:
        code_point = ord(e.object[e.start])
        raise ToolError(
            f"{given!r} cannot be a path: it holds a lone surrogate (U+{code_point:04X}), "
            "which is not Unicode text."
        ) from None
    for name in path.parts:
        size = len(os.fsencode(name))
        if size > NAME_MAX:
            shown = name if len(name) <= 40 else name[:40] + "…"
            raise ToolError(
                f"The file name {shown!r} is {size} bytes long; file names can be at most "
                f"{NAME_MAX} bytes."
            )
    if len(whole) >= PATH_MAX:
        raise ToolError(
            f"The path is {len(whole)} bytes long once resolved; paths can be at most "
            f"{PATH_MAX - 1} bytes."
        )


TodoStatus = Literal["pending", "in_progress", "completed"]


class TodoItem(Slotted):
    """One step of the model's plan, as TodoWrite last set it."""

    __slots__ = ("active_form", "content", "status")
    content: Final[str]
    status: Final[TodoStatus]
    active_form: Final[str]
    """The step in the present continuous ("Running the tests"), shown while it is in progress."""

    def __init__(self, content: str, status: TodoStatus, active_form: str) -> None:
        self.content = content
        self.status = status
        self.active_form = active_form


@dataclass
class ToolContext:
    """Per-session state shared by the built-in tools.

    `workspace` is resolved at construction; `cwd` is where the next Bash command starts and
    persists across calls. `scratch_dir` holds spilled output the model can Read back.
    `command_wrapper`, when set, confines every Bash command (it must keep `scratch_dir`
    writable); `bash_refusal`, when set, is the error Bash gives instead of running anything.
    """

    workspace: Path
    scratch_dir: Path
    cwd: Path | None = None
    files: FileState = field(default_factory=FileState)
    extra_dirs: tuple[Path, ...] = ()
    command_wrapper: CommandWrapper | None = None
    bash_refusal: str | None = None
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    """Variables the settings' `env` table names, with the values the session resolved: Bash
    commands get them on top of tether's own environment, as Claude Code's do."""
    read_denied: Callable[[Path], bool] | None = None
    """True for files the permission rules forbid reading: Grep and Glob leave them out of
    what they search and list, as Read refuses them."""
    todos: tuple[TodoItem, ...] = ()
    """The plan as TodoWrite last wrote it (the whole list each call); empty when none."""
    background: BackgroundShells = field(default_factory=BackgroundShells)
    """Commands Bash started with `run_in_background`: the loop announces those that end
    (`finished_unreported`) and the session stops the rest when it ends (`kill_all`)."""
    memory: MemoryIndex | None = None
    """The project's memories, for MemorySave and MemorySearch; None: not available."""
    web_search: WebSearcher | None = None
    """The search WebSearch runs (the Anthropic provider's server-side search); None: the
    session's model has none, and WebSearch says so."""
    web_search_refusal: str = "this session's model has no web search"
    """Why there is no `web_search`, for WebSearch to say."""
    run: RunRecord | None = None
    """Where the process groups and temporary files of this run are written down, so that the
    next tether cleans up after one that was killed (`tools.run_record`); None: not kept."""

    def __post_init__(self) -> None:
        if self.files.snapshots.directory is None:
            self.files.snapshots.directory = self.scratch_dir
        self.workspace = self.workspace.resolve()
        self.extra_dirs = tuple(d.resolve() for d in self.extra_dirs)
        self.cwd = (self.cwd or self.workspace).resolve()

    @property
    def shell_cwd(self) -> Path:
        assert self.cwd is not None
        return self.cwd

    def resolve(self, path: str, *, byte_names: bool = True) -> Path:
        """The path the kernel opens, symlink-free: relative paths start at the workspace,
        `~` and `~user` are expanded, symlinks are followed component by component before a
        later `..` (kernel_paths.kernel_resolve, the function the permission engine judges
        with, so a tool opens what was judged). In a process's directory under /proc the
        rest is left to the kernel (the path as it stands then). `byte_names`: a name shown
        to the model with U+FFFD is the file whose name is not UTF-8 (`byte_names`); without
        it the path stays text that can be shown (to hooks, in a question)."""
        if not path:
            raise ToolError("path is empty")
        if "\x00" in path:
            raise ToolError("path contains a NUL byte")
        p = Path(expand_tilde(path, home=Path.home()) or path)
        if not p.is_absolute():
            p = self.workspace / p
        require_nameable(p, path)
        resolved = kernel_resolve(p)
        if resolved is None:
            raise ToolError(
                f"{path} cannot be opened: a symlink loop, or `..` after a directory that "
                "does not exist."
            )
        require_nameable(resolved, path)
        # A name shown with U+FFFD (its bytes are not UTF-8) is the file shown so.
        return matching_name(resolved, path) if byte_names else resolved

    def inside_workspace(self, path: Path) -> bool:
        return any(path.is_relative_to(root) for root in (self.workspace, *self.extra_dirs))

    def require_writable(self, path: Path) -> None:
        """Writes stay in the workspace and its added directories, unless the gate approved
        this call (see `approved_call`): the gate decides, the tool obeys."""
        if not self.inside_workspace(path) and not _approved.get():
            raise ToolError(
                f"{path} is outside the workspace ({self.workspace}); writing there is refused."
            )

    def show(self, path: Path) -> str:
        """How a path is reported: relative to the workspace when inside it."""
        if path == self.workspace:
            return "."
        if path.is_relative_to(self.workspace):
            return str(path.relative_to(self.workspace))
        return str(path)
