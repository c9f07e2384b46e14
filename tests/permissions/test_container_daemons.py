"""A container engine's commands that write the host outside the workspace (`save -o`,
`export -o`), or that make later commands run on another daemon or builder (`context use`,
`buildx use`, `buildx create` with a remote driver or endpoint), are asked."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(docker *)", "Bash(podman *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "docker image save -o{outside}/base.tar base:1",
        "podman save --output {outside}/base.tar base:1",
        "docker container export --output={outside}/fs.tar web",
        "docker context use staging",
        "docker -l debug context use staging",
        "docker buildx use --default ci-remote",
        "docker buildx create --name ci --driver=remote tcp://10.0.0.5:1234",
        "docker builder create --driver cloud org/builder",
        "docker buildx create --name far ssh://ci@build.example",
    ],
)
def test_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "docker image save -o dist/base.tar base:1",
        "docker context use default",
        "docker context ls",
        "docker buildx create --name local --driver docker-container --use",
        "docker buildx use default",
    ],
)
def test_local_ones_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
