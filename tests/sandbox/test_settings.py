"""The `sandbox` settings block: tether's keys, Claude Code's, and errors naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tether.protocol import ConfigError
from tether.sandbox import SandboxSettings, parse_sandbox_settings


def test_no_block_means_the_defaults() -> None:
    assert parse_sandbox_settings({"model": "x"}) == SandboxSettings(
        enabled=None, network=False, writable=(), required=False
    )


def test_every_key() -> None:
    data = {
        "sandbox": {
            "enabled": True,
            "network": True,
            "writable": ["~/.cache", "/var/cache/build", "build/out"],
            "required": True,
        }
    }
    assert parse_sandbox_settings(data) == SandboxSettings(
        enabled=True,
        network=True,
        writable=(Path.home() / ".cache", Path("/var/cache/build"), Path("build/out")),
        required=True,
    )


def test_claude_code_block_is_understood() -> None:
    data = {
        "sandbox": {
            "enabled": True,
            "failIfUnavailable": True,
            "autoAllowBashIfSandboxed": True,
            "excludedCommands": ["docker"],
            "network": {"allowedDomains": ["example.com"], "allowLocalBinding": True},
        }
    }
    # Its network object configures a domain proxy tether does not have: the network stays cut.
    assert parse_sandbox_settings(data) == SandboxSettings(
        enabled=True, network=False, writable=(), required=True
    )


def test_disabled() -> None:
    assert parse_sandbox_settings({"sandbox": {"enabled": False}}) == SandboxSettings(enabled=False)


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("on", "project: sandbox must be an object, not 'on'"),
        ({"enabled": "yes"}, "project: sandbox.enabled must be true or false, not 'yes'"),
        ({"network": 1}, "project: sandbox.network must be true or false, not 1"),
        ({"required": None, "failIfUnavailable": "no"},
         "project: sandbox.failIfUnavailable must be true or false, not 'no'"),
        ({"writable": "/opt"},
         "project: sandbox.writable must be a list of paths (strings), not '/opt'"),
        ({"writable": ["/opt", 3]},
         "project: sandbox.writable must be a list of paths (strings), not ['/opt', 3]"),
        ({"writable": [""]},
         "project: sandbox.writable must be a list of paths (strings), not ['']"),
        ({"readable": "~/.gitconfig"},
         "project: sandbox.readable must be a list of paths (strings), not '~/.gitconfig'"),
        ({"readable": [None]},
         "project: sandbox.readable must be a list of paths (strings), not [None]"),
        ({"readable": ["notes"]},
         "project: sandbox.readable entries must be absolute paths or start with ~/, not "
         "'notes'"),
        ({"readable": ["/opt/x", "../up"]},
         "project: sandbox.readable entries must be absolute paths or start with ~/, not "
         "'../up'"),
        ({"readable": ["/a\0b"]},
         "project: sandbox.readable entries must be absolute paths or start with ~/, not "
         "'/a\\x00b'"),
    ],
)  # fmt: skip
def test_bad_types_name_the_key(block: Any, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_sandbox_settings({"sandbox": block}, source="project")
    assert str(raised.value) == message


def test_environment_and_unix_sockets() -> None:
    data = {
        "sandbox": {
            "env": ["GITHUB_TOKEN"],
            "network": {"allowUnixSockets": ["/run/docker.sock"], "allowAllUnixSockets": False},
        }
    }
    assert parse_sandbox_settings(data) == SandboxSettings(
        env=("GITHUB_TOKEN",), unix_sockets=(Path("/run/docker.sock"),)
    )
    everything = {"sandbox": {"network": {"allowAllUnixSockets": True}}}
    assert parse_sandbox_settings(everything) == SandboxSettings(all_unix_sockets=True)


def test_readable_expands_the_home_and_normalises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    data = {"sandbox": {"readable": ["~/.gitconfig", "~/tools/../sdk/", "/srv/data"]}}
    assert parse_sandbox_settings(data) == SandboxSettings(
        readable=(Path("/home/u/.gitconfig"), Path("/home/u/sdk"), Path("/srv/data"))
    )


def test_env_must_name_variables() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_sandbox_settings({"sandbox": {"env": "GITHUB_TOKEN"}}, source="project")
    assert str(raised.value) == "project: sandbox.env must be a list of names, not 'GITHUB_TOKEN'"
