"""Launchers: a program whose arguments name another program to run (`uv run CMD`, `tox exec --
CMD`, `npx CMD`, `pre-commit hazmat cd DIR CMD`), run as itself or as `python3 -m X`. The launched
command is judged as if typed: its deny and ask rules hold whatever rule allows the launcher, a
launcher rule covers only what no rule decides in it, and a subcommand the table does not know
is asked. `pre-commit install` writes a git hook."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, assert_denied_in_every_mode

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)", "Bash(npm run:*)", "Bash(pytest:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)", "Edit(.git/**)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m uv run --no-sync wget -q x",
        "python3 -m uv run --with requests -- wget x",
        "python3 -m uv --directory src run env A=1 wget x",
        "python3 -m uv tool run --from wget wget x",
        "python3 -m tox e -e lint -- wget x",
        "python3 -m tox --override 'testenv:lint.commands_pre=wget x'",
        "python3 -m tox -xtestenv.list_dependencies_command='wget x'",
        "python3 -m hatch -e docs run wget x",
        "python3 -m hatch env run -e test -- wget x",
        "python3 -m pdm run -p . wget x",
        "python3 -m poetry -C src run wget x",
        "python3 -m pipenv run bash -c 'wget x'",
        "python3 -m pipx run --spec wget wget x",
        "python3 -m pre_commit hazmat ignore-exit-code wget x",
        "python3 -m pre_commit hazmat n1 timeout 5 wget x",
        "python3 -m runpy uv run wget x",
        "python3 -m uv run -- python3 -c 'import os; os.system(\"wget x\")'",
        "python3 -m uv run --env-file .env src/app.py",
        "npm exec --yes -- wget x",
        "npx --call 'wget x'",
        "pnpm dlx wget x",
    ],
)
def test_the_launched_command_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Bash(uv run *)", "uv run wget x"),
        ("Bash(uv run *)", "uv run --python 3.12 -m wget_not_module && wget x"),
        ("Bash(npx *)", "npx -y wget x"),
        ("Bash(python3 -m tox:*)", "python3 -m tox exec -- wget x"),
        ("Bash(uvx:*)", "uvx wget@latest x"),
        ("Bash(pipx run:*)", "pipx run wget x"),
    ],
)
def test_a_launcher_rule_does_not_allow_a_denied_command(
    rule: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": [rule], "deny": ["Bash(wget:*)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Bash(uv run *)", "uv run git push origin main"),
        ("Bash(npx *)", "npx git push"),
        ("Bash(python3 -m tox:*)", "python3 -m tox exec -e py -- git push"),
    ],
)
def test_a_launcher_rule_does_not_skip_an_ask_rule(
    rule: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": [rule, "Bash(git:*)"], "ask": ["Bash(git push:*)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Bash(uv run *)", "uv run pytest -q"),
        ("Bash(uv run *)", "uv run --frozen python3 -m pytest"),
        ("Bash(npx *)", "npx prettier --check src"),
        ("Bash(uvx *)", "uvx ruff@0.6 check src"),
        ("Bash(python3 -m tox:*)", "python3 -m tox exec -e py -- pytest -x"),
        ("Bash(poetry run *)", "poetry run pytest"),
    ],
)
def test_a_launcher_rule_covers_what_no_rule_decides(
    rule: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": [rule], "deny": ["Bash(wget:*)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "allow", decision


def test_a_launcher_rule_does_not_cover_a_program_named_by_a_path(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(uv run *)"]}}
    command = f"uv run {tree.outside}/tool x"
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m uv frobnicate x",
        "python3 -m tox frobnicate",
        "python3 -m pre_commit hazmat frob wget",
        "python3 -m poetry --frob run pytest",
        "python3 -m uv run --not-an-option wget x",
        "python3 -m tox -x 'testenv.set_env=PATH=/opt/x'",
        "python3 -m tox -x 'testenv.base_python=/opt/x/python'",
    ],
)
def test_what_the_table_does_not_know_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(python3:*)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(rules))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m pre_commit install",
        "python3 -m pre_commit install --hook-type pre-push",
        "pre-commit install -t commit-msg",
        "python3 -m pre_commit uninstall",
    ],
)
def test_installing_git_hooks_is_asked_and_meets_edit_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    allowing = {"permissions": {"allow": ["Bash(python3:*)", "Bash(pre-commit:*)"]}}
    for mode in ("default", "acceptEdits"):
        decision = decide("Bash", {"command": command}, make_ctx(allowing, mode=mode))
        assert decision.behavior == "ask", (mode, decision)
    denying = {"permissions": {**allowing["permissions"], "deny": ["Edit(.git/**)"]}}
    decision = decide("Bash", {"command": command}, make_ctx(denying, mode="bypassPermissions"))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m uv run pytest -q",
        "python3 -m uv sync --frozen",
        "python3 -m tox -e py311",
        "python3 -m tox run -e lint",
        "python3 -m tox -x 'testenv.description=quick'",
        "python3 -m pre_commit run --all-files",
        "python3 -m hatch run pytest",
        "python3 -m poetry install",
        "npm run build",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m honcho run wget x",
        "python3 -m conda run -n base wget x",
        "python3 -m fabric --exec 'wget x'",
        "python3 -m tasks.cli -- wget -q x",
    ],
)
def test_a_module_no_table_knows_is_suspected_like_an_unknown_program(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command", ["python3 -m pytest -k wget", "python3 -m json.tool wget.json", "python3 -m app"]
)
def test_known_modules_are_not_suspected(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision


def test_hatch_s_environment_prefix_is_not_the_program(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    for command in ("python3 -m hatch run docs:wget x", "hatch run test.py3.12:wget -q x"):
        decision = decide("Bash", {"command": command}, make_ctx(RULES))
        assert decision.behavior == "deny", (command, decision)


@pytest.mark.parametrize(
    "command",
    [
        "uvx --from {outside}/pkg tool",
        "uv tool run --from git+file://{outside}/repo tool",
        "uv run --with-editable {outside}/lib pytest",
        "pipx run --spec {outside}/pkg tool",
    ],
)
def test_a_package_from_outside_the_workspace_is_code_not_seen(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(uvx *)", "Bash(uv *)", "Bash(pipx *)"]}}
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(rules))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    ["tar -czf backup:/srv/x.tgz src", "tar --file=me@box:x.tar -c src", "tar cf box:x.tar ."],
)
def test_a_remote_tar_archive_runs_rsh(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(tar:*)"], "deny": ["Bash(rsh:*)"]}}
    assert decide("Bash", {"command": command}, make_ctx(rules)).behavior == "deny"
    local = command.replace("tar ", "tar --force-local ", 1)
    assert decide("Bash", {"command": local}, make_ctx(rules)).behavior != "deny"
