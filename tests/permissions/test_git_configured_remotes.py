"""git reaching a host by the repository's configuration: a fetch, pull, push or `remote
update` with no URL on the command line reaches the configured remotes (their URLs as
`insteadOf`/`pushInsteadOf` rewrite them) and `submodule update` the submodules' URLs, each
an ssh URL judged as the `ssh HOST` git starts; a remote the same command line configures
first (`git remote add o h:r && git fetch o`) is judged with the URL just set. Real
repositories, read by git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree, git_in

MODES = ("default", "bypassPermissions")
RULES = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(ssh *)"]}}


@pytest.fixture
def repo(tree: Tree) -> Path:
    path = tree.ws / "repo"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "origin", "h:r")
    git_in(path, "remote", "add", "web", "https://example.com/r.git")
    git_in(path, "remote", "add", "short", "gh:r")
    git_in(path, "config", "url.ssh://git@h/.insteadOf", "gh:")
    git_in(path, "remote", "add", "mirror", "https://example.com/m.git")
    git_in(path, "config", "remote.mirror.pushurl", "u@h:m")
    git_in(path, "remote", "add", "rewritten", "https://example.com/p.git")
    git_in(path, "config", "url.h:.pushInsteadOf", "https://example.com/")
    return path


@pytest.mark.parametrize(
    "command",
    [
        "git fetch",
        "git fetch origin",
        "git fetch --all",
        "git fetch -q --depth 1 origin main",
        "git pull",
        "git pull --rebase origin",
        "git push",
        "git push origin HEAD",
        "git push mirror",  # its pushurl
        "git push rewritten",  # pushInsteadOf
        "git fetch short",  # insteadOf
        "git remote update",
        "git remote update short",
        "git ls-remote",
        "git -C . fetch origin",
        "git -c remote.web.url=h:x fetch web",
    ],
)
def test_a_configured_ssh_remote_meets_the_rule_on_ssh(
    command: str, repo: Path, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode, cwd=repo))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "ssh" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "git remote add o h:r && git fetch o",
        "git remote add o h:r; git fetch o",
        "git remote set-url web h:r && git pull web",
        "git config remote.o.url h:r && git fetch o",
        "git config url.h:.insteadOf https://example.com/ && git fetch web",
        "git submodule add h:r sub",
    ],
)
def test_a_remote_set_in_the_same_command_is_judged_with_its_url(
    command: str, repo: Path, make_ctx: ContextFactory
) -> None:
    verdict = decide(
        "Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions", cwd=repo)
    )
    assert verdict.behavior == "deny", (command, verdict.reason)


def test_submodule_update_reaches_the_submodules_urls(repo: Path, make_ctx: ContextFactory) -> None:
    (repo / ".gitmodules").write_text('[submodule "s"]\n\tpath = s\n\turl = u@h:s\n')
    for command in ("git submodule update --init --recursive", "git fetch web"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, cwd=repo))
        assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize("command", ["git fetch web", "git status", "git push web", "git log"])
def test_an_https_remote_stays_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    path = tree.ws / "plain"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "web", "https://example.com/r.git")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, cwd=path))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git --git-dir=repo/.git fetch",
        "git --git-dir repo/.git pull",
        "git --git-dir=repo/.git --work-tree=repo fetch origin",
        "git --work-tree=repo --git-dir=repo/.git remote update",
        "git -C repo --git-dir=.git fetch --all",
        "git -C repo/.git fetch",
        "git --git-dir=bare.git fetch",
        "git -C bare.git push",
        "git -C repo --work-tree=. fetch",
        'git -C "$D" fetch',
        'git --git-dir="$D" fetch',
    ],
)
def test_the_repository_git_is_pointed_at_is_the_one_read(
    command: str, repo: Path, tree: Tree, make_ctx: ContextFactory
) -> None:
    bare = tree.ws / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git_in(bare, "remote", "add", "origin", "u@h:b")
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_an_https_remote_through_git_dir_stays_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    path = tree.ws / "plain"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "remote", "add", "web", "https://example.com/r.git")
    for command in ("git --git-dir=plain/.git fetch web", "git -C plain --work-tree=. fetch"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES))
        assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.fixture
def odd_remotes(tree: Tree) -> Path:
    path = tree.ws / "odd"
    path.mkdir()
    git_in(path, "init", "-q")
    git_in(path, "config", "protocol.ext.allow", "always")
    git_in(path, "config", "remote.ex.url", "ext::sh -c curl% -sS% http://127.0.0.1:9/x")
    git_in(path, "config", "remote.ex2.url", "ext::curl %S x")
    git_in(path, "config", "remote.up.url", str(tree.outside / "repo"))
    git_in(path, "config", "remote.up.uploadpack", "curl x")
    git_in(path, "config", "remote.rp.url", str(tree.outside / "repo"))
    git_in(path, "config", "remote.rp.receivepack", "sh -c 'curl y'")
    (path / "secrets" / "repo").mkdir(parents=True)
    git_in(path, "config", "remote.sec.url", "./secrets/repo")
    git_in(path, "config", "remote.web.url", "https://example.com/r.git")
    return path


ODD_RULES = {
    "permissions": {
        "allow": ["Bash(git *)"],
        "deny": ["Bash(ssh *)", "Bash(curl *)", "Read(./odd/secrets/**)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "git fetch ex",
        "git fetch ex2",
        "git ls-remote ex",
        "git remote show ex",
        "git remote update",
        "git fetch --all",
        "git archive --remote=ex HEAD",
        "git archive --remo ex HEAD",
        "git fetch up",
        "git pull up main",
        "git push rp",
    ],
)
def test_what_a_configured_remote_runs_is_judged_as_typed(
    command: str, odd_remotes: Path, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        ctx = make_ctx(ODD_RULES, mode=mode, cwd=odd_remotes)
        verdict = decide("Bash", {"command": command}, ctx)
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "curl" in verdict.reason or "push" in command  # a push runs its hooks too


def test_a_configured_local_repository_is_read(odd_remotes: Path, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "git fetch sec"}, make_ctx(ODD_RULES, cwd=odd_remotes))
    assert verdict.behavior != "allow", verdict.reason
    assert "secrets" in verdict.reason


@pytest.mark.parametrize(
    "command", ["git fetch web", "git status", "git log", "git fetch-pack --help"]
)
def test_other_remotes_of_that_repository_stay_allowed(
    command: str, odd_remotes: Path, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(ODD_RULES, cwd=odd_remotes))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_fetch_pack_reaches_its_url_by_ssh(repo: Path, make_ctx: ContextFactory) -> None:
    for command in ("git fetch-pack h:r", "git fetch-pack ssh://h/r main"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, cwd=repo))
        assert verdict.behavior == "deny", (command, verdict.reason)
