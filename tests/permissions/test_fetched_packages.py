"""Package runners that fetch a package from a registry and run it (`pnpm dlx X`, `yarn dlx
X`, `uvx X`, `pipx run X`, `npx --package X`, `npm init X`): code nobody has seen, which may
run what a deny rule forbids. A rule naming the program (`Bash(pnpm *)`) does not cover it;
one naming the subcommand that fetches (`Bash(pnpm dlx *)`, `Bash(uvx *)`) does."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, Mode, PermissionContext, decide

from .conftest import ContextFactory

PROGRAMS = ["pnpm", "yarn", "npm", "npx", "uv", "pipx", "bun", "corepack"]
ALLOW = [f"Bash({p} *)" for p in PROGRAMS]
DENY = ["Bash(curl *)", "Bash(rm *)"]

FETCHED = [
    "pnpm dlx evilpkg",
    "pnpm --silent dlx evilpkg --flag",
    "yarn dlx evilpkg",
    "pnpm create evilpkg",
    "yarn create evilpkg",
    "npm init evilpkg",
    "npm create evilpkg",
    "npm exec --package=evilpkg -- evil",
    "npm x --package evilpkg evil",
    "uv tool run evilpkg",
    "pipx run evilpkg",
    # Through corepack, the tool it starts (allowed before under `Bash(corepack *)`).
    "corepack pnpm dlx evilpkg",
    "corepack yarn@4.1.0 dlx evilpkg",
    # Allowed before: a global option's value was taken for the subcommand.
    "pnpm -C . dlx evilpkg",
    "pnpm -C sub dlx evilpkg",
    "pnpm --filter x dlx evilpkg",
    "pnpm -F x dlx evilpkg",
    "pnpm -C . create evilpkg",
    "pnpm --dir sub --filter x create evilpkg",
    "yarn --cwd . dlx evilpkg",
    "yarn --cwd . create evilpkg",
    "corepack pnpm -C . dlx evilpkg",
    "corepack yarn --cwd . dlx evilpkg",
]


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_fetched_package_is_code_not_seen(mode: Mode, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}}, mode=mode)
    found = {c: bash(c, ctx) for c in FETCHED}
    assert {c: d.behavior for c, d in found.items()} == dict.fromkeys(FETCHED, "deny")
    assert all("fetched from a registry" in d.reason for d in found.values())
    # Without deny rules, asked in default mode (bypass skips the ask).
    lenient = make_ctx({"permissions": {"allow": ALLOW}})
    assert {c: bash(c, lenient).behavior for c in FETCHED} == dict.fromkeys(FETCHED, "ask")


def test_an_option_not_understood_before_a_fetching_subcommand_is_not_allowed(
    make_ctx: ContextFactory,
) -> None:
    """It may take the next word as its value: `dlx` after it may be pnpm's command."""
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    for command in (
        "pnpm --not-an-option x dlx evilpkg",
        "corepack pnpm --not-an-option x dlx evilpkg",
        "corepack pnpm --package=evilpkg dlx evil",
    ):
        assert bash(command, ctx).behavior == "deny", command


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Bash(pnpm dlx *)", "pnpm dlx create-vite app"),
        ("Bash(yarn dlx *)", "yarn dlx evilpkg"),
        ("Bash(uvx *)", "uvx ruff check"),
        ("Bash(uv tool run *)", "uv tool run ruff check"),
        ("Bash(pipx run *)", "pipx run black ."),
        ("Bash(npx *)", "npx -p cowsay cowsay hi"),
        ("Bash(npm init *)", "npm init vite"),
        ("Bash(corepack pnpm dlx *)", "corepack pnpm dlx create-vite app"),
    ],
)
def test_a_rule_naming_what_fetches_allows_it(
    rule: str, command: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": [rule, "Bash(ruff *)"], "deny": DENY}})
    assert bash(command, ctx).behavior == "allow"


def test_runs_of_what_is_installed_stay_allowed(make_ctx: ContextFactory) -> None:
    ordinary = ["npm init -y", "npm test", "pnpm exec tsc", "uv run pytest", "npx tsc --version"]
    ordinary += ["pnpm -C . test", "pnpm -C. test", "yarn --cwd . build"]
    allowing = [*ALLOW, "Bash(pytest *)", "Bash(tsc *)"]
    ctx = make_ctx({"permissions": {"allow": allowing, "deny": DENY}})
    assert {c: bash(c, ctx).behavior for c in ordinary} == dict.fromkeys(ordinary, "allow")
