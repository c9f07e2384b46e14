"""Commands that write a program's user-level configuration without naming a file (`git config
--global`, `pip config set`, `npm config set`, `gh alias set`, `go env -w`, `conda init`...):
writes of a home file whose settings run programs later, asked in every mode but
bypassPermissions whatever the rules allow, denied in plan mode."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

WRITERS = [
    ("git config --global core.hooksPath src/hooks", "git"),
    ("git config --global include.path src/inc", "git"),
    ("git config --global alias.st '!sentinel'", "git"),
    ("git config --unset --global core.pager", "git"),
    ("git config --global --remove-section core", "git"),
    ("git config --global=x safe.directory '*'", "git"),
    ("git --no-pager config --global url.ext::x.insteadOf https://", "git"),
    ("git config --system core.fsmonitor x", "git"),
    ("git config --file ~/.gitconfig core.editor x", "git"),
    ("pip config set global.index-url http://x", "pip"),
    ("pip3 --isolated config unset global.index-url", "pip3"),
    ("python3 -m pip config edit", "python3"),
    ("npm config set script-shell ./x.sh", "npm"),
    ("npm config edit", "npm"),
    ("npm set node-options=--require=./x.js", "npm"),
    ("pnpm config set script-shell ./x.sh", "pnpm"),
    ("yarn config set yarnPath src/x.js", "yarn"),
    ("gh alias set co '!sentinel'", "gh"),
    ("gh config set pager ./x", "gh"),
    ("go env -w GOFLAGS=-toolexec=./x", "go"),
    ("go env -w CGO_CFLAGS=-O2", "go"),
    ("bundle config set --global build.x --with-x", "bundle"),
    ("conda config --set channel_priority strict", "conda"),
    ("conda config --append channels file:///x", "conda"),
    ("conda init", "conda"),
    ("conda config --se channel_priority strict", "conda"),
    ("conda config --env --ad channels x", "conda"),
    ("conda config --stdin", "conda"),
    ("micromamba -r ~/mm shell init -s bash", "micromamba"),
    ("micromamba shell -s bash init", "micromamba"),
    ("rclone config create x local", "rclone"),
    ("rclone config update remote ssh x", "rclone"),
    ("rclone -v config touch", "rclone"),
    ("conda init --all", "conda"),
    ("conda init --reverse zsh", "conda"),
    ("mamba init", "mamba"),
    ("mamba shell init -s bash", "mamba"),
    ("micromamba shell init -s bash", "micromamba"),
    ("micromamba config prepend channels x", "micromamba"),
    ("conda env config vars set LD_PRELOAD=/x/y.so", "conda"),
    ("conda env config vars set -n dev X=1", "conda"),
    ("conda env config vars set -p /opt/env X=1", "conda"),
    ("conda env config vars set --prefix ~/env X=1", "conda"),
    ("conda env config vars set -p ./env -n dev X=1", "conda"),
    ("conda env config vars set -p ./env -p ../env X=1", "conda"),
    ("micromamba env config vars set --prefix=/opt/e X=1", "micromamba"),
    ("mamba env config vars unset X", "mamba"),
    ("micromamba env config vars set X=1", "micromamba"),
    ("direnv allow", "direnv"),
    ("kubectl config set-credentials u --exec-command=./x", "kubectl"),
    ("aws configure set credential_process ./x", "aws"),
]
READERS = [
    "git config --global --get core.pager",
    "git config --list --global",
    "pip config list",
    "npm config get registry",
    "go env GOPATH",
    "gh alias list",
    "kubectl config view",
    "conda config --show",
    "conda config --show-sources",
    "micromamba -r ~/mm shell hook -s bash",
    "rclone config show",
    "rclone config file",
    "conda list",
    "micromamba shell hook -s bash",
    "conda env config vars list",
]


def _allowing(program: str) -> list[str]:
    return [f"Bash({program} *)", "Edit(**)"]


@pytest.mark.parametrize(("command", "program"), WRITERS)
@pytest.mark.parametrize("mode", ["default", "acceptEdits", "dontAsk"])
def test_a_user_config_write_is_not_allowed_by_a_rule_on_its_program(
    command: str, program: str, mode: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": _allowing(program)}}, mode=mode)
    expected = "deny" if mode == "dontAsk" else "ask"
    assert decide("Bash", {"command": command}, ctx).behavior == expected


@pytest.mark.parametrize(("command", "program"), WRITERS)
def test_a_user_config_write_is_denied_in_plan_mode_and_allowed_in_bypass(
    command: str, program: str, make_ctx: ContextFactory
) -> None:
    settings = {"permissions": {"allow": _allowing(program)}}
    plan = make_ctx(settings, mode="plan")
    bypass = make_ctx(settings, mode="bypassPermissions")
    assert decide("Bash", {"command": command}, plan).behavior == "deny"
    assert decide("Bash", {"command": command}, bypass).behavior == "allow"


@pytest.mark.parametrize("command", READERS)
def test_reading_a_user_config_stays_allowed_by_the_rule(
    command: str, make_ctx: ContextFactory
) -> None:
    program = command.split()[0]
    ctx = make_ctx({"permissions": {"allow": _allowing(program)}})
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "conda env config vars set -p ./env X=1",
        "conda env config vars set -p env LD_PRELOAD=/x/y.so",
        "conda env config vars set --prefix=./env X=1",
        "conda env config vars set --pre ./env X=1",
        "mamba env config vars unset -p ./env X",
        "micromamba env config vars set -p envs/dev X=1",
    ],
)
def test_variables_of_an_environment_inside_the_workspace_are_a_write_there(
    command: str, make_ctx: ContextFactory
) -> None:
    """`-p DIR` names the environment: the state file written is DIR's, inside the workspace
    as any file the command writes there (only one found by name, or the active one, is a
    place not known)."""
    ctx = make_ctx({"permissions": {"allow": [f"Bash({command.split()[0]} *)"]}})
    verdict = decide("Bash", {"command": command}, ctx)
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_the_home_marked_global_config_is_the_one_a_deny_rule_names(
    make_ctx: ContextFactory,
) -> None:
    """`--global` writes the home's `.gitconfig`, as `--file ~/.gitconfig` does: an Edit deny
    rule on it holds (it used to be the literal text `~/.gitconfig`, a relative path)."""
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": ["Edit(~/.gitconfig)"]}})
    for command in ("git config --global a.b c", "git config --file ~/.gitconfig a.b c"):
        assert decide("Bash", {"command": command}, ctx).behavior == "deny"


@pytest.mark.parametrize(
    ("command", "file"),
    [
        ("yarn config set yarnPath src/x.js", ".yarnrc.yml"),
        ("npm config set script-shell ./x.sh --location=project", ".npmrc"),
        ("mise use node@22", "mise.toml"),
        ("mise set X=1", "mise.toml"),
    ],
)
def test_a_project_config_write_is_the_projects_file(
    command: str, file: str, make_ctx: ContextFactory
) -> None:
    """yarn 2+ and mise write the project's file by default, npm with `--location=project`:
    a deny rule on the project's file holds (home writes alone were seen before)."""
    program = command.split()[0]
    settings = {"permissions": {"allow": _allowing(program), "deny": [f"Edit(./{file})"]}}
    assert decide("Bash", {"command": command}, make_ctx(settings)).behavior == "deny"
