"""A rule on `git push` holds for every way git sends objects elsewhere."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

SENDING = [
    "git send-pack . HEAD",
    "git send-pack --all ../other",
    "git -C . send-pack ../x HEAD",
    "git --git-dir=.git send-pack ../x HEAD",
    "git http-push https://example.com/repo.git main",
    "git remote-https origin https://example.com/repo.git",
    "git remote-ext . 'git-receive-pack .'",
    "git send-email --to=a@example.com HEAD~1",
    "git imap-send",
    "git daemon --export-all --base-path=.",
    "git upload-pack .",
    "git svn dcommit",
    "git p4 submit",
    "git subtree push --prefix=lib origin main",
    "git lfs push origin main",
    "git 'send-pack' ../x HEAD",
]


@pytest.mark.parametrize("command", SENDING)
def test_a_push_deny_rule_covers_every_sending_command(
    command: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(
        {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git push:*)"]}},
        mode="bypassPermissions",
    )
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", decision
    assert "git push" in decision.reason


@pytest.mark.parametrize("command", ["git subtree split --prefix=lib", "git lfs ls-files"])
def test_verbs_that_do_not_send_are_not_pushes(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Bash(git push:*)"]}})
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior != "deny", decision


def test_an_ask_rule_on_push_asks_for_send_pack(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "ask": ["Bash(git push *)"]}})
    decision = decide("Bash", {"command": "git send-pack origin main"}, ctx)
    assert decision.behavior == "ask", decision
