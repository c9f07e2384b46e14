"""`find START... -delete` is `rm -r -f -- START...` unless its tests can be shown to pick a
bounded, named set (`-name '*.pyc'`): `-mindepth 1`, `-name '*'`, `-true`, a negation or
`-regex '.*'` pick everything, so a deny on `rm -rf` holds for them, in bypassPermissions too.
rsync's old `--remove-sent-files` is `--remove-source-files`."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, assert_denied_in_every_mode

RULES = {"permissions": {"allow": ["Bash(find *)", "Bash(rsync *)"], "deny": ["Bash(rm -rf *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "find . -mindepth 1 -delete",
        "find . -true -delete",
        "find . ! -name zzz -delete",
        "find . -not -name zzz -delete",
        "find . -regex '.*' -delete",
        "find . -maxdepth 5 -delete",
        "find . -newer README.md -delete",
        "find . -empty -delete",
        "find . -type f -delete",
        "find src -name '*' -delete",
        "find src -iname '*' -delete",
        "find src -path '*' -delete",
        "find src -name '[a-z]*' -delete",
        "find src -depth -name '*' -delete",
        "find src/. -name '*' -delete",
        "find . -name '*.pyc' -o -true -delete",
        "find . -delete -name '*.pyc'",
        "find . -path './src/*' -delete",
        "rsync -a --remove-sent-files x/ y/",
    ],
)
def test_a_find_delete_that_may_pick_everything_is_rm_rf(
    command: str, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.pyc' -delete",
        "find . -type f -name '*.orig' -delete",
        "find build -path '*/cache/x.bin' -delete",
        "find . -name __pycache__ -prune -name '*.pyc' -delete",
    ],
)
def test_a_find_delete_of_a_named_set_is_no_recursive_rm(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "deny", (command, verdict.reason)
