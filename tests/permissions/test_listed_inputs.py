"""A writer fed by a search that only lists files (`grep -l ... | xargs sed -i`): the words
xargs adds are the files below the searched path, so the command is a write of those files,
asked like any write (allowed in acceptEdits), denied where one of them is a file a deny rule
covers; not "an option that may run a program", which a deny rule anywhere turned into a
denial. A name xargs could take for an option, or a producer option that prints other text,
keeps the words unknown."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"deny": ["Read(**/.env)", "Bash(curl *)"]}}


@pytest.fixture
def lib(tree: Tree) -> Tree:
    tree.write({f"lib/{name}": "foo = 1\n" for name in ("a.py", "b.py", "sub/c.py", "notes.txt")})
    return tree


WRITES = [
    "grep -l foo lib/*.py | xargs sed -i s/foo/bar/",
    "grep -rl foo lib | xargs sed -i 's/foo/bar/g'",
    "grep -Rl --include='*.py' foo lib | xargs -r sed -i -e s/foo/bar/",
    "grep -rL nothing lib | xargs perl -pi -e s/a/b/",
    "egrep -lr -e 'fo+' lib/ | xargs sed -i.bak s/foo/bar/",
    "grep --files-with-matches --recursive foo -- lib | xargs sed -i s/x/y/",
    "rg -l foo lib | xargs sed -i s/foo/bar/",
    "rg --files lib | xargs sed -i s/foo/bar/",
    "grep -rlZ foo lib | xargs -0 sed -i s/foo/bar/",
    "rg -l0 foo lib | xargs -0 sed -i s/foo/bar/",
    "grep -l foo lib/a.py | xargs sed -i s/foo/bar/",
    "grep -rl foo lib | xargs -I{} sed -i s/a/b/ {}",  # one name a line, each one argument
]


@pytest.mark.parametrize("command", WRITES)
def test_a_writer_fed_by_a_listing_search_is_asked(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "ask", decision
    assert "option" not in decision.reason, decision


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
def test_it_is_judged_as_the_same_write_of_the_files(
    mode: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES, mode=mode)
    fed = decide("Bash", {"command": "grep -rl foo lib | xargs sed -i s/foo/bar/"}, ctx)
    plain = decide("Bash", {"command": "sed -i s/foo/bar/ lib/a.py lib/sub/c.py"}, ctx)
    assert fed.behavior == plain.behavior, (fed, plain)


@pytest.mark.parametrize(
    "command",
    [
        "grep -rl KEY . | xargs sed -i s/a/b/",  # .env is among the files below
        "grep -l KEY .env | xargs sed -i s/a/b/",
        "rg --files --hidden | xargs sed -i s/a/b/",
    ],
)
def test_a_denied_file_among_them_is_denied(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        "grep -c foo lib/a.py | xargs sed -i s/a/b/",  # counts, not names
        "grep -o foo -r lib | xargs sed -i s/a/b/",  # matched text
        "grep -l foo lib docs | xargs sed -i s/a/b/",  # two paths: not modelled
        "grep -l foo | xargs sed -i s/a/b/",  # reads its input: prints "(standard input)"
        "grep -rl $P lib | xargs sed -i s/a/b/",
    ],
)
def test_other_producers_leave_the_words_unknown(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


def test_a_name_that_is_an_option_keeps_them_unknown(lib: Tree, make_ctx: ContextFactory) -> None:
    """`grep -rl` with no path prints names bare: a file named like a sed option (which can
    run a program) would be read as one."""
    (lib.ws / "lib" / "--expression=e").write_text("foo\n")
    ctx = make_ctx(RULES, cwd=lib.ws / "lib")
    decision = decide("Bash", {"command": "grep -rl foo | xargs sed -i s/a/b/"}, ctx)
    assert decision.behavior == "deny", decision
