"""An `@FILE` argument of a program that reads response files (pytest since 8.2, mypy, tsc,
gcc, clang and LLVM's tools, javac...: response_files' one table) is a read of FILE, and the
arguments inside are not seen, so no allow rule that judged only the visible words covers
the command: it asks, and is denied where the file itself is denied or a deny rule could
meet what is not seen. `@` elsewhere, or before a program that takes it as text, is no
response file."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOWS = [
    "Bash(python3 -m pytest *)",
    "Bash(python3 -X dev -m pytest *)",
    "Bash(python3 -mpytest *)",
    "Bash(python3 -Bm pytest *)",
    "Bash(python3 -W error -m pytest *)",
    "Bash(pytest *)",
    "Bash(mypy *)",
    "Bash(python -m mypy *)",
    "Bash(npx tsc *)",
    "Bash(tsc *)",
    "Bash(clang-tidy *)",
    "Bash(clang-format *)",
    "Bash(gcc *)",
    "Bash(javac *)",
    "Bash(dmypy *)",
]
RULES = {"permissions": {"allow": ALLOWS}}

ASKED = [
    ("python3 -m pytest @args.txt", "pytest", "@args.txt"),
    ("python3 -m pytest -q @args.txt", "pytest", "@args.txt"),
    ("python3 -X dev -m pytest tests @args.txt", "pytest", "@args.txt"),
    ("python3 -mpytest @args.txt", "pytest", "@args.txt"),
    ("python3 -Bm pytest @args.txt", "pytest", "@args.txt"),
    ("python3 -W error -m pytest @args.txt", "pytest", "@args.txt"),
    ("pytest @args.txt", "pytest", "@args.txt"),
    ("pytest -- @args.txt", "pytest", "@args.txt"),
    ("mypy @args.txt", "mypy", "@args.txt"),
    ("python -m mypy src @args.txt", "mypy", "@args.txt"),
    ("dmypy run -- @args.txt", "dmypy", "@args.txt"),
    ("npx tsc @args.txt", "tsc", "@args.txt"),
    ("tsc -p . @args.txt", "tsc", "@args.txt"),
    ("clang-tidy @args.txt", "clang-tidy", "@args.txt"),
    ("clang-format -i @args.txt", "clang-format", "@args.txt"),
    ("gcc -c x.c @args.txt", "gcc", "@args.txt"),
    ("javac @args.txt", "javac", "@args.txt"),
]


@pytest.mark.parametrize(("command", "program", "word"), ASKED)
def test_a_response_file_asks_under_an_allow_rule(
    command: str, program: str, word: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"args.txt": "-q\n"})
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"{program} reads more arguments from {word}"
    assert decision == Decision("ask", None, reason)


DENIED = [
    "python3 -m pytest @.env",
    "pytest -q @.env",
    "mypy @.env",
    "npx tsc @.env",
    "tsc @{home}/.ssh/id_rsa",
    "clang-tidy @.env",
    "python3 -m pytest @args.txt",
]


@pytest.mark.parametrize("command", DENIED)
def test_a_deny_rule_denies_it(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"args.txt": "-q\n"})
    rules = {"permissions": {"allow": ALLOWS, "deny": ["Read(./.env)", "Read(~/.ssh/**)"]}}
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(rules))
    assert decision.behavior == "deny", decision


NOT_RESPONSE_FILES = [
    "python3 -m pytest tests/test_x.py",
    "python3 -m pytest -k 'a@b'",
    "python3 -c 'print(1)' @x",
    "mypy src",
    "npx tsc -p .",
]


@pytest.mark.parametrize("command", NOT_RESPONSE_FILES)
def test_no_response_file_stays_as_before(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": [*ALLOWS, "Bash(python3 -c *)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "allow", decision
