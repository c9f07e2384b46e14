"""A container engine's bind mounts hand host directories to what runs inside, as root:
judged as a recursive read of each (and a write unless read-only), so Read and Edit rules,
the workspace's bounds and the protected paths hold; a named volume is no host path."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(docker:*)", "Bash(podman:*)"],
        "deny": ["Read(secrets/**)", "Edit(config/**)"],
    }
}

MOUNTS = [
    ("docker run --rm -v {ws}/secrets:/s alpine ls /s", "deny"),
    ("docker run --rm -v ./secrets:/s:ro alpine ls /s", "deny"),
    ("podman run --rm --volume=secrets/:/s alpine ls", "deny"),
    ("docker run --rm --mount type=bind,source={ws}/config,target=/c alpine true", "deny"),
    ("docker run --rm --mount=target=/s,src=./secrets,type=bind,readonly alpine ls", "deny"),
    ("docker run --rm -v /:/host alpine true", "ask"),
    ("docker run --rm -v src/..:/w alpine true", "ask"),
    ("docker run --rm -v {outside}:/o alpine true", "ask"),
    ('docker run --rm -v "$DIR":/d alpine true', "ask"),
]


@pytest.mark.parametrize(("command", "expected"), MOUNTS)
def test_bind_mounts_are_reads_and_writes_of_the_host_paths(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == expected, decision


@pytest.mark.parametrize(
    "command",
    [
        "docker run --rm -v cache:/root/.cache alpine true",
        "docker run --rm -v ./src:/src:ro alpine ls /src",
        "docker run --rm --mount type=volume,src=data,dst=/data alpine true",
        "docker ps -a",
        "docker run --rm alpine ls -v",
    ],
)
def test_volumes_and_plain_commands_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "docker run --rm --privileged alpine true",
        "podman run --rm --pid host alpine nsenter -t 1 -m -u -i -n sh",
        "docker run --rm --pid=host alpine true",
        "docker run --rm --cap-add SYS_PTRACE alpine true",
        "docker run --rm --device=/dev/sda alpine true",
    ],
)
def test_a_container_given_the_host_is_not_seen(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision
    assert "gives the container the host" in decision.reason
