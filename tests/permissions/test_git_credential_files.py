"""`git credential-store --file FILE` reads FILE (`get` prints the credentials it holds) and
rewrites it (`store`, `erase`): a Read deny rule on FILE holds against it, in any spelling."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {"permissions": {"allow": ["Bash(git:*)", "Bash(printf:*)"], "deny": ["Read(**/.env)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "printf 'protocol=https\\nhost=example.com\\n' | git credential-store --file=.env get",
        "git credential-store --file src/../.env get < /dev/null",
        "git credential-store --fil=.env erase",
        "git -C src credential-store --file ../.env get",
    ],
)
def test_the_credential_file_is_read(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


def test_a_credential_file_no_rule_covers_stays_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    command = "git credential-store --file=.git-credentials get"
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "git credential fill",
        "printf 'protocol=https\\nhost=example.com\\n' | git credential fill",
        "git -c credential.helper=store credential fill",
        "git credential-store get",
        "git credential-cache get",
        "git credential-cache --socket s get",
        "git credential-store store",
        "git credential-store erase",
    ],
)
def test_printing_or_changing_the_kept_credentials_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # The helpers' store is the user's (`~/.git-credentials`, the cache daemon): a rule
    # allowing git does not cover handing out its passwords.
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command", ["git credential approve", "git credential-cache exit", "git status"]
)
def test_commands_printing_no_credential_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
