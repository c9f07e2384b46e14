"""git's configuration and helpers from the environment (`GIT_CONFIG_PARAMETERS`,
`GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`, `GIT_CONFIG_GLOBAL`/`_SYSTEM`, `GIT_EXEC_PATH`, the
pager, editor, ssh and askpass commands), however the variable is given (an assignment before
git, `env`, `export`/`declare -x`/`typeset -x` or `read` earlier in the command, a subshell,
a wrapper): each may run any program, so where a deny rule exists git is denied in every
mode, and asked otherwise."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, assert_denied_in_every_mode

RULES = {"permissions": {"allow": ["Bash(git *)", "Bash(env *)"], "deny": ["Bash(nc *)"]}}

COMMANDS = [
    "GIT_CONFIG_PARAMETERS=\"'core.pager=nc -l 1'\" git log",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='nc -l 1' git log",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./m git status",
    "export GIT_CONFIG_COUNT=1; export GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./m; "
    "git status",
    "typeset -x GIT_CONFIG_PARAMETERS=\"'core.pager=nc'\"; git log",
    "GIT_CONFIG_GLOBAL=./x.cfg git status",
    "GIT_CONFIG_SYSTEM=/tmp/x.cfg git status",
    "GIT_EXEC_PATH=/tmp/x git status",
    "declare -x GIT_PAGER='nc -l 1'; git log",
    "(export GIT_SSH_COMMAND='nc x'; git fetch)",
    "GIT_EDITOR=nc git commit",
    "GIT_SEQUENCE_EDITOR='nc x' git rebase -i HEAD~1",
    "GIT_ASKPASS=./p git fetch",
    "export GIT_EXTERNAL_DIFF=./d; git diff",
    "timeout 5 env GIT_PAGER=nc git log",
    "read -r GIT_PAGER <<< nc; export GIT_PAGER; git log",
    "env -S 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=nc git log'",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_git_configured_from_the_environment_is_denied(
    command: str, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize("command", COMMANDS[:3])
def test_without_a_deny_rule_it_is_asked(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(git *)", "Bash(env *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "ask", verdict.reason
