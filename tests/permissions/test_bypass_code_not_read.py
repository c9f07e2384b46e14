"""bypassPermissions keeps deny rules against code tether does not read: a nix profile or
nix-env install, or a nix-build, of code that is not nixpkgs'; a program run by a path outside
the workspace where nothing is yet (`gcc -wrapper /x/w`: whatever is put there first); a
script run after `git filter-branch`, which writes the rewritten branch's files."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(nix *)", "Bash(nix-env *)", "Bash(nix-build *)", "Bash(gcc *)"),
            *("Bash(git *)", "Bash(bash *)"),
        ],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "nix profile install github:o/r#hello",
        "nix profile add path:{outside}",
        "nix profile install",
        "nix-env -iA hello -f {outside}/x.nix",
        "nix-env --install --file {outside}/x.nix",
        "nix-env -i -E 'f: (import {outside}/x.nix)'",
        "nix-env -uf {outside}/x.nix",
        "nix-build {outside}/x.nix",
        "nix-build -E 'import {outside}/x.nix'",
        "nix-build",
        "gcc -wrapper {outside}/w src/foo.c",
        "cc -wrapper {outside}/w,-x src/foo.c",
        "{outside}/bin/tool --version",
        "git filter-branch --tree-filter true && bash src/ok.sh",
        "git filter-branch -f --index-filter true HEAD; bash src/ok.sh",
    ],
)
def test_code_not_read_is_denied_in_bypass(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / "src" / "ok.sh").write_text("echo hi\n")
    line = tree.fill(command)
    verdict = decide("Bash", {"command": line}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (line, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "nix profile install nixpkgs#hello",
        "nix-env -iA nixpkgs.hello",
        "nix-env -f '<nixpkgs>' -iA hello",
        "nix-env -qa -f {outside}/x.nix",
        "nix-build '<nixpkgs>' -A hello",
        "gcc -c src/foo.c",
        "bash src/ok.sh",
    ],
)
def test_known_code_stays_allowed_in_bypass(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.ws / "src" / "ok.sh").write_text("echo hi\n")
    line = tree.fill(command)
    verdict = decide("Bash", {"command": line}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (line, verdict.reason)
