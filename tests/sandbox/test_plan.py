"""plan_sandbox for every combination of enabled (unset, on, off), works or not, required."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.sandbox import (
    SECRETS_IN_HOME,
    Sandbox,
    SandboxSettings,
    SandboxStatus,
    describe_limits,
    plan_sandbox,
)
from tether.sandbox.outside_home import passwd_home_secrets, root_secrets
from tether.sandbox.placeholders import private_dir

WORKS = SandboxStatus(True, None, Path("/usr/bin/bwrap"))
MISSING = SandboxStatus(False, "bubblewrap is not installed (no `bwrap` on PATH)", None)

REFUSED = (
    "sandbox.required is set but the sandbox cannot run here: bubblewrap is not installed "
    "(no `bwrap` on PATH). Bash commands are refused."
)
REFUSED_WHEN_OFF = (
    "sandbox.required is set but the sandbox cannot run here: it is turned off "
    "(sandbox.enabled: false). Bash commands are refused."
)
DEFAULT_UNAVAILABLE = (
    "The Bash sandbox is on by default but cannot run here: bubblewrap is not installed "
    "(no `bwrap` on PATH). Bash commands run unsandboxed (set sandbox.enabled: false to "
    "silence this, or sandbox.required: true to refuse them)."
)
ENABLED_UNAVAILABLE = (
    "sandbox.enabled is set but the sandbox cannot run here: bubblewrap is not installed "
    "(no `bwrap` on PATH). Bash commands run UNSANDBOXED (set sandbox.required: true to "
    "refuse them instead)."
)


@pytest.mark.parametrize(
    ("enabled", "status", "required", "sandboxed", "notice", "refused"),
    [
        (None, WORKS, False, True, None, False),
        (None, WORKS, True, True, None, False),
        (True, WORKS, False, True, None, False),
        (True, WORKS, True, True, None, False),
        (False, WORKS, False, False, None, False),
        (False, WORKS, True, False, REFUSED_WHEN_OFF, True),
        (None, MISSING, False, False, DEFAULT_UNAVAILABLE, False),
        (None, MISSING, True, False, REFUSED, True),
        (True, MISSING, False, False, ENABLED_UNAVAILABLE, False),
        (True, MISSING, True, False, REFUSED, True),
        (False, MISSING, False, False, None, False),
        (False, MISSING, True, False, REFUSED_WHEN_OFF, True),
    ],
)
def test_every_combination(
    tmp_path: Path,
    enabled: bool | None,
    status: SandboxStatus,
    required: bool,
    sandboxed: bool,
    notice: str | None,
    refused: bool,
) -> None:
    base = tmp_path.resolve()
    workspace, scratch, home = base / "ws", base / "scratch" / "s1", base / "home"
    # tether's own state is hidden too, unless it is under /dev (fresh in the sandbox)
    hidden_state = () if private_dir().is_relative_to("/dev") else (private_dir(),)
    expected = (
        Sandbox(
            workspace=workspace,
            writable=(scratch,),
            network=False,
            tmp_dir=scratch / "tmp",
            # tether's home (the scratch directory's grandparent) and tether's private state
            # as root, root's secrets in /etc too; HOME is the test's, so the passwd home's
            # credential places too
            hidden=(
                *(home / p for p in SECRETS_IN_HOME),
                base,
                *passwd_home_secrets(home, SECRETS_IN_HOME, keep=(workspace, scratch)),
                *root_secrets(),
                *hidden_state,
            ),
            bwrap=Path("/usr/bin/bwrap"),
            home=home,
            scratch=scratch,
            guarded=(base,),
        )
        if sandboxed
        else None
    )
    settings = SandboxSettings(enabled=enabled, required=required)
    plan = plan_sandbox(
        settings, status, workspace=workspace, scratch_dir=scratch, home=home, environ={}
    )
    assert plan == (expected, notice, refused)
    if plan[0] is not None:  # no git identity in this home: nothing set inside
        assert plan[0].env_set == ()


def test_writable_paths_resolve_against_the_workspace(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    workspace, scratch = tmp_path / "ws", tmp_path / "scratch"
    settings = SandboxSettings(
        network=True, writable=(Path("build"), tmp_path / "cache", scratch, Path("../ws/../x"))
    )
    sandbox, notice, refused = plan_sandbox(
        settings, WORKS, workspace=workspace, scratch_dir=scratch, home=tmp_path
    )
    assert (notice, refused) == (None, False)
    assert sandbox is not None
    assert (sandbox.writable, sandbox.network) == (
        (scratch, workspace / "build", tmp_path / "cache", tmp_path / "x"),
        True,
    )


def test_the_limits_stated_to_the_model_follow_the_policy(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    off, _, _ = plan_sandbox(
        SandboxSettings(writable=(base / "cache",)),
        WORKS,
        workspace=base / "ws",
        scratch_dir=base / "t" / "scratch" / "s1",
        home=base,
    )
    on, _, _ = plan_sandbox(
        SandboxSettings(network=True, all_unix_sockets=True),
        WORKS,
        workspace=base / "ws",
        scratch_dir=base / "t" / "scratch" / "s1",
        home=base,
    )
    assert off is not None
    assert on is not None
    stated_off, stated_on = describe_limits(off), describe_limits(on)
    assert (
        "The network is off" in stated_off,
        "Unix sockets (docker, databases, agents) cannot be reached." in stated_off,
        f"Writes are possible only in the workspace, TMPDIR ({base}/t/scratch/s1/tmp, this "
        f"session's own), {base}/cache; everything else is read-only, /tmp included" in stated_off,
        "The network is available." in stated_on,
        "Unix sockets" in stated_on,
        ".git/config, .git/hooks, .tether/, .claude/, .mcp.json" in stated_on,
    ) == (True, True, True, True, False, True)
