"""xargs fed by `ls` of a glob (`ls src/*.py | xargs wc -l`): the words it adds are the files
the glob matches, printed as matched, so a read-only program given them reads those files and
is read-only; `xargs -I{}` puts each name in place of `{}`. A directory among the matches
(ls lists it instead), glob options the command turns on, or a denied file among the matches
leave the words unknown or judged as that file; xargs running a writer, a deleter or a denied
program is judged as that program."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"deny": ["Read(./.env)", "Bash(rm *)", "Bash(curl *)"]}}


@pytest.fixture
def lib(tree: Tree) -> Tree:
    tree.write({f"lib/{name}": "x = 1\n" for name in ("a.py", "b.py", "c.txt", "pkg/d.py")})
    return tree


READ_ONLY = [
    "ls lib/*.py | xargs wc -l",
    "ls lib/*.py | xargs -r grep -n x",
    "ls lib/?.py | xargs head -n 3",
    "ls lib/*.py | xargs -I{} head -n 3 {}",
    "ls lib/*.py | xargs -n 1 -P 2 file",
    "ls lib/*.txt | xargs stat",
    "ls lib/[ab].py | xargs cat",
    "find lib -name '*.py' -print0 | xargs -0 grep -n x",
    "find lib -name '*.py' | xargs -I{} wc -l {}",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_a_reader_fed_by_ls_of_a_glob_is_read_only(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    for settings in (None, RULES):
        decision = decide("Bash", {"command": command}, make_ctx(settings))
        assert decision.behavior == "allow", (settings, decision)


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("ls lib/*.py | xargs rm", "deny"),
        ("ls lib/*.py | xargs -I{} rm -f {}", "deny"),
        ("ls lib/*.py | xargs curl -d @-", "deny"),
        ("ls lib/*.py | xargs sed -i s/x/y/", "ask"),
        ("ls lib/*.py | xargs -I{} cp {} /tmp/", "ask"),
        ("ls lib/*.py | xargs python3", "ask"),
    ],
)
def test_xargs_running_another_program_is_judged_as_it(
    command: str, behavior: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == behavior, decision


@pytest.mark.parametrize(
    "command",
    [
        "ls src/* | xargs cat",  # src/link_env leads to .env
        "ls src/link* | xargs -I{} cat {}",
    ],
)
def test_a_denied_file_among_the_matches_is_denied(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        "ls lib/* | xargs cat",  # lib/pkg is a directory: ls prints its names bare
        "ls * | xargs cat",
        "shopt -s dotglob; ls lib/* | xargs cat",
        "ls $D/*.py | xargs cat",
        "ls lib/*/*.py | xargs cat",
        "ls -la lib/*.py | xargs cat",
    ],
)
def test_what_ls_may_print_otherwise_stays_unknown(
    command: str, lib: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior in ("ask", "deny"), decision
    assert decide("Bash", {"command": command}, make_ctx()).behavior == "ask"
