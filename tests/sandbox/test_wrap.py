"""The bwrap command line a policy gives: whole argument lists, mount order, secrets present."""

from __future__ import annotations

from pathlib import Path

from tether.sandbox import Sandbox

ARGV = ["/usr/bin/bash", "-c", "echo hi"]


def policy(
    base: Path, home: Path, *, network: bool = False, writable: tuple[Path, ...] = ()
) -> Sandbox:
    secrets = (".ssh", ".netrc", ".aws")  # only the first two exist in these tests
    return Sandbox(
        workspace=base / "ws",
        writable=(base / "scratch", *writable),
        network=network,
        tmp_dir=base / "scratch" / "tmp",
        hidden=tuple(home / s for s in secrets),
        bwrap=Path("/usr/bin/bwrap"),
    )


def make_home(home: Path) -> None:
    (home / ".ssh").mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y\n")


def test_whole_command_line(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    home = base / "home"
    make_home(home)
    sandbox = policy(base, home, writable=(base / "cache",))
    assert sandbox.wrap(ARGV, base / "ws" / "sub") == [
        "/usr/bin/bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--bind", f"{base}/scratch/tmp", "/tmp",
        "--bind", f"{base}/ws", f"{base}/ws",
        "--bind-try", f"{base}/scratch", f"{base}/scratch",
        "--bind-try", f"{base}/cache", f"{base}/cache",
        "--tmpfs", f"{home}/.ssh",
        "--dev-bind", "/dev/null", f"{home}/.netrc",
        "--bind", f"{base}/scratch/tmp", f"{base}/scratch/tmp",
        "--unshare-all",
        "--die-with-parent",
        "--setenv", "TMPDIR", f"{base}/scratch/tmp",
        "--chdir", f"{base}/ws/sub",
        "--",
        *ARGV,
    ]  # fmt: skip
    assert (base / "scratch" / "tmp").is_dir()


def test_network_allowed_shares_the_host_network(tmp_path: Path) -> None:
    args = policy(tmp_path, tmp_path / "home", network=True).wrap(ARGV, tmp_path)
    assert args[args.index("--unshare-all") : args.index("--die-with-parent")] == [
        "--unshare-all",
        "--share-net",
    ]


def test_workspace_that_is_the_home_directory_keeps_secrets_hidden(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    make_home(base / "ws")
    args = policy(base, base / "ws").wrap(ARGV, base / "ws")
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
    args = sandbox.wrap(ARGV, sandbox.workspace)
    assert args.index(f"{base}/.config") < args.index(f"{base}/.config/proj")


def test_secrets_that_do_not_exist_are_left_alone(tmp_path: Path) -> None:
    args = policy(tmp_path, tmp_path / "no-home").wrap(ARGV, tmp_path)
    assert [a for a in args if a in ("--tmpfs", "/dev/null")] == []
