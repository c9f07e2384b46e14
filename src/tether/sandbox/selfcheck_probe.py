"""The probe of `tether sandbox check`: the Python program that tries each attack inside the
sandbox and prints what happened as JSON, how it is run, and what a check's result is. The
judging of what it printed is `selfcheck.py`'s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tether.sandbox.bwrap import Sandbox

TIMEOUT_S = 30.0


def run_probe(
    sandbox: Sandbox, ws: Path, probe: str, spec: object
) -> subprocess.CompletedProcess[str]:
    """`probe` (Python source) run in `sandbox` with `spec` as its JSON argument; the sandbox
    closed after (its placeholders go then: what is left was made inside)."""
    command = sandbox.wrap([sys.executable, "-I", "-c", probe, json.dumps(spec)], ws)
    try:
        return subprocess.run(
            command,
            pass_fds=command.pass_fds,
            env=command.environment(os.environ),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    finally:
        command.finished(0, "")
        sandbox.close()


KERNEL_FILES = (
    "/proc/sys/kernel/core_pattern",
    "/proc/sys/vm/drop_caches",
    "/proc/sysrq-trigger",
    "/sys/kernel/mm/transparent_hugepage/enabled",
)
"""Kernel settings a uid that is root's outside could write but for the read-only binds:
the probe opens them for writing and closes them, writing nothing."""
SECRET_VARIABLE = "TETHER_CHECK_API_KEY"
TOKEN_VARIABLE = "CHECK_UPSTREAM"
"""Withheld for its value alone: a token's prefix (`environment.TOKEN_PREFIXES`)."""
SECRET_VALUE = "not-a-real-key-tether-check"
TOKEN_VALUE = "ghp_" + "0" * 36

PROBE = r"""
import ctypes, json, os, socket, stat, subprocess, sys
spec = json.loads(sys.argv[1])
out = {}
lines = open("/proc/self/status").read().splitlines()
status = dict(l.split(":\t", 1) for l in lines if ":\t" in l)
out["caps"] = {k: status[k].strip() for k in ("CapEff", "CapPrm", "CapBnd")}
out["uid"] = os.getuid()
def run(*argv):
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode
    except OSError:
        return 127
libc = ctypes.CDLL(None, use_errno=True)
out["remount"] = libc.mount(b"none", b"/", None, 0x20 | 0x1000, None) == 0  # MS_REMOUNT|MS_BIND
out["remount_cmd"] = run("mount", "-o", "remount,bind,rw", "/") == 0
out["root_write"] = os.access("/", os.W_OK) and not run("touch", spec["root_probe"])
hidden_dir = spec["hidden_dir"]
out["umount"] = libc.umount2(hidden_dir.encode(), 2) == 0 or run("umount", "-l", hidden_dir) == 0
out["userns"] = libc.unshare(0x10000000) == 0 or run("unshare", "-U", "-r", "true") == 0
def writes(path):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a") as f:
            f.write("written inside\n")
        # A missing file's placeholder takes the write and keeps nothing (/dev/null).
        with open(path) as f:
            return "written inside" in f.read()
    except OSError:
        return False
out["protected"] = {p: writes(p) for p in spec["protected"]}
out["installed"] = {p: writes(p) for p in spec["installed"]}
writes(spec["through_link"])
def reach(address, family):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(address)
        return True
    except OSError:
        return False
    finally:
        s.close()
out["unix"] = {}
for path in spec["sockets"]:
    try:
        out["unix"][path] = reach(path, socket.AF_UNIX)
    except OSError:
        out["unix"][path] = False
out["tcp"] = reach(("127.0.0.1", spec["port"]), socket.AF_INET)
try:
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()
    out["vsock"] = "made"
except OSError as e:
    out["vsock"] = e.errno
out["env"] = [n for n in (spec["secret_name"], spec["token_name"]) if n in os.environ]
# The values, given reversed (bwrap's command line, in sight, holds this spec): no process in
# sight may hold them, in its environment or command line, nor any file pid 1 holds open.
values = [v[::-1].encode() for v in spec["secret_values"]]
out["proc"] = []
for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
    places = [f"/proc/{pid}/environ", f"/proc/{pid}/cmdline"]
    if pid == "1":
        try:
            places += [f"/proc/1/fd/{fd}" for fd in os.listdir("/proc/1/fd")]
        except OSError:
            pass
    for place in places:
        try:  # regular files only: a pipe pid 1 holds (the probe's output) never ends
            fd = os.open(place, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        with open(fd, "rb") as f:
            held = f.read(1 << 20) if stat.S_ISREG(os.fstat(fd).st_mode) or pid != "1" else b""
        if any(v in held for v in values):
            out["proc"].append(place)
def content(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
out["hidden"] = {p: content(p) for p in spec["hidden"]}
out["home"] = {p: content(p) for p in spec["home_sentinels"]}
out["toolchain"] = content(spec["toolchain"])
out["tmp_seen"] = content(spec["tmp_outside"])
with open(spec["tmp_inside"], "w") as f:
    f.write("from inside\n")
out["tmp_written"] = writes(spec["tmp_outside"])
def opened(path):  # opened for writing and closed: not a byte written
    try:
        os.close(os.open(path, os.O_WRONLY))
        return True
    except OSError:
        return False
out["kernel"] = [p for p in spec["kernel"] if opened(p)]
def refused(call):
    try:
        call()
        return False
    except PermissionError:
        return True
made = os.path.join(spec["tmp_dir"], "setid")
open(made, "w").close()
out["setid"] = {
    "chmod": refused(lambda: os.chmod(made, 0o4755)),
    "mkdir": refused(lambda: os.mkdir(made + "-d", 0o2755)),
    "open": refused(lambda: os.close(os.open(made + "-o", os.O_CREAT | os.O_WRONLY, 0o4755))),
}
# bwrap's own options (before the command's `--`) name no hidden or protected path.
try:
    with open("/proc/1/cmdline", "rb") as f:
        options = f.read().split(b"\0--\0")[0]
except OSError:
    options = b""
out["layout"] = [p for p in spec["layout_names"] if p.encode() in options]
# Repositories a command makes where no protected path stands, with what git and hg outside
# would run there: disabled when the command ends (judged outside).
bare = spec["bare_repo"]
for sub in ("objects", "refs/heads", "hooks"):
    os.makedirs(os.path.join(bare, sub), exist_ok=True)
with open(os.path.join(bare, "HEAD"), "w") as f:
    f.write("ref: refs/heads/main\n")
with open(os.path.join(bare, "config"), "w") as f:
    f.write("[core]\n\tbare = true\n\tpager = echo RAN\n")
with open(os.path.join(bare, "hooks", "pre-receive"), "w") as f:
    f.write("#!/bin/sh\necho RAN\n")
os.makedirs(os.path.dirname(spec["hgrc"]), exist_ok=True)
with open(spec["hgrc"], "w") as f:
    f.write("[hooks]\npre-status = echo RAN\n")
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Result:
    ok: bool
    name: str
    detail: str

    def line(self) -> str:
        return f"  {'ok    ' if self.ok else 'FAILED'}  {self.name}: {self.detail}"
