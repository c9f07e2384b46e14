"""`git daemon` off loopback asks, as `hg serve` does: without `--listen=` it listens on every
interface, and whoever reaches it reads the repositories it exports. Allowed before under
`Bash(git *)`, each of the asked ones."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

EXPOSED = "whoever reaches it reads the repositories it exports"
EVERY = f"git daemon listens on every interface (no `--listen=127.0.0.1`): {EXPOSED}"

ASKED = [
    ("git daemon", "ask", None, EVERY),
    ("git daemon --export-all --base-path=.", "ask", None, EVERY),
    ("git -C . daemon --enable=receive-pack", "ask", None, EVERY),
    ("git daemon --listen=0.0.0.0", "ask", None, f"git daemon listens on 0.0.0.0: {EXPOSED}"),
    (
        "git daemon --listen=127.0.0.1 --listen=192.168.1.5",
        "ask",
        None,
        f"git daemon listens on 192.168.1.5: {EXPOSED}",
    ),
    (
        'git daemon --listen="$HOST"',
        "ask",
        None,
        f"git daemon listens on an address known only as it runs: {EXPOSED}",
    ),
]

ALLOWED = [
    "git daemon --listen=127.0.0.1",
    "git daemon --listen=localhost --export-all",
    "git daemon --listen=::1",
    "git daemon --inetd",
]
"""On loopback only, or over its standard streams."""


def test_git_daemon_off_loopback_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(curl *)"]}})
    wanted = expected(ASKED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_git_daemon_on_loopback_stays_allowed(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(curl *)"]}})
    assert bash(command, ctx) == Decision("allow", "Bash(git *)", "allowed by Bash(git *)")
