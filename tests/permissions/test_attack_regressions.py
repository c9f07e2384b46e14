"""Classes an outside attacker found past the engine, each with cases of our own: reads that
may reach a denied file survive bypassPermissions, options of allowed programs that run or
load programs, git writing protected paths, git repositories not named `.git`, and deny
rules seeing a command's options as a set."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.permissions import Decision, PermissionContext, decide
from tether.tools.builtin.shell_run import command_environment

from .conftest import ContextFactory, Tree

DENIES = ["Read(./.env)", "Read(./secrets/**)", "Read(~/.ssh/**)", "Edit(./.env)"]
DENY_BASH = ["Bash(sentinel *)", "Bash(sentinel)", "Bash(rm -rf *)", "Bash(git push --force *)"]


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


def behaviors(commands: list[str], ctx: PermissionContext) -> dict[str, str]:
    return {c: bash(c, ctx).behavior for c in commands}


# A. What may reach a denied file is not let through by bypassPermissions.

MAY_REACH = [
    "head -c 10 $(printf .env)",
    "f=.env; head $f",
    "printf '%s\\n' .env | xargs head",
    "grep -rl KEY .",
    "grep --directories=recurse KEY .",
    "rg KEY",
    "grep -R KEY src",
    "git log -p -- .env",
    'git show "$REV"',
    "git show HEAD:$(echo secrets)/key.pem",
    "cat -- `echo .env`",
]


def test_reads_that_may_reach_a_denied_file_ask_in_bypass_mode(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}}, mode="bypassPermissions")
    assert behaviors(MAY_REACH, ctx) == dict.fromkeys(MAY_REACH, "ask")
    # The names find prints to `xargs -0` are read from the disk: `.env` is among them.
    assert bash("find . -name '*.env' -print0 | xargs -0 cat", ctx).behavior == "deny"
    # `-n1 -P4` only changes how many run at once: the same names.
    assert bash("find . -name '*.env' -print0 | xargs -0 -n1 -P4 cat", ctx).behavior == "deny"


def test_patterns_every_expansion_of_which_is_denied_are_denied(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}}, mode="bypassPermissions")
    commands = [
        "head secrets/*.pem",
        "wc -l secrets/?pi.key",
        "cat ~/.ssh/id_*",
        "cd secrets; cat *",
        # What they match on disk now is denied (glob_disk.py): bash will pass it.
        "head -n1 .en*",
        "tail .[e]nv",
        "wc -c ./.?nv",
        "cat s*/key.pem",
    ]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "deny")
    # Some expansions are not denied, and none is on disk yet: asked, not denied.
    assert bash("cat s*/new.pem", ctx).behavior == "ask"


def test_writes_that_may_reach_a_denied_file_ask_in_bypass_mode(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}}, mode="bypassPermissions")
    assert behaviors(["echo x > .e*x", "cp README.md $DEST", "echo x > .e*"], ctx) == {
        "echo x > .e*x": "allow",  # cannot be .env
        "cp README.md $DEST": "ask",
        "echo x > .e*": "deny",  # matches .env on disk (glob_disk.py)
    }


def test_searches_stay_asks_in_default_mode_and_run_without_deny_rules(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES}})
    assert behaviors(["grep -rn FIXME .", "git grep FIXME", "grep -rn FIXME src"], ctx) == {
        "grep -rn FIXME .": "ask",
        "git grep FIXME": "ask",
        "grep -rn FIXME src": "allow",
    }
    plain = make_ctx(mode="bypassPermissions")
    assert behaviors(["grep -rn FIXME .", "cat .e*"], plain) == {
        "grep -rn FIXME .": "allow",
        "cat .e*": "allow",
    }


# B. Options of allowed programs that run programs, read files or load code.


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git fetch-pack --upload-pack=sentinel origin", "deny"),
        ("git fetch-pack --exec=sentinel ../r", "deny"),
        ("git send-pack --receive-pack=sentinel host:r main", "deny"),
        ("git send-pack --exec=sentinel host:r main", "deny"),
        ("git archive --remote=host:r --exec=sentinel HEAD", "deny"),
        ("git daemon --access-hook=sentinel", "deny"),
        ("git instaweb --browser=sentinel", "deny"),
        ("git difftool --extcmd=sentinel HEAD", "deny"),
        ("git ls-remote 'ext::sentinel %S'", "deny"),
        ("git archive --remote=ext::sentinel HEAD", "deny"),
        ("git fetch --upload-pack=x ext::sentinel", "deny"),
        ("git filter-repo --blob-callback 'return'", "deny"),
        ("git push ./bare.git main", "deny"),
        ("git difftool HEAD~1", "ask"),
        ("git mergetool --tool=vimdiff", "ask"),
        ("git help --web log", "ask"),
        ("git push origin main", "allow"),
        ("git push . HEAD:other", "allow"),
    ],
)
def test_git_options_that_run_programs(
    command: str, expected: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"deny": DENY_BASH, "allow": ["Bash(git *)"]}})
    assert bash(command, ctx).behavior == expected, bash(command, ctx)


def test_a_revision_that_is_not_a_literal_may_name_a_denied_file(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    assert bash('git cat-file -p "$(git rev-parse HEAD):.env"', ctx) == Decision(
        "ask", "Read(./.env)", "may read .env, which deny rule Read(./.env) covers"
    )
    assert bash("git show $REV", ctx).behavior == "ask"
    # Without a Read deny rule there is nothing for it to name.
    free = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    assert bash("git show $REV", free).behavior == "allow"


def test_find_reads_its_list_of_starting_points(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(find *)"]}})
    assert bash("find -files0-from secrets/api.key -name x", ctx).behavior == "deny"
    # The list may name anything, a denied file too.
    assert bash("find -files0-from list.txt", ctx).behavior == "ask"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest -W ignore::mypkg.MyWarning", "deny"),
        ("pytest --pythonwarnings=error::a.b.C:x", "deny"),
        ("python -m pytest -W error::pkg.Warn tests", "deny"),
        ("pytest -W error::DeprecationWarning", "allow"),
        ("pytest -W ignore", "allow"),
        ("pytest tests/test_x.py::test_y", "allow"),
        ("pytest /srv/other/tests", "ask"),
        ("pytest ../neighbour", "ask"),
        ("cd .. && pytest", "ask"),
    ],
)
def test_pytest_code_from_elsewhere(command: str, expected: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(
        {
            "permissions": {
                "deny": DENY_BASH,
                "allow": ["Bash(pytest *)", "Bash(python -m pytest *)", "Bash(cd *)"],
            }
        }
    )
    assert bash(command, ctx).behavior == expected, bash(command, ctx)


# C. git writing protected paths.

PROTECTED_WRITES = [
    "git checkout-index --prefix=.tether/ permissions.yaml",
    "git checkout-index -f --prefix=sub/.git/hooks/ post-checkout",
    "git checkout-index --all --prefix=.vscode/",
    "git mv notes.md .mcp.json",
    "git mv hook .husky/pre-commit",
    "git restore --source=HEAD~3 .claude/settings.json",
    "git checkout HEAD~1 -- .tether/permissions.yaml",
    "git rm --cached .claude/settings.local.json",
]


def test_git_writes_to_protected_paths_ask_under_an_allow_rule(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"]}}, mode="acceptEdits")
    assert behaviors(PROTECTED_WRITES, ctx) == dict.fromkeys(PROTECTED_WRITES, "ask")
    assert bash("git mv notes.md docs/notes.md", ctx).behavior == "allow"


def test_git_writes_meet_edit_deny_rules(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENIES, "allow": ["Bash(git *)"]}})
    assert bash("git restore .env", ctx).behavior == "deny"
    assert bash("git checkout-index --prefix=./ .env", ctx).behavior == "deny"


def test_git_subcommands_that_write_the_tree_are_not_read_only(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx(mode="plan")
    commands = ["git checkout main", "git restore x", "git reset --hard", "git stash pop"]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "deny")


# D. A git repository not named `.git`.


@pytest.mark.parametrize(
    "command",
    [
        "git --git-dir=store status",
        "git --git-dir store log",
        "git --git-dir=$D status",
        "git -C sub --git-dir=../store diff",
    ],
)
def test_a_git_dir_outside_a_dot_git_directory_is_hidden_code(
    command: str, make_ctx: ContextFactory
) -> None:
    denying = make_ctx({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(git *)"]}})
    assert bash(command, denying).behavior == "deny"
    for mode in ("default", "plan"):
        plain = make_ctx(mode=mode)
        assert bash(command, plain).behavior == ("deny" if mode == "plan" else "ask")


def test_a_git_dir_inside_dot_git_is_judged_as_usual(make_ctx: ContextFactory) -> None:
    ctx = make_ctx()
    assert bash("git --git-dir=.git status", ctx).behavior == "ask"  # a location option
    allowed = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    assert bash("git --git-dir=sub/.git log", allowed).behavior == "allow"


def _bare_repository_with_fsmonitor(root: Path) -> Path:
    """What Write calls may leave in a workspace: a directory git takes for a bare repository,
    whose config runs a program at the next `git status`."""
    marker = root / "ran"
    program = root / "monitor"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(0o755)
    store = root / "store"
    (store / "objects").mkdir(parents=True)
    (store / "refs").mkdir()
    (store / "HEAD").write_text("ref: refs/heads/main\n")
    (store / "config").write_text(
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n"
        f"\tfsmonitor = {program}\n"
    )
    return store


def test_the_bash_environment_keeps_git_from_finding_other_repositories(
    tmp_path: Path,
) -> None:
    store = _bare_repository_with_fsmonitor(tmp_path)
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    # Without the setting git finds it and runs the program: the test would see a bypass.
    subprocess.run(["git", "status"], cwd=store, env=base, capture_output=True, check=False)
    assert (tmp_path / "ran").exists()
    (tmp_path / "ran").unlink()
    env = command_environment(base, store)
    run = subprocess.run(["git", "status"], cwd=store, env=env, capture_output=True, text=True)
    assert (run.returncode, (tmp_path / "ran").exists()) == (128, False)
    assert "safe.bareRepository" in run.stderr
    # A repository named explicitly still works (and is judged by the engine instead).
    named = subprocess.run(
        ["git", "--git-dir=.", "rev-parse", "--git-dir"], cwd=store, env=env, capture_output=True
    )
    assert named.returncode == 0


def test_the_bash_environment_keeps_the_users_git_settings() -> None:
    env = command_environment(
        {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"},
        Path("/"),
    )
    assert {k: v for k, v in env.items() if k.startswith("GIT_CONFIG")} == {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "user.name",
        "GIT_CONFIG_VALUE_0": "me",
        "GIT_CONFIG_KEY_1": "safe.bareRepository",
        "GIT_CONFIG_VALUE_1": "explicit",
    }


# E. Deny and ask rules see options as a set.


@pytest.mark.parametrize(
    "command",
    [
        "rm -fr build",
        "rm -r -f build",
        "rm -R --force build",
        "rm -fRv build",
        "rm --recursive -f build",
        "rm --recur --forc build",
        "rm build -rf",
        "rm -i -rf build",
        "/bin/rm -rf build",
        "git push -f origin main",
        "git push origin main --force-with-lease",
        "git -C . push --force origin",
    ],
)
def test_deny_rules_match_options_in_any_spelling(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": DENY_BASH}}, mode="bypassPermissions")
    assert bash(command, ctx).behavior == "deny"


def test_option_sets_widen_deny_and_ask_rules_only(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(
        {"permissions": {"ask": ["Bash(git branch -D *)"], "allow": ["Bash(rm -r *)"]}},
        mode="default",
    )
    assert bash("git branch --delete --force old", ctx).behavior == "ask"
    assert bash("rm -r build", ctx).behavior == "allow"
    # An allow rule does not cover more options than it names.
    assert bash("rm -rf build", ctx).behavior == "ask"
    # Nor does a deny rule stop a command lacking one of its options.
    denying = make_ctx({"permissions": {"deny": DENY_BASH}}, mode="bypassPermissions")
    assert behaviors(["rm -r build", "rm -f x", "git push origin main"], denying) == {
        "rm -r build": "allow",
        "rm -f x": "allow",
        "git push origin main": "allow",
    }


# What tether sets for safety in the Bash environment cannot be taken away unasked.

TAKES_THE_GUARD_AWAY = [
    "env -u GIT_CONFIG_COUNT git status",
    "env --unset=GIT_CONFIG_COUNT git status",
    "env --unset GIT_CONFIG_COUNT git status",
    "env -vu GIT_CONFIG_COUNT git status",
    "env -i git status",
    "env -iv git status",
    "env --ignore-environment git status",
    "env - git status",
    "env -S '-u GIT_CONFIG_COUNT git status'",
    "nice -n 1 env -i git status",
    "timeout 20 env -u GIT_CONFIG_COUNT git status",
    "bash -c 'exec -c git status'",
    "exec -c git status",
    "setpriv --reset-env git status",
    "unset GIT_CONFIG_COUNT; git status",
    "unset -v GIT_CONFIG_COUNT && git status",
    "export -n GIT_CONFIG_COUNT; git status",
    "declare +x GIT_CONFIG_COUNT; git status",
    "GIT_CONFIG_COUNT=0 git status",
    "export GIT_CONFIG_COUNT=0; git status",
    "GIT_CONFIG_PARAMETERS=\"'safe.bareRepository'='all'\" git status",
    "git -c safe.bareRepository=all status",
    "MODE=all git --config-env=safe.bareRepository=MODE status",
    'name=GIT_CONFIG_COUNT; env -u "$name" git status',
    "find . -maxdepth 0 -exec env -i git status \\;",
    "echo . | xargs env -u GIT_CONFIG_COUNT git status",
]


def test_no_command_that_takes_the_git_guard_away_is_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    """Each command runs for real, with real git, in the Bash tool's environment, inside a
    directory git would take for a bare repository whose config runs a program: whatever
    git does, the engine must not have allowed it unasked (default mode, no rules)."""
    store = _bare_repository_with_fsmonitor(tree.ws)
    marker = tree.ws / "ran"
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env = command_environment(base, store)
    ctx = make_ctx(cwd=store)
    allowed_and_ran: list[str] = []
    ran: list[str] = []
    for command in TAKES_THE_GUARD_AWAY:
        marker.unlink(missing_ok=True)
        subprocess.run(["bash", "-c", command], cwd=store, env=env, capture_output=True)
        if marker.exists():
            ran.append(command)
            if bash(command, ctx).behavior == "allow":
                allowed_and_ran.append(command)
    assert allowed_and_ran == []
    # The test has teeth: most of these do run the planted program once the guard is gone.
    assert len(ran) >= len(TAKES_THE_GUARD_AWAY) // 2, ran
    assert behaviors(TAKES_THE_GUARD_AWAY, ctx) == dict.fromkeys(TAKES_THE_GUARD_AWAY, "ask")


def test_commands_that_keep_the_guard_are_still_allowed(make_ctx: ContextFactory) -> None:
    keep = ["git status", "env -u LANGUAGE git status", "env FOO=1 git log -1"]
    assert behaviors(keep, make_ctx()) == dict.fromkeys(keep, "allow")


def test_the_safety_variables_are_dangerous_ones() -> None:
    from tether.permissions.dangerous_variables import SAFETY_VARIABLES, is_dangerous_variable

    set_by_the_tool = {
        name
        for name in command_environment({}, Path("/"))
        if name.startswith("GIT_CONFIG") or name in ("CDPATH",)
    }
    assert {"GIT_CONFIG_COUNT", "CDPATH"} <= set_by_the_tool
    assert set_by_the_tool >= SAFETY_VARIABLES
    assert all(is_dangerous_variable(name) for name in set_by_the_tool)


# `git SUB` runs the program `git-SUB` from PATH when SUB is none of git's own commands.


def test_a_subcommand_git_does_not_have_is_the_program_it_runs(
    tree: Tree, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "ran"
    for name in ("git-tidy", "git-st"):
        program = bin_dir / name
        program.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\n')
        program.chmod(0o755)
    subprocess.run(["git", "init", "-q", str(tree.ws)], check=True)
    home = tmp_path / "git-home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[alias]\n\tsync = !touch {tmp_path / 'alias-ran'}\n")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home)}
    env = command_environment({k: v for k, v in env.items() if not k.startswith("GIT_")}, tree.ws)
    for command in ("git tidy --all", "git st", "git -C . --no-pager tidy", "git sync"):
        subprocess.run(["bash", "-c", command], cwd=tree.ws, env=env, capture_output=True)
    # What ran, for real: the programs on PATH, and the alias's command.
    assert marker.read_text().count("git-tidy") == 2
    assert "git-st" in marker.read_text()
    assert (tmp_path / "alias-ran").exists()

    wide = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    asked = ["git tidy --all", "git st", "git -C . --no-pager tidy", "git sync", "git $SUB x"]
    assert behaviors(asked, wide) == dict.fromkeys(asked, "ask")
    assert "runs `git-tidy`, which git finds on PATH" in bash("git tidy --all", wide).reason
    # git's own commands stay covered by the wide rule, and read-only ones need none.
    own = ["git status", "git log -1", "git commit -m x", "git submodule status"]
    assert behaviors(own, wide) == dict.fromkeys(own, "allow")
    assert bash("git status", make_ctx()).behavior == "allow"
    assert bash("git st", make_ctx()).behavior == "ask"
    # A rule naming the subcommand, or the program, allows it; a deny on the program denies.
    named = make_ctx({"permissions": {"allow": ["Bash(git tidy *)", "Bash(git-st)"]}})
    assert behaviors(["git tidy --all", "git st", "git sync"], named) == {
        "git tidy --all": "allow",
        "git st": "allow",
        "git sync": "ask",
    }
    denied = make_ctx(
        {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git-tidy *)"]}},
        mode="bypassPermissions",
    )
    assert bash("git --no-pager tidy --all", denied).behavior == "deny"


# git writing the working tree from commits or patches, with the sandbox off.

GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@t"]


def _repository_with_a_planted_branch(ws: Path) -> None:
    """A repository whose branch `topic` adds a settings file with a hook and an MCP server,
    and whose stash holds the same: what `git checkout topic`, `git merge topic`, `git stash
    pop`... write into the working tree."""

    def git(*args: str) -> None:
        subprocess.run(["git", *GIT_ID, *args], cwd=ws, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (ws / "README").write_text("readme\n")
    git("add", "README")
    git("commit", "-qm", "one")
    git("checkout", "-qb", "topic")
    (ws / ".claude").mkdir(exist_ok=True)
    (ws / ".claude" / "settings.json").write_text('{"hooks": {"SessionStart": []}}\n')
    (ws / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "x"}}}\n')
    git("add", "-A")
    git("commit", "-qm", "topic")
    (ws / "patch.diff").write_text(
        subprocess.run(
            ["git", "format-patch", "-1", "--stdout"], cwd=ws, check=True, capture_output=True,
            text=True,
        ).stdout
    )  # fmt: skip
    git("checkout", "-q", "main")


WRITES_THE_TREE = [
    "git checkout topic",
    "git checkout -q topic --",
    "git switch topic",
    "git merge topic",
    "git merge --ff-only topic",
    "git cherry-pick topic",
    "git reset --hard topic",
    "git read-tree -u -m topic",
    "git apply patch.diff",
    "git am patch.diff",
    "git -c core.hooksPath=/dev/null pull . topic",
    "git rebase topic",
    "git restore --source topic .",
    "git checkout topic -- .",
    "git stash pop",
    "git clean -fd",
]
LEAVES_THE_TREE = [
    *("git checkout -b other", "git switch -c other", "git reset HEAD", "git stash list"),
    *("git apply --check patch.diff", "git clean -n", "git commit -m x", "git add -A"),
    *("git log -1", "git merge --quit"),
]


def test_git_writing_the_tree_from_commits_is_asked_when_the_sandbox_is_off(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    _repository_with_a_planted_branch(tree.ws)
    ws = tree.ws
    start = subprocess.run(["git", "rev-parse", "main"], cwd=ws, capture_output=True, text=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *GIT_ID, *args], cwd=ws, capture_output=True)

    def protected_state() -> dict[str, str | None]:
        files = (".claude/settings.json", ".claude/settings.local.json", ".mcp.json")
        return {f: (ws / f).read_text() if (ws / f).exists() else None for f in files}

    # What these do, for real: each writes (or, clean, deletes) protected files.
    wrote: list[str] = []
    for command in WRITES_THE_TREE:
        git("am", "--abort")
        git("update-ref", "refs/heads/main", start.stdout.strip())
        git("checkout", "-qf", "main")
        git("reset", "-q", "--hard", "main")
        git("clean", "-qfd", "-e", "patch.diff")
        if command == "git stash pop":
            git("checkout", "-q", "topic", "--", ".")
            git("stash", "-q")
        if command == "git clean -fd":
            (ws / ".claude").mkdir(exist_ok=True)
            (ws / ".claude" / "settings.local.json").write_text('{"permissions": {}}\n')
        before = protected_state()
        subprocess.run(["bash", "-c", command.replace("git ", "git -c user.name=t -c "
                        "user.email=t@t ", 1)], cwd=ws, capture_output=True)  # fmt: skip
        if protected_state() != before:
            wrote.append(command)
    assert wrote == WRITES_THE_TREE
    # The stash pop takes from, as it was when it wrote them (without one it writes nothing).
    git("checkout", "-q", "topic", "--", ".")
    git("stash", "-q")

    rules = {"permissions": {"allow": ["Bash(git *)"]}}
    for mode in ("default", "acceptEdits"):
        off = make_ctx(rules, mode=mode)
        assert behaviors(WRITES_THE_TREE, off) == dict.fromkeys(WRITES_THE_TREE, "ask")
        assert behaviors(LEAVES_THE_TREE, off) == dict.fromkeys(LEAVES_THE_TREE, "allow")
    # git is asked which files each writes: the question names the protected one.
    reason = bash("git checkout topic", make_ctx(rules)).reason
    assert ".claude/settings.json" in reason or ".mcp.json" in reason, reason
    # Where git cannot tell (the commits `pull` merges are not fetched yet), the question is
    # on whatever a commit may hold.
    reason = bash("git pull . topic", make_ctx(rules)).reason
    assert "git pull writes the files of commits it has not fetched yet" in reason
    assert "the sandbox is off" in reason
    # bypassPermissions writes them, as it writes protected files; so does a sandboxed session,
    # where the sandbox keeps them read-only.
    bypass = make_ctx(rules, mode="bypassPermissions")
    assert behaviors(WRITES_THE_TREE, bypass) == dict.fromkeys(WRITES_THE_TREE, "allow")
    sandboxed = make_ctx(rules, bash_sandboxed=True)
    # (Three are asked for reasons of their own: a write of the workspace directory itself,
    # a git setting not known to be harmless.)
    own_reasons = {"git checkout topic -- .", "git restore --source topic .",
                   "git -c core.hooksPath=/dev/null pull . topic"}  # fmt: skip
    assert behaviors(WRITES_THE_TREE, sandboxed) == {
        c: "ask" if c in own_reasons else "allow" for c in WRITES_THE_TREE
    }
    assert not any("sandbox is off" in bash(c, sandboxed).reason for c in own_reasons)
    # Not read-only either way (plan mode refuses them).
    plan = make_ctx(rules, mode="plan", bash_sandboxed=True)
    assert behaviors(WRITES_THE_TREE[:3], plan) == dict.fromkeys(WRITES_THE_TREE[:3], "deny")


def test_restoring_only_the_index_writes_no_file(tree: Tree, make_ctx: ContextFactory) -> None:
    """`git restore --staged` (`-S`) puts back the index and writes no file of the working
    tree, so it is not asked like a checkout; with `--worktree` (`-W`) it is."""
    _repository_with_a_planted_branch(tree.ws)
    ws = tree.ws
    subprocess.run(["git", "restore", "--staged", "--source", "topic", "README"], cwd=ws)
    subprocess.run(["git", "restore", "-S", "-s", "topic", "--", ".mcp.json"], cwd=ws)
    assert (ws / ".mcp.json").exists() is False
    ctx = make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    only_index = ["git restore --staged README", "git restore -S --source topic README"]
    both = ["git restore --staged --worktree README", "git restore -S -W README"]
    assert behaviors([*only_index, *both], ctx) == {
        **dict.fromkeys(only_index, "allow"),
        **dict.fromkeys(both, "ask"),
    }
