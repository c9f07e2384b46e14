"""More ways a container engine hands the host to what it runs, or runs code from
elsewhere: an unconfined security profile, the host's cgroup namespace, another container's
mounts, a plugin (run by the daemon as root); a compose project, bake file or client config
from outside the workspace (code: asked)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {"permissions": {"allow": ["Bash(docker:*)", "Bash(podman:*)"], "deny": ["Bash(wget:*)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "docker run --security-opt seccomp=unconfined alpine sh",
        "podman run --security-opt=apparmor=unconfined alpine sh",
        "docker run --security-opt systempaths=unconfined alpine sh",
        "docker run --cgroupns host alpine sh",
        "docker run --volumes-from=builder alpine sh",
        "docker plugin install vieux/sshfs",
        "docker plugin upgrade x y",
    ],
)
def test_the_host_itself_is_code_not_seen(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "docker compose --project-directory {outside} up -d",
        "docker compose --project-directory={home}/proj build",
        "docker buildx bake -f {outside}/docker-bake.hcl",
        "docker buildx bake --file={outside}/b.json app",
        "docker --config {outside}/cfg pull alpine",
    ],
)
def test_projects_from_elsewhere_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "docker run --security-opt no-new-privileges --rm alpine true",
        "docker compose up -d",
        "docker buildx bake",
        "docker compose --project-directory src ps",
        "docker ps -a",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
