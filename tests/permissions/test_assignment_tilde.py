"""bash expands a tilde prefix after every unquoted `:` of an assignment's value, for any
variable (`PYTHONPATH=src:~`, `export PATH=bin:~/bin`): the value read holds the home there, so
a module path into the home is judged as `PYTHONPATH=~` is; a quoted or escaped `~` is a
name."""

from __future__ import annotations

import pytest

from tether.permissions import decide
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import HOME

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(pytest *)", "Bash(python3 *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=src:~ pytest",
        "PYTHONPATH=src:~/docs pytest",
        "PYTHONPATH=src:~root pytest",
        "PYTHONPATH=src::~ python3 -m pytest",
        "export PYTHONPATH=src:~; pytest",
        "declare -x PYTHONPATH=src:~/lib; pytest -q",
    ],
)
def test_a_home_after_a_colon_is_judged_as_a_home(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    plain = decide("Bash", {"command": "PYTHONPATH=~ pytest"}, make_ctx(RULES))
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)
    assert verdict.behavior == plain.behavior, (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "value"),
    [
        ("P=a:~ x", f"a:{HOME}"),
        ("P=a:~/b:~root x", f"a:{HOME}/b:{HOME}root"),
        ("P=a:'~':\\~:b~ x", "a:~:~:b~"),
        ("P=a=~ x", "a=~"),
        ("export P=~:a; x", f"{HOME}:a"),
    ],
)
def test_the_value_read_is_what_bash_expands(command: str, value: str) -> None:
    first = parse_command(command).invocations[0]
    assert first.assignments == (("P", value),)
