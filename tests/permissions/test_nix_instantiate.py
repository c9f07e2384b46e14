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
