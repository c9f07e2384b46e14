"""Each property of the sandbox, tested live on this machine: what `tether sandbox check` runs.

One sandbox, built like a session's from the user's settings but on a throwaway workspace and
home, runs a probe script (Python, the interpreter tether runs on) that tries each attack and
prints what happened; listeners and files outside are set up and checked by this side.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import uuid
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path

from tether.sandbox.bwrap import Sandbox
from tether.sandbox.selfcheck_probe import (
    KERNEL_FILES,
    PROBE,
    SECRET_VALUE,
    SECRET_VARIABLE,
    TOKEN_VALUE,
    TOKEN_VARIABLE,
    Result,
    run_probe,
)


def run_checks(template: Sandbox) -> list[Result]:
    """Every property tested live under a sandbox with `template`'s settings (network,
    sockets, bwrap) on a throwaway workspace and home."""
    with tempfile.TemporaryDirectory(prefix="tether-sandbox-check-") as base_name:
        base = Path(base_name).resolve()
        with _listeners(base) as (sockets, port):
            results = _run(template, base, sockets, port)
    return [tmp_in_session(r, template) if r.name == "/tmp" else r for r in results]


def tmp_in_session(result: Result, session: Sandbox, tmp: Path = Path("/tmp")) -> Result:
    """The /tmp line, saying when the session's own writable roots hold /tmp (tether started
    in /tmp): there it is writable, whatever the throwaway workspace showed."""
    tmp = Path(os.path.realpath(tmp))
    holder = next((r for r in session.writable_mounts() if tmp.is_relative_to(r)), None)
    if holder is None:
        return result
    return replace(
        result,
        detail=f"{result.detail} (tested on a throwaway workspace); in this session {tmp} is "
        f"WRITABLE: it lies in the writable {holder}",
    )


def _run(template: Sandbox, base: Path, sockets: list[Path], port: int) -> list[Result]:
    ws, home, scratch = base / "ws", base / "home", base / "tether" / "scratch" / "check"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text("{}\n")
    (home / ".ssh").mkdir(parents=True)
    secrets = {home / ".ssh" / "id_ed25519": "KEY", home / ".claude.json": '{"k": 1}'}
    for path, text in secrets.items():
        path.write_text(text)
    # Places no deny list names: the home itself is hidden, so they are too.
    sentinels = [home / "notes.txt", home / ".unlisted-tool" / "token", home / "src" / "x.env"]
    for path in sentinels:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"SENTINEL {uuid.uuid4().hex}\n")
    toolchain = home / ".local" / "bin" / "tool"
    toolchain.parent.mkdir(parents=True)
    toolchain.write_text("TOOL\n")
    # A link a command could have planted between two commands: the next sandbox must not
    # bind (or make placeholders in) the hidden directory it leads to.
    (home / ".ssh" / "wt").mkdir()
    (ws / ".git" / "worktrees").symlink_to(home / ".ssh")
    nested = ws / "vendor" / "lib"  # a repository inside the workspace: guarded the same
    (nested / ".git").mkdir(parents=True)
    (ws / "lefthook.yml").write_text("pre-commit: {}\n")
    # Another name of a hidden file (a hard link made outside): hidden as the file is.
    (ws / "docs").mkdir()
    os.link(home / ".ssh" / "id_ed25519", ws / "docs" / "key-copy")
    installed = _installed_code(ws)
    existing = [ws / ".git" / "config", ws / ".claude" / "settings.json", ws / "lefthook.yml"]
    missing = [ws / ".mcp.json", ws / ".git" / "hooks" / "pre-commit", ws / ".tether" / "x.json"]
    existing.append(ws / ".envrc")  # made by `_installed_code`
    missing += [ws / ".npmrc", ws / ".cargo" / "config.toml", ws / ".pdbrc"]
    missing += [ws / ".vscode" / "tasks.json", ws / "lefthook-local.yml"]
    missing += [nested / ".claude" / "settings.json", nested / ".mcp.json"]
    sandbox = replace(
        template,
        workspace=ws,
        writable=(scratch,),
        tmp_dir=scratch / "tmp",
        hidden=(home / ".ssh", home / ".claude.json", base / "tether"),
        home=home,
        scratch=scratch,
    )
    tag = uuid.uuid4().hex[:12]
    tmp_outside = Path(f"/tmp/tether-check-{tag}-out")
    tmp_inside = sandbox.tmp_dir / f"tether-check-{tag}-in"
    root_probe = Path(f"/tether-check-{tag}")
    tmp_outside.write_text("from outside\n")
    tmp_outside.chmod(0o666)  # only the sandbox keeps the command from writing it
    spec = {
        "root_probe": str(root_probe),
        "hidden_dir": str(home),
        "protected": [str(p) for p in existing + missing],
        "installed": [str(p) for p in installed],
        "through_link": str(ws / ".git" / "worktrees" / "wt" / "written-inside"),
        "sockets": [str(s) for s in sockets],
        "port": port,
        "secret_name": SECRET_VARIABLE,
        "token_name": TOKEN_VARIABLE,
        "secret_values": [v[::-1] for v in (SECRET_VALUE, TOKEN_VALUE)],
        "hidden": [*(str(p) for p in secrets), str(ws / "docs" / "key-copy")],
        "layout_names": [str(home / ".ssh"), str(home / ".claude.json"), str(ws / ".mcp.json")],
        "bare_repo": str(ws / "made" / "mirror.git"),
        "hgrc": str(ws / "made" / "hg" / ".hg" / "hgrc"),
        "home_sentinels": [str(p) for p in sentinels],
        "toolchain": str(toolchain),
        "tmp_outside": str(tmp_outside),
        "tmp_inside": str(sandbox.tmp_dir / f"tether-check-{tag}-in"),
        "tmp_dir": str(sandbox.tmp_dir),
        "kernel": [p for p in KERNEL_FILES if os.path.exists(p)],
    }
    os.environ[SECRET_VARIABLE] = SECRET_VALUE
    os.environ[TOKEN_VARIABLE] = TOKEN_VALUE
    try:
        done = run_probe(sandbox, ws, PROBE, spec)
        tmp_back = tmp_inside.read_text() if tmp_inside.exists() else ""
        tmp_back += "|" + tmp_outside.read_text()
        root_written = root_probe.exists()
    finally:
        del os.environ[SECRET_VARIABLE], os.environ[TOKEN_VARIABLE]
        for leftover in (tmp_outside, tmp_inside, root_probe):
            with contextlib.suppress(OSError):
                leftover.unlink()
    try:
        seen = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [Result(False, "probe", f"the probe did not run in the sandbox: {said}")]
    changed = [p for p in existing if "written inside" in p.read_text()]
    created = [p for p in missing if os.path.lexists(p)]
    through_link = sorted(str(p) for p in (home / ".ssh" / "wt").rglob("*"))
    results = _judge(sandbox, seen, changed, created, root_written, tmp_back, sockets)
    results.append(_made_repositories(ws / "made" / "mirror.git", ws / "made" / "hg" / ".hg"))
    results.append(
        Result(
            not through_link,
            "symlinked directories",
            "a planted .git/worktrees link to a hidden directory is not followed: nothing "
            "bound, written or made there"
            + (f"; WRITTEN THROUGH IT: {', '.join(through_link)}" if through_link else ""),
        )
    )
    results.append(_installed_result(seen, installed))
    return results


def _judge(
    sandbox: Sandbox,
    seen: dict[str, object],
    changed: list[Path],
    created: list[Path],
    root_written: bool,
    tmp_back: str,
    sockets: list[Path],
) -> list[Result]:
    caps: dict[str, str] = seen["caps"]  # type: ignore[assignment]
    protected: dict[str, bool] = seen["protected"]  # type: ignore[assignment]
    unix: dict[str, bool] = seen["unix"]  # type: ignore[assignment]
    hidden: dict[str, str] = seen["hidden"]  # type: ignore[assignment]
    kernel: list[str] = seen["kernel"]  # type: ignore[assignment]
    holders: list[str] = seen["proc"]  # type: ignore[assignment]
    setid: dict[str, bool] = seen["setid"]  # type: ignore[assignment]
    no_caps = all(int(v, 16) == 0 for v in caps.values())
    written = sorted(p for p, ok in protected.items() if ok)
    reached = sorted(p for p, ok in unix.items() if ok)
    leaked = sorted(p for p, text in hidden.items() if text)
    results = [
        Result(no_caps, "capabilities", ", ".join(f"{k} {v}" for k, v in caps.items())),
        Result(seen["uid"] != 0, "uid inside", f"{seen['uid']} (not root)"),
        Result(
            not (seen["remount"] or seen["remount_cmd"] or seen["root_write"] or root_written),
            "remount of /",
            "refused; / stays read-only",
        ),
        Result(not seen["umount"], "umount of the hidden home", "refused"),
        Result(not seen["userns"], "new user namespace", "cannot be created"),
        Result(
            not written and not changed and not created,
            "protected workspace files",
            "read-only, existing (.git/config, .claude/settings.json, lefthook.yml, .envrc) "
            "and missing (.mcp.json, .git/hooks/pre-commit, .tether/, .npmrc, "
            ".cargo/config.toml, .pdbrc, .vscode/tasks.json, lefthook-local.yml; a nested "
            "repository's "
            ".claude/settings.json and .mcp.json)"
            + (f"; WRITTEN: {', '.join(written)}" if written else "")
            + ("; nothing left behind" if not created else f"; LEFT: {created}"),
        ),
    ]
    if sandbox.all_unix_sockets:
        results.append(Result(True, "unix sockets", "allowed by settings (not tested)"))
    else:
        how = "seccomp filter" if sandbox.socket_filter else "hidden /run only (no filter here)"
        results.append(
            Result(
                not reached,
                "unix sockets",
                f"{len(sockets)} listeners outside unreachable ({how})"
                + (f"; REACHED: {', '.join(reached)}" if reached else ""),
            )
        )
    if sandbox.network:
        results.append(Result(True, "network", "allowed by settings (not tested)"))
    else:
        results.append(
            Result(not seen["tcp"], "network off", "a 127.0.0.1 listener outside is unreachable")
        )
        how = "seccomp filter" if sandbox.vsock_filter else "no filter here"
        results.append(
            Result(seen["vsock"] != "made", "vsock", f"socket(AF_VSOCK) refused ({how})")
        )
    results += [
        Result(
            not seen["env"],
            "environment",
            f"{SECRET_VARIABLE} (by name) and {TOKEN_VARIABLE}=ghp_... (by value) withheld",
        ),
        Result(
            not holders,
            "processes in sight",
            "no process's environment or command line, nor a file pid 1 (bwrap) holds open, "
            "has their values" + (f"; HELD IN: {', '.join(holders)}" if holders else ""),
        ),
        _home_hidden(seen),
        Result(
            not leaked,
            "hidden files",
            "read as empty, and so does a hard link to one in the workspace"
            + (f"; LEAKED: {', '.join(leaked)}" if leaked else ""),
        ),
        Result(
            not seen["layout"],
            "bwrap's command line",
            "names no hidden or protected path (pid 1's, in sight inside: the options come "
            "through a descriptor)"
            + (f"; SHOWN: {', '.join(seen['layout'])}" if seen["layout"] else ""),  # type: ignore[arg-type]
        ),
        Result(
            seen["tmp_seen"] == "from outside\n"
            and not seen["tmp_written"]
            and tmp_back == "from inside\n|from outside\n",
            "/tmp",
            "read-only but for TMPDIR, which is the same inside and outside",
        ),
        Result(
            not kernel,
            "kernel settings",
            "/proc/sys, /proc/sysrq-trigger and /sys cannot be opened for writing"
            + (f"; OPENED: {', '.join(kernel)}" if kernel else ""),
        ),
        Result(
            all(setid.values()),
            "setuid and setgid files",
            "cannot be made (3 calls tried: chmod, mkdir, creating open)"
            + "".join(f"; {call.upper()} ALLOWED" for call, ok in setid.items() if not ok),
        ),
    ]
    return results


def _installed_code(ws: Path) -> list[Path]:
    """A virtual environment and a `node_modules` in the workspace, and a `.envrc` that
    loads a file: what the probe tries to change (existing files) or make (missing ones)."""
    site = ws / ".venv" / "lib" / "python3" / "site-packages"
    (site / "pip").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (ws / ".venv" / "bin").mkdir()
    bins = ws / "node_modules" / ".bin"
    bins.mkdir(parents=True)
    (ws / "scripts").mkdir()
    (ws / ".envrc").write_text("source_env scripts/env.sh\n")
    existing = [site / "pip" / "__init__.py", bins / "jest", ws / "scripts" / "env.sh"]
    for path in existing:
        path.write_text("# the user's\n")
    return [*existing, site / "evilmod.py", ws / ".venv" / "bin" / "pytest", bins / "tsc"]


def _installed_result(seen: dict[str, object], installed: list[Path]) -> Result:
    written: dict[str, bool] = seen["installed"]  # type: ignore[assignment]
    changed = sorted(p for p, ok in written.items() if ok)
    changed += [str(p) for p in installed if p.exists() and "inside" in _text(p)]
    return Result(
        not changed,
        "installed code",
        "read-only: a virtual environment's site-packages and bin, node_modules and its "
        ".bin, a file a .envrc loads (they run outside later)"
        + (f"; WRITTEN: {', '.join(sorted(set(changed)))}" if changed else ""),
    )


def _made_repositories(bare: Path, hg: Path) -> Result:
    """A bare repository's config and hooks and a new Mercurial hgrc that the probe made:
    disabled once it ended, originals kept beside."""
    left: list[str] = []
    if "pager" in _text(bare / "config"):
        left.append(f"{bare / 'config'} (core.pager)")
    if (bare / "hooks" / "pre-receive").exists():
        left.append(f"{bare / 'hooks' / 'pre-receive'}")
    if "hooks" in _text(hg / "hgrc"):
        left.append(f"{hg / 'hgrc'} ([hooks])")
    return Result(
        not left,
        "repositories made inside",
        "a bare repository's config and hooks and a new Mercurial hgrc, which git and hg "
        "outside would run, are disabled when the command ends"
        + (f"; LEFT ACTIVE: {', '.join(left)}" if left else ""),
    )


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _home_hidden(seen: dict[str, object]) -> Result:
    """Files a deny list would not name, in a temporary home: unreadable; a toolchain place
    of `HOME_TOOLCHAINS` is readable."""
    home: dict[str, str] = seen["home"]  # type: ignore[assignment]
    leaked = sorted(p for p, text in home.items() if text)
    shown = seen["toolchain"] == "TOOL\n"
    return Result(
        not leaked and shown,
        "home hidden",
        f"{len(home)} sentinel files at unlisted places of a temporary home unreadable, "
        "~/.local/bin readable"
        + (f"; LEAKED: {', '.join(leaked)}" if leaked else "")
        + ("" if shown else "; ~/.local/bin NOT READABLE"),
    )


@contextlib.contextmanager
def _listeners(base: Path) -> Generator[tuple[list[Path], int]]:
    """Unix socket listeners (in the workspace's parent, in /tmp and in the runtime directory
    where this user may write) and a TCP listener on 127.0.0.1."""
    places = [base / "check.sock", Path(f"/tmp/tether-check-{uuid.uuid4().hex[:12]}.sock")]
    runtime = Path("/run") if os.geteuid() == 0 else Path(os.environ.get("XDG_RUNTIME_DIR", ""))
    if runtime.is_absolute() and os.access(runtime, os.W_OK):
        places.append(runtime / f"tether-check-{uuid.uuid4().hex[:12]}.sock")
    servers: list[socket.socket] = []
    made: list[Path] = []
    try:
        for path in places:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            servers.append(server)
            server.bind(str(path))
            made.append(path)
            server.listen(8)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        servers.append(tcp)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(8)
        yield made, tcp.getsockname()[1]
    finally:
        for server in servers:
            server.close()
        for path in made:
            with contextlib.suppress(OSError):
                path.unlink()
