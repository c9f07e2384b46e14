"""From settings and the probe's answer to a session's sandbox, and what to tell the user.

Where the sandbox cannot run, the user hears it at every start-up (not once, not in a log):
with `sandbox.required` Bash is refused, otherwise it runs unsandboxed and the notice says so.
"""

from __future__ import annotations

from pathlib import Path

from tether.sandbox.bwrap import SECRETS_IN_HOME, Sandbox
from tether.sandbox.probe import SandboxStatus
from tether.sandbox.settings import SandboxSettings

REQUIRED_BUT_UNAVAILABLE = "sandbox.required is set but the sandbox cannot run here"
"""How a refusal starts; the reason follows."""


def plan_sandbox(
    settings: SandboxSettings,
    status: SandboxStatus,
    *,
    workspace: Path,
    scratch_dir: Path,
    home: Path,
) -> tuple[Sandbox | None, str | None, bool]:
    """(the session's sandbox or None, a one-line notice for the user or None, whether Bash
    must be refused).

    The notice is None when all is well or the user turned the sandbox off. When Bash is
    refused the notice is also the refusal the Bash tool gives (`ToolContext.bash_refusal`).
    `sandbox.required` wins over `sandbox.enabled: false`: it promises Bash never runs
    unsandboxed.
    """
    if settings.enabled is False:
        if settings.required:
            return (
                None,
                f"{REQUIRED_BUT_UNAVAILABLE}: it is turned off (sandbox.enabled: false). "
                "Bash commands are refused.",
                True,
            )
        return None, None, False
    if not status.works:
        reason = status.reason or "the probe failed"
        if settings.required:
            return None, f"{REQUIRED_BUT_UNAVAILABLE}: {reason}. Bash commands are refused.", True
        if settings.enabled is None:
            return (
                None,
                f"The Bash sandbox is on by default but cannot run here: {reason}. Bash "
                "commands run unsandboxed (set sandbox.enabled: false to silence this, or "
                "sandbox.required: true to refuse them).",
                False,
            )
        return (
            None,
            f"sandbox.enabled is set but the sandbox cannot run here: {reason}. Bash commands "
            "run UNSANDBOXED (set sandbox.required: true to refuse them instead).",
            False,
        )
    workspace = workspace.resolve()
    scratch_dir = scratch_dir.resolve()
    extra = tuple((workspace / p).resolve() for p in settings.writable)
    sandbox = Sandbox(
        workspace=workspace,
        writable=(scratch_dir, *(p for p in extra if p != scratch_dir)),
        network=settings.network,
        tmp_dir=scratch_dir / "tmp",
        hidden=tuple(home / p for p in SECRETS_IN_HOME),
        bwrap=status.bwrap or Path("bwrap"),
    )
    return sandbox, None, False
