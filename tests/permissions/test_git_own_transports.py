"""A remote git reaches through a transport of its own, `NAME::ADDRESS` (`fd::` the
descriptors another process holds, `ext::` a command, any helper's `git-remote-NAME`), is
asked whatever rule allows git: typed as a word or an option's value, or configured in the
repository and reached by name (`fd::` and a helper tether knows nothing of were allowed
by `Bash(git *)`). Real repositories, read by git."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree, git_in

RULES = {"permissions": {"allow": ["Bash(git *)"]}}


@pytest.fixture
def repo(tree: Tree) -> Path:
    path = tree.ws / "repo"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "pipe", "fd::0")
    git_in(path, "remote", "add", "both", "fd::3,4")
    git_in(path, "remote", "add", "helper", "mystery::somewhere")
    git_in(path, "remote", "add", "web", "https://example.com/r.git")
    return path


def _transport_ask(shown: str, name: str, *, configured: bool) -> Decision:
    remote = "the remote " if configured else ""
    return Decision(
        "ask",
        None,
        f"git reaches {remote}{shown} through its own transport `{name}::`, "
        "which runs a program or talks to one tether does not see",
    )


@pytest.mark.parametrize(
    ("command", "shown", "name"),
    [
        ("git fetch 'fd::0'", "fd::0", "fd"),
        ("git fetch fd::7 main", "fd::7", "fd"),
        ("git push 'fd::1' HEAD", "fd::1", "fd"),
        ("git ls-remote 'fd::3,4'", "fd::3,4", "fd"),
        ("git archive --remote=fd::0 HEAD", "fd::0", "fd"),
        ("git fetch-pack 'fd::0' main", "fd::0", "fd"),
        ("git send-pack fd::1 main", "fd::1", "fd"),
        ("git archive --remote='ext::true %S' HEAD", "ext::true %S", "ext"),
        ("git ls-remote 'ext::git %s .'", "ext::git %s .", "ext"),
        ("git -C repo fetch 'h.x-1+2::addr'", "h.x-1+2::addr", "h.x-1+2"),
    ],
)
def test_a_typed_transport_url_is_asked(
    command: str, shown: str, name: str, make_ctx: ContextFactory, repo: Path
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == _transport_ask(shown, name, configured=False), command


@pytest.mark.parametrize(
    ("command", "shown", "name"),
    [
        ("git -C repo fetch pipe", "fd::0", "fd"),
        ("git -C repo push both HEAD", "fd::3,4", "fd"),
        ("git -C repo ls-remote pipe", "fd::0", "fd"),
        ("git -C repo pull pipe main", "fd::0", "fd"),
        ("cd repo && git fetch pipe", "fd::0", "fd"),
    ],
)
def test_a_configured_transport_url_is_asked(
    command: str, shown: str, name: str, make_ctx: ContextFactory, repo: Path
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == _transport_ask(shown, name, configured=True), command


@pytest.mark.parametrize(
    "command",
    [
        "git -C repo fetch web",
        "git -C repo remote -v",
        "git -C repo log --oneline",
        "git fetch https://example.com/r.git",
        "git fetch ./a::b",
    ],
)
def test_other_remotes_stay_allowed(command: str, make_ctx: ContextFactory, repo: Path) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("allow", "Bash(git *)", "allowed by Bash(git *)")
