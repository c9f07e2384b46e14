"""A headless run starts the sandbox probe before its imports (`tether.cli.early_work`), only
where its settings leave the sandbox on, and the session build then takes that probe's
answer instead of probing again; the garbage collector is paused until the session is built,
and runs again however the run ends. Real `tether -p` processes, a bwrap that notes each run."""

from __future__ import annotations

import gc
import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.models.preload import _ALSO_IMPORTED  # pyright: ignore[reportPrivateUsage]
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult


def _logging_bwrap(bin_dir: Path, log: Path) -> None:
    """A bwrap whose sandbox always works, noting the command line of each run."""
    bin_dir.mkdir()
    program = bin_dir / "bwrap"
    program.write_text(
        f'#!/bin/sh\necho "$@" >> {shlex.quote(str(log))}\n'
        '[ "$1" = --help ] && echo "    --ro-bind-fd FD DEST    --disable-userns"\n'
        "exit 0\n"
    )
    program.chmod(0o755)


def _run(workspace: Path, bin_dir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home)}
    return subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def _settings(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_the_probe_runs_once_for_the_early_start_and_the_build(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    model_env.script(reply(text("ok")))
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    help_run, trial = log.read_text().splitlines()
    assert help_run == "--help"
    assert trial.endswith(" -- true")


def test_the_users_settings_turning_the_sandbox_off_run_no_bwrap(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    model_env.script(reply(text("ok")))
    _settings(home / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    assert not log.exists()


def test_an_untrusted_workspace_turning_it_off_is_probed_by_the_build(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    # Its `enabled: false` is left out (it only loosens), so the sandbox is on: the early
    # start leaves the probe to the build, which runs it once.
    model_env.script(reply(text("ok")))
    _settings(workspace / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    assert "sandbox" in done.stderr  # the notice of what the untrusted workspace asked
    assert [line.split()[0] for line in log.read_text().splitlines()] == [
        "--help",
        "--args",
    ]  # the probe: its options through a descriptor


# `tether ARGS` noting whether the garbage collector runs as the session's modules are loaded,
# and as the first request goes out to the model server at PORT.
COLLECTOR_NOTED = """\
import gc, sys
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
def note(event, args):
    if event == "import" and args[0] == "tether.cli.setup":
        print("loading the session's modules: collector on", gc.isenabled(), file=sys.stderr)
    if event == "socket.connect" and isinstance(args[1], tuple) and args[1][1] == port:
        print("first request: collector on", gc.isenabled(), file=sys.stderr)
sys.addaudithook(note)
from tether.main import console_main
console_main()
"""


def test_the_collector_is_paused_for_start_up_only(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(text("ok")))
    port = model_env.url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run(
        [sys.executable, "-c", COLLECTOR_NOTED, port, "-p", "hi"],
        cwd=workspace,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "ok\n"
    assert [line for line in done.stderr.splitlines() if "collector" in line] == [
        "loading the session's modules: collector on False",
        "first request: collector on True",
    ]


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["-p", "hi"], id="a run"),
        pytest.param(["-p"], id="no prompt"),
        pytest.param(["-p", "hi", "--model", "nosuchprovider/x"], id="a configuration error"),
    ],
)
def test_a_program_running_the_command_line_on_a_thread_keeps_its_collector(
    tether: Callable[..., CliResult], model_env: FakeModelServer, argv: list[str]
) -> None:
    # Freezing a host program's objects would keep its garbage for good: only a process of
    # tether's own pauses and freezes.
    model_env.script(reply(text("ok")))
    frozen = gc.get_freeze_count()
    tether(*argv)
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


# The REPL on a terminal, noting the collector's state as the prompt's library loads (before
# the prompt is drawn) and as the process ends (its session built by then).
REPL_COLLECTOR_NOTED = """\
import atexit, gc, sys
def note(event, args):
    if event == "import" and args[0] == "prompt_toolkit":
        print("drawing the prompt: collector on", gc.isenabled(), file=sys.stderr)
sys.addaudithook(note)
atexit.register(lambda: print("at exit: collector on", gc.isenabled(), file=sys.stderr))
sys.argv = ["tether"]
from tether.main import console_main
console_main()
"""


def test_the_repl_draws_its_prompt_with_the_collector_paused(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    env = {**os.environ, "HOME": str(home), "TERM": "xterm-256color"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the REPL on the terminal
        os.chdir(workspace)
        os.execve(sys.executable, [sys.executable, "-c", REPL_COLLECTOR_NOTED], env)
    seen = b""
    try:
        for _ in range(6000):  # bounded: the prompt comes within a few seconds at worst
            ready, _, _ = select.select([fd], [], [], 0.01)
            if ready:
                seen += os.read(fd, 65536)
            if b"> " in seen.split(b"tether", 1)[-1]:
                break
        os.write(fd, b"\x04")  # Ctrl+D on an empty line: leave
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    notes = re.findall(
        r"(?:drawing the prompt|at exit): collector on \w+", seen.decode(errors="replace")
    )
    assert [n.strip() for n in notes] == [
        "drawing the prompt: collector on False",
        "at exit: collector on True",
    ]


_HELD_PRELOAD = """
import importlib.machinery, sys, threading
from pathlib import Path

class _Held:
    # Runs the module only once the main thread has ended (under the module's own lock, not
    # the import system's: the main thread's imports go on meanwhile), noting that it did.
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        threading.main_thread().join(timeout=60)
        Path(MARK).write_text("the preload went on after the main thread ended")
        self.loader.exec_module(module)

class _HoldPreload:
    # The HTTP preload's last import is held until the main thread has ended: the run ends
    # with the preload under way, every time.
    def find_spec(self, name, path=None, target=None):
        if name != HELD or threading.current_thread().name != "http-preload":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Held(spec.loader)
        return spec

sys.meta_path.insert(0, _HoldPreload())
"""


def test_a_run_that_ends_at_once_exits_cleanly_with_the_early_work_under_way(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    # `-p` without a prompt ends while the HTTP stack is still loading on its thread: the
    # interpreter used to be torn down under it (a daemon thread) and crash, about a run in
    # eight. Here the preload is held mid-import until the main thread has ended (a
    # `sitecustomize` on the path), so the run always ends with it under way: the process
    # waits for the preload, then exits with the usage error.
    hooks, mark = tmp_path / "hooks", tmp_path / "preload-went-on"
    hooks.mkdir()
    held = f"HELD = {_ALSO_IMPORTED[-1]!r}\nMARK = {str(mark)!r}\n"
    (hooks / "sitecustomize.py").write_text(held + _HELD_PRELOAD)
    path = os.pathsep.join(p for p in (str(hooks), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p"],
        cwd=workspace,
        env={**os.environ, "HOME": str(home), "PYTHONPATH": path},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert mark.is_file(), "the process exited without waiting for the HTTP preload"


def _with_bad_trust_store(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment with a trust store that cannot be read: any attempt to read it fails."""
    bad = tmp_path / "not-certificates.pem"
    bad.write_text("not a certificate\n")
    return {**os.environ, "SSL_CERT_FILE": str(bad), **extra}


def test_a_plain_http_endpoint_reads_no_trust_store(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    model_env.script(reply(text("ok")))
    env = _with_bad_trust_store(tmp_path, HOME=str(home))
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    assert "Traceback" not in done.stderr


def test_an_https_endpoint_still_reads_and_checks_the_trust_store(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    port = model_env.url.rsplit(":", 1)[1].split("/")[0]
    env = _with_bad_trust_store(
        tmp_path, HOME=str(home), ANTHROPIC_BASE_URL=f"https://127.0.0.1:{port}"
    )
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "certificate" in done.stderr.lower()


def test_a_proxy_keeps_the_trust_store_for_a_plain_http_endpoint(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    env = _with_bad_trust_store(tmp_path, HOME=str(home), HTTPS_PROXY="https://127.0.0.1:9")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "certificate" in done.stderr.lower()
