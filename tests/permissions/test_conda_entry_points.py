"""conda under its other names: the old `conda-env` entry point is `conda env`, `python -m
conda` and `python -m conda_env` are conda (entry_programs), judged as typed; an environment
named with `--name` is found as it runs, as `-n`'s is; a `file:` channel is read by
file_urls, as hg's and svn's URLs are (`file://localhost/x`, `%2e%2e`)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = ("conda", "conda-env", "python", "python3")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in PROGRAMS],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "conda-env config vars set X=1",
        "conda-env config vars set -n base X=1",
        "python -m conda env config vars set X=1",
        "python -m conda config --set channels x",
        "python3 -m conda init",
        "python -m conda_env config vars set X=1",
        "conda env config vars set --name=base X=1",
        "conda env config vars set --name base X=1",
        "conda install -c file://{ws}/%2e%2e/outside/ch pkg",
        "conda install -c file://localhost{outside}/ch pkg",
        "conda install -c file:{outside}/ch pkg",
        "conda install file://{ws}/%2e%2e/outside/p.conda",
        "python -m conda.cli.main init",
        "python -m conda.cli.main install -c file://{outside}/ch pkg",
        "python -m conda_env.cli.main config vars set X=1",
        "python -m conda.cli.env config vars set X=1",
        "python -m conda.cli.env.config.vars.set X=1",
    ],
)
def test_what_conda_writes_or_takes_from_elsewhere_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "python -m conda run curl x",
        "python -m conda.cli.main run curl x",
    ],
)
def test_a_deny_rule_holds_under_the_module_name(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "conda-env list",
        "python -m conda list",
        "python -m conda env list",
        "conda env config vars list",
        "conda install -c conda-forge numpy",
        "conda install -c file://{ws}/ch numpy",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
