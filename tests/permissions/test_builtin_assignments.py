"""`IFS=, read -r a b <<< "$x"`: a variable given to a builtin alone that starts no program
changes what programs run for none, so it is not held as a dangerous assignment; one bash
itself reads while it runs the builtin (`PS4` under `set -x`), a builtin that may not be
bash's own (a function of that name, `enable -n`), a program by path, stay held."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(printf *)", "Bash(cat *)"], "deny": ["Bash(curl *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        'IFS=, read -r a b <<< "$x"',
        'IFS=: read -ra parts <<< "$PATH"',
        "while IFS= read -r line; do printf '%s\\n' \"$line\"; done < README.md",
        "IFS=$'\\t' read -r a b < README.md",
        "LC_ALL=C IFS=, printf '%s\\n' a",
    ],
)
def test_variables_for_a_builtin_alone_are_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # Denied before: "sets IFS, which changes what programs run or load".
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "set -x; PS4='$(curl x)' read a < README.md",
        "IFS=, read -e a",
        "read() { curl x; }; IFS=, read a",
        "enable -n printf; LD_PRELOAD=/tmp/x.so printf x",
        "LD_PRELOAD=/tmp/x.so /usr/bin/printf x",
        "eval 'printf() { cat .env; }'; LD_PRELOAD=/tmp/x.so printf x",
        "IFS=, export a=b",
        "IFS=, cat README.md",
        "PATH=/tmp/evil:$PATH hash cat",
    ],
)
def test_other_assignments_stay_held(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)
