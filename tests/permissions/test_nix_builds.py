"""nix commands that evaluate or build, or take store paths in, judged by where their code
comes from: nixpkgs and the workspace's own flake are known; another flake or a path, a file,
an impure expression (it may import any path), store paths not signed (`nix copy --from`,
`--no-check-sigs`, `nix-store --import`/`--restore`) are code tether does not read: asked
where a Bash deny rule exists, denied in bypassPermissions mode. A `file:` URL nix fetches into
the world-readable store is a read of that file."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(nix *)", "Bash(nix-store *)", "Bash(nix-prefetch-url *)"],
        "deny": ["Bash(curl *)", "Read(./.env)"],
    }
}

ELSEWHERE = [
    "nix build --impure --expr 'import {outside}/x.nix'",
    "nix build --expr 'import {outside}/x.nix' --impure",
    "nix build --file {outside}/x.nix",
    "nix build -f {outside}/x.nix hello",
    "nix build {outside}#x",
    "nix build path:{outside}",
    "nix build git+file://{outside}/repo",
    "nix build ../outside#x",
    "nix build ./sub/../../outside#x",
    "nix build github:evil/x",
    "nix eval {outside}#x.name",
    "nix --quiet build {outside}#x",
    "nix path-info --derivation {outside}#x",
    "nix flake check github:evil/x",
    "nix build -I nixpkgs={outside} -f '<nixpkgs>' hello",
    "nix copy --from file://{outside}/cache --no-check-sigs /nix/store/x",
    "nix copy --from {outside}/store /nix/store/x",
    "nix-store --import < {outside}/x.nar",
    "nix-store --restore out < {outside}/x.nar",
]


@pytest.mark.parametrize("command", ELSEWHERE)
def test_code_from_elsewhere_is_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    command = tree.fill(command)
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix-prefetch-url file://{ws}/.env",
        "nix-prefetch-url file://localhost{ws}/.env",
        "nix store prefetch-file file://{ws}/.env",
    ],
)
def test_prefetching_a_denied_file_is_denied(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    command = tree.fill(command)
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["nix-prefetch-url file://$PWD/.env", "nix store prefetch-file 'file://'$PWD/.env"],
)
def test_prefetching_an_unknown_directory_is_not_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior != "allow", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix build",
        "nix build .#hello",
        "nix build -o result .#hello",
        "nix build ./sub#x",
        "nix build nixpkgs#hello",
        "nix eval --expr '1 + 1'",
        "nix flake check",
        "nix flake show",
        "nix path-info nixpkgs#hello",
        "nix copy --to file:///tmp/cache .#x",
        "nix-store -q --references /nix/store/x",
        "nix-prefetch-url https://example.com/x.tar.gz",
    ],
)
def test_builds_of_the_workspace_and_nixpkgs_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
