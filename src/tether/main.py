"""The `tether` command's entry point: answers --version at once, loads the rest only when needed.

It is the composition root above every layer: `tether demo` runs the scripted demo from the
test kit; everything else goes to the command-line front end.
"""

# No `from __future__ import annotations`: it is one more import before --version answers.
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v") and len(args) == 1:
        from tether import __version__

        print(f"{__version__} (tether)")
        return 0
    if args and args[0] == "demo":
        from tether.testing.demo import main as demo_main

        return demo_main(args[1:])
    from tether.outside_text import undecodable_setting

    problem = undecodable_setting(os.environ)
    if problem is not None:
        sys.stderr.write(f"tether: {problem}\n")
        return 2
    from tether.cli.commands import SUBCOMMANDS  # not before --version: one import more

    if args and args[0] in SUBCOMMANDS:
        from importlib import import_module

        command = import_module(f"tether.cli.{SUBCOMMANDS[args[0]][0]}")
        try:
            return int(command.main(args[1:]))
        finally:
            if "tether.cli.observing" in sys.modules:  # a worker's webhooks: their time
                sys.modules["tether.cli.observing"].close_process_sinks()
            if "tether.cli.ledger_setup" in sys.modules:  # its queued writes, and its losses said
                sys.modules["tether.cli.ledger_setup"].close_process_ledger()
    from tether.cli.app import main as app_main

    return app_main(args)


def _is_subcommand(name: str) -> bool:
    from tether.cli.commands import SUBCOMMANDS

    return name in SUBCOMMANDS


INTERRUPTED = "tether: interrupted\n"
READER_GONE = (
    "tether: the reader of the output closed it: what followed was not written and the run "
    "ended there; the session so far is kept in its file\n"
)
INTERRUPTED_STATUS = 130  # 128 + SIGINT, as shells report it


def console_main() -> None:
    """Run `main` as a command. A reader that goes away (`tether sessions list | head -1`)
    ends it quietly, as Python's documentation recommends for SIGPIPE: whatever it was
    printing is of no use to anyone any more.

    Ctrl+C at any moment ends it with one line and status 130, nothing else. A session's
    start-up imports on several threads at once (see `tether.cli.early_work`), and Python's
    import machinery is not safe against a KeyboardInterrupt raised at any point: one that
    lands between a lock taken and the `try` that releases it leaves the lock held, and the
    process hangs, or prints a traceback from the middle of an import. So until a front end
    takes SIGINT over (headless and stream-json end the turn, the REPL interrupts it), SIGINT
    ends the process at once, as the kernel's default would, with the line. Once the work is
    done and flushed, the same: the interpreter's shutdown joins threads still finishing.
    SIGTERM and SIGHUP likewise until a front end takes them over: `tether: stopped by
    SIGTERM` and status 128+N, where they ended it by the default action, with no word (what
    start-up made is a session file, complete at every write, and a run record the next start
    cleans up after)."""
    args = sys.argv[1:]
    answered_at_once = args in (["--version"], ["-v"])
    if not answered_at_once and not (args and _is_subcommand(args[0])):
        _take_stop_signals()
    closed = _fill_closed_standard_streams()
    if closed is not None:
        # Nothing this command does could be seen: do none of it (as `echo hi >&-` does).
        os.write(2, f"tether: cannot write the output: standard {closed} is closed\n".encode())
        sys.exit(1)
    if sys.stdout is not None:
        _write_stdout_through_a_recorder()
    try:
        code = main()
        # Flushed here, inside the `try`: a pipe closed after the last write fails now.
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        if not answered_at_once and not (args and _is_subcommand(args[0])):
            # A session stopped where its reader left (`| head`): said, as nothing else is.
            import contextlib  # here: not on every start's path

            with contextlib.suppress(OSError):  # stderr gone too
                os.write(2, READER_GONE.encode())
        code = 1
    except OSError as e:
        if e is not _Stdout.failed:
            raise
        # A full disk or device (`> /dev/full`), an I/O error: the work is done (and saved),
        # its output could not be written.
        _discard_stdout()
        os.write(2, f"tether: cannot write the output: {e.strerror or e}\n".encode())
        code = 1
    except KeyboardInterrupt:  # a subcommand's work, unwound
        sys.stderr.write(INTERRUPTED)
        code = INTERRUPTED_STATUS
    if "signal" in sys.modules:
        import signal

        signal.signal(signal.SIGINT, _exit_interrupted)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _exit_stopped)
    sys.exit(code)


def _take_stop_signals() -> None:
    """SIGINT -> `_exit_interrupted`, SIGTERM and SIGHUP -> `_exit_stopped`, through the C
    module under `signal`: `import signal` first builds its enums, a millisecond in which a
    Ctrl+C would still raise in the middle of an import (seen under load). What lands before
    this line is the interpreter's own start."""
    c_signal = sys.modules["_signal"]  # loaded by the interpreter's own start
    c_signal.signal(c_signal.SIGINT, _exit_interrupted)
    for signum in (c_signal.SIGTERM, c_signal.SIGHUP):
        c_signal.signal(signum, _exit_stopped)


def _exit_interrupted(signum: int, frame: object) -> None:
    _write_stderr(INTERRUPTED)
    os._exit(INTERRUPTED_STATUS)


def _exit_stopped(signum: int, frame: object) -> None:
    c_signal = sys.modules["_signal"]
    name = "SIGTERM" if signum == c_signal.SIGTERM else "SIGHUP"
    _write_stderr(f"tether: stopped by {name}\n")
    os._exit(128 + signum)


def _write_stderr(text: str) -> None:
    try:  # noqa: SIM105 (contextlib is not imported on every start's path)
        os.write(2, text.encode())
    except OSError:  # the terminal is gone (SIGHUP): the status still says it
        pass


def _fill_closed_standard_streams() -> str | None:
    """Started with a standard descriptor closed (`>&-`), the next file opened would take its
    number, and whatever is printed (or a child's output) would go into it: each closed one
    is given /dev/null. Says "output" when standard output was closed, "error" for standard
    error (output first)."""
    closed: list[str] = []
    for fd, name in ((0, "input"), (1, "output"), (2, "error")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            closed.append(name)
    if "input" in closed and sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives as long as the process
    if "error" in closed and sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    return "output" if "output" in closed else None


class _Stdout:
    """Standard output as this process writes it: each write error remembered, so that the
    one it ends with is known to be standard output's, whichever line printed."""

    failed: OSError | None = None


def _write_stdout_through_a_recorder() -> None:
    """Standard output written through `_RecordingOutput`; an encoding that is not UTF-8
    (`PYTHONIOENCODING=ascii`, the POSIX locale) cannot encode every answer: what it cannot is
    written as a JSON escape (`\\u00e9`), which keeps JSON output valid and the same value,
    and text readable."""
    import io

    class _RecordingOutput(io.FileIO):
        def write(self, b: object, /) -> int:  # type: ignore[override]
            try:
                return super().write(b)  # type: ignore[arg-type]
            except OSError as e:
                _Stdout.failed = e
                raise

    stream = sys.stdout
    encoding = stream.encoding or "utf-8"
    errors = stream.errors or "strict"
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
        import codecs

        codecs.register_error("tether-json-escape", _json_escape)
        errors = "tether-json-escape"
    raw = _RecordingOutput(stream.fileno(), "w", closefd=False)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=encoding,
        errors=errors,
        line_buffering=bool(stream.line_buffering),
        write_through=bool(getattr(stream, "write_through", False)),
    )


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped: list[str] = []
    for char in error.object[error.start : error.end]:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            escaped.append(f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{point:04x}")
    return "".join(escaped), error.end


def _discard_stdout() -> None:
    # Python flushes stdout again at exit, which would fail the same way; stderr is left
    # alone (it may be a terminal that still wants to hear about real errors).
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
