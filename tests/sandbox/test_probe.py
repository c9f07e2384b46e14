"""probe(): a real run under bubblewrap, and the diagnosis when it cannot run."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tether.sandbox import SandboxStatus, probe
from tether.sandbox.probe import INSTALL_HINT, PROBE_PREFIX, remove_abandoned_probes

from .conftest import needs_bwrap

HERE = Path(__file__).parent


def fake_bwrap(directory: Path, stderr: str, status: int = 1) -> Path:
    """A `bwrap` that fails the way a real one does on some machine."""
    program = directory / "bwrap"
    program.write_text(f"#!/bin/sh\necho {shlex.quote(stderr)} >&2\nexit {status}\n")
    program.chmod(0o755)
    return program


def fake_proc_sys(directory: Path, **values: str) -> Path:
    """A /proc/sys holding only the given settings (`user__max_user_namespaces="0"`)."""
    for name, value in values.items():
        path = directory / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    return directory


def test_bwrap_not_installed(tmp_path: Path) -> None:
    assert probe(search_path=str(tmp_path)) == SandboxStatus(
        False, f"bubblewrap is not installed (no `bwrap` on PATH); {INSTALL_HINT}", None
    )


def test_named_bwrap_missing(tmp_path: Path) -> None:
    assert probe(tmp_path / "bin" / "bwrap") == SandboxStatus(
        False, f"bubblewrap is not installed ({tmp_path}/bin/bwrap); {INSTALL_HINT}", None
    )


@pytest.mark.parametrize(
    ("message", "sysctls", "expected"),
    [
        pytest.param(
            "bwrap: Creating new namespace failed: nesting depth or "
            "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
            {"user__max_user_namespaces": "0"},
            "user namespaces are disabled (user.max_user_namespaces = 0), so bwrap cannot create "
            "its sandbox (bwrap said: {message}); to enable: "
            "sysctl -w user.max_user_namespaces=15000",
            id="disabled-by-a-limit",
        ),
        pytest.param(
            "bwrap: No permissions to creating new namespace, likely because the kernel does not "
            "allow non-privileged user namespaces.",
            {"kernel__unprivileged_userns_clone": "0", "user__max_user_namespaces": "63000"},
            "user namespaces are disabled (kernel.unprivileged_userns_clone = 0), so bwrap cannot "
            "create its sandbox (bwrap said: {message}); to enable: "
            "sysctl -w kernel.unprivileged_userns_clone=1",
            id="disabled-on-debian",
        ),
        pytest.param(
            "bwrap: setting up uid map: Permission denied",
            {"kernel__apparmor_restrict_unprivileged_userns": "1"},
            "user namespaces are disabled (kernel.apparmor_restrict_unprivileged_userns = 1), so "
            "bwrap cannot create its sandbox (bwrap said: {message}); to enable: give bwrap an "
            "AppArmor profile that allows `userns`, or "
            "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
            id="restricted-by-apparmor",
        ),
        pytest.param(
            "bwrap: Creating new namespace failed: Operation not permitted",
            {},
            "bwrap may not create user namespaces here (bwrap said: {message}); in a container "
            "they are usually blocked by its seccomp or AppArmor profile, otherwise a kernel "
            "setting disables them",
            id="refused-with-no-setting-to-blame",
        ),
        pytest.param(
            "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
            {},
            "{program} failed to run a trivial command (exit status 1): {message}",
            id="other-failure-quotes-bwrap",
        ),
    ],
)
def test_failure_is_diagnosed(
    tmp_path: Path, message: str, sysctls: dict[str, str], expected: str
) -> None:
    program = fake_bwrap(tmp_path, message)
    proc_sys = fake_proc_sys(tmp_path / "sys", **sysctls)
    assert probe(program, proc_sys=proc_sys) == SandboxStatus(
        False, expected.format(message=message, program=program), program
    )


def test_answer_is_cached_per_process(tmp_path: Path) -> None:
    program = fake_bwrap(tmp_path, "bwrap: nope")
    first = probe(program, proc_sys=tmp_path)
    program.write_text("#!/bin/sh\nexit 0\n")
    assert probe(program, proc_sys=tmp_path) is first


def test_bwrap_is_asked_for_its_options_once(tmp_path: Path) -> None:
    # Start-up waits for the probe: one --help serves both options it looks for
    # (--disable-userns, and --ro-bind-fd for the trial's own command line).
    log = tmp_path / "runs.log"
    program = tmp_path / "bwrap"
    program.write_text(
        f"#!/bin/sh\nlog={shlex.quote(str(log))}\n"
        # The options come through a descriptor (`--args FD`): on the same line.
        '[ "$1" = --args ] && tr "\\0" " " < /proc/self/fd/$2 >> "$log"\n'
        'echo "$@" >> "$log"\n'
        '[ "$1" = --help ] && echo "    --ro-bind-fd FD DEST    --disable-userns"\nexit 0\n'
    )
    program.chmod(0o755)
    assert probe(program, proc_sys=tmp_path) == SandboxStatus(
        True, None, program, disable_userns=True
    )
    help_run, trial = log.read_text().splitlines()
    assert help_run == "--help"
    assert {"--disable-userns", "--ro-bind-fd"} <= set(trial.split())


@needs_bwrap
def test_works_here() -> None:
    program = Path(shutil.which("bwrap") or "bwrap")
    has_option = (
        "--disable-userns"
        in subprocess.run(
            [str(program), "--help"], capture_output=True, text=True, check=False
        ).stdout
    )
    assert probe() == SandboxStatus(True, None, program, disable_userns=has_option)


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="mapping an unprivileged user needs root")
def test_real_bwrap_where_user_namespaces_are_off(tmp_path: Path) -> None:
    # The real bwrap, run as an unprivileged user where user namespaces are disabled: checks
    # that what bubblewrap really prints is recognised.
    real = shutil.which("bwrap")
    program = tmp_path / "bwrap"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {HERE / "userns_off.py"} {real} "$@"\n')
    program.chmod(0o755)
    status = probe(program, proc_sys=fake_proc_sys(tmp_path / "sys", user__max_user_namespaces="0"))
    assert status == SandboxStatus(
        False,
        "user namespaces are disabled (user.max_user_namespaces = 0), so bwrap cannot create "
        "its sandbox (bwrap said: bwrap: Creating new namespace failed: nesting depth or "
        "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)); to enable: "
        "sysctl -w user.max_user_namespaces=15000",
        program,
    )


def test_a_killed_start_s_probe_directory_is_removed_by_the_next_probe(tmp_path: Path) -> None:
    # A process killed during start-up leaves its probe directory; the next start removes
    # it, and leaves those of processes still running.
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = tmp_path / f"{PROBE_PREFIX}{gone.pid}-abc123"
    (left / "tmp").mkdir(parents=True)
    running = tmp_path / f"{PROBE_PREFIX}{os.getppid()}-def456"
    running.mkdir()
    older = tmp_path / f"{PROBE_PREFIX}q1w2e3r4"  # an older tether's name, without a pid
    older.mkdir()
    os.utime(older, (0, 0))
    recent = tmp_path / f"{PROBE_PREFIX}z9x8c7v6"
    recent.mkdir()
    remove_abandoned_probes(tmp_path)
    assert not left.exists()
    assert not older.exists()
    assert running.exists()
    assert recent.exists()
