"""Code handed to an interpreter's or make's code option by a substitution or a variable is
code the engine cannot read: denied where a deny rule exists, asked otherwise, whichever
language takes it (Python as much as node or awk) and however the shell builds it. The same
commands with their code written out stay judged by what the code does."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOW = ["Bash(python3:*)", "Bash(node:*)", "Bash(ruby:*)", "Bash(make:*)", "Bash(cat:*)"]
ALLOW += ["Bash(head:*)", "Bash(printf:*)", "Bash(base64:*)", "Bash(timeout:*)"]
DENIED = {"permissions": {"allow": ALLOW, "deny": ["Bash(wget:*)"]}}
ALLOWED_ONLY = {"permissions": {"allow": ALLOW}}

BUILT = [
    'python3 -c "$(head -n 40 tools/gen.py)"',
    'python3 -OOc "$(base64 -d blob.txt)"',
    'python3 -c "$(printf \'%s\' "$PAYLOAD")"',
    'python3 -c "print(1); $(cat tail.py)"',
    'body=$(cat tools/gen.py) && timeout 9 python3 -c "$body"',
    'python3 -c "${CODE:-pass}"',
    'python3 -c "$1"',
    'while read -r line; do python3 -c "$line"; done < cmds.txt',
    'python3 -m "$(cat modname)"',
    "python3 -m $MOD -v",
    'ruby -e "$(cat tools/x.rb)"',
    'node --eval "$JS"',
    'make --eval "$(cat extra.mk)" all',
    'make --ev="$RULES" all',
    'make -sE "$RULES" all',
    'make -kE"$RULES"',
    'make all "$EXTRA"',
    "make $GOALS",
    'make -s"$FLAGS" all',
    'make "$NAME"=x all',
]


@pytest.mark.parametrize("command", BUILT)
def test_code_built_as_it_runs_is_not_seen(command: str, make_ctx: ContextFactory) -> None:
    denied = decide("Bash", {"command": command}, make_ctx(DENIED))
    assert denied.behavior == "deny", denied
    assert "wget" in denied.reason
    asked = decide("Bash", {"command": command}, make_ctx(ALLOWED_ONLY))
    assert asked.behavior == "ask", asked


WRITTEN_OUT = [
    "python3 -c 'print(sum(range(10)))'",
    "python3 -m json.tool package.json",
    "node -e 'console.log(1)'",
    'make -j"$(nproc)" all',
    'make all VERSION="$(git describe)"',
    "make -C src test",
]


@pytest.mark.parametrize("command", WRITTEN_OUT)
def test_code_written_out_is_judged_as_before(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": [*ALLOW, "Bash(git describe:*)", "Bash(nproc)"]}})
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"
