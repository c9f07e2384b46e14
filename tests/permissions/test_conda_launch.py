"""conda, mamba and micromamba: `run -n ENV CMD` / `run -p PREFIX CMD` launch CMD, judged as if
typed (a rule allowing conda does not cover what it runs: deny rules on CMD hold); an
environment file (`env create -f FILE`, `install --file FILE`) names the packages built and
installed, code from outside the workspace when the file is there (asked)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOW = [f"Bash({p} *)" for p in ("conda", "mamba", "micromamba", "pytest")]
RULES = {
    "permissions": {
        "allow": ALLOW,
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
        # Configuration from elsewhere: its channels' packages' scripts run.
        "CONDARC={outside}/rc conda install numpy",
        "export CONDARC={outside}/rc; conda install numpy",
        "MAMBARC={outside}/rc micromamba install numpy",
        "CONDA_CHANNELS=file://{outside}/c conda install x",
        "MAMBA_ROOT_PREFIX={outside}/mm micromamba install x",
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
        # argparse takes any unambiguous prefix of a long option.
        "conda install --fil {outside}/req.txt",
        "conda create -n x --fi={outside}/req.txt",
        "conda env create --fi {outside}/environment.yml",
        "mamba env update --fil {outside}/environment.yml",
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
        "conda env update",
        "conda run --no-capture-output -n dev python3 src/app.py",
        "micromamba run -n dev --cwd src python3 app.py",
    ],
)
def test_ordinary_conda_commands_are_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"environment.yml": "dependencies: [python]\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda run python3 {outside}/evil.py",
        "conda run -n base python3 {outside}/evil.py",
        "conda run -s -p {ws}/env -- python3 {outside}/evil.py",
        "mamba run -n base bash {outside}/evil.sh",
        "micromamba run -n base python3 {outside}/evil.py",
    ],
)
def test_what_conda_runs_is_judged_as_if_run_bare(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    (tree.outside / "evil.py").write_text("print(1)\n")
    (tree.outside / "evil.sh").write_text("echo 1\n")
    rules = {"permissions": {**RULES["permissions"], "allow": [*ALLOW, "Bash(python3 *)"]}}
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(rules))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda run --cw {outside} pytest",
        # micromamba's `-e NAME=VALUE` sets the command's environment: not looked through.
        "micromamba run -e LD_PRELOAD=x.so -n base pytest",
    ],
)
def test_run_options_not_understood_are_not_looked_through(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """Where the command starts is not known: deny rules are tried on every tail."""
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "deny", (text, verdict.reason)
    assert "cannot tell what" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "conda env update -f environment.yml",
        "conda env update",
        "conda env create --file=environment.yml",
        "mamba env create -f env/environment.yml",
        "micromamba create -f environment.yml",
        "conda create -n x --fi environment.yml",
    ],
)
@pytest.mark.parametrize(
    "entry",
    ["-r {outside}/req.txt", "-e {outside}/pkg", "{outside}/pkg", "-r ../../outside/req.txt"],
)
def test_an_environment_files_pip_section_is_judged_as_pip_would_be(
    command: str, entry: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """conda hands the `pip:` section to pip as a requirements file, from the environment
    file's directory: what it names outside the workspace is code no rule has seen."""
    (tree.outside / "req.txt").write_text("python\n")
    (tree.outside / "pkg").mkdir()
    where = "env/environment.yml" if "env/" in command else "environment.yml"
    if where.startswith("env/") and entry.startswith("-r ../"):
        entry = "-r ../" + entry.removeprefix("-r ")
    text = f"dependencies:\n  - pip\n  - pip:\n    - {tree.fill(entry)}\n"
    tree.write({where: text})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, entry, verdict.reason)


def test_an_environment_files_pip_section_inside_the_workspace_is_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(
        {
            "env/environment.yml": "dependencies:\n  - pip:\n    - -r req.txt\n    - -e ./pkg\n",
            "env/req.txt": "requests\n",
            "env/pkg/setup.py": "",
        }
    )
    verdict = decide(
        "Bash", {"command": "conda env update -f env/environment.yml"}, make_ctx(RULES)
    )
    assert verdict.behavior == "allow", verdict.reason
