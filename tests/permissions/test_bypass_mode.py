"""bypassPermissions changes only what happens to an ask no rule concerns: deny rules (and ask
rules) apply with the same analysis as in default mode, through wrappers, compound commands,
substitutions, redirects, file options and the paths named inside Bash. The whole corpus runs
in both modes: bypass never allows what default denies, nor what default asks about because
a deny or ask rule could match."""

from __future__ import annotations

from typing import Any

import pytest

from tether.permissions import Decision, PermissionContext, decide

from .conftest import ContextFactory, Tree
from .test_corpus import CASES, CORPUS, _call  # pyright: ignore[reportPrivateUsage]

MORE = [
    "sudo${IFS}id",
    "s{u,x}do id",
    "{sudo,id} id",
    "env -S 'sudo id'",
    "timeout 5 sudo id",
    "nice -n 5 env X=1 sudo id",
    "ls; sudo id",
    "ls && (sudo id)",
    "echo $(sudo id)",
    "cat <(sudo id)",
    "x=$(cat .env)",
    "cat < .env",
    "grep -f .env README.md",
    "sed -n p .env",
    "cp .env /tmp/x",
    "head -c 10 src/link_env",
    "cat secrets/*.pem",
    "cat sec*/key.pem",
    "echo x > .github/workflows/ci.yml",
    "tee .github/workflows/x.yml < /dev/null",
    "mytool --then rm -rf /",
    "mytool $(echo rm) -rf /",
    "bash -c 'rm -rf /'",
    "eval 'git push origin main'",
    "xargs rm -rf < list.txt",
    "find . -name '*.pem' -exec cat {} +",
    'for f in *.pem; do cat "$f"; done',
    "git push${IFS}origin",
    "$CMD push",
]


def _both(tool: str, call: dict[str, Any], make: Any) -> tuple[Decision, Decision]:
    default: PermissionContext = make(mode="default")
    bypass: PermissionContext = make(mode="bypassPermissions")
    return decide(tool, call, default), decide(tool, call, bypass)


def _stops(decision: Decision) -> bool:
    """Stopped by a rule: denied, or asked because a deny or ask rule could be concerned."""
    return decision.behavior == "deny" or (decision.behavior == "ask" and decision.rule is not None)


@pytest.fixture
def make(make_ctx: ContextFactory) -> Any:
    def build(mode: str) -> PermissionContext:
        return make_ctx(CORPUS["settings"], seed=CORPUS["seed"], mode=mode)

    return build


def test_bypass_never_allows_what_default_stops(tree: Tree, make: Any) -> None:
    calls = [_call(case, tree) for case in CASES]
    calls += [("Bash", {"command": command}) for command in MORE]
    wrong: list[str] = []
    for tool, call in calls:
        default, bypass = _both(tool, call, make)
        if _stops(default) and bypass.behavior == "allow":
            wrong.append(f"{tool} {call}: default {default}, bypass {bypass}")
        if default.behavior == "deny" and bypass.behavior != "deny":
            wrong.append(f"{tool} {call}: default {default}, bypass {bypass}")
    assert wrong == []
