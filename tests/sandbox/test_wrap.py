"""The bwrap command line a policy gives: mount order, the flags that drop privilege, the
descriptors it hands over, and the placeholders it makes and takes back."""

from __future__ import annotations

import os
from pathlib import Path

from tether.sandbox import Sandbox
from tether.sandbox.bwrap_command import BwrapCommand
from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.protected import WORKSPACE_PROTECTED
from tether.sandbox.seccomp import supported

ARGV = ["/usr/bin/bash", "-c", "echo hi"]


def policy(
    base: Path, home: Path, *, network: bool = False, writable: tuple[Path, ...] = (), **kw: object
) -> Sandbox:
    secrets = (".ssh", ".netrc", ".aws")  # only the first two exist in these tests
    return Sandbox(
        workspace=base / "ws",
        writable=(base / "scratch", *writable),
        network=network,
        tmp_dir=base / "scratch" / "tmp",
        hidden=tuple(home / s for s in secrets),
        bwrap=Path("/usr/bin/bwrap"),
        scratch=base / "scratch",
        **kw,  # type: ignore[arg-type]
    )


def make_home(home: Path) -> None:
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y\n")


def wrapped(sandbox: Sandbox, cwd: Path) -> BwrapCommand:
    (sandbox.workspace).mkdir(parents=True, exist_ok=True)
    command = sandbox.wrap(ARGV, cwd)
    command.finished(0, "")
    return command


def flags(command: BwrapCommand) -> list[str]:
    """The options after the mounts, fd numbers replaced."""
    options = command.options
    shown = options[options.index("--unshare-all") :]
    for option in ("--sync-fd", "--seccomp"):
        if option in shown:
            shown[shown.index(option) + 1] = "FD"
    return shown


def test_privilege_is_dropped_and_descriptors_handed_over(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    sandbox = policy(base, base / "home", disable_userns=True)
    (base / "ws").mkdir()
    command = sandbox.wrap(ARGV, base / "ws")
    try:
        root = ["--uid", "1000", "--gid", "1000"] if os.geteuid() == 0 else []
        seccomp = ["--seccomp", "FD"] if supported() else []
        head = [
            "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", *root,
            "--die-with-parent", "--sync-fd", "FD", *seccomp,
        ]  # fmt: skip
        tail = ["--chdir", f"{base}/ws"]
        # Nothing between: no variable is set or unset on bwrap's command line, which the
        # command can read (bwrap is pid 1 inside).
        assert flags(command) == head + tail
        # On the command line only the descriptor of the options and the command.
        given = int(command[2])
        assert command == [str(sandbox.bwrap), "--args", str(given), "--", *ARGV]
        options = command.options
        sync = int(options[options.index("--sync-fd") + 1])
        assert {sync, given} <= set(command.pass_fds)
        # Besides the options, the lock and the filter: one descriptor per path bound by
        # descriptor.
        bound = {int(options[i + 1]) for i, a in enumerate(options) if a.endswith("-bind-fd")}
        assert len(command.pass_fds) == (3 if supported() else 2) + len(bound)
        assert bound <= set(command.pass_fds)
    finally:
        command.finished(0, "")
    assert command.pass_fds == ()


def test_bwrap_starts_with_the_secrets_withheld(tmp_path: Path) -> None:
    command = wrapped(policy(tmp_path, tmp_path / "home", env_keep=("KEEP_TOKEN",)), tmp_path)
    given = {"SOME_API_KEY": "x", "KEEP_TOKEN": "y", "PLAIN": "z", "TMPDIR": "/tmp"}
    assert command.environment(given) == {
        "KEEP_TOKEN": "y",
        "PLAIN": "z",
        "TMPDIR": f"{tmp_path}/scratch/tmp",
    }


def test_network_allowed_shares_the_host_network_and_keeps_run(tmp_path: Path) -> None:
    on = wrapped(policy(tmp_path, tmp_path / "home", network=True), tmp_path).options
    off = wrapped(policy(tmp_path, tmp_path / "home"), tmp_path).options
    assert (on[on.index("--unshare-user") + 1], "/run" in on) == ("--share-net", False)
    assert off[off.index("/run") - 1] == "--tmpfs"


def test_protected_files_are_bound_read_only_after_their_writable_parent(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    ws = base / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    command = wrapped(policy(base, base / "home"), ws).options
    # By descriptor (`--bind-fd FD DEST`), as bwrap 0.5 and later take them.
    binds = [
        (command[i].removesuffix("-fd"), command[i + 2])
        for i, a in enumerate(command)
        if a.startswith("--") and i + 2 < len(command)
    ]
    order = [dest for _, dest in binds]
    assert order.index(str(ws)) < order.index(f"{ws}/.git") < order.index(f"{ws}/.git/config")
    assert (("--bind", f"{ws}/.git") in binds, ("--ro-bind", f"{ws}/.git/config") in binds) == (
        True,
        True,
    )
    assert ("--ro-bind", f"{ws}/.git/hooks") in binds


def test_placeholders_exist_while_the_command_may_run_and_go_with_the_session(
    tmp_path: Path,
) -> None:
    base = tmp_path.resolve()
    ws = base / "ws"
    ws.mkdir()
    sandbox = policy(base, base / "home")
    command = sandbox.wrap(ARGV, ws)
    made = sorted(p.name for p in ws.iterdir())
    # A placeholder in a work tree is an empty directory, or a socket file for a file's name:
    # git lists neither; never a regular file.
    sockets = sorted(str(p.relative_to(ws)) for p in ws.rglob("*") if p.is_socket())
    files = sorted(str(p.relative_to(ws)) for p in ws.rglob("*") if p.is_file())
    command.finished(0, "")
    sandbox.close()
    # The first name of every protected path, `.git` and `.hg` too; no hook manager is in
    # play (no hook names one, none of their names is there).
    guarded = [e for e in WORKSPACE_PROTECTED if e.path not in MANAGER_OF]
    first = {e.path.split("/")[0] for e in guarded} | {".git", ".hg"}
    masks = sorted(e.path for e in guarded if e.file_mask)
    assert (made, sockets, files, sorted(ws.iterdir())) == (sorted(first), masks, [], [])


def test_a_placeholder_the_user_filled_in_is_kept(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    ws = base / "ws"
    ws.mkdir()
    sandbox = policy(base, base / "home")
    command = sandbox.wrap(ARGV, ws)
    (ws / ".claude" / "settings.json").write_text("{}")  # the user, outside, meanwhile
    command.finished(0, "")
    sandbox.close()
    assert sorted(str(p.relative_to(ws)) for p in ws.rglob("*")) == [
        ".claude",
        ".claude/settings.json",
    ]


def test_workspace_that_is_the_home_directory_keeps_secrets_hidden(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    make_home(base / "ws")
    args = wrapped(policy(base, base / "ws"), base / "ws").options
    ws_bind = args.index(f"{base}/ws")
    assert ws_bind < args.index(f"{base}/ws/.ssh")
    assert ws_bind < args.index(f"{base}/ws/.netrc")


def test_workspace_inside_a_secret_directory_stays_visible(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    (base / ".config" / "proj").mkdir(parents=True)
    sandbox = Sandbox(
        workspace=base / ".config" / "proj",
        writable=(),
        network=False,
        tmp_dir=base / "tmp",
        hidden=(base / ".config",),
    )
    args = wrapped(sandbox, sandbox.workspace).options
    assert args.index(f"{base}/.config") < args.index(f"{base}/.config/proj")


def test_secrets_that_do_not_exist_are_left_alone(tmp_path: Path) -> None:
    args = wrapped(policy(tmp_path, tmp_path / "no-home"), tmp_path).options
    assert [a for a in args if a.startswith(str(tmp_path / "no-home"))] == []


def test_unknown_machines_have_no_filter() -> None:
    assert (supported("riscv64"), supported("x86_64"), supported("aarch64")) == (
        False,
        True,
        True,
    )


def test_gits_settings_in_the_environment_stay_whole(tmp_path: Path) -> None:
    """`GIT_CONFIG_KEY_<n>` is no secret by its name (git refuses to start without it); a pair
    whose value is a credential goes whole, and the rest are numbered again."""
    command = wrapped(policy(tmp_path, tmp_path / "home"), tmp_path)
    token = "Authorization: Bearer ghp_" + "a1B2" * 9
    given = {
        "GIT_CONFIG_COUNT": "3",
        "GIT_CONFIG_KEY_0": "http.extraHeader",
        "GIT_CONFIG_VALUE_0": token,
        "GIT_CONFIG_KEY_1": "safe.bareRepository",
        "GIT_CONFIG_VALUE_1": "explicit",
        "GIT_CONFIG_KEY_2": "core.pager",
        "GIT_CONFIG_VALUE_2": "cat",
    }
    assert command.environment(given) == {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "safe.bareRepository",
        "GIT_CONFIG_VALUE_0": "explicit",
        "GIT_CONFIG_KEY_1": "core.pager",
        "GIT_CONFIG_VALUE_1": "cat",
        "TMPDIR": f"{tmp_path}/scratch/tmp",
    }
