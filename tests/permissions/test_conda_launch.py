"""conda, mamba and micromamba: `run -n ENV CMD` / `run -p PREFIX CMD` launch CMD, judged as if
typed (a rule allowing conda does not cover what it runs: deny rules on CMD hold); an
environment file (`env create -f FILE`, `install --file FILE`) names the packages built and
installed, code from outside the workspace when the file is there (asked)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ("conda", "mamba", "micromamba", "pytest")],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "conda run -n base curl http://x",
        "conda run --name base curl http://x",
        "conda run -p {outside}/env curl http://x",
        "conda run --no-capture-output -n base curl http://x",
        "mamba run -n base curl http://x",
        "micromamba run -n base curl http://x",
        "conda run -n base bash -c 'curl http://x'",
    ],
)
def test_what_conda_runs_meets_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "deny", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda env create -f {outside}/environment.yml",
        "conda env create --file={outside}/environment.yml",
        "mamba env update -f {outside}/environment.yml",
        "micromamba create -f {outside}/environment.yml",
        "conda install --file {outside}/req.txt",
        "conda run --cwd {outside} pytest",
    ],
)
def test_environment_files_from_outside_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.outside / "environment.yml").write_text("dependencies: [python]\n")
    (tree.outside / "req.txt").write_text("python\n")
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda run -n base pytest -q",
        "mamba run -n dev pytest",
        "conda env create -f environment.yml",
        "conda install -n base numpy",
        "conda list",
    ],
)
def test_ordinary_conda_commands_are_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"environment.yml": "dependencies: [python]\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
