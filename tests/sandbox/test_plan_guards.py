"""What a session's sandbox hides and guards, as planned: tether's home listed once, other
tools' stored passwords, and tether's own virtualenv when it lies in the workspace (a `.pth`
written there ran at the next `tether` start, outside the sandbox)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tether.sandbox import SandboxSettings, plan_sandbox

from .conftest import STATUS


def test_tethers_home_is_listed_as_hidden_once(tmp_path: Path) -> None:
    """tether's home at `~/.tether` is in the table and tether's own: hidden, listed, once."""
    home = tmp_path / "home"
    (home / ".tether").mkdir(parents=True)
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=tmp_path / "ws",
        scratch_dir=home / ".tether" / "scratch" / "s1",
        home=home,
        tether_home=home / ".tether",
    )
    assert sandbox is not None
    assert sandbox.hidden.count(home / ".tether") == 1


def test_stored_passwords_of_other_tools_are_hidden_places(tmp_path: Path) -> None:
    """svn's stored passwords, pip's index URL, Teleport's keys, Vagrant's, IBM Cloud's,
    rclone's, the mongo shells' and vim's histories: hidden wherever the home is in view (a
    home the passwd database names besides `HOME` gets this table alone)."""
    home = tmp_path / "home"
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(), STATUS, workspace=tmp_path / "ws", scratch_dir=tmp_path / "s", home=home
    )
    assert sandbox is not None
    for name in (".subversion", ".pip/pip.conf", ".tsh", ".vagrant.d", ".ibmcloud"):
        assert home / name in sandbox.hidden
    for name in (".rclone.conf", ".dbshell", ".mongorc.js", ".viminfo"):
        assert home / name in sandbox.hidden


def test_tethers_own_virtualenv_in_the_workspace_is_guarded(tmp_path: Path) -> None:
    """tether run from the workspace's own virtualenv: its site-packages (where a `.pth` runs
    at the next start, outside the sandbox) and scripts are read-only as a whole."""
    import sysconfig

    prefix = Path(os.path.realpath(sysconfig.get_paths()["purelib"]))
    workspace = Path(os.path.realpath(sys.prefix)).parent
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(),
        STATUS,
        workspace=workspace,
        scratch_dir=tmp_path / "s",
        home=tmp_path / "home",
    )
    assert sandbox is not None
    assert prefix in sandbox.guarded
    elsewhere, _, _ = plan_sandbox(
        SandboxSettings(), STATUS, workspace=tmp_path, scratch_dir=tmp_path / "s", home=tmp_path
    )
    assert elsewhere is not None
    assert prefix not in elsewhere.guarded
