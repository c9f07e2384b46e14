"""`tether sandbox check`: what it says where the sandbox works and where it does not."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.main import main

from .conftest import STATUS, needs_bwrap

Run = tuple[int, str]
Check = Callable[..., Run]


@pytest.fixture
def check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Check:
    """`check(*args)`: run `tether sandbox check` in a workspace with a fake home."""
    base = tmp_path.resolve()
    for name in ("ws", "home/.ssh", "tether"):
        (base / name).mkdir(parents=True)
    (base / "home" / ".netrc").write_text("")
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("TETHER_HOME", str(base / "tether"))
    monkeypatch.chdir(base / "ws")

    def run(*args: str) -> Run:
        status = main(["sandbox", "check", *args])
        return status, capsys.readouterr().out

    return run


def write_settings(tmp_path: Path, sandbox: object) -> None:
    settings = tmp_path.resolve() / "ws" / ".tether" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"sandbox": sandbox}))


@needs_bwrap
def test_where_it_works(check: Check, tmp_path: Path) -> None:
    base = tmp_path.resolve()
    version = subprocess.run(
        [str(STATUS.bwrap), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    write_settings(tmp_path, {"writable": ["build"]})
    assert check() == (
        0,
        f"Sandbox: works here ({version}, {STATUS.bwrap}).\n"
        "Settings: enabled (the default: on where it works), network off, not required.\n"
        "Bash commands run under bubblewrap:\n"
        f"  writable: {base}/ws (the workspace)\n"
        f"  writable: {base}/tether/scratch/<session> (the session's scratch directory)\n"
        f"  writable: {base}/tether/scratch/<session>/tmp (TMPDIR and /tmp, private to the "
        "session)\n"
        f"  writable: {base}/ws/build (does not exist yet)\n"
        "  read-only: everything else\n"
        "  hidden: ~/.ssh, ~/.netrc\n"
        "  network: cut (loopback included)\n",
    )


def test_where_bubblewrap_is_missing(
    check: Check, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    reason = (
        "bubblewrap is not installed (no `bwrap` on PATH); install the bubblewrap package "
        "(Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install bubblewrap`, "
        "Arch: `pacman -S bubblewrap`)"
    )
    assert check() == (
        1,
        f"Sandbox: does not work here: {reason}.\n"
        "Settings: enabled (the default: on where it works), network off, not required.\n"
        "Instead: Bash commands run unsandboxed. At every start-up tether says:\n"
        f"  The Bash sandbox is on by default but cannot run here: {reason}. Bash commands "
        "run unsandboxed (set sandbox.enabled: false to silence this, or sandbox.required: "
        "true to refuse them).\n",
    )
    write_settings(tmp_path, {"required": True, "network": True})
    assert check() == (
        1,
        f"Sandbox: does not work here: {reason}.\n"
        "Settings: enabled (the default: on where it works), network allowed, required (Bash "
        "refused without it).\n"
        "Instead: Bash commands are refused. At every start-up tether says:\n"
        f"  sandbox.required is set but the sandbox cannot run here: {reason}. Bash commands "
        "are refused.\n",
    )


def test_turned_off(check: Check, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    write_settings(tmp_path, {"enabled": False})
    status, out = check()
    assert (status, out.splitlines()[1:]) == (
        1,
        [
            "Settings: disabled (sandbox.enabled: false), network off, not required.",
            "Bash commands run unsandboxed: the sandbox is turned off in settings.",
        ],
    )


def test_bad_settings(check: Check, tmp_path: Path) -> None:
    write_settings(tmp_path, {"network": "yes"})
    assert check() == (
        2,
        "tether sandbox: settings: sandbox.network must be true or false, not 'yes'\n",
    )


def test_usage(check: Check) -> None:
    assert check("--bogus")[0] == 2
