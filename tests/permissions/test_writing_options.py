"""Options that write or delete files are judged as writes of those paths: Vim's verbose
file (`-V[N]FILE`, the level's digits taken off as Vim takes them), `--log` and
`--startuptime`; tar's `--index-file` and `--remove-files` (the files it archives are
deleted), zip's `-m`; pytest's `--basetemp` (emptied), however abbreviated. Deny rules, the
workspace's bounds and the files that change later sessions hold against each."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(vim:*)", "Bash(tar:*)", "Bash(zip:*)", "Bash(pytest:*)", "Bash(python3:*)"],
        "deny": ["Edit(.github/**)", "Edit(config/**)"],
    }
}

WRITES = [
    ("vim -V12.github/workflows/ci.yml -c q README.md", "deny"),
    ("vim -V.github/workflows/ci.yml -c q README.md", "deny"),
    ("vim -V3{outside}/verbose.log -c q README.md", "ask"),
    ("vim --startuptime config/app.toml README.md", "deny"),
    ("vim --startuptime {home}/.bashrc README.md", "ask"),
    ("vim --log .github/workflows/ci.yml README.md", "deny"),
    ("vim --log .claude/settings.json README.md", "ask"),
    ("tar -cf out.tar --index-file=config/app.toml README.md", "deny"),
    ("tar -cf out.tar --index-f .github/workflows/ci.yml README.md", "deny"),
    ("tar --remove-files -cf out.tar config", "deny"),
    ("tar -c --remove-f -f out.tar .github", "deny"),
    ("zip -m out.zip config/app.toml", "deny"),
    ("pytest --basetemp=config", "deny"),
    ("pytest -q --basetem config", "deny"),
    ("python3 -m pytest --basete=.github", "deny"),
    ("pytest --basetemp {home}/docs", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), WRITES)
def test_written_paths_are_judged(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == expected, decision


PLAIN = [
    "vim -V README.md -c q",
    "vim -V9 README.md -c q",
    "vim --startuptime build/vim-startup.log README.md -c q",
    "tar -cf out.tar README.md src/app.py",
    "tar --remove-files -cf out.tar build",
    "pytest --basetemp=build/pytest",
]


@pytest.mark.parametrize("command", PLAIN)
def test_writes_inside_the_workspace_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"
