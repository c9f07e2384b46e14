"""A container engine's builds, copies and compose commands, judged by the host files they
read and write: `docker build` sends its whole context (a `.env` below it included), its
`--build-context` directories and `--secret` files, and writes its `--output`; `docker cp`
copies a host tree whole; `docker compose config` prints the project's `.env`; compose
files from outside the workspace are code not seen."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(docker:*)", "Bash(podman:*)", "Bash(docker-compose:*)"],
        "deny": ["Read(**/.env)", "Read(secrets/**)", "Edit(.github/**)"],
    }
}

DENIED = [
    "docker build --secret id=api,src=secrets/api.key -t app .",
    "docker buildx build --secret=id=k,source=.env -",
    "podman build --ssh default=secrets/key.pem -",
    "docker build -o type=local,dest=.github/out -",
    "docker image build --iidfile .github/id -",
    "docker cp .env web:/tmp/",
    "docker container cp secrets web:/s",
    "docker cp web:/etc/passwd .github/workflows/ci.yml",
    "docker compose config",
    "docker compose --project-directory src config",
    "docker compose --env-file=src/link_env convert",
    "docker-compose config",
    "podman build --build-context extra=secrets -t app config",
]


@pytest.mark.parametrize("command", DENIED)
def test_container_commands_meet_file_rules(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


ASKED = [
    "docker build .",
    "docker build -t app -f Dockerfile .",
    "docker --log-level=warn buildx build --platform linux/amd64 src",
    "docker cp . web:/app",
    "docker compose -f {outside}/compose.yml up -d",
    "docker build -o {outside}/image -",
]


@pytest.mark.parametrize("command", ASKED)
def test_trees_that_may_hold_denied_files_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


ALLOWED = [
    "docker build -t app config",
    "docker build https://github.com/example/app.git",
    "docker build -t app - < README.md",
    "docker cp README.md web:/app/",
    "docker cp web:/app/log.txt ./log.txt",
    "docker compose up -d",
    "docker compose -f compose.yml build",
    "docker ps -a",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_ordinary_container_commands_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
