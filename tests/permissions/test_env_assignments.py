"""`env NAME=VALUE cmd` sets the variables a leading `NAME=VALUE cmd` does, and bash reads an
argument shaped as an assignment as it reads one (a tilde after the `=` or an unquoted `:`
expanded, outside POSIX mode): the variables `env` sets are judged exactly as a leading
assignment's, `$PWD` starting a module path's entry included, whatever options and other
variables come with them. A name quoted before the `=` (`"PYTHONPATH"=$HOME`) makes no
assignment word, and what follows it stays unknown."""

from __future__ import annotations

import pytest

from tether.permissions import decide
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import DYN, HOME

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(pytest *)", "Bash(python3 *)", "Bash(cat *)"],
        "deny": ["Bash(curl *)", "Read(./.env)"],
    }
}


@pytest.fixture
def sources(tree: Tree) -> Tree:
    tree.write({"src/mod.py": "print(1)\n", "lib/x.py": "print(1)\n"})
    return tree


@pytest.mark.parametrize(
    ("leading", "through_env"),
    [
        # Denied before: `$PWD` in an argument was an unknown variable.
        ("PYTHONPATH=$PWD/src pytest", "env PYTHONPATH=$PWD/src pytest"),
        ("PYTHONPATH=$PWD/src:$PWD/lib pytest", "env A=B C=D PYTHONPATH=$PWD/src:$PWD/lib pytest"),
        ("PYTHONPATH=$(pwd)/src python3 -m mod", "env -u X PYTHONPATH=$(pwd)/src python3 -m mod"),
        # Allowed before: `~` after a `:` was a directory named `~`.
        ("PYTHONPATH=src:~ pytest", "env PYTHONPATH=src:~ pytest"),
        ("PYTHONPATH=src:~/docs pytest", "env A=1 PYTHONPATH=src:~/docs pytest"),
        ("PYTHONPATH=~root:src pytest", "env PYTHONPATH=~root:src pytest"),
        ("PYTHONPATH=$PWD/src:~ pytest", "env PYTHONPATH=$PWD/src:~ pytest"),
        ("cd .. && PYTHONPATH=$PWD/src pytest", "cd .. && env PYTHONPATH=$PWD/src pytest"),
        ("PYTHONPATH=src pytest", "env PYTHONPATH=src pytest"),
        ("PYTHONPATH={outside} pytest", "env PYTHONPATH={outside} pytest"),
    ],
)
def test_env_sets_variables_as_a_leading_assignment_does(
    leading: str, through_env: str, sources: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES)
    plain = decide("Bash", {"command": sources.fill(leading)}, ctx)
    verdict = decide("Bash", {"command": sources.fill(through_env)}, ctx)
    assert verdict.behavior == plain.behavior, (through_env, verdict.reason, plain.reason)


def test_env_clearing_the_environment_still_judges_what_it_sets(
    sources: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": "env -i PYTHONPATH=src:~ pytest"}, make_ctx(RULES))
    assert verdict.behavior == "deny"
    assert "PYTHONPATH" in (verdict.reason or "") or "-i" in (verdict.reason or "")


@pytest.mark.parametrize(
    ("command", "word"),
    [
        ("env X=a:~/b cmd", f"X=a:{HOME}/b"),
        ("echo X=~", f"X={HOME}"),
        ("echo --x=~", "--x=~"),
        ("echo X='a:~'", "X=a:~"),
        ("echo a:~", "a:~"),
    ],
)
def test_an_argument_shaped_as_an_assignment_is_read_as_bash_reads_it(
    command: str, word: str
) -> None:
    assert parse_command(command).invocations[0].argv[1] == word


def test_a_quoted_name_before_an_expansion_leaves_the_value_unknown(
    sources: Tree, make_ctx: ContextFactory
) -> None:
    # Allowed before: the parser ends the word at `$`, and `$HOME` was read as text.
    argv = parse_command('cat "a"=$HOME/.ssh/id_rsa').invocations[0].argv
    assert DYN in argv[1]
    verdict = decide("Bash", {"command": 'env "PYTHONPATH"=$HOME/x pytest'}, make_ctx(RULES))
    assert verdict.behavior == "deny", verdict.reason
