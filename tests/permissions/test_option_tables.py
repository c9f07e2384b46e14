"""The option tables read as getopt reads them: a flag never takes the next word as its value,
even when a longer valued option begins with its name (`jq --slurp` is no `--slurpfile`); a
valued option always does; an abbreviation is the one option it abbreviates."""

from __future__ import annotations

import pytest

from tether.permissions import PermissionContext, decide, load_rules
from tether.permissions.arguments import split_arguments
from tether.permissions.commands import COMMANDS

from .conftest import Tree

_SPECS = sorted(COMMANDS.items())


def _flags(name: str) -> list[str]:
    spec = COMMANDS[name]
    return sorted(spec.long_flags | {f"-{c}" for c in spec.flags})


@pytest.mark.parametrize(("name", "spec"), _SPECS, ids=[n for n, _ in _SPECS])
def test_no_flag_takes_a_value_and_every_valued_option_does(name: str, spec: object) -> None:
    spec = COMMANDS[name]
    for flag in _flags(name):
        parsed = split_arguments([flag, "FILE"], spec)
        assert parsed.positionals[-1:] == ["FILE"], (name, flag)
    assert not set(_flags(name)) & spec.valued_options, name
    for option in spec.valued:
        parsed = split_arguments([option, "VALUE", "FILE"], spec)
        assert parsed.positionals == ["FILE"], (name, option)
        assert parsed.values({option}) == ["VALUE"], (name, option)


def test_an_exact_flag_is_not_the_valued_option_it_begins() -> None:
    jq = COMMANDS["jq"]
    assert "--slurp" in jq.long_flags
    assert "--slurpfile" in jq.read_pairs
    parsed = split_arguments(["--slurp", ".", "x.json"], jq)
    assert parsed.positionals == [".", "x.json"]
    assert not parsed.has({"--slurpfile"})
    abbreviated = split_arguments(["--slurpf", "name", "x.json", "."], jq)
    assert abbreviated.values({"--slurpfile"}) == ["x.json"]


POLICY = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ("jq", "grep", "sort", "sed", "cat", "head", "wc")],
        "deny": ["Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "jq --slurp . .env",
        "jq -R --slurp . sub/.env",
        "jq --raw-input --slurp . .env",
        "jq --slurp --raw-output . .env",
        "jq --stream . .env",
        "jq --seq . .env",
        "jq --slurpfile x .env . README.md",
        "jq --rawfile x .env . README.md",
        "grep --count x .env",
        "grep --null x .env",
        "sort --unique .env",
        "sort --check .env",
        "sed --quiet p .env",
        "head --quiet .env",
        "wc --lines .env",
    ],
)
def test_a_denied_file_after_a_flag_is_read(tree: Tree, command: str) -> None:
    (tree.ws / "sub").mkdir(exist_ok=True)
    (tree.ws / "sub" / ".env").write_text("X=1\n")
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    ctx = PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )
    assert decide("Bash", {"command": command}, ctx).behavior == "deny", command
    for mode in ("bypassPermissions", "acceptEdits"):
        other = PermissionContext(
            mode=mode, rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
        )
        assert decide("Bash", {"command": command}, other).behavior == "deny", command
