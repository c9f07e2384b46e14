"""The mounts of a sandbox's bwrap command line: binds and covers, shallowest first, so each
path ends under its most specific rule; the writable roots, the home's view, the covers of
secrets and /run, the protected paths (placeholders made where missing) and the set-id files
bound read-only. The policy itself is `bwrap.py`'s `Sandbox`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from tether.sandbox.denied_reads import DeniedFound
from tether.sandbox.devices import device_mounts
from tether.sandbox.home_view import HomeMounts, HomeView, home_mounts, home_view, in_view
from tether.sandbox.kernel_files import kernel_mounts
from tether.sandbox.nofollow import Descriptors, Found
from tether.sandbox.placeholders import Placeholders
from tether.sandbox.protected import Protected
from tether.sandbox.refusal import SearchCut
from tether.sandbox.toolchain_credentials import toolchain_credentials

if TYPE_CHECKING:
    from tether.sandbox.bwrap import Sandbox

RUNTIME_DIRS = (Path("/run"), Path("/var/run"))
"""Where system services keep their unix sockets; covered when the network is off."""


def sandbox_mounts(
    sandbox: Sandbox, placeholders: Placeholders, reached: Descriptors
) -> list[list[str]]:
    """Binds and covers, shallower paths first: bwrap applies them in order, so each path
    ends up under its most specific rule (a workspace inside ~/.config stays visible; a
    ~/.ssh inside a workspace that is the home directory stays hidden); at equal depth in
    the order of `_COVER`, `_SHOWN`, `_WRITABLE`, `_PROTECTED`.

    Every bind is of a path reached without following a symlink (`nofollow.py`), by its
    descriptor where bwrap takes one: a command cannot redirect a bind by replacing a
    directory with a link between two commands. What is not reached is not bound."""
    mounts: dict[str, tuple[int, int, list[str]]] = {}
    by_fd = binds_by_fd(sandbox.bwrap)
    devices = sandbox.devices()
    null = "/dev/null" if devices is None else str(devices / "null")

    def add(path: Path, rank: int, mount: list[str]) -> None:
        mounts[str(path)] = (len(path.parts), rank, mount)

    def bind(path: Path, found: Found, *, read_only: bool, rank: int | None = None) -> None:
        if by_fd:
            flag = "--ro-bind-fd" if read_only else "--bind-fd"
            mount = [flag, str(reached.use(found)), str(path)]
        else:
            mount = ["--ro-bind" if read_only else "--bind", str(path), str(path)]
        add(path, rank if rank is not None else (_PROTECTED if read_only else _WRITABLE), mount)

    binds, home, view = _view(sandbox, reached)
    writable = [path for path, _ in binds]
    not_writable = [*view.covers, *(path for path, _ in view.shown)]
    if home.read_only_home is not None:
        not_writable.append(home.root)
    denied_found = denied_in_view(sandbox, view, home, writable, reached)
    if denied_found.cut is not None:
        # Fail closed: what the cut search did not reach would be readable (`refusal.py`).
        raise SearchCut(denied_found.cut)
    for denied in denied_found.paths:
        # Hidden as a secret is: a Read deny rule names it (`denied_reads.py`).
        view.covers.append(denied.path)
        not_writable.append(denied.path)
    for target in view.covers:
        if target.is_dir():
            add(target, _COVER, ["--tmpfs", str(target)])
        elif target.exists():
            # A device bind, so that the file reads as empty rather than failing (bwrap's
            # other binds forbid device access); writes vanish into /dev/null.
            add(target, _COVER, ["--dev-bind", null, str(target)])
    if home.read_only_home is not None:
        bind(home.root, home.read_only_home, read_only=True, rank=_SHOWN)
    for path, found in view.shown:
        bind(path, found, read_only=True, rank=_SHOWN)
    for path, text in view.links:
        add(path, _SHOWN, ["--symlink", text, str(path)])
    if not sandbox.network and not sandbox.all_unix_sockets:
        for run in RUNTIME_DIRS:
            if run.is_dir() and not run.is_symlink():
                add(run, _COVER, ["--tmpfs", str(run)])
        for socket in sandbox.unix_sockets:
            if isinstance(found := reached.reach(socket), Found):
                bind(socket, found, read_only=False)
    for path, found in binds:
        bind(path, found, read_only=False)
    bound: set[str] = set()
    """Protected paths bound read-only."""
    writable_roots, not_writable_roots = _Roots(writable), _Roots(not_writable)

    def protect(path: Path, entry: Protected, *, follow: bool) -> None:
        under = writable_roots.deepest(path)
        if under is None:
            return
        depth = len(under.parts)
        cover = not_writable_roots.deepest(path)
        if cover is not None and len(cover.parts) > depth:
            return  # hidden (writes vanish with the sandbox) or shown read-only
        above, top = str(path), str(under)
        while above != top:
            above = _parent(above)
            if above in bound:
                return  # inside a protected path already bound read-only
        found = reached.reach(path)
        if entry.only_missing and isinstance(found, Found):
            return
        # Missing with only real directories before it: the placeholder (and the
        # directories it needs) cannot land outside.
        missing = found == "missing" and entry.placeholder is not None
        if missing and placeholders.ensure(path, entry):
            reached.forget_missing()
            found = reached.reach(path)
        if found == "blocked" and follow:
            # A symlink on the way: what it leads to is protected where it is, if that is
            # in a writable place itself (reached without a link, no placeholder made);
            # elsewhere it is read-only already, and a dangling link needs nothing.
            with contextlib.suppress(OSError, ValueError):
                real = Path(os.path.realpath(path))
                if real != path:
                    entry = Protected(entry.path, entry.directory, None, entry.why)
                    protect(real, entry, follow=False)
            return
        if not isinstance(found, Found):
            return
        pins = [(pin, reached.reach(pin)) for pin in _between(under, path)]
        bound.add(str(path))
        for pin, pin_found in pins:
            # A mount point cannot be renamed: `mv .git x` would otherwise move the
            # protected config aside and let a new .git/config take its place.
            if isinstance(pin_found, Found):
                bind(pin, pin_found, read_only=False)
        if stat.S_ISSOCK(os.fstat(found.fd).st_mode):
            # A file's placeholder (`Protected.file_mask`): an empty file inside that git
            # does not list (a device), where the socket would fail every reader.
            add(path, _PROTECTED, ["--dev-bind", null, str(path)])
            return
        bind(path, found, read_only=True)

    setid = Protected("", False, None, "a setuid or setgid file: root's outside")
    candidates = {str(path): (path, entry) for path, entry in sandbox.protected_paths()}
    candidates |= {str(path): (path, setid) for path in sandbox.setid_files}
    candidates |= {str(path): (path, entry) for path, entry in edit_denied(sandbox, writable)}
    for path, entry in sorted(candidates.values(), key=lambda c: len(c[0].parts)):
        protect(path, entry, follow=True)
    # What the user's was, as bound read-only to every command, stays so only while it is.
    sandbox.git_sweep.still_protected(bound)
    sandbox.start_sweep.bound = frozenset(bound)
    sandbox.start_sweep.writable = frozenset(str(p) for p in writable)
    sandbox.start_sweep.shut = frozenset(str(p) for p in not_writable)
    ordered = sorted(mounts.values(), key=lambda m: (m[0], m[1]))
    # The home's covers read-only once everything inside them is mounted: the directories
    # bwrap made there for the binds cannot be renamed away (taking the workspace or the
    # scratch directory with them), and a write to the home fails instead of vanishing.
    tmpfs = [str(c) for c in home.covers if str(c) in mounts and mounts[str(c)][1] == _COVER]
    sealed = [["--remount-ro", c] for c in tmpfs if mounts[c][2][0] == "--tmpfs"]
    return [
        ["--ro-bind", "/", "/", "--dev", "/dev", *device_mounts(devices), "--proc", "/proc"],
        *kernel_mounts(),
        *(m[2] for m in ordered),
        *sealed,
    ]


def _view(
    sandbox: Sandbox, reached: Descriptors
) -> tuple[list[tuple[Path, Found]], HomeMounts, HomeView]:
    """The writable binds (reached without a link), the home's mounts and its view."""
    # Missing: nothing to bind. Blocked: a symlink a command made in a writable parent
    # (`sandbox.writable` inside the workspace, TMPDIR...): left as a link. The home, when
    # it is a writable root, is shown read-only and its folders are writable (`home_view`).
    roots = sandbox.writable_mounts()
    binds = [
        (p, f) for p in roots if p != sandbox.home and isinstance(f := reached.reach(p), Found)
    ]
    home = home_mounts(sandbox.home, roots, reached)
    binds += home.folders
    # Most candidates do not exist: one lstat each before resolving the few that do.
    shown = sandbox.shown_in_home()
    view = home_view(
        home,
        hidden=[p.resolve() for p in sandbox.hidden if os.path.lexists(p)],
        candidates=shown,
        writable=[path for path, _ in binds],
        reached=reached,
        inside=[p.resolve() for p in toolchain_credentials(sandbox.home, shown)],
    )
    return binds, home, view


def edit_denied(sandbox: Sandbox, writable: list[Path]) -> list[tuple[Path, Protected]]:
    """What the `Edit` deny rules name now under the writable roots: read-only, so that a
    command whose path led elsewhere when the permission engine judged it (a symlink a
    background command swaps) cannot write there when it runs. A path that does not exist
    yet is not made (no placeholder): a rule names files, and most of them exist; one the
    command makes is moved aside when it ends (`edit_sweep.py`). When the
    walk's bounds cut it, what it found is bound and the command runs (the engine judged its
    words; the user hears of the cut once)."""
    scan = sandbox.edit_scan
    if scan is None:
        return []
    found = scan.find(writable, lambda _: False)
    sandbox.start_sweep.edits.started(scan, found.paths)  # what a command adds: `edit_sweep`
    return [
        (d.path, Protected(str(d.path), d.directory, None, f"denied by {d.rule}"))
        for d in found.paths
    ]


def denied_now(sandbox: Sandbox) -> DeniedFound:
    """What the `Read` deny rules hide from a command started now, and what the walk's bounds
    cut (`tether sandbox check` reports both); nothing is made or mounted."""
    reached = Descriptors()
    try:
        binds, home, view = _view(sandbox, reached)
        return denied_in_view(sandbox, view, home, [path for path, _ in binds], reached)
    finally:
        reached.close_all()


def denied_in_view(
    sandbox: Sandbox, view: HomeView, home: HomeMounts, writable: list[Path], reached: Descriptors
) -> DeniedFound:
    """What the `Read` deny rules name now, in view inside (under a writable root, a place of
    the home shown, or outside the home's covers), reached without a link on the way; and what
    the walk's bounds cut."""
    scan = sandbox.denied_scan
    binds = [*writable, *(path for path, _ in view.shown)]
    if home.read_only_home is not None:
        binds.append(home.root)

    def visible(path: Path) -> bool:
        return in_view(path, view.covers, binds)

    found = scan.find(binds, visible) if scan is not None else DeniedFound(())
    # A cover hides a name, not a file: the other names (hard links) of what is hidden, in
    # view, are hidden too (`denied_links.py`).
    hidden = [(d.path, d.rule) for d in found.paths]
    hidden += [(path, "a credential place") for path in sandbox.hidden]
    links = sandbox.denied_links.find(hidden, binds)
    paths = tuple(
        denied
        for denied in dict.fromkeys((*found.paths, *links.paths))
        if visible(denied.path) and isinstance(reached.reach(denied.path), Found)
    )
    cut = "; ".join(c for c in (found.cut, links.cut) if c) or None
    return DeniedFound(paths, cut)


_COVER, _SHOWN, _WRITABLE, _PROTECTED = range(4)
"""Mount order at equal depth: a cover first, then a path shown read-only in it, then a
writable bind (a path the user made writable is one they mean to use), then a protected
read-only bind (which no setting lifts)."""


class _Roots:
    """Paths, to find the deepest that is a given path or holds it: a look-up per level of
    that path, rather than a comparison with each (a workspace with nested projects has
    hundreds of protected paths, each checked against every cover and writable root)."""

    def __init__(self, roots: list[Path]) -> None:
        self._by_text = {str(root): root for root in roots}

    def deepest(self, path: Path) -> Path | None:
        text = str(path)
        while True:
            found = self._by_text.get(text)
            if found is not None or text == "/":
                return found
            text = _parent(text)


def _parent(text: str) -> str:
    """The parent of an absolute, normal path given as text (`/` for `/`)."""
    return text[: text.rfind("/")] or "/"


def _between(root: Path, path: Path) -> list[Path]:
    """The directories strictly between `root` and `path`, shallowest first."""
    if not path.is_relative_to(root):
        return []
    parts = path.relative_to(root).parts[:-1]
    return [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]


def binds_by_fd(program: Path) -> bool:
    """Whether bwrap has `--bind-fd` (0.5 and later): it then checks that what it mounted is
    the descriptor's file. Older ones get the same walked paths, bound by name."""
    return "--ro-bind-fd" in bwrap_help(program)


_helps: dict[Path, str] = {}


def bwrap_help(program: Path) -> str:
    """What `bwrap --help` prints (its options), asked once per process and program: start-up
    waits for the probe, which needs it twice. "" when it cannot be run."""
    known = _helps.get(program)
    if known is not None:
        return known
    try:
        done = subprocess.run(
            [str(program), "--help"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        said = ""
    else:
        said = done.stdout + done.stderr
    return _helps.setdefault(program, said)


def remember_help(program: Path, said: str) -> None:
    """What `bwrap --help` printed, as an earlier process kept it with the probe's answer."""
    _helps[program] = said
