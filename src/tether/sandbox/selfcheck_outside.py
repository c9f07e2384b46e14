"""The live checks of what lies outside the workspace and the home, for `tether sandbox check`:
an existing setuid file rewritten through a shared mapping, the machine's device files,
root's secrets in /etc, credential stores moved by variables, the credentials in the home the
passwd database names (the check's HOME is elsewhere).

A sandbox of its own (the user's settings, a throwaway workspace and home) runs a probe that
tries each and prints what happened, never what it read (sizes only). Every attempt is
harmless if it succeeds: the device files get the mode and owner they have, the setuid file
is a throwaway copy in the check's own directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from tether.sandbox.bwrap import SECRETS_IN_HOME, Sandbox
from tether.sandbox.git_sweep import DISABLED, GitSweep
from tether.sandbox.outside_home import (
    passwd_home_secrets,
    passwd_homes,
    relocated_secrets,
    root_secrets,
)
from tether.sandbox.selfcheck_probe import Result, run_probe
from tether.sandbox.start_sweep import StartSweep

DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")

RELOCATED = {
    "KUBECONFIG": "kube/config",
    "AWS_SHARED_CREDENTIALS_FILE": "aws/credentials",
    "DOCKER_CONFIG": "docker",
    "GNUPGHOME": "gnupg",
    "XDG_CONFIG_HOME": "xdg",
    "CARGO_HOME": "cargo",
    "SOPS_AGE_KEY_FILE": "sops/keys.txt",
    "ANSIBLE_VAULT_PASSWORD_FILE": "ansible-vault-pass",
}
"""Variables pointed at the check's own directory; a sentinel in what each hides."""
SENTINELS = (
    "kube/config",
    "aws/credentials",
    "docker/config.json",
    "gnupg/secring",
    "xdg/gh/hosts.yml",
    "cargo/credentials.toml",
    "sops/keys.txt",
    "ansible-vault-pass",
)

_PROBE = r"""
import json, mmap, os, sys
spec = json.loads(sys.argv[1])
out = {"devices": {}, "secrets": {}, "relocated": {}}
for path in spec["devices"]:
    info = os.stat(path)
    tried = []
    for name, call in (("chmod", lambda: os.chmod(path, info.st_mode & 0o7777)),
                       ("chown", lambda: os.chown(path, os.getuid(), os.getgid())),
                       ("utime", lambda: os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns)))):
        try:
            call()
            tried.append(name)
        except OSError:
            pass
    out["devices"][path] = {"node": f"{info.st_dev}:{info.st_ino}", "allowed": tried}
def size(path):
    try:
        if os.path.isdir(path):
            return len(os.listdir(path))
        with open(path, "rb") as f:
            return len(f.read())
    except OSError:
        return 0
out["secrets"] = {p: size(p) for p in spec["secrets"]}
out["relocated"] = {p: size(p) for p in spec["relocated"]}
out["passwd"] = {p: size(p) for p in spec["passwd"]}
import subprocess
repo = spec["repo"]
made = subprocess.run(["git", "init", "-q", repo], capture_output=True).returncode == 0
made = made and subprocess.run(
    ["git", "-C", repo, "config", "core.fsmonitor", f"echo RAN > {spec['ran']}; false"],
    capture_output=True).returncode == 0
if made:
    hook = os.path.join(repo, ".git", "hooks", "post-index-change")
    with open(hook, "w") as f:
        f.write(f"#!/bin/sh\necho RAN > {spec['ran']}\n")
    os.chmod(hook, 0o755)
out["repo"] = made
for path in spec["start_files"]:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{}")
try:
    fd = os.open(spec["setid"], os.O_RDWR)
    m = mmap.mmap(fd, 0)
    m[:4] = b"SBOX"
    m.flush()
    m.close()
    os.close(fd)
    out["setid"] = "written"
except OSError as e:
    out["setid"] = os.strerror(e.errno)
print(json.dumps(out))
"""


def run_outside_checks(template: Sandbox) -> list[Result]:
    """Each property tested under a sandbox with `template`'s settings."""
    with tempfile.TemporaryDirectory(prefix="tether-sandbox-check-") as base_name:
        return _run(template, Path(base_name).resolve())


def _run(template: Sandbox, base: Path) -> list[Result]:
    ws, home, scratch = base / "ws", base / "home", base / "tether" / "scratch" / "check"
    for directory in (ws, home, scratch):
        directory.mkdir(parents=True)
    setid = ws / "setid-tool"
    setid.write_bytes(b"#!/bin/sh\necho original\n")
    as_root = os.geteuid() == 0
    if as_root:  # what a user might have left in a workspace (only root can make it root's)
        setid.chmod(0o4755)
    environ = {name: str(base / place) for name, place in RELOCATED.items()}
    for sentinel in SENTINELS:
        (base / sentinel).parent.mkdir(parents=True, exist_ok=True)
        (base / sentinel).write_text("SENTINEL\n")
    roots = (ws, scratch / "tmp", scratch)
    secrets = [p for p in root_secrets() if os.path.exists(p)]
    # The check's home is its own: the user's, as the passwd database names it, is then a
    # home elsewhere, as with HOME set elsewhere. Only what is there is read (sizes).
    own = [p for p in passwd_home_secrets(home, SECRETS_IN_HOME, keep=roots) if p.exists()]
    sandbox = replace(
        template,
        workspace=ws,
        writable=(scratch,),
        tmp_dir=scratch / "tmp",
        hidden=(*secrets, *relocated_secrets(environ, SECRETS_IN_HOME, keep=roots), *own),
        home=home,
        scratch=scratch,
        git_sweep=GitSweep(),
        start_sweep=StartSweep(),
    )
    (ws / ".claude-plugin").mkdir()
    market = {"name": "check", "plugins": [{"name": "p", "source": "./plugins/p"}]}
    (ws / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market))
    start_files = [ws / rel for rel in START_FILES]
    spec = {
        "devices": [d for d in DEVICES if os.path.exists(d)],
        "secrets": [str(p) for p in secrets],
        "relocated": [str(base / s) for s in SENTINELS],
        "setid": str(setid),
        "passwd": [str(p) for p in own],
        "repo": str(ws / "tether-check-repo"),
        "ran": str(ws / "tether-check-ran"),
        "start_files": [str(p) for p in start_files],
    }
    host_devices = {d: _owner_and_mode(d) for d in spec["devices"]}
    done = run_probe(sandbox, ws, _PROBE, spec)
    try:
        seen = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [Result(False, "probe", f"the second probe did not run in the sandbox: {said}")]
    changed = [d for d, was in host_devices.items() if _owner_and_mode(d) != was]
    for device in changed:  # put back what a failure changed
        os.chmod(device, host_devices[device][0] & 0o7777)
    return [
        _setid_result(seen["setid"], setid, as_root),
        _devices_result(seen["devices"], host_devices, changed, as_root),
        _secrets_result(seen["secrets"], as_root),
        _relocated_result(seen["relocated"]),
        _passwd_result(seen["passwd"], home),
        _new_repository_result(bool(seen["repo"]), ws / "tether-check-repo"),
        _start_files_result(start_files),
    ]


START_FILES = (
    "sub/.claude/settings.json",
    "sub/.mcp.json",
    "a/b/c/d/.tether/settings.json",
    "pkg/.vscode/tasks.json",
    "plugins/p/hooks/hooks.json",
)
"""Made inside by the probe, where no mount guards them: a plain subdirectory, one past the
nested search's depth, a plugin directory a workspace marketplace lists."""


def _start_files_result(paths: list[Path]) -> Result:
    left = [str(p) for p in paths if os.path.lexists(p)]
    kept = [p for p in paths if p.with_name(p.name + DISABLED).is_file()]
    return Result(
        not left and len(kept) == len(paths),
        "start-up files anywhere",
        f"settings, MCP servers, editor tasks and a workspace plugin's hooks made inside in "
        f"directories no mount guards ({len(paths)}): moved aside when the command ended"
        + (f"; LEFT: {', '.join(left)}" if left else ""),
    )


def _owner_and_mode(path: str) -> tuple[int, int, int, str]:
    """(mode, uid, gid, node) of a device file."""
    info = os.stat(path)
    return info.st_mode, info.st_uid, info.st_gid, f"{info.st_dev}:{info.st_ino}"


def _setid_result(said: str, path: Path, as_root: bool) -> Result:
    kept = path.read_bytes().startswith(b"#!/bin/sh") and path.stat().st_mode & 0o4000
    if not as_root:
        return Result(
            True,
            "existing setuid files",
            "not tested: tether is not root, so a setuid file the command can write is its own",
        )
    return Result(
        bool(kept) and said != "written",
        "existing setuid files",
        f"a root setuid file in the workspace cannot be opened for writing ({said}), "
        "so a shared mapping cannot rewrite it" + ("" if kept else "; REWRITTEN WITH ITS BIT KEPT"),
    )


def _devices_result(
    seen: dict[str, dict[str, object]],
    host: dict[str, tuple[int, int, int, str]],
    changed: list[str],
    as_root: bool,
) -> Result:
    shared = [d for d, s in seen.items() if s["node"] == host[d][3]]
    allowed = {d: s["allowed"] for d, s in seen.items() if s["allowed"]}
    if as_root:
        own = "tether's own nodes, not the machine's" if not shared else ""
        own = own or f"THE MACHINE'S OWN: {', '.join(shared)}"
    else:
        own = "the machine's (root's: the command is not their owner)"
    ok = not changed and not (as_root and shared and allowed)
    return Result(
        ok,
        "device files",
        f"{', '.join(seen)}: {own}; chmod, chown and utime of each "
        + (f"ALLOWED: {allowed}" if allowed else "refused")
        + (f"; THE HOST'S CHANGED: {', '.join(changed)}" if changed else "; the host's unchanged"),
    )


def _secrets_result(sizes: dict[str, int], as_root: bool) -> Result:
    read = sorted(p for p, n in sizes.items() if n)
    if not as_root:
        return Result(True, "root's secrets", "not root: their modes keep the command out")
    return Result(
        not read,
        "root's secrets",
        f"{len(sizes)} present ({', '.join(sizes) or 'none'}) read as empty"
        + (f"; READ: {', '.join(read)}" if read else ""),
    )


def _relocated_result(sizes: dict[str, int]) -> Result:
    read = sorted(p for p, n in sizes.items() if n)
    names = ", ".join(RELOCATED)
    return Result(
        not read,
        "relocated credential stores",
        f"{len(sizes)} sentinels where {names} point read as empty"
        + (f"; READ: {', '.join(read)}" if read else ""),
    )


def _passwd_result(sizes: dict[str, int], home: Path) -> Result:
    read = sorted(p for p, n in sizes.items() if n)
    homes = ", ".join(map(str, passwd_homes(home))) or "none"
    return Result(
        not read,
        "the passwd home",
        f"with HOME elsewhere, the credential places present in the home the passwd database "
        f"names ({homes}) read as empty: {len(sizes)} ({', '.join(sizes) or 'none present'})"
        + (f"; READ: {', '.join(read)}" if read else ""),
    )


def _new_repository_result(made: bool, repo: Path) -> Result:
    """A repository the probe made inside with `core.fsmonitor` and a hook: `git status` run
    in it outside (as the user would) must run neither."""
    name = "new repositories"
    git = shutil.which("git")
    if not made or git is None:
        return Result(True, name, "not tested: git is not there to make one inside or run it")
    ran = repo.parent / "tether-check-ran"
    subprocess.run(
        [git, "-c", "safe.directory=*", "-C", str(repo), "status"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    kept = (repo / ".git" / f"config{DISABLED}").is_file()
    return Result(
        not ran.exists() and kept,
        name,
        "a repository made inside with core.fsmonitor and a hook: both disabled when the "
        "command ended (the config kept aside), git status outside runs neither"
        + ("; RAN OUTSIDE" if ran.exists() else "")
        + ("" if kept else "; NOT DISABLED"),
    )
