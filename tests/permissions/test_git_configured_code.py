"""git running commands and reading repositories by its configuration, judged as if the
URLs were typed: an `ext::` remote's command, a remote helper (`NAME::X`, an unknown scheme,
`remote.NAME.vcs`), `remote.NAME.uploadpack`/`receivepack` and `core.sshCommand` are commands
git runs; a remote at a local path is a read of that repository. Every git command that
contacts a remote counts (`ls-remote`, `remote show|prune|update`, `archive --remote`,
`fetch-pack`, `send-pack`, `request-pull`, `clone` of a URL the configuration rewrites).
Real repositories, read by git."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, git_in

MODES = ("default", "bypassPermissions")
RULES = {
    "permissions": {
        "allow": ["Bash(git *)"],
        "deny": ["Bash(ssh *)", "Bash(curl *)", "Read(./secrets/**)"],
    }
}


@pytest.fixture
def repo(tree: Tree) -> Path:
    path = tree.ws / "repo"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "config", "protocol.ext.allow", "always")
    git_in(path, "config", "remote.ex.url", "ext::sh -c curl% -sS% h;echo% x")
    git_in(path, "config", "remote.up.url", str(tree.ws / "other"))
    git_in(path, "config", "remote.up.uploadpack", "curl up")
    git_in(path, "config", "remote.up.receivepack", "curl down")
    secret = tree.ws / "secrets" / "repo"
    secret.mkdir(parents=True)
    git_in(secret, "init", "-q")
    (path / "sub").mkdir()
    git_in(path, "config", "remote.sec.url", "../secrets/repo")
    git_in(path, "config", "url.ext::curl% %S.insteadOf", "gh:")
    return path


@pytest.mark.parametrize(
    "command",
    [
        "git fetch ex",
        "git pull ex main",
        "git ls-remote ex",
        "git --no-pager ls-remote ex",
        "git remote show ex",
        "git remote -v show ex",
        "git remote prune ex",
        "git remote update",
        "git fetch --all",
        "git archive --remote=ex HEAD",
        "git archive --remote ex HEAD",
        "git fetch up",  # its uploadpack
        "git push up main",  # its receivepack
        "git clone gh:r",  # insteadOf to ext::
        "git fetch-pack gh:r",
        "git request-pull HEAD gh:r",
        "git fetch sec",  # a repository below a Read-denied path
        "git fetch 'ext::sh -c curl% x'",  # typed, `% ` a space
        "cd sub && git fetch sec",  # relative to the work tree's top
    ],
)
def test_what_a_configured_remote_runs_or_reads_meets_the_rules(
    command: str, repo: Path, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode, cwd=repo))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    ("setting", "value", "command"),
    [
        ("core.sshCommand", "curl x", "git fetch origin"),
        ("remote.origin.vcs", "evil", "git fetch origin"),
        ("url.evil::x.insteadOf", "h:", "git ls-remote origin"),
        ("remote.origin.url", "evil://r", "git fetch origin"),
    ],
)
def test_programs_the_configuration_names_are_judged(
    setting: str, value: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    path = tree.ws / "r"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "origin", "h:r")
    git_in(path, "config", setting, value)
    rules = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(curl *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules, cwd=path))
    assert verdict.behavior != "allow", (setting, verdict.reason)
    # The program it runs, or the transport of its own (`evil::`) that runs it.
    assert any(name in verdict.reason for name in ("curl", "git-remote-evil", "`evil::`"))


@pytest.mark.parametrize(
    "command",
    [
        "git fetch origin",
        "git ls-remote origin",
        "git remote show origin",
        "git archive --remote=origin HEAD",
        "git fetch near",
        "git ls-remote https://example.com/x.git",
        "git remote get-url origin",
    ],
)
def test_ordinary_remotes_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    path = tree.ws / "r"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "origin", "https://example.com/r.git")
    git_in(path, "remote", "add", "near", "../other")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, cwd=path))
    assert verdict.behavior == "allow", (command, verdict.reason)
