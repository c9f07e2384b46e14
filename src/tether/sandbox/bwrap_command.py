"""The bwrap command line a sandboxed command runs as: its options (mounts, namespaces,
descriptors) go to bwrap through a memory file (`--args FD`), not its command line, so that
bwrap, pid 1 inside with its /proc/1/cmdline in sight, names no hidden or protected path."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from tether.processes import ConfinedCommand


class BwrapCommand(ConfinedCommand):
    """A bwrap command line whose options (mounts, namespaces, descriptors) bwrap reads from a
    descriptor (`--args FD`): `options` is what it holds."""

    def __init__(
        self,
        argv: list[str],
        *,
        options: list[str],
        pass_fds: tuple[int, ...],
        on_finished: Callable[[int, str], str | None],
        environment: Callable[[Mapping[str, str]], dict[str, str]],
        on_checkpoint: Callable[[], str | None],
    ) -> None:
        super().__init__(
            argv,
            pass_fds=pass_fds,
            on_finished=on_finished,
            environment=environment,
            on_checkpoint=on_checkpoint,
        )
        self.options = list(options)

    def replace_options(self, options: list[str]) -> None:
        """Give bwrap `options` instead (before the command starts)."""
        fd = int(self[self.index("--args") + 1])
        data = _nul_separated(options)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        _write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        self.options = list(options)


def options_descriptor(options: list[str]) -> int:
    """A memory file holding `options` NUL-separated, at its start, for `bwrap --args`."""
    fd = os.memfd_create("tether-bwrap-args", 0)
    try:
        _write_all(fd, _nul_separated(options))
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _nul_separated(options: list[str]) -> bytes:
    for option in options:
        if "\0" in option:
            raise ValueError(f"a bwrap option holds a NUL character: {option!r}")
    return b"".join(os.fsencode(option) + b"\0" for option in options)
