"""Paths judged as the kernel resolves them: symlinks followed component by component before a
later `..`, process directories under /proc unknown, `~user` and `$HOME` expanded, relative
paths from the directory a command really runs in. Real symlinks in a temporary workspace
(the real tools: test_path_resolution_tools.py)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from tether.kernel_paths import expand_tilde, is_process_path, kernel_resolve
from tether.permissions import Decision, Mode, PermissionContext, decide, load_rules

DENY = [
    "Read(./.env)",
    "Edit(./.env)",
    "Read(./secrets/**)",
    "Read(~/.ssh/**)",
    "Read(./.git/self/**)",
]


@dataclass(frozen=True)
class Links:
    ws: Path
    home: Path
    outside: Path


@pytest.fixture
def links(tmp_path: Path) -> Links:
    ws, home, outside = tmp_path / "ws", tmp_path / "home", tmp_path / "outside"
    for path, text in {
        ws / ".env": "SECRET=1\n",
        ws / "README.md": "# readme\n",
        ws / "src" / "app.py": "print()\n",
        ws / "secrets" / "key.pem": "pem\n",
        ws / ".git" / "config": "[core]\n",
        home / ".ssh" / "id_rsa": "private\n",
        outside / "deep" / "dir" / "x.txt": "x\n",
        outside / "deep" / "data.txt": "deep data\n",
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    os.symlink(".", ws / "src" / "self")  # src/self/.. is ws, not src
    os.symlink("..", ws / "src" / "up")  # src/up is ws
    os.symlink("/", ws / "src" / "root")
    os.symlink("c2", ws / "src" / "c1")  # a chain: c1 -> c2 -> self -> src
    os.symlink("self", ws / "src" / "c2")
    os.symlink("loop2", ws / "loop1")
    os.symlink("loop1", ws / "loop2")
    os.symlink("/proc/self/root", ws / "procroot")
    os.symlink(outside / "deep" / "dir", ws / "far")
    os.symlink(".", ws / ".git" / "self")
    os.symlink("../..", ws / ".git" / "top")  # .git/top is the workspace's parent
    return Links(ws, home, outside)


def context(
    links: Links,
    *,
    mode: Mode = "default",
    allow: tuple[str, ...] = (),
    cwd: Path | None = None,
    **fields: Any,
) -> PermissionContext:
    settings = {"permissions": {"deny": DENY, "allow": list(allow)}}
    rules = load_rules([(links.ws / ".claude" / "settings.json", settings)], seed_yaml=None)
    return PermissionContext(
        mode=mode, rules=rules, workspace=links.ws, cwd=cwd or links.ws, home=links.home, **fields
    )


def bash(command: str, ctx: PermissionContext) -> str:
    return decide("Bash", {"command": command}, ctx).behavior


def read(path: str, ctx: PermissionContext) -> str:
    return decide("Read", {"file_path": path}, ctx).behavior


# --- the resolver itself ---------------------------------------------------------------------


def test_links_are_followed_before_a_later_dotdot(links: Links) -> None:
    ws = links.ws
    assert kernel_resolve(PurePosixPath(ws / "src/self/../.env")) == ws / ".env"
    assert kernel_resolve(PurePosixPath(ws / "src/c1/../.env")) == ws / ".env"
    assert kernel_resolve(PurePosixPath(ws / "src/up/../x")) == ws.parent / "x"
    assert kernel_resolve(PurePosixPath(ws / "src/root/etc/../etc")) == Path("/etc")
    assert kernel_resolve(PurePosixPath(ws / "far/../data.txt")) == links.outside / "deep/data.txt"
    assert kernel_resolve(PurePosixPath(ws / "new/file.txt")) == ws / "new/file.txt"


def test_what_the_kernel_cannot_open_is_unknown(links: Links) -> None:
    ws = links.ws
    assert kernel_resolve(PurePosixPath(ws / "loop1")) is None
    assert kernel_resolve(PurePosixPath(ws / "loop1/x")) is None
    assert kernel_resolve(PurePosixPath(ws / "missing/../.env")) is None
    assert kernel_resolve(PurePosixPath(ws / "README.md/../.env")) is None


def test_resolution_stops_at_process_directories(links: Links) -> None:
    ws = links.ws
    found = kernel_resolve(PurePosixPath(ws / "procroot/etc/hostname"))
    assert found == Path("/proc/self/root/etc/hostname")
    assert found is not None
    assert is_process_path(found)
    assert kernel_resolve(PurePosixPath("/proc/1/root/etc/passwd")) == Path(
        "/proc/1/root/etc/passwd"
    )
    fd = kernel_resolve(PurePosixPath("/dev/fd/3"))
    assert fd is not None
    assert is_process_path(fd)


def test_tilde_expansion_as_bash_does_it(links: Links) -> None:
    homes = {"alice": Path("/users/alice")}
    assert expand_tilde("~alice/x", home=links.home, user_home=homes.get) == "/users/alice/x"
    assert expand_tilde("~alice", home=links.home, user_home=homes.get) == "/users/alice"
    assert expand_tilde("~nobody-here/x", home=links.home, user_home=homes.get) == (
        "~nobody-here/x"
    )
    assert expand_tilde("~/x", home=links.home, user_home=homes.get) == f"{links.home}/x"
    assert expand_tilde("~+/x", home=links.home, user_home=homes.get) is None
    assert expand_tilde("~-", home=links.home, user_home=homes.get) is None


# --- file tools through decide ------------------------------------------------------------------


def test_file_tools_judge_the_file_the_kernel_opens(links: Links) -> None:
    ctx = context(links)
    ws = links.ws
    assert decide("Read", {"file_path": "src/self/../.env"}, ctx) == Decision(
        "deny",
        "Read(./.env)",
        f"reading {ws}/src/self/../.env (that is {ws}/.env) is denied by Read(./.env)",
    )
    assert read(f"{ws}/src/c1/../.env", ctx) == "deny"
    assert read(".git/self/../../.env", ctx) == "deny"
    assert decide("Grep", {"pattern": "x", "path": "src/self/../secrets"}, ctx).behavior == "deny"
    assert decide("Glob", {"pattern": "src/self/../secrets/*"}, ctx).behavior == "deny"
    assert decide("Glob", {"pattern": "secrets/*", "path": "src/c1/.."}, ctx).behavior == "deny"
    assert decide("Write", {"file_path": "src/self/../.env", "content": ""}, ctx).behavior == (
        "deny"
    )
    edit = {"file_path": "src/c2/../.env", "old_string": "a", "new_string": "b"}
    assert decide("Edit", edit, ctx).behavior == "deny"


def test_a_rule_on_the_link_name_still_denies(links: Links) -> None:
    ctx = context(links)
    # `.git/self` is a link to `.git`; the rule names the link.
    assert read(".git/self/config", ctx) == "deny"


def test_writes_through_links_leaving_the_workspace_are_asked(links: Links) -> None:
    ctx = context(links, mode="acceptEdits")
    assert decide("Write", {"file_path": "src/up/../escape.txt", "content": ""}, ctx) == (
        Decision(
            "ask",
            None,
            f"writes {links.ws}/src/up/../escape.txt (that is {links.ws.parent}/escape.txt), "
            "outside the workspace",
        )
    )
    assert decide("Write", {"file_path": ".git/top/x.txt", "content": ""}, ctx).behavior == "ask"
    assert decide("Write", {"file_path": "src/app2.py", "content": ""}, ctx).behavior == "allow"
    # Into the repository's internals through links: judged as the files they reach.
    os.symlink(".git", links.ws / "gitlink")
    hook = {"file_path": "gitlink/hooks/pre-commit", "content": ""}
    assert decide("Write", hook, ctx).behavior == "ask"
    assert bash("echo x > src/self/../gitlink/config", ctx) == "ask"
    assert bash("echo x > .git/self/../.git/config", ctx) == "ask"


def test_unresolvable_paths_are_asked(links: Links) -> None:
    ctx = context(links)
    assert read("loop1/x", ctx) == "ask"
    assert read("missing/../README.md", ctx) == "ask"
    assert read("missing/../.env", ctx) == "deny"  # the path as written is denied
    assert read("loop1", context(links, mode="bypassPermissions")) == "allow"


def test_process_directories_are_unknown(links: Links) -> None:
    ws = links.ws
    ctx = context(links)
    for path in (
        "/proc/1/root/etc/passwd",
        "/proc/self/environ",
        "/proc/thread-self/maps",
        f"/proc/{os.getpid()}/mem",
        "/dev/fd/3",
        "/proc/self/fd/3",
        f"procroot{ws}/README.md",
    ):
        assert decide("Read", {"file_path": path}, ctx).behavior == "ask", path
        assert bash(f"cat {path}", ctx) == "ask", path
        assert decide("Write", {"file_path": path, "content": ""}, ctx).behavior == "ask", path
        assert bash(f"echo x > {path}", ctx) == "ask", path
        assert read(path, context(links, mode="bypassPermissions")) == "allow", path
    assert read(f"/proc/self/root{ws}/.env", ctx) == "deny"
    assert read(f"/proc/1/root{ws}/src/self/../.env", ctx) == "deny"
    assert read(f"procroot{ws}/.env", ctx) == "deny"
    assert read("/proc/self/cwd/.env", ctx) == "deny"
    rules = load_rules(
        [(links.ws / ".claude" / "settings.json", {"permissions": {"deny": ["Read(//proc/**)"]}})],
        seed_yaml=None,
    )
    no_proc = PermissionContext(mode="default", rules=rules, workspace=ws, cwd=ws, home=links.home)
    assert read("procroot/etc/hostname", no_proc) == "deny"  # where the link leads
    assert bash("cat /proc/self/cwd/secrets/key.pem", ctx) == "deny"
    accept = context(links, mode="acceptEdits")
    assert decide("Write", {"file_path": "/proc/self/fd/1", "content": ""}, accept).behavior == (
        "ask"
    )
    assert bash("echo x > /dev/fd/1", accept) == "ask"


def test_streams_stay_harmless(links: Links) -> None:
    ctx = context(links)
    for command in (
        "echo x > /dev/null",
        "echo x >/dev/stderr",
        "echo x > /dev/stdout",
        "head -c 4 /dev/urandom",
        "cat /dev/zero | head -c 1",
        "cat < /dev/null",
        "echo x > /dev/tty",
    ):
        assert bash(command, ctx) == "allow", command


def test_tilde_user_names_a_home(links: Links) -> None:
    homes = {"someone": links.home}
    ctx = context(links, user_home=homes.get)
    assert read("~someone/.ssh/id_rsa", ctx) == "deny"
    assert bash("cat ~someone/.ssh/id_rsa", ctx) == "deny"
    assert bash("cd ~someone && cat .ssh/id_rsa", ctx) == "deny"
    # An unknown user: the word stays as written, a relative path (bash does the same).
    assert read("~nosuchuser/notes", ctx) == "allow"
    assert bash("cat ~nosuchuser/notes", ctx) == "allow"
    for word in ("~+/.env", "~-/README.md", "~1/x"):
        assert read(word, ctx) == "ask", word
    # To bash, `~+` is $PWD and `~-` $OLDPWD, which the Bash tool sets to where the command
    # starts: the workspace here. A directory stack entry (`~1`) is not known.
    assert bash("cat ~+/.env", ctx) == "deny"
    assert bash("cat ~-/README.md", ctx) == "allow"
    assert bash("cat ~1/x", ctx) != "allow"


def test_home_variable_is_the_home(links: Links) -> None:
    ctx = context(links)
    for word in (
        "$HOME/.ssh/id_rsa",
        "${HOME}/.ssh/id_rsa",
        '"$HOME/.ssh/id_rsa"',
        "~/.ssh/id_rsa",
    ):
        assert bash(f"cat {word}", ctx) == "deny", word
    assert bash("cat $HOME/notes.txt", ctx) == "ask"  # outside the workspace


# --- Bash through decide ----------------------------------------------------------------------


def test_bash_readers_and_redirections_follow_links(links: Links) -> None:
    ctx = context(links)
    for command in (
        "cat src/self/../.env",
        "head -n 1 src/c1/../.env",
        "grep SECRET src/self/../.env",
        "cat < src/self/../.env",
        "echo x > src/self/../.env",
        "wc -l src/up/.env",
        "cat src/self/../secrets/*",
    ):
        assert bash(command, ctx) != "allow", command
    for command in ("cat src/self/../.env", "cat < src/c2/../.env", "echo x > src/self/../.env"):
        assert bash(command, ctx) == "deny", command
    # A link to `/`: what it reaches is judged, inside the workspace or out.
    assert bash(f"cat src/root{links.ws}/.env", ctx) == "deny"
    assert bash("cat src/root/etc/hostname", ctx) == "ask"
    assert read(f"src/root{links.ws}/secrets/key.pem", ctx) == "deny"


def test_find_delete_through_a_link_is_judged_as_what_it_deletes(links: Links) -> None:
    ctx = context(links, allow=("Bash(find *)",))
    assert bash("find src -name '*.pyc' -delete", ctx) == "allow"
    assert bash("find src/self/.. -delete", ctx) == "ask"
    assert bash("find src/up -delete", ctx) == "ask"


def test_relative_paths_start_where_the_shell_is(links: Links) -> None:
    ctx = context(links, cwd=links.ws / "src")
    assert bash("cat ../.env", ctx) == "deny"
    assert bash("cat self/../.env", ctx) == "deny"


def test_cd_in_the_same_command(links: Links) -> None:
    ws = links.ws
    ctx = context(links)
    deny_far = context(links, allow=(), cwd=ws)
    for command in (
        "cd src/self && cat ../.env",
        "cd src/c1 && cat ../.env",
        "cd -P src/self/.. && cat .env",
        "cd src; cd self && cat ../.env",
        "pushd src/self && cat ../.env",
        "(cd src/self && cat ../.env)",
        "echo $(cd src/self; cat ../.env)",
        "cd src && cat ../.env",
    ):
        assert bash(command, ctx) == "deny", command
    # `far` leads outside: `..` from there is outside too, whatever the logical path says.
    assert bash("cd far && cat ../data.txt", deny_far) == "ask"
    rules = load_rules(
        [
            (
                ws / ".claude" / "settings.json",
                {"permissions": {"deny": [f"Read(/{links.outside}/deep/data.txt)"]}},
            )
        ],
        seed_yaml=None,
    )
    far = PermissionContext(mode="default", rules=rules, workspace=ws, cwd=ws, home=links.home)
    assert bash("cd far && cat ../data.txt", far) == "deny"
    # bash's `cd ..` is logical: from `far` it goes back to where the link is (the
    # workspace); only a physical one (`-P`, `set -P`) climbs from where far leads.
    assert bash("cd far && cd .. && cat data.txt", far) == "allow"
    assert bash("cd far && cd -P .. && cat data.txt", far) == "deny"
    assert bash("cd -P far && cd .. && cat data.txt", far) == "deny"
    assert bash("set -P; cd far && cd .. && cat data.txt", far) == "deny"


def test_cdpath_makes_a_relative_cd_unknown(links: Links) -> None:
    ctx = context(links)
    assert bash("export CDPATH=/; cd etc && cat passwd", ctx) != "allow"
    assert bash("CDPATH=/ cd etc && cat passwd", ctx) != "allow"


CD_COMMANDS = (
    ("src/self", "../.env"),
    ("src/c1", "../.env"),
    ("src/self/..", ".env"),
    ("src/up/src", "../.env"),
    ("far", "../data.txt"),
    ("far/..", "data.txt"),
    ("src/up/far/..", "../.env"),
)


@pytest.mark.parametrize(("directory", "name"), CD_COMMANDS)
def test_bash_is_the_judge_of_cd(links: Links, directory: str, name: str) -> None:
    """Run `cd DIR && <open NAME>` in real bash; whatever file it opens, the engine judges the
    same (a deny rule on that very file denies the command)."""
    ws = links.ws
    probe = f"cd {directory} && realpath -e -- {name}"
    done = subprocess.run(
        ["bash", "-c", probe], cwd=ws, capture_output=True, text=True, check=False
    )
    opened = Path(done.stdout.strip()) if done.returncode == 0 else None
    if opened is None:
        return
    rules = load_rules(
        [(ws / ".claude" / "settings.json", {"permissions": {"deny": [f"Read(/{opened})"]}})],
        seed_yaml=None,
    )
    ctx = PermissionContext(mode="default", rules=rules, workspace=ws, cwd=ws, home=links.home)
    assert bash(f"cd {directory} && cat {name}", ctx) == "deny", (directory, name, opened)


def test_inputs_the_kernel_cannot_take_are_decisions(links: Links) -> None:
    ctx = context(links)
    assert decide("Glob", {"pattern": "a\x00b/*"}, ctx).behavior == "ask"
    assert bash("cat x$HOME", ctx) == "ask"  # `$HOME` inside a word: some text, unknown
    assert bash("cat $HOME$X/.ssh/id_rsa", ctx) != "allow"
