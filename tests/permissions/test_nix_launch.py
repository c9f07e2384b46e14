"""`nix run INSTALLABLE [-- ARGS]` runs the program its installable names: judged as that
program with its arguments, so deny rules on it hold whichever rule allows nix, and what no
rule decides is allowed as nix is (a launcher)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"allow": ["Bash(nix *)"], "deny": ["Bash(wget *)", "Bash(nc *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "nix run nixpkgs#wget -- -q -O- x",
        "nix run 'github:NixOS/nixpkgs/nixos-24.05#wget'",
        "nix run --refresh --option substitute false nixpkgs#netcat.nc -- -l 9",
        "nix --experimental-features 'nix-command flakes' run nixpkgs#wget",
        "nix run -f '<nixpkgs>' wget -- x",
        "nix run nixpkgs#legacyPackages.aarch64-linux.wget^out",
        "nix run --inputs-from . nixpkgs#wget",
        "nix run -L .#nc -- -z h 1",
    ],
)
def test_the_program_an_installable_names_is_judged(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix run nixpkgs#cowsay -- hi",
        "nix run .#",
        "nix run",
        "nix build .#wget",
        "nix flake show github:o/r",
    ],
)
def test_other_programs_and_commands_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix profile install nixpkgs#ripgrep",
        "nix --quiet profile upgrade --all",
        "nix-env -iA nixpkgs.ripgrep",
        "nix-env --uninstall ripgrep",
    ],
)
def test_changing_the_user_profile_is_asked(command: str, make_ctx: ContextFactory) -> None:
    """The programs on the user's PATH for every later shell change: a write of
    `~/.nix-profile`, outside the workspace, asked whichever rule allows nix."""
    rules = {"permissions": {"allow": ["Bash(nix *)", "Bash(nix-env *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert ".nix-profile" in verdict.reason


@pytest.mark.parametrize("command", ["nix profile list", "nix-env -q", "nix-env --query -a"])
def test_listing_the_profile_stays_allowed(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(nix *)", "Bash(nix-env *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "allow", (command, verdict.reason)
