"""A Read deny rule holds through hg as through git (hg_history): commands printing what hg's
history holds (patches, archives, bundles, `cat`/`annotate` of patterns or directories) are
asked wherever a Read deny rule exists, since tether cannot look into hg's store; `hg cp`/`mv`
of a denied file read it (the copy is readable). Plain paths and commands printing names
stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Read(./.env)", "Bash(curl *)"]}}
HISTORY = Decision(
    "ask",
    "Read(./.env)",
    "prints what hg's history holds, which may hold a file Read(./.env) covers",
)


@pytest.mark.parametrize(
    "command",
    [
        "hg cat 'path:.env'",
        "hg cat 'relpath:.env'",
        "hg cat 'glob:.e*'",
        "hg cat 're:^\\.env$'",
        "hg cat 'set:**.env'",
        "hg cat 'rootfilesin:.'",
        "hg cat listfile:names.txt",
        "hg cat .",
        "hg cat -r 0 .",
        "hg cat -X README.md .",
        "hg annotate -r 0 .",
        "hg blame 'glob:*'",
        "hg log -p .env",
        "hg log -p",
        "hg log --patch -r 0",
        "hg log --pat",
        "hg log --patc -r 0",
        "hg log --pa .env",
        "hg tip --pat",
        "hg shelve --patc",
        "hg log -vp",
        "hg log -T '{diff()}'",
        "hg history --template '{diff}'",
        "hg export 0",
        "hg export -o - 0",
        "hg exp 0",
        "hg diff -c 0",
        "hg diff",
        "hg grep --all KEY",
        "hg archive -t tar -",
        "hg archive -t files -I .env arc",
        "hg bundle --all b.hg",
        "hg email --test -r 0",
        "hg email -r . -t a@b",
        "hg email --bundlename b.hg -b -t a@b",
        "hg shelve --patch",
        "hg qdiff",
        "hg debugdata -c 0",
        "hg -R . log -p",
        "hg diff -r 0 src",
        "hg grep -r tip KEY src",
        "hg export -o p.patch tip",
    ],
)
def test_commands_printing_history_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == HISTORY


@pytest.mark.parametrize(
    "command",
    ["hg cp .env notes.txt", "hg copy .env a b/", "hg mv .env x", "hg rename ./.env x"],
)
def test_a_copy_of_a_denied_file_reads_it(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("deny", "Read(./.env)", f"reading {tree.ws}/.env is denied by Read(./.env)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "hg log",
        "hg log -r tip",
        "hg log -rtip -v",
        "hg log -T '{node}'",
        "hg status",
        "hg cat README.md",
        "hg annotate src/app.py",
        "hg cp README.md notes.txt",
    ],
)
def test_plain_paths_and_names_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


def test_history_is_no_question_without_a_read_deny_rule(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Bash(curl *)"]}}
    expected = Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)")
    assert decide("Bash", {"command": "hg log -p"}, make_ctx(rules)) == expected
