"""Git configuration and hooks a sandboxed command makes where no protected path stands (a
new nested repository, a `.git` file pointing into TMPDIR) are disabled when the command ends,
before a git outside runs them; the originals are kept beside them. Measured before: a nested
repository's `core.fsmonitor`, with a gitlink in the parent's index, ran at the user's next
`git status` outside."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

from tether.protocol import ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.registry import ToolRegistry

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

GIT = ["git", "-c", "safe.directory=*", "-c", "user.name=t", "-c", "user.email=t@example.org"]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def _repository(layout: Layout) -> None:
    _git(layout.workspace, "init", "-q")
    (layout.workspace / "README").write_text("x\n")
    _git(layout.workspace, "add", "README")
    _git(layout.workspace, "commit", "-q", "-m", "first")
    layout.hand_over()


@needs_bwrap
async def test_a_nested_repositorys_fsmonitor_does_not_run_at_gits_status_outside(
    boundary: Layout,
) -> None:
    _repository(boundary)
    ran = boundary.outside / "ran"
    boundary.outside.chmod(0o777)
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=(
            "git init -q vendor && git -C vendor -c user.name=a -c user.email=a@b commit -q "
            f"--allow-empty -m v && git -C vendor config core.fsmonitor 'echo RAN > {ran}; false'"
            " && printf '#!/bin/sh\\necho HOOK > " + str(ran) + "\\n' > vendor/.git/hooks/"
            "post-index-change && chmod +x vendor/.git/hooks/post-index-change && "
            "git update-index --add --cacheinfo 160000,$(git -C vendor rev-parse HEAD),vendor"
            ' && git init -q --separate-git-dir "$TMPDIR/elsewhere" other && '
            f"git -C other config core.pager 'echo RAN > {ran}' && echo made"
        )
    )
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made")
    vendor = boundary.workspace / "vendor" / ".git"
    # Told, and nothing lost: the originals are beside, where git does not read them.
    assert f"{vendor / 'config'} set core.fsmonitor" in outcome.content
    assert "post-index-change" in outcome.content
    assert "core.pager" in outcome.content
    assert "fsmonitor" in (vendor / "config.tether-disabled").read_text()
    assert (vendor / "hooks.tether-disabled" / "post-index-change").exists()
    # What git needs to run there is kept.
    assert "repositoryformatversion" in (vendor / "config").read_text()
    _git(boundary.workspace, "status")
    _git(boundary.workspace / "vendor", "status")
    _git(boundary.workspace / "other", "log")
    assert not os.path.exists(ran)


@needs_bwrap
async def test_the_users_own_repositories_are_left_alone(layout: Layout) -> None:
    """A nested repository there before the session keeps its config: every command had it
    read-only, so what it says is the user's."""
    _repository(layout)
    nested = layout.workspace / "lib"
    _git(layout.workspace, "init", "-q", "lib")
    _git(nested, "config", "core.pager", "less -R")
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(command="git -C lib config core.pager; echo done")
    assert outcome.content == "less -R\ndone"
    # The user changes it outside meanwhile (`git push -u`, `git config`): still theirs, since
    # every command had it read-only.
    _git(nested, "config", "core.editor", "vim")
    _git(layout.workspace, "config", "core.pager", "less")
    outcome = await run(command="echo again")
    assert outcome.content == "again"
    assert not (nested / ".git" / "config.tether-disabled").exists()
    assert not (layout.workspace / ".git" / "config.tether-disabled").exists()


@needs_bwrap
async def test_a_linked_config_and_a_new_submodule_directory_are_disabled(
    layout: Layout,
) -> None:
    """A config that is a link (git follows it; its target, a plain file, stays writable) and
    a git directory made under the workspace's own `.git/modules`."""
    _repository(layout)
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(
        command=(
            "git init -q linked && printf '[core]\\n\\tpager = evil\\n' > plain.cfg && "
            "ln -sf ../../plain.cfg linked/.git/config && "
            "git init -q --bare .git/modules/evil && "
            "git --git-dir=.git/modules/evil config core.sshCommand evil && echo made"
        )
    )
    assert isinstance(outcome.content, str)
    linked = layout.workspace / "linked" / ".git" / "config"
    module = layout.workspace / ".git" / "modules" / "evil" / "config"
    assert "(a symbolic link)" in outcome.content
    assert f"{module} set core.sshcommand" in outcome.content
    assert not linked.is_symlink()
    assert "evil" not in linked.read_text()
    assert "sshcommand" not in module.read_text().lower()
    assert "sshCommand" in module.with_name("config.tether-disabled").read_text()


@needs_bwrap
async def test_a_deep_repository_there_before_is_judged_once_changed(layout: Layout) -> None:
    """Repositories deeper than the protected paths look are writable inside: one there
    before the session is left as it was until a command changes its config."""
    _repository(layout)
    deep = layout.workspace / "a" / "b" / "c" / "d" / "repo"
    deep.mkdir(parents=True)
    _git(deep, "init", "-q")
    run = bash_runner(sandboxed_context(layout))
    first = await run(command="echo first")
    assert first.content == "first"
    outcome = await run(command="git -C a/b/c/d/repo config core.pager evil && echo set")
    assert isinstance(outcome.content, str)
    assert "core.pager" in outcome.content
    assert "evil" not in (deep / ".git" / "config").read_text()


@needs_bwrap
async def test_bare_repositories_and_mercurials_config_made_inside_are_disabled(
    boundary: Layout,
) -> None:
    """Not only `.git` directories: a bare repository (`HEAD`, `objects/`, `refs/` at its
    top, whatever its name) and a new `.hg/hgrc` run programs at the user's next git or hg
    there (a pager, a hook, an alias); made inside, they are disabled when the command ends."""
    _repository(boundary)
    ran = boundary.outside / "ran"
    boundary.outside.chmod(0o777)
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=(
            "git init -q --bare tools/mirror && "
            f"git --git-dir=tools/mirror config core.pager 'echo RAN > {ran}' && "
            f"printf '#!/bin/sh\\necho HOOK > {ran}\\n' > tools/mirror/hooks/pre-receive && "
            "chmod +x tools/mirror/hooks/pre-receive && "
            "mkdir -p lib/vendored/.hg && printf '[paths]\\ndefault = https://example.org/r\\n"
            f"[hooks]\\npre-status = echo RAN > {ran}\\n' > lib/vendored/.hg/hgrc && "
            "mkdir -p lib/plain/.hg && printf '[paths]\\ndefault = https://example.org/p\\n' "
            "> lib/plain/.hg/hgrc && echo made"
        )
    )
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made")
    bare = boundary.workspace / "tools" / "mirror"
    assert f"{bare / 'config'} set core.pager" in outcome.content
    assert (bare / "hooks.tether-disabled" / "pre-receive").exists()
    assert "pager" not in (bare / "config").read_text()
    # The user pushes to it outside: no hook of the command's runs.
    # (The receiving git gets no `-c` through a local push: named on its own command line.)
    receive = "--receive-pack=git -c safe.directory=* receive-pack"
    pushed = _git(boundary.workspace, "push", receive, str(bare), "HEAD:refs/heads/main")
    assert "main" in pushed
    assert not ran.exists()
    hg = boundary.workspace / "lib" / "vendored" / ".hg"
    assert f"{hg / 'hgrc'} set what hg outside" in outcome.content
    assert (hg / "hgrc").read_text() == "[paths]\ndefault = https://example.org/r\n"
    assert "pre-status" in (hg / "hgrc.tether-disabled").read_text()
    # An hgrc that only says where from (what `hg clone` writes) is left as it is.
    plain = boundary.workspace / "lib" / "plain" / ".hg"
    assert sorted(p.name for p in plain.iterdir()) == ["hgrc"]


@needs_bwrap
async def test_a_background_commands_repository_is_swept_when_its_output_is_read(
    boundary: Layout,
) -> None:
    """While a background command still runs, what it made so far that git outside would run
    is disabled when its output is read (before, only once it ended)."""
    _repository(boundary)
    ran = boundary.outside / "ran"
    boundary.outside.chmod(0o777)
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    registry = ToolRegistry(builtin_tools())
    go_on = boundary.workspace / "go-on"
    started = await run(
        command=(
            "git init -q pkg/inner && "
            f"git -C pkg/inner config core.fsmonitor 'echo RAN > {ran}; false' && "
            "echo configured && while [ ! -e go-on ]; do sleep 0.05; done"
        ),
        run_in_background=True,
    )
    assert isinstance(started.content, str)
    shell_id = started.content.split("Started background command ")[1].split(" ")[0]
    config = boundary.workspace / "pkg" / "inner" / ".git" / "config"
    read = ""
    async with asyncio.timeout(60):  # a guard only: the command says when it is done
        while "configured" not in read:  # its own word that the config is written
            outcome = await registry.run(
                ToolUseBlock(id="r", name="BashOutput", input={"bash_id": shell_id}), ctx
            )
            assert isinstance(outcome.content, str)
            read += outcome.content
            await asyncio.sleep(0.05)
    assert f"{config} set core.fsmonitor" in read
    assert "fsmonitor" not in config.read_text()
    assert "Status: running" in read
    go_on.write_text("")
    await end_session(ctx)


@needs_bwrap
async def test_a_repository_below_a_directory_that_looks_bare_is_swept(layout: Layout) -> None:
    """Making a directory look like a bare repository does not hide a repository below it
    from the sweep."""
    _repository(layout)
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(
        command=(
            "mkdir -p decoy/objects decoy/refs && echo 'ref: refs/heads/x' > decoy/HEAD && "
            "git init -q decoy/inner && git -C decoy/inner config core.fsmonitor 'echo RAN' "
            "&& git init -q decoy/objects/ab && git -C decoy/objects/ab config core.pager "
            "'echo RAN' && echo made"
        )
    )
    assert isinstance(outcome.content, str)
    for inner, key in (("inner", "core.fsmonitor"), ("objects/ab", "core.pager")):
        config = layout.workspace / "decoy" / inner / ".git" / "config"
        assert f"{config} set {key}" in outcome.content
        assert key.split(".")[1] not in config.read_text()


@needs_bwrap
async def test_a_repository_in_a_skipped_directory_with_a_gitlink_is_swept(
    boundary: Layout,
) -> None:
    """The walk skips dependency directories (`node_modules`...); a repository made there
    with a gitlink to it in the index (git outside enters it at `git status`) is swept all
    the same: the index says where to look."""
    _repository(boundary)
    ran = boundary.outside / "ran"
    boundary.outside.chmod(0o777)
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=(
            "git init -q .venv/lib/pkg && git -C .venv/lib/pkg -c user.name=a -c user.email=a@b "
            "commit -q --allow-empty -m v && "
            f"git -C .venv/lib/pkg config core.fsmonitor 'echo RAN > {ran}; false' && "
            "git update-index --add --cacheinfo "
            "160000,$(git -C .venv/lib/pkg rev-parse HEAD),.venv/lib/pkg && echo made"
        )
    )
    assert isinstance(outcome.content, str)
    config = boundary.workspace / ".venv" / "lib" / "pkg" / ".git" / "config"
    assert f"{config} set core.fsmonitor" in outcome.content
    _git(boundary.workspace, "status")
    assert not ran.exists()


@needs_bwrap
async def test_a_config_file_git_includes_made_by_a_command_is_not_read_outside(
    boundary: Layout,
) -> None:
    """`include.path` (and `includeIf`) naming a file that is missing at the start: one a
    command makes there would be read by the user's next git, its `core.fsmonitor` run
    (measured before: it ran, as root and as another user)."""
    _git(boundary.workspace, "init", "-q")
    config = boundary.workspace / ".git" / "config"
    with config.open("a") as out:
        out.write("[include]\n\tpath = ../.gitconfig.local\n\tpath = local.cfg\n")
        out.write('[includeIf "onbranch:*"]\n\tpath = ../conf/branch.cfg\n')
    (boundary.workspace / "conf").mkdir()
    boundary.hand_over()
    ran = boundary.outside / "ran"
    boundary.outside.chmod(0o777)
    monitor = f"[core]\\n\\tfsmonitor = echo RAN >> {ran}; false\\n"
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=(
            f"printf '{monitor}' > .gitconfig.local && printf '{monitor}' > .git/local.cfg"
            f" && printf '{monitor}' > conf/branch.cfg && echo made"
        )
    )
    await end_session(sandboxed_context(boundary))
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made"), outcome.content
    for made in (".gitconfig.local", ".git/local.cfg", "conf/branch.cfg"):
        assert not (boundary.workspace / made).exists(), made
        assert "fsmonitor" in (boundary.workspace / f"{made}.tether-disabled").read_text(), made
    _git(boundary.workspace, "status")
    assert not ran.exists()


@needs_bwrap
async def test_a_submodules_git_directory_made_before_git_makes_it_is_swept(
    boundary: Layout,
) -> None:
    """`.git/modules/NAME` for a submodule with no git directory yet: git reuses a directory
    it finds there at the user's next `submodule update --init`, and runs its hooks. Made
    with a hook only, or only a `commondir` that sends git elsewhere, it is judged as a git
    directory: the hooks moved aside, the config rewritten."""
    _repository(boundary)
    hook = "printf '#!/bin/sh\\necho RAN\\n' > {d}/hooks/post-checkout && chmod +x {d}/hooks/*"
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=" && ".join(
            [
                "mkdir -p .git/modules/x/hooks .git/modules/vendor/lib/hooks",
                hook.format(d=".git/modules/x"),
                hook.format(d=".git/modules/vendor/lib"),
                "mkdir -p .git/modules/y elsewhere/hooks && echo ../../../elsewhere > "
                ".git/modules/y/commondir",
                "printf '[core]\\n\\tfsmonitor = evil\\n' > elsewhere/config",
                hook.format(d="elsewhere"),
                "echo made",
            ]
        )
    )
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made"), outcome.content
    ws = boundary.workspace
    for directory in (ws / ".git/modules/x", ws / ".git/modules/vendor/lib", ws / "elsewhere"):
        assert not (directory / "hooks" / "post-checkout").exists(), directory
        assert (directory / "hooks.tether-disabled" / "post-checkout").is_file(), directory
    assert "fsmonitor" not in (ws / "elsewhere" / "config").read_text()
