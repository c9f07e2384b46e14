"""Does the sandbox work on this machine, and if not, exactly why.

The only reliable test is to run something: bubblewrap may be installed yet unable to create
namespaces (disabled by a sysctl, by AppArmor, or inside a container). So `probe` runs `true`
under the same kind of command line a session uses, once per process, and when that fails
says which of those it is. A session's probe (of the `bwrap` on PATH) that worked is kept for
the next processes, as long as nothing it depends on changes (`probe_cache.py`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

from tether.sandbox.bwrap import Sandbox
from tether.sandbox.mounts import bwrap_help, remember_help
from tether.sandbox.placeholders import private_dir
from tether.sandbox.probe_cache import fingerprint, remember, remembered
from tether.slotted import Slotted

PROBE_TIMEOUT_S = 10.0

INSTALL_HINT = (
    "install the bubblewrap package (Debian/Ubuntu: `apt-get install bubblewrap`, "
    "Fedora: `dnf install bubblewrap`, Arch: `pacman -S bubblewrap`)"
)


class SandboxStatus(Slotted):
    """Whether commands can run under bubblewrap here."""

    __slots__ = ("bwrap", "disable_userns", "reason", "works")
    works: Final[bool]
    reason: Final[str | None]
    """Why not, precise enough to act on; None when it works."""
    bwrap: Final[Path | None]
    """The bwrap program found (also when it fails to run), None when there is none."""
    disable_userns: Final[bool]
    """This bwrap has `--disable-userns` (0.8 and later), and it works here."""

    def __init__(
        self, works: bool, reason: str | None, bwrap: Path | None, disable_userns: bool = False
    ) -> None:
        self.works = works
        self.reason = reason
        self.bwrap = bwrap
        self.disable_userns = disable_userns


class _Sysctl(Slotted):
    __slots__ = ("disabled_when", "enable", "file", "name")
    name: Final[str]
    file: Final[str]
    disabled_when: Final[str]
    enable: Final[str]

    def __init__(self, name: str, file: str, disabled_when: str, enable: str) -> None:
        self.name = name
        self.file = file
        self.disabled_when = disabled_when
        self.enable = enable


# Where a kernel can turn unprivileged user namespaces off; each file exists on some kernels
# only. bwrap needs them unless it is installed setuid root.
_USERNS_SYSCTLS = (
    _Sysctl(
        "kernel.unprivileged_userns_clone",
        "kernel/unprivileged_userns_clone",
        "0",
        "sysctl -w kernel.unprivileged_userns_clone=1",
    ),
    _Sysctl(
        "user.max_user_namespaces",
        "user/max_user_namespaces",
        "0",
        "sysctl -w user.max_user_namespaces=15000",
    ),
    _Sysctl(
        "kernel.apparmor_restrict_unprivileged_userns",
        "kernel/apparmor_restrict_unprivileged_userns",
        "1",
        "give bwrap an AppArmor profile that allows `userns`, "
        "or `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
    ),
)

# What bwrap prints when it may not create a user namespace (bubblewrap 0.4 to 0.8).
_USERNS_ERRORS = (
    "no permissions to creat",
    "creating new namespace failed",
    "setting up uid map",
    "max_*_namespaces",
    "non-privileged user namespaces",
)

_cache: dict[tuple[str | None, str | None, Path], SandboxStatus] = {}
_probing = threading.Lock()


def probe(
    bwrap: str | Path | None = None,
    *,
    search_path: str | None = None,
    proc_sys: Path = Path("/proc/sys"),
    fresh: bool = False,
) -> SandboxStatus:
    """Run a trivial command under bubblewrap and report whether that worked.

    `bwrap` names the program (default: `bwrap` looked up in `search_path`, which defaults to
    $PATH); `proc_sys` is where kernel settings are read for the diagnosis. The answer is
    cached per process for each combination of these. `fresh`: bwrap is run even when an
    earlier process's success is kept (a diagnosis reports what holds now, and keeps it).
    """
    effective_path = os.environ.get("PATH", os.defpath) if search_path is None else search_path
    key = (None if bwrap is None else str(bwrap), effective_path, proc_sys)
    with _probing:  # a probe started in the background (`probe_soon`) is waited for
        status = _cache.get(key)
        if status is None:
            if bwrap is None:  # the session's own: a success is kept between processes
                status = _probe_or_remembered(effective_path, proc_sys, fresh=fresh)
            else:
                status = _probe(str(bwrap), effective_path, proc_sys)
            _cache[key] = status
    return status


def _probe_or_remembered(search_path: str, proc_sys: Path, *, fresh: bool) -> SandboxStatus:
    """`bwrap` on `search_path` probed, or its success as an earlier process found it, when
    nothing it depends on has changed since (`probe_cache.py`)."""
    found = shutil.which("bwrap", path=search_path)
    marks = None
    if found is not None:
        with contextlib.suppress(OSError):
            marks = fingerprint(Path(found), proc_sys, tuple(s.file for s in _USERNS_SYSCTLS))
    if found is not None and marks is not None and not fresh:
        answer = remembered(private_dir(), marks)
        help_text = None if answer is None else answer.get("help")
        disable_userns = None if answer is None else answer.get("disable_userns")
        if isinstance(help_text, str) and isinstance(disable_userns, bool):
            remove_abandoned_probes(Path(tempfile.gettempdir()))
            remember_help(Path(found), help_text)
            return SandboxStatus(True, None, Path(found), disable_userns)
    status = _probe("bwrap", search_path, proc_sys)
    if status.works and status.bwrap is not None and marks is not None:
        answer = {"help": bwrap_help(status.bwrap), "disable_userns": status.disable_userns}
        remember(private_dir(), marks, answer)
    return status


def probe_soon() -> None:
    """Start `probe()` on a thread: its commands run while start-up goes on, and the caller's
    own `probe()` later takes the cached answer (or waits for it)."""
    # Not a daemon: a process that exits meanwhile (a configuration error) still lets the probe
    # remove its scratch directory.
    threading.Thread(target=probe, name="sandbox-probe").start()


PROBE_PREFIX = "tether-sandbox-probe-"
"""The probe's scratch directories: `<prefix><pid>-<random>`, so that a later start can tell
the ones a killed process left."""


UNNAMED_PROBE_AGE_S = 3600.0
"""A probe directory without a pid in its name (an older tether's) is removed past this age."""


def remove_abandoned_probes(tmp: Path) -> None:
    """Remove the probe directories of processes that are gone (a kill during start-up leaves
    its scratch directory; the next start clears it)."""
    try:
        entries = list(tmp.glob(f"{PROBE_PREFIX}*"))
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(PROBE_PREFIX) :].partition("-")[0]
        if not pid.isdigit():
            # Named before the pid was in the name: abandoned once older than any probe runs.
            try:
                seen = entry.stat()
            except OSError:
                continue
            if seen.st_uid == os.getuid() and time.time() - seen.st_mtime > UNNAMED_PROBE_AGE_S:
                shutil.rmtree(entry, ignore_errors=True)
            continue
        if int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue  # alive, another user's


def _probe(
    name: str, search_path: str, proc_sys: Path, allow_disable: bool = True
) -> SandboxStatus:
    found = shutil.which(name, path=search_path)
    if found is None:
        where = name if os.sep in name else f"no `{name}` on PATH"
        return SandboxStatus(False, f"bubblewrap is not installed ({where}); {INSTALL_HINT}", None)
    program = Path(found)
    disable_userns = allow_disable and "--disable-userns" in bwrap_help(program)
    remove_abandoned_probes(Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix=f"{PROBE_PREFIX}{os.getpid()}-") as scratch:
        place = Path(scratch).resolve()
        trial = Sandbox(place, (), False, place / "tmp", (), program, disable_userns=disable_userns)
        command = trial.wrap(["true"], place)
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
                pass_fds=command.pass_fds,
                env=command.environment(os.environ),
            )
        except subprocess.TimeoutExpired:
            return SandboxStatus(
                False,
                f"{program} did not finish a trivial command in {PROBE_TIMEOUT_S:g} s",
                program,
            )
        except OSError as e:
            return SandboxStatus(False, f"{program} cannot be run: {e.strerror or e}", program)
        finally:
            command.finished(0, "")
    if done.returncode == 0:
        return SandboxStatus(True, None, program, disable_userns)
    if disable_userns and "disable-userns" in done.stderr.decode("utf-8", "replace"):
        # Offered but not usable here (a kernel without the sysctl it sets): go without.
        return _probe(name, search_path, proc_sys, allow_disable=False)
    stderr = done.stderr.decode("utf-8", "replace").strip()
    return SandboxStatus(False, _diagnose(program, done.returncode, stderr, proc_sys), program)


def _diagnose(program: Path, returncode: int, stderr: str, proc_sys: Path) -> str:
    said = stderr.splitlines()[-1] if stderr else f"exit status {returncode}, no message"
    disabled = [s for s in _USERNS_SYSCTLS if _read(proc_sys / s.file) == s.disabled_when]
    names_userns = any(marker in stderr.lower() for marker in _USERNS_ERRORS)
    if disabled and (names_userns or os.geteuid() != 0):
        first = disabled[0]
        return (
            f"user namespaces are disabled ({first.name} = {first.disabled_when}), so bwrap "
            f"cannot create its sandbox (bwrap said: {said}); to enable: {first.enable}"
        )
    if names_userns:
        return (
            f"bwrap may not create user namespaces here (bwrap said: {said}); in a container "
            "they are usually blocked by its seccomp or AppArmor profile, otherwise a kernel "
            "setting disables them"
        )
    return f"{program} failed to run a trivial command (exit status {returncode}): {said}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
