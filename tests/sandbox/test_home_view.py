"""The home is hidden from sandboxed commands, not a list of places in it: a credential no
deny list names stays out of reach, while the toolchains installed there, the workspace and
what the user lists in `sandbox.readable` are in view. Live, through the Bash tool, for root
and an unprivileged caller, with a temporary home (never the real one)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tether.home_files import HOME_SECRETS
from tether.sandbox import describe_limits
from tether.sandbox.home_view import HOME_TOOLCHAINS
from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    SandboxWrapper,
    bash_runner,
    end_session,
    needs_bwrap,
    sandboxed_context,
    snapshot,
)
from .test_home import git_init

pytestmark = needs_bwrap

UNLISTED = [
    "notes.txt",
    "Documents/bank.csv",
    ".unknown-cli/token",
    ".local/share/some-app/session.db",
    ".cache/app/cookies",
    ".gitconfig",
]
"""Places in the home that hold a secret and that no deny list names (and two it does name)."""
LISTED = [".netrc", ".docker/config.json"]
TOOLCHAINS = {
    ".local/bin/tool": "tool\n",
    ".pyenv/versions/3.12.0/bin/python": "python\n",
    ".cargo/bin/cargo": "cargo\n",
    ".rustup/toolchains/stable/bin/rustc": "rustc\n",
    "go/bin/gopls": "gopls\n",
}


def plant(home: Path, names: list[str], text: str = "SECRET\n") -> None:
    for name in names:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)


def reads(paths: list[Path]) -> str:
    """A command printing what it could read of each path, or `-` for nothing (a hidden file
    may read as empty)."""
    return "; ".join(f"(cat {p} 2>/dev/null | grep . || echo -)" for p in paths)


def home_as_workspace(layout: Layout) -> Layout:
    return dataclasses.replace(layout, workspace=layout.home)


async def test_unlisted_credentials_in_the_home_cannot_be_read(boundary: Layout) -> None:
    """The measured class: `~/.netrc`, `~/.git-credentials`, a token in `~/notes.txt`..."""
    home = boundary.home
    plant(home, UNLISTED + LISTED)
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command=f"{reads([home / n for n in UNLISTED + LISTED])}; ls -A {home}")
    assert outcome == ToolOutcome("\n".join("-" * len(UNLISTED + LISTED)), False)


async def test_toolchains_in_the_home_are_readable_and_not_writable(boundary: Layout) -> None:
    home = boundary.home
    for name, text in TOOLCHAINS.items():
        plant(home, [name], text)
    plant(home, [".cargo/credentials.toml", ".pypirc"])
    boundary.hand_over()
    before = snapshot(home)
    run = bash_runner(sandboxed_context(boundary))
    paths = [home / n for n in TOOLCHAINS]
    outcome = await run(
        command=f"{reads([*paths, home / '.cargo/credentials.toml', home / '.pypirc'])}; "
        f"(echo x > {paths[0]}; echo x > {home}/.local/bin/new) 2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("".join(TOOLCHAINS.values()) + "-\n-\ndone", False)
    assert snapshot(home) == before


async def test_the_environments_virtualenv_and_path_directories_are_readable(
    boundary: Layout,
) -> None:
    home = boundary.home
    plant(home, ["envs/app/bin/python", "tools/bin/fmt"], "ok\n")
    boundary.hand_over()
    environ = {"PATH": f"{home}/tools/bin:/usr/bin:/bin", "VIRTUAL_ENV": f"{home}/envs/app"}
    run = bash_runner(sandboxed_context(boundary, environ))
    outcome = await run(command=reads([home / "envs/app/bin/python", home / "tools/bin/fmt"]))
    assert outcome == ToolOutcome("ok\nok", False)


async def test_sandbox_readable_shows_a_path_read_only(boundary: Layout) -> None:
    home = boundary.home
    plant(home, ["data/table.csv", ".config/tool/config.toml", "other.txt"], "shown\n")
    plant(home, [".config/gh/hosts.yml", ".local/share/keyrings/login.keyring"])
    boundary.hand_over()
    before = snapshot(home)
    # Beside what is shown, and a credential place (listed) inside it: hidden still.
    readable = (home / "data", home / ".config" / "tool", home / ".local" / "share")
    run = bash_runner(sandboxed_context(boundary, readable=readable))
    outcome = await run(
        command=f"{reads([home / 'data/table.csv', home / '.config/tool/config.toml'])}; "
        f"{reads([home / '.config/gh/hosts.yml', home / 'other.txt'])}; "
        f"{reads([home / '.local/share/keyrings/login.keyring'])}; "
        f"echo x > {home}/data/table.csv || echo refused"
    )
    assert outcome.content.endswith("Read-only file system\nrefused")
    assert outcome.content.startswith("shown\nshown\n-\n-\n-\n")
    assert snapshot(home) == before


async def test_home_as_workspace_shows_files_hides_dot_entries(boundary: Layout) -> None:
    """tether started in `~`: the top level read-only, dot entries hidden, folders writable,
    the workspace's protected configuration read-only still."""
    layout = home_as_workspace(boundary)
    home = layout.home
    plant(home, ["README.md", "src/main.py"], "visible\n")
    plant(home, [".netrc", ".unknown-cli/token", ".bash_history"])
    plant(home, [".local/bin/tool"], "tool\n")
    layout.hand_over()
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"cd {home} && {reads([home / 'README.md', home / 'src/main.py'])}; "
        f"{reads([home / '.netrc', home / '.unknown-cli/token', home / '.bash_history'])}; "
        f"{reads([home / '.local/bin/tool'])}; echo new > src/new.py && echo wrote; "
        "(echo x > README.md; echo x > top.txt; mkdir .claude; echo {} > .mcp.json) "
        "2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("visible\nvisible\n-\n-\n-\ntool\nwrote\ndone", False)
    await end_session(ctx)
    listed = [".bash_history", ".local", ".netrc", ".unknown-cli", "README.md", "src"]
    assert sorted(os.listdir(home)) == listed
    assert ((home / "README.md").read_text(), (home / "src/new.py").read_text()) == (
        "visible\n",
        "new\n",
    )


async def test_a_dot_entry_linked_elsewhere_is_hidden_where_it_leads(boundary: Layout) -> None:
    """`~/.aws -> /elsewhere/aws`: the link is not followed into view, in a hidden home and
    in a home that is the workspace (where the target is a folder of it)."""
    home, outside = boundary.home, boundary.outside
    plant(outside, ["aws/credentials"])
    plant(home, ["dotfiles/ssh/id_ed25519"])
    (home / ".aws").symlink_to(outside / "aws")
    (home / ".ssh").symlink_to(home / "dotfiles" / "ssh")
    boundary.hand_over()
    paths = [
        home / ".aws/credentials",
        outside / "aws/credentials",
        home / ".ssh/id_ed25519",
        home / "dotfiles/ssh/id_ed25519",
    ]
    for layout in (boundary, home_as_workspace(boundary)):
        run = bash_runner(sandboxed_context(layout))
        assert await run(command=reads(paths)) == ToolOutcome("-\n-\n-\n-", False)


async def test_workspace_and_home_reached_through_symlinks(boundary: Layout) -> None:
    """The workspace named through a link into the home, and the home through a link: both
    resolved, so the workspace is writable and the rest of the home hidden."""
    real_home = boundary.home
    project = real_home / "projects" / "app"
    plant(real_home, ["notes.txt"])
    plant(project, ["main.py"], "code\n")
    (boundary.outside / "app").symlink_to(project)
    (boundary.outside / "home").symlink_to(real_home)
    layout = dataclasses.replace(
        boundary, workspace=boundary.outside / "app", home=boundary.outside / "home"
    )
    layout.hand_over()
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(
        command=f"cat main.py && echo more > more.py && {reads([real_home / 'notes.txt'])}; "
        f"{reads([boundary.outside / 'home/notes.txt'])}"
    )
    assert outcome == ToolOutcome("code\n-\n-", False)
    assert (project / "more.py").read_text() == "more\n"


async def test_commits_keep_the_users_identity(boundary: Layout) -> None:
    """`~/.gitconfig` is hidden (it may hold a token); its identity reaches git anyway."""
    home = boundary.home
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Home User\n\temail = home@example.org\n"
        '[http]\n\textraHeader = "Authorization: Bearer ghp_notarealtoken"\n'
    )
    git_init(boundary.workspace)
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary, {"PATH": os.environ["PATH"]}))
    outcome = await run(
        command="git -c safe.directory='*' commit -q --allow-empty -m m && "
        "git -c safe.directory='*' log -1 --format='%an <%ae>' && "
        f"(cat {home}/.gitconfig 2>/dev/null || echo hidden)"
    )
    assert outcome == ToolOutcome("Home User <home@example.org>\nhidden", False)


def test_no_toolchain_place_is_a_credential_place() -> None:
    secrets = [Path(s) for s in HOME_SECRETS]
    overlaps = [
        t
        for t in map(Path, HOME_TOOLCHAINS)
        if any(t.is_relative_to(s) or s.is_relative_to(t) for s in secrets)
    ]
    assert overlaps == []


async def test_the_model_hears_the_home_is_hidden(boundary: Layout) -> None:
    """In the system prompt, and in the note a failing command gets when it reached for the
    home (not when a file of the workspace is missing)."""
    plant(boundary.home, ["notes.txt"])
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    assert isinstance(ctx.command_wrapper, SandboxWrapper)
    stated = describe_limits(ctx.command_wrapper.sandbox)
    assert (
        f"The home directory ({boundary.home}) is hidden" in stated,
        "ask the user to add its path to `sandbox.readable`" in stated,
    ) == (True, True)
    run = bash_runner(ctx)
    outcome = await run(command=f"cat {boundary.home}/notes.txt")
    assert outcome.content.endswith(
        "No such file or directory\n\n[The sandbox hides the home directory: only the "
        "workspace, toolchains and the paths in `sandbox.readable` are there (read-only). "
        "Ask the user to add what this command needs from the home to `sandbox.readable` in "
        "the settings.]"
    )
    missing = await run(command=f"cat {boundary.workspace}/missing.txt")
    assert missing.content.endswith("missing.txt: No such file or directory")


TOOLCHAIN_CREDENTIALS = [
    ".nvm/versions/node/v20.0.0/etc/npmrc",
    ".asdf/installs/nodejs/20/etc/npmrc",
    ".pyenv/versions/3.12.0/pip.conf",
    "miniconda3/pip.conf",
    "miniconda3/.condarc",
    "miniconda3/envs/app/pip.conf",
    "venv/pip.conf",
    ".opam/config",
    ".bun/install/.npmrc",
    "tools/bin/credentials.json",
]
"""Settings files with registry tokens that tools read from their own install prefix."""


async def test_credentials_inside_shown_toolchains_read_as_empty(boundary: Layout) -> None:
    home = boundary.home
    plant(home, TOOLCHAIN_CREDENTIALS)
    plant(home, [".nvm/versions/node/v20.0.0/bin/node", "miniconda3/bin/python"], "ok\n")
    boundary.hand_over()
    environ = {"PATH": f"{home}/tools/bin:/usr/bin:/bin", "VIRTUAL_ENV": f"{home}/venv"}
    run = bash_runner(sandboxed_context(boundary, environ))
    shown = [home / ".nvm/versions/node/v20.0.0/bin/node", home / "miniconda3/bin/python"]
    outcome = await run(command=reads([home / n for n in TOOLCHAIN_CREDENTIALS] + shown))
    assert outcome == ToolOutcome("-\n" * len(TOOLCHAIN_CREDENTIALS) + "ok\nok", False)


async def test_a_toolchain_linked_to_the_home_or_above_a_credential_shows_nothing(
    boundary: Layout,
) -> None:
    """`~/.local/bin -> ~` would bring the whole home back; `~/.pyenv -> ~/.local/share`
    the unlisted data beside a credential place (`.local/share/keyrings`)."""
    home = boundary.home
    plant(home, [".authinfo", ".ssh/id_rsa", ".local/share/keyrings/login.keyring"])
    plant(home, [".local/share/app/session.db"])
    (home / ".local/bin").symlink_to(home)
    (home / ".pyenv").symlink_to(home / ".local/share")
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    names = [".authinfo", ".local/bin/.authinfo", ".pyenv/app/session.db"]
    names += [".local/share/app/session.db", ".ssh/id_rsa"]
    outcome = await run(command=f"{reads([home / n for n in names])}; ls -A {home} | wc -l")
    assert outcome == ToolOutcome("-\n" * len(names) + "0", False)
