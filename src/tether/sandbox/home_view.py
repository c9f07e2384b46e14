"""The user's home inside the sandbox: hidden, but for what commands need from it.

A list of credential places can never be complete (`~/.netrc`, `~/.docker/config.json`,
`~/.pgpass`, a browser profile, a token pasted into `~/notes.txt`...), so the home is covered
whole by an empty tmpfs, made read-only once everything inside it is mounted (a write there
fails rather than vanishing with the sandbox), and only these come back:

- the workspace and the other writable directories that lie in it, writable as before;
- `HOME_TOOLCHAINS`, read-only: the programs and interpreters users install under their home;
- the `PATH` directories and the virtualenv (`VIRTUAL_ENV`) that lie in it, read-only;
- `sandbox.readable`, read-only: what the user chose to show.

The credential places of the deny list (`SECRETS_IN_HOME`) stay covered inside whatever comes
back, and so do the settings files with tokens that tools keep in their install prefixes
(`toolchain_credentials.py`). When the home is itself a writable root (tether started in
`~`, or `--add-dir ~`), its top level is shown read-only (nothing can be created there), its
folders are writable, and its dot entries are hidden but for the toolchains. A dot entry
that is a symlink leads elsewhere: what it leads to is covered as well (unless it is a system
directory or holds a writable root), so that the link cannot bring it into view.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether.sandbox.nofollow import Descriptors, Found
from tether.slotted import Slotted

HOME_TOOLCHAINS: tuple[str, ...] = (
    # programs installed for the user, and Python's user site-packages they import
    ".local/bin", ".local/lib",
    # version managers: the interpreters they install live in their own directory
    ".pyenv", ".rbenv", ".nodenv", ".goenv", ".jenv", ".nvm", ".asdf", ".sdkman", ".fnm",
    ".volta/bin", ".volta/tools", ".local/share/fnm", ".local/share/mise/installs",
    ".local/share/mise/shims", ".local/share/uv/python", ".local/share/uv/tools",
    ".local/share/pipx", ".local/pipx", ".local/share/pnpm", ".rye/shims", ".rye/py",
    ".poetry/bin", ".pixi/bin",
    # Rust, Go, Haskell, OCaml, Lean, JavaScript runtimes, Nix
    ".rustup", ".cargo/bin", ".cargo/registry", ".cargo/git", "go/bin", "go/pkg/mod", "sdk",
    ".ghcup", ".cabal/bin", ".opam", ".elan", ".bun", ".deno/bin", ".nix-profile",
    # conda installs
    "miniconda3", "anaconda3", "miniforge3", "mambaforge", ".conda/envs", ".conda/pkgs",
    # JVM build tools' downloaded dependencies (their settings files hold credentials)
    ".m2/repository", ".gradle/caches", ".gradle/wrapper",
)  # fmt: skip
"""Places under the home shown read-only in the sandbox: programs, interpreters and downloaded
dependencies, never configuration or credentials. Where a tool keeps a credential inside its
directory, only the parts without one are listed (`.cargo/credentials.toml`,
`.rye/credentials`, uv's `credentials`, `.gradle/gradle.properties` are not). `~/.gitconfig`
is not listed: besides an identity it holds credential helpers' settings and, often enough,
a token (`http.extraHeader`, a `url.<token>.insteadOf`); the identity reaches commits through
the environment instead (`git_identity`). A test keeps this table apart from `HOME_SECRETS`."""

SYSTEM_DIRECTORIES = tuple(
    Path(p)
    for p in ("/usr", "/etc", "/opt", "/nix", "/snap", "/bin", "/sbin", "/lib", "/lib32",
              "/lib64", "/libx32", "/proc", "/sys", "/dev", "/run", "/var/lib")
)  # fmt: skip
"""Where a dot entry's symlink may lead without its target being covered: the system's own
files, readable by everyone (covering `/usr/share/fonts` for a `~/.fonts` link would hide
more than it guards)."""


class HomeMounts(Slotted):
    """What the home view adds to a command line (`home_mounts`)."""

    __slots__ = ("covers", "folders", "link_targets", "read_only_home", "root")
    root: Path
    """The home."""
    covers: list[Path]
    """The home, or (when it is a writable root) its dot entries: covered, and what lies
    below them hidden unless something deeper brings it back."""
    link_targets: list[tuple[Path, Path]]
    """The home's dot entries that are symlinks, and where they lead: covered too where in
    view."""
    read_only_home: Found | None
    """The home bound read-only: it is a writable root, so its top level is shown."""
    folders: list[tuple[Path, Found]]
    """The home's folders (not dot entries), writable, when it is a writable root."""

    def __init__(
        self,
        root: Path = Path("/"),
        covers: list[Path] | None = None,
        link_targets: list[tuple[Path, Path]] | None = None,
        read_only_home: Found | None = None,
        folders: list[tuple[Path, Found]] | None = None,
    ) -> None:
        self.root = root
        self.covers = [] if covers is None else covers
        self.link_targets = [] if link_targets is None else link_targets
        self.read_only_home = read_only_home
        self.folders = [] if folders is None else folders


def home_mounts(home: Path | None, writable: Sequence[Path], reached: Descriptors) -> HomeMounts:
    """The covers of the home and, when it is one of the `writable` roots, its folders."""
    if home is None or home == Path("/") or not isinstance(found := reached.reach(home), Found):
        return HomeMounts()
    mounts = HomeMounts(root=home)
    is_root = home in writable
    if is_root:
        mounts.read_only_home = found
    else:
        mounts.covers.append(home)
    try:
        with os.scandir(home) as entries:
            listed = [(e.name, e.is_symlink(), e.is_dir(follow_symlinks=False)) for e in entries]
    except OSError:
        return mounts
    for name, link, directory in sorted(listed):
        path = home / name
        if link and name.startswith("."):
            mounts.link_targets.append((path, Path(os.path.realpath(path))))
        elif not is_root or link:
            continue
        elif name.startswith("."):
            mounts.covers.append(path)
        elif directory and isinstance(folder := reached.reach(path), Found):
            mounts.folders.append((path, folder))
    return mounts


def coverable_target(target: Path, keep: Iterable[Path]) -> bool:
    """Whether a dot entry's symlink target may be covered: not a system directory, not `/`,
    and not a place that holds (or is) one of `keep` (the writable roots, what is shown)."""
    if target == Path("/") or any(target.is_relative_to(s) for s in SYSTEM_DIRECTORIES):
        return False
    return not any(k.is_relative_to(target) for k in keep)


def showable(real: Path, home: Path, hidden: Sequence[Path]) -> bool:
    """Whether a place to show that a symlink leads to (`real`) may be bound: not the home
    itself, and neither in a credential place nor holding one (`~/.local/share`, the home
    through another name): a link there would bring back what the home's cover hides."""
    if real == home:
        return False
    return not any(real.is_relative_to(s) or s.is_relative_to(real) for s in hidden)


def in_view(path: Path, covers: Sequence[Path], binds: Sequence[Path]) -> bool:
    """Whether `path` is in view after the home's covers: no cover holds it, or a bind at
    least as deep as the deepest such cover brings it back (at equal depth the bind is
    mounted after the cover)."""
    cover = _deepest_holding(path, covers)
    if cover is None:
        return True
    bind = _deepest_holding(path, binds)
    return bind is not None and len(bind.parts) >= len(cover.parts)


def _deepest_holding(path: Path, roots: Sequence[Path]) -> Path | None:
    holding = [r for r in roots if within(path, r)]
    return max(holding, key=lambda r: len(r.parts), default=None)


def exposures(
    home: Path | None,
    readable: Sequence[Path],
    toolchain_dirs: Sequence[Path],
    secrets: Sequence[str],
) -> list[Path]:
    """The places to show read-only in the home, shallowest first: the toolchain table, the
    environment's toolchain directories, `sandbox.readable`. Only those in the home (the rest
    is in view already) and present. A toolchain place that is, or lies in, a credential
    place is not shown (`sandbox.readable` is the user's own choice, and is). `secrets`: the
    credential places, each as a prefix (`/home/u/.ssh/`)."""
    if home is None:
        return []
    # Most of the table is missing: one lstat each first, then the few that exist are
    # compared as strings (pathlib's comparisons cost more than the walk, every command).
    automatic = [p for p in (*(home / t for t in HOME_TOOLCHAINS), *toolchain_dirs) if p != home]
    found = [p for p in automatic if os.path.lexists(p)]
    found = [p for p in found if not any(f"{p}/".startswith(s) for s in secrets)]
    found += [p for p in readable if within(p, home) and os.path.lexists(p)]
    return sorted(dict.fromkeys(found), key=lambda p: len(p.parts))


def within(path: Path, root: Path) -> bool:
    """`path` is `root` or lies in it (as `Path.is_relative_to`, for absolute paths, faster)."""
    text, prefix = str(path), str(root)
    return text == prefix or text.startswith(prefix.rstrip("/") + "/")


def home_toolchain_dirs(environ: Mapping[str, str], home: Path, workspace: Path) -> list[Path]:
    """The directories on `PATH` and the virtualenv (`VIRTUAL_ENV`) that lie in the home,
    outside the workspace (which is in view already): as named, for a link among them to be
    made again inside, or resolved where only that lies in the home."""
    entries = environ.get("PATH", "").split(":")
    entries.append(environ.get("VIRTUAL_ENV", ""))
    found: list[Path] = []
    for entry in entries:
        if not entry.startswith("/"):
            continue
        named = Path(os.path.abspath(entry))
        path = named if named.is_relative_to(home) else Path(os.path.realpath(entry))
        if path.is_relative_to(home) and path != home and not path.is_relative_to(workspace):
            found.append(path)
    return list(dict.fromkeys(found))


GIT_IDENTITY = {
    "user.name": ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"),
    "user.email": ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"),
}


def git_identity(home: Path, environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The user's git identity from their global config, as the variables git reads: commits
    made in the sandbox keep their author although `~/.gitconfig` is hidden there. Variables
    the environment sets already are left alone; none when git is not there."""
    wanted = {name for names in GIT_IDENTITY.values() for name in names}
    if wanted <= environ.keys():
        return ()
    env = {"HOME": str(home), "PATH": environ.get("PATH", os.defpath), "GIT_CONFIG_NOSYSTEM": "1"}
    try:
        done = subprocess.run(
            [
                "git",
                "config",
                "--global",
                "--includes",
                "-z",
                "--get-regexp",
                r"^user\.(name|email)$",
            ],
            capture_output=True,
            env=env,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found: dict[str, str] = {}
    for record in done.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = record.partition("\n")
        for name in GIT_IDENTITY.get(key.lower(), ()):
            if name not in environ and value:
                found[name] = value
    return tuple(sorted(found.items()))


@dataclass
class HomeView:
    """The home's part of a command line, resolved against what else is bound."""

    covers: list[Path] = field(default_factory=list[Path])
    """Every cover, in view where it is mounted: the home's, the credential places, the
    targets of the home's dot links."""
    shown: list[tuple[Path, Found]] = field(default_factory=list[tuple[Path, Found]])
    """Bound read-only on top of a cover."""
    links: list[tuple[Path, str]] = field(default_factory=list[tuple[Path, str]])
    """Symlinks made again inside a cover (a toolchain's `~/.nix-profile` link)."""


def home_view(
    home: HomeMounts,
    *,
    hidden: Sequence[Path],
    candidates: Sequence[Path],
    writable: Sequence[Path],
    reached: Descriptors,
    inside: Sequence[Path] = (),
) -> HomeView:
    """What to cover and what to show: `hidden` are the credential places (resolved, present),
    `candidates` the places to show (`exposures`), `writable` the writable roots bound,
    `inside` the credential files inside the places shown (resolved, present): covered too.

    A place to show is bound only where a cover hides it, by descriptor; one with a symlink
    on its way is shown at its target when that lies in the home (never in a credential
    place), and the link itself is made again inside the cover. A cover is mounted only
    where something is in view to cover (most of the deny list lies under the home's own)."""
    view = HomeView()
    binds = [*writable, *([] if home.read_only_home is None else [home.root])]
    shown: list[Path] = []

    def show(path: Path, found: Found) -> None:
        shown.append(path)
        view.shown.append((path, found))

    for path in candidates:
        if in_view(path, home.covers, [*binds, *shown]):
            continue
        found = reached.reach(path)
        if isinstance(found, Found):
            show(path, found)
            continue
        if found != "blocked":
            continue
        real = Path(os.path.realpath(path))
        if not showable(real, home.root, hidden):
            continue
        if not in_view(real, home.covers, [*binds, *shown]):
            if not isinstance(target := reached.reach(real), Found):
                continue
            show(real, target)
        if path.is_symlink() and not in_view(path.parent, home.covers, [*binds, *shown]):
            view.links.append((path, os.readlink(path)))
    keep = [*writable, *shown]
    targets = [
        target
        for link, target in home.link_targets
        if not any(c.is_relative_to(link) or link.is_relative_to(c) for c in candidates)
        and coverable_target(target, keep)
    ]
    view.covers = list(home.covers)
    for target in [*hidden, *inside, *targets]:
        if target not in shown and in_view(target, home.covers, [*binds, *shown]):
            view.covers.append(target)
    return view
