"""Bash commands under bubblewrap: the workspace and the session's TMPDIR writable, the files
that decide what runs later read-only, no capabilities, no kernel settings or setuid files,
network and unix sockets off by default, secrets hidden and withheld, and an exact diagnosis
where it cannot run."""

from tether.sandbox.bwrap import SECRETS_IN_HOME, Sandbox
from tether.sandbox.denied_reads import ReadDenials
from tether.sandbox.limits import describe as describe_limits
from tether.sandbox.plan import REQUIRED_BUT_UNAVAILABLE, plan_sandbox
from tether.sandbox.probe import SandboxStatus, probe, probe_soon
from tether.sandbox.settings import SandboxSettings, parse_sandbox_settings

__all__ = [
    "REQUIRED_BUT_UNAVAILABLE",
    "SECRETS_IN_HOME",
    "ReadDenials",
    "Sandbox",
    "SandboxSettings",
    "SandboxStatus",
    "describe_limits",
    "parse_sandbox_settings",
    "plan_sandbox",
    "probe",
    "probe_soon",
]
