"""rclone's named remotes judged by their type in rclone's configuration (rclone_remotes): an
sftp remote is `ssh HOST` for its host; alias, crypt, union, combine and the other wrapping
backends reach what they wrap; local and object-store remotes reach no ssh host. The file is
the one `--config` or `$RCLONE_CONFIG` names, else the default ones under home; a remote not
defined there, or a configuration that cannot be read, may reach any host (as before)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(rclone *)", "Bash(ssh ok *)"], "deny": ["Bash(ssh h *)"]}}
CONFIG = """\
[bad]
type = sftp
host = h

[good]
type = sftp
host = ok

[files]
type = local

[bucket]
type = s3
provider = AWS

[wrapped]
type = crypt
remote = bad:secret

[named]
type = alias
remote = files:/x

[both]
type = union
upstreams = files:/a bucket:b bad:c:ro

[joined]
type = combine
upstreams = "a=files:/a" "b=wrapped:x"

[loop]
type = alias
remote = loop:x

[fly]
type = hasher
remote = :sftp,host=h:/x
"""


@pytest.fixture
def configured(tree: Tree) -> Tree:
    (tree.home / ".config" / "rclone").mkdir(parents=True)
    (tree.home / ".config" / "rclone" / "rclone.conf").write_text(CONFIG)
    (tree.ws / "other.conf").write_text("[bad2]\ntype = sftp\nhost = h\n[fine]\ntype = local\n")
    return tree


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("rclone ls bad:", "deny"),
        ("rclone copy src bad:dir", "deny"),
        ("rclone ls wrapped:", "deny"),
        ("rclone ls both:", "deny"),
        ("rclone ls joined:", "deny"),
        ("rclone ls loop:", "deny"),
        ("rclone ls fly:", "deny"),
        ("rclone ls good,host=h:", "deny"),
        ("rclone ls nosuch:", "deny"),
        ("rclone --config other.conf ls bad2:", "deny"),
        ("RCLONE_CONFIG=other.conf rclone ls bad2:", "deny"),
        ("rclone --config other.conf ls files:", "deny"),
        ("RCLONE_CONFIG_FILES_TYPE=sftp rclone ls files:", "deny"),
        ("rclone ls good:", "allow"),
        ("rclone ls files:/tmp/x", "allow"),
        ("rclone copy src bucket:b", "allow"),
        ("rclone ls named:", "allow"),
        ("rclone --config other.conf ls fine:", "allow"),
        ("rclone copy src/a.txt dest", "allow"),
    ],
)
def test_a_named_remote_is_judged_by_its_configured_type(
    command: str, behavior: str, configured: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == behavior, (command, verdict.reason)


def test_the_older_default_file_is_read_when_the_newer_is_absent(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.home / ".rclone.conf").write_text("[box]\ntype = local\n[far]\ntype = sftp\nhost = h\n")
    assert decide("Bash", {"command": "rclone ls box:"}, make_ctx(RULES)).behavior == "allow"
    assert decide("Bash", {"command": "rclone ls far:"}, make_ctx(RULES)).behavior == "deny"


def test_an_encrypted_configuration_may_name_any_host(tree: Tree, make_ctx: ContextFactory) -> None:
    (tree.home / ".rclone.conf").write_text(
        "# Encrypted rclone configuration File\n\nRCLONE_ENCRYPT_V0:\nabcdef\n"
    )
    assert decide("Bash", {"command": "rclone ls box:"}, make_ctx(RULES)).behavior == "deny"


@pytest.mark.parametrize("command", ["rclone ls bad:", "rclone ls wrapped:", "rclone ls nosuch:"])
def test_bypass_mode_still_meets_the_rule_on_ssh(
    command: str, configured: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
