"""git's servers ask: `git daemon` off loopback as `hg serve` does (without `--listen=` it
listens on every interface, and whoever reaches it reads the repositories it exports), on
loopback or `--inetd` too (every local process reaches it); `upload-pack`, `upload-archive`,
`receive-pack` and `http-backend` serve a repository to whoever speaks to them. Allowed
before under `Bash(git *)`, each of the asked ones."""

from __future__ import annotations

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

LOCAL = "git daemon serves the repositories it exports to every local process"
ON_LOOPBACK = [
    ("git daemon --listen=127.0.0.1", "ask", None, LOCAL),
    ("git daemon --listen=localhost --export-all", "ask", None, LOCAL),
    ("git daemon --listen=::1", "ask", None, LOCAL),
    (
        "git daemon --listen=127.0.0.1 --export-all --enable=receive-pack --base-path=/",
        "ask",
        None,
        LOCAL,
    ),
    ("git daemon --listen=127.0.0.1 --pid-file={outside}/p", "ask", None, LOCAL),
    (
        "git daemon --inetd",
        "ask",
        None,
        "git daemon serves the repositories it exports over its standard streams",
    ),
]
"""On loopback every local process reaches it (any repository on the machine with
`--base-path=/ --export-all`, pushes with `--enable=receive-pack`): allowed before."""


def test_git_daemon_off_loopback_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(curl *)"]}})
    wanted = expected(ASKED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


def test_git_daemon_on_loopback_is_asked_too(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(curl *)"]}})
    wanted = expected(ON_LOOPBACK, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


SERVERS = [
    (
        "git upload-pack {outside}",
        "ask",
        None,
        "git upload-pack serves the history of the repository it names, to whoever speaks to it",
    ),
    (
        "git upload-archive .",
        "ask",
        None,
        "git upload-archive serves archives of the repository it names, to whoever speaks to it",
    ),
    (
        "git receive-pack .",
        "ask",
        None,
        "git receive-pack writes what it is sent into the repository it names and runs its "
        "hooks, to whoever speaks to it",
    ),
    (
        "git http-backend",
        "ask",
        None,
        "git http-backend serves the repositories its environment names, to whoever speaks to it",
    ),
]


def test_git_serving_a_repository_over_its_streams_is_asked(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    wanted = expected(SERVERS, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


def test_git_reading_and_sending_stays_allowed(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    for command in ("git status", "git log --oneline", "git push origin main"):
        assert bash(command, ctx) == Decision("allow", "Bash(git *)", "allowed by Bash(git *)")
