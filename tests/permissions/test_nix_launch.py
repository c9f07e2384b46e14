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
        # A variant of the package runs the same program (its `pname`), whichever output.
        "nix run nixpkgs#wgetFull -- x",
        "nix run nixpkgs#wgetMinimal",
        "nix run nixpkgs#wget.bin -- x",
        "nix run 'nixpkgs#wget_1_21.out' -- x",
        "nix run nixpkgs#wget-wrapped",
        "nix run nixpkgs#nc-openbsd -- -l 9",
        "nix run github:NixOS/nixpkgs/nixos-24.05#legacyPackages.x86_64-linux.wgetWithSsl",
        "nix run -f '<nixpkgs>' wget2 -- x",
        "nix run nixpkgs#ncMinimal^bin",
        # What runs is not known: deny rules hold against whatever it may be.
        "nix run nixpkgs#$PKG",
        'nix run "$FLAKE"',
    ],
)
def test_the_program_an_installable_names_is_judged(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix run nixpkgs#cowsay -- hi",
        "nix run nixpkgs#python3Packages.httpie -- GET x",
        "nix run nixpkgs#cowsay hello there",
        "nix build .#wget",
        "nix build .#curlFull",
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


@pytest.mark.parametrize(
    "command",
    [
        "nix run",
        "nix run .",
        "nix run .#",
        "nix run github:o/tool -- x",
        "nix run github:o/tool https://example.com",
        "nix run --refresh 'git+https://example.com/r.git'",
        "nix run -f ./default.nix",
        "nix run --expr '(import <nixpkgs> {}).hello'",
    ],
)
def test_a_program_tether_cannot_name_is_asked(command: str, make_ctx: ContextFactory) -> None:
    """A flake's default program, or a file's or an expression's with no attribute, may be any
    program: where a deny or ask rule exists, asked (a rule allowing nix does not say which
    program it runs); with none, nothing is learnt by asking."""
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "tether cannot name" in verdict.reason or "tether does not read" in verdict.reason
    assert "Bash(wget *)" in verdict.reason
    quiet = decide(
        "Bash", {"command": command}, make_ctx({"permissions": {"allow": ["Bash(nix *)"]}})
    )
    assert quiet.behavior == "allow", (command, quiet.reason)


@pytest.mark.parametrize(
    ("command", "wanted"),
    [
        ("nix run nixpkgs#gitFull -- push origin", "ask"),
        ("nix run nixpkgs#gitMinimal.out -- -C . push", "ask"),
        ("nix run 'nixpkgs#git^bin' -- push", "ask"),
        ("nix run nixpkgs#gitFull -- status", "allow"),
        ("nix run nixpkgs#gitui", "allow"),
    ],
)
def test_ask_rules_hold_for_a_variant(command: str, wanted: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(nix *)"], "ask": ["Bash(git push *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == wanted, (command, verdict.reason)


def test_an_allow_rule_naming_what_runs_is_consent_to_it(make_ctx: ContextFactory) -> None:
    """A rule that names the flake (or script) as a word of its own allows running it; a
    word that only contains it (`.` in `x.py`, `build.sh` in `build.sh.orig`) does not."""
    named = {"permissions": {"allow": ["Bash(nix run .)"], "deny": ["Bash(wget *)"]}}
    assert decide("Bash", {"command": "nix run ."}, make_ctx(named)).behavior == "allow"
    rules = {
        "permissions": {
            "allow": ["Bash(nix *)", "Bash(sh *)", "Bash(python3 x.py)", "Bash(sh build.sh.orig)"],
            "deny": ["Bash(wget *)"],
        }
    }
    for command in ("nix run .", "sh build.sh"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules))
        assert verdict.behavior == "ask", (command, verdict.reason)


PACKAGES = {
    "permissions": {
        "allow": ["Bash(nix *)", "Bash(nix-shell *)"],
        "deny": ["Bash(nc *)", "Bash(rm -rf *)", "Bash(telnet *)", "Bash(ssh *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        # A package whose program is not its name (nix_programs.py).
        "nix run nixpkgs#netcat",
        "nix run nixpkgs#netcat-gnu -- -l 9",
        "nix run 'nixpkgs#netcat-openbsd^bin' -- -z h 1",
        "nix run github:NixOS/nixpkgs#legacyPackages.x86_64-linux.libressl.nc -- -l 9",
        "nix run nixpkgs#inetutils",
        "nix run nixpkgs#openssh -- host",
        "nix run -f '<nixpkgs>' findutils -- src -delete",
        # A multi-call package: its first argument is the program.
        "nix run nixpkgs#busybox -- nc -l 9",
        # The command nix shell, nix develop and nix-shell run, judged as typed.
        "nix shell nixpkgs#findutils -c find src -delete",
        "nix shell nixpkgs#netcat --command nc -l 9",
        "nix develop .#ci -c rm -rf build",
        "nix-shell -p inetutils --run 'telnet host'",
        "nix-shell -p netcat --command 'true && nc -l 9'",
    ],
)
def test_what_a_package_runs_meets_deny_rules(command: str, make_ctx: ContextFactory) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(PACKAGES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix run nixpkgs#toybox",
        "nix run nixpkgs#coreutils",
        "nix run nixpkgs#util-linux",
        "nix run nixpkgs#python3Packages.somepackage",
        "nix run nixpkgs#some-tool -- x",
    ],
)
def test_a_package_whose_programs_are_unknown_is_asked(
    command: str, make_ctx: ContextFactory
) -> None:
    """Its name says nothing certain of what it runs: asked where a Bash deny rule exists,
    denied in bypassPermissions mode (deny rules hold against what is not known there)."""
    verdict = decide("Bash", {"command": command}, make_ctx(PACKAGES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "whose programs tether cannot name" in verdict.reason
    bypass = decide("Bash", {"command": command}, make_ctx(PACKAGES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)
    quiet = decide(
        "Bash", {"command": command}, make_ctx({"permissions": {"allow": ["Bash(nix *)"]}})
    )
    assert quiet.behavior == "allow", (command, quiet.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix run nixpkgs#ripgrep -- -n TODO src",
        "nix run nixpkgs#jq -- . x.json",
        "nix run nixpkgs#gnugrep -- -n x README.md",
    ],
)
def test_known_packages_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(PACKAGES))
    assert verdict.behavior == "allow", (command, verdict.reason)
