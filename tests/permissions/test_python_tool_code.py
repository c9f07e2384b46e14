"""Python linters, type checkers, test and task runners, as programs and under `python3 -m`:
configuration or code from outside the workspace is code no rule has seen (asked), and code
given on the line (`pylint --init-hook`, `sphinx-build -D extensions=`, `coverage run -m`,
Jupyter class options) is judged as the code it is, whichever rule allows the tool."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

SETTINGS = {
    "permissions": {
        "allow": [
            *("Bash(python3 *)", "Bash(pylint *)", "Bash(mypy *)", "Bash(flake8 *)"),
            *("Bash(coverage *)", "Bash(tox *)", "Bash(nox *)", "Bash(pre-commit *)"),
            *("Bash(jupyter *)", "Bash(sphinx-build *)", "Bash(invoke *)", "Bash(behave *)"),
            "Bash(dmypy *)",
        ],
        "deny": ["Bash(curl:*)", "Read(**/.env)"],
    }
}

OUTSIDE = [
    "python3 -m pylint --rcfile={outside}/pylintrc src",
    "pylint --rcf {outside}/pylintrc src",
    "python3 -m mypy --config-file {outside}/mypy.ini src",
    "mypy --config-f={outside}/setup.cfg src",
    "mypy --python-executable {outside}/python src",
    "dmypy run --config-file {outside}/mypy.ini -- src",
    "flake8 --append-config {outside}/x.cfg src",
    "python3 -m flake8 --config={outside}/x.cfg",
    "coverage run --rcfile={outside}/covrc -m pytest",
    "python3 -m coverage run {outside}/x.py",
    "tox -c {outside}/tox.ini",
    "python3 -m tox --conf={outside}",
    "nox --noxfile {outside}/noxfile.py",
    "python3 -m nox -f {outside}/noxfile.py -s t",
    "pre-commit try-repo {outside}/repo",
    "python3 -m pre_commit try-repo https://example.com/hooks.git",
    "pre-commit run -c {outside}/p.yaml --all-files",
    "jupyter nbconvert --execute {outside}/x.ipynb",
    "jupyter execute {outside}/x.ipynb",
    "sphinx-build -c {outside} docs out",
    "invoke --collection {outside}/tasks build",
    "behave {outside}/features",
]


@pytest.mark.parametrize("command", OUTSIDE)
def test_configuration_or_code_from_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(SETTINGS))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "PYLINTRC={outside}/rc python3 -m pylint src",
        "TOX_CONFIG_FILE={outside}/tox.ini tox",
        "INVOKE_RUNTIME_CONFIG={outside}/c.yaml invoke build",
        "PRE_COMMIT_HOME={outside} pre-commit run",
    ],
)
def test_variables_naming_their_configuration_are_not_looked_through(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(SETTINGS))
    assert decision.behavior != "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m pylint --init-hook='import os;os.system(\"curl x\")' src",
        "pylint --init-hook 'import subprocess;subprocess.run([\"curl\"])' src",
        "pylint --init-h='print(open(\".env\").read())' src",
        'python3 -m pylint --init-hook="$HOOK" src',
        "python3 -m coverage run -m timeit -s 'import os;os.system(\"curl x\")'",
        "coverage run -m pdb -c 'x' src/app.py",
        "sphinx-build -D extensions=evil docs out",
        "jupyter nbconvert --NbConvertApp.postprocessor_class=evil.X --to html a.ipynb",
    ],
)
def test_code_given_on_the_line_is_judged(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(SETTINGS)).behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m pylint src",
        "pylint --rcfile=pyproject.toml src",
        "python3 -m mypy --config-file mypy.ini src",
        "flake8 --config setup.cfg src",
        "coverage run -m pytest -q",
        "tox -e py311",
        "nox -s tests",
        "pre-commit run --all-files",
        "jupyter nbconvert --execute --to notebook nb/a.ipynb",
        "jupyter nbconvert --ExecutePreprocessor.timeout=600 --execute nb/a.ipynb",
        "python3 -m sphinx -b html docs docs/_build",
        "invoke build",
        "behave features",
    ],
)
def test_the_projects_own_runs_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(SETTINGS)).behavior == "allow"
