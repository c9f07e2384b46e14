"""Reads that reach a file a Read rule denies through an allowed program's options: Python's
archivers (`-m tarfile -c`, `-m zipfile -c` read their sources whole), pytest's
`--doctest-glob` (the matching files below what it collects), Vim's `-q` error file; and
JavaScript tools given a configuration or code from outside the workspace (`npx jest
--config`, `eslint -c`, `mocha -r`), which is code no rule has seen."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(python3:*)", "Bash(pytest:*)", "Bash(vim:*)", "Bash(npx:*)", "Bash(jest:*)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Read(secrets/**)", "Read(**/.env)"]}}

REACHING = [
    ("python3 -m tarfile -c {outside}/all.tar secrets", "deny"),
    ("python3 -m zipfile -c {outside}/all.zip .", "ask"),
    ("python3 -m tarfile --create {outside}/s.tar secrets/api.key", "deny"),
    ("python3 -m zipfile -c {outside}/s.zip src/link_env", "deny"),
    ("pytest --doctest-glob='*.key' secrets", "deny"),
    ("pytest --doctest-glob='*.key' .", "ask"),
    ("pytest --doctest-glob='.e*'", "ask"),
    ("vim -q secrets/key.pem -c cfirst", "deny"),
    ("vim -q.env", "deny"),
    ("npx jest --config {outside}/jest.config.js", "ask"),
    ("npx --yes jest --rootDir={outside}", "ask"),
    ("jest -c ../outside/jest.config.js", "ask"),
    ("npx eslint -c {outside}/eslint.js src", "ask"),
    ("npx mocha --require {outside}/hook.js", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), REACHING)
def test_reads_and_code_through_options(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == expected, decision


PLAIN = [
    "python3 -m zipfile -c build/src.zip src/app.py",
    "python3 -m tarfile -l build/src.tar",
    "pytest --doctest-glob='*.md' src",
    "vim -q build/errors.log",
    "npx jest --config jest.config.js",
    "npx mocha -r ts-node/register",
    "npx eslint src",
]


@pytest.mark.parametrize("command", PLAIN)
def test_what_stays_in_the_workspace_is_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"
