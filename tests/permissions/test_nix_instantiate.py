"""nix-instantiate evaluates a file or an expression as nix-build does (`--eval` too): code
that is not the registry's nixpkgs, asked where a Bash deny rule exists, denied in bypass."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(nix-instantiate *)"], "deny": ["Bash(curl *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "nix-instantiate default.nix",
        "nix-instantiate --eval default.nix",
        "nix-instantiate --eval --strict default.nix",
        "nix-instantiate --eval -E 'import ./default.nix'",
        "nix-instantiate",
    ],
)
def test_nix_instantiate_of_a_file_is_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"default.nix": "import /elsewhere/x.nix\n"})
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "ask", command
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


def test_nixpkgs_and_version_stay_allowed(tree: Tree, make_ctx: ContextFactory) -> None:
    for command in (
        "nix-instantiate --eval '<nixpkgs>' -A hello.name",
        "nix-instantiate --version",
    ):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES))
        assert verdict.behavior == "allow", (command, verdict.reason)


NIX_RULES = {"permissions": {"allow": ["Bash(nix *)"], "deny": ["Bash(curl *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "nix eval --expr 'import ./default.nix'",
        "nix eval --impure --expr 'import ./default.nix'",
        "nix eval .#x",
        "nix eval",
        "nix eval --raw .#packages.x86_64-linux.default.name",
        "nix eval -f default.nix x",
        "nix eval nixpkgs#hello.name --apply 'x: import ./default.nix'",
        "nix fmt",
        "nix fmt src",
    ],
)
def test_nix_eval_and_fmt_of_the_workspace_are_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # Evaluation may run programs (import from derivation); `nix fmt` runs the flake's
    # formatter. Both were allowed where nix-instantiate of the same code is asked.
    tree.write({"default.nix": "import /elsewhere/x.nix\n", "flake.nix": "{ outputs = _: {}; }\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(NIX_RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(NIX_RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


def test_nix_eval_of_nixpkgs_stays_allowed(tree: Tree, make_ctx: ContextFactory) -> None:
    for command in ("nix eval nixpkgs#hello.name", "nix eval --version", "nix fmt --help"):
        verdict = decide("Bash", {"command": command}, make_ctx(NIX_RULES))
        assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix-instantiate --eval -E '1 + 1'",
        "nix-instantiate --eval --expr '{ a = 1; }.a'",
        "nix-instantiate --parse flake.nix",
        "nix eval --expr '1 + 1'",
    ],
)
def test_plain_expressions_and_parsing_evaluate_no_code(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # A literal reaching no file, flake or program, and `--parse`, were asked as code.
    tree.write({"flake.nix": "{ outputs = _: {}; }\n"})
    rules = {"permissions": {"allow": ["Bash(nix *)", "Bash(nix-instantiate *)"]}}
    verdict = decide(
        "Bash",
        {"command": command},
        make_ctx(rules | {"permissions": {**rules["permissions"], "deny": ["Bash(curl *)"]}}),
    )
    assert verdict.behavior == "allow", (command, verdict.reason)
