"""What a tool handler may know about the session: the workspace, the shell's directory,
which files were read, and the snapshots that make writes revertible."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tether.kernel_paths import expand_tilde, kernel_resolve
from tether.protocol import ToolError
from tether.tools.background_shells import BackgroundShells

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


TodoStatus = Literal["pending", "in_progress", "completed"]


@dataclass(frozen=True)
class TodoItem:
    """One step of the model's plan, as TodoWrite last set it."""

    content: str
    status: TodoStatus
    active_form: str
    """The step in the present continuous ("Running the tests"), shown while it is in progress."""


@dataclass(frozen=True)
class ReadRecord:
    mtime_ns: int
    size: int


@dataclass
class FileState:
    """Reads seen in this session and, per path, a stack of contents before each write.

    A snapshot of `None` means the file did not exist before the write.
    """

    reads: dict[Path, ReadRecord] = field(default_factory=dict[Path, ReadRecord])
    snapshots: dict[Path, list[bytes | None]] = field(
        default_factory=dict[Path, list[bytes | None]]
    )

    def record_read(self, path: Path) -> None:
        st = path.stat()
        self.reads[path] = ReadRecord(st.st_mtime_ns, st.st_size)

    def require_fresh_read(self, path: Path, shown: str) -> None:
        """Refuse to change a file the model has not read, or that changed since it read it."""
        record = self.reads.get(path)
        if record is None:
            raise ToolError(
                f"{shown} has not been read in this session; Read it before changing it."
            )
        st = path.stat()
        if (st.st_mtime_ns, st.st_size) != (record.mtime_ns, record.size):
            raise ToolError(
                f"{shown} changed on disk since it was last read; Read it again before changing it."
            )

    def push_snapshot(self, path: Path, previous: bytes | None) -> None:
        self.snapshots.setdefault(path, []).append(previous)

    def pop_snapshot(self, path: Path) -> bytes | None:
        stack = self.snapshots.get(path)
        if not stack:
            raise KeyError(path)
        previous = stack.pop()
        if not stack:
            del self.snapshots[path]
        return previous


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
    read_denied: Callable[[Path], bool] | None = None
    """True for files the permission rules forbid reading: Grep and Glob leave them out of
    what they search and list, as Read refuses them."""
    todos: tuple[TodoItem, ...] = ()
    """The plan as TodoWrite last wrote it (the whole list each call); empty when none."""
    background: BackgroundShells = field(default_factory=BackgroundShells)
    """Commands Bash started with `run_in_background`: the loop announces those that end
    (`finished_unreported`) and the session stops the rest when it ends (`kill_all`)."""

    def __post_init__(self) -> None:
        self.workspace = self.workspace.resolve()
        self.extra_dirs = tuple(d.resolve() for d in self.extra_dirs)
        self.cwd = (self.cwd or self.workspace).resolve()

    @property
    def shell_cwd(self) -> Path:
        assert self.cwd is not None
        return self.cwd

    def resolve(self, path: str) -> Path:
        """The path the kernel opens, symlink-free: relative paths start at the workspace,
        `~` and `~user` are expanded, symlinks are followed component by component before a
        later `..` (kernel_paths.kernel_resolve, the function the permission engine judges
        with, so a tool opens what was judged). In a process's directory under /proc the
        rest is left to the kernel (the path as it stands then)."""
        if not path:
            raise ToolError("path is empty")
        if "\x00" in path:
            raise ToolError("path contains a NUL byte")
        p = Path(expand_tilde(path, home=Path.home()) or path)
        if not p.is_absolute():
            p = self.workspace / p
        resolved = kernel_resolve(p)
        if resolved is None:
            raise ToolError(
                f"{path} cannot be opened: a symlink loop, or `..` after a directory that "
                "does not exist."
            )
        return resolved

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
