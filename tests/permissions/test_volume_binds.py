"""A named volume whose local driver binds a host directory is that directory in the
container (`--mount type=volume,volume-opt=o=bind,volume-opt=device=SRC`, `docker volume
create --opt device=SRC`): judged as the bind mount `-v SRC:/h` is, in every mode."""

from __future__ import annotations

import pytest

from tether.permissions import Mode, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(docker:*)", "Bash(podman:*)"],
        "deny": ["Read(**/.env)", "Edit(.github/**)"],
    }
}
SOURCES = [".", "src/..", "{home}", "/", ".github", "$PWD", "config/private"]
FORMS = [
    "docker run --mount type=volume,dst=/h,volume-opt=type=none,volume-opt=o=bind,"
    "volume-opt=device={src} alpine ls /h",
    "podman run --rm --mount 'type=volume,target=/h,volume-opt=device={src},volume-opt=o=bind' "
    "alpine ls /h",
    "docker volume create --opt type=none --opt o=bind --opt device={src} hostvol",
    "docker volume create -d local -o o=bind -o device={src} hostvol",
    "docker volume create --opt=device={src} --opt=o=bind hostvol",
]


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("source", SOURCES)
def test_a_driver_bind_is_judged_as_a_bind_mount(
    mode: Mode, form: str, source: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES, mode=mode)
    src = tree.fill(source)
    bound = decide("Bash", {"command": form.format(src=src)}, ctx)
    plain = decide("Bash", {"command": f"docker run -v {src}:/h alpine ls /h"}, ctx)
    assert bound.behavior == plain.behavior, (bound, plain)
    if source in (".", "/", "$PWD"):
        assert bound.behavior != "allow", bound


def test_a_plain_named_volume_stays_allowed(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(RULES)
    for command in ("docker volume create cache", "docker run -v cache:/c alpine ls /c"):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow"
