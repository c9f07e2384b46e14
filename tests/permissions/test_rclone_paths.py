"""rclone's local operands as reads and writes (rclone_paths): a plain path, `:local:PATH`, a
remote its configuration defines as local (or an alias of a local path). Copying writes the
destination, `move` its sources too, deleting and making commands their operand, and
`--backup-dir`/`--log-file` their value: outside the workspace, or into a protected path,
asked; inside, allowed by a rule allowing rclone."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(rclone *)"]}}
CONFIG = """\
[files]
type = local

[named]
type = alias
remote = files:/srv/data

[direct]
type = alias
remote = /srv/direct

[bucket]
type = s3
provider = AWS
"""


@pytest.fixture
def configured(tree: Tree) -> Tree:
    (tree.home / ".config" / "rclone").mkdir(parents=True)
    (tree.home / ".config" / "rclone" / "rclone.conf").write_text(CONFIG)
    (tree.ws / "src").mkdir(exist_ok=True)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "rclone copy src {outside}/x",
        "rclone sync src {outside}/x",
        "rclone sync src {outside}/x --transfers 4",
        "rclone copyto README.md {outside}/r.md",
        "rclone copy src :local:{outside}/x",
        "rclone copy src :local,case_insensitive=true:{outside}/x",
        "rclone copy src files:{outside}/x",
        "rclone copy src named:x",
        "rclone copy src direct:x",
        "rclone move {outside}/x src",
        "rclone mkdir {outside}/d",
        "rclone purge :local:{outside}/d",
        "rclone copy src backup --backup-dir {outside}/b",
        "rclone copy src backup --log-file={outside}/log",
        "rclone copy src .git/hooks",
        "rclone copyurl https://x/y .git/hooks/pre-commit",
    ],
)
def test_a_local_write_outside_the_workspace_is_asked(
    command: str, configured: Tree, make_ctx: ContextFactory
) -> None:
    text = configured.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "rclone copy src backup",
        "rclone sync src backup -P --transfers 4",
        "rclone copy src bucket:b",
        "rclone copy bucket:b src",
        "rclone ls files:/srv",
        "rclone mkdir :local:out",
        "rclone copy src files:{ws}/backup",
        "rclone version",
    ],
)
def test_local_writes_inside_the_workspace_are_allowed(
    command: str, configured: Tree, make_ctx: ContextFactory
) -> None:
    text = configured.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "allow", (text, verdict.reason)
