"""Packages npm, pnpm, yarn and bun install from local places, whose lifecycle scripts
(`preinstall`, `install`, `postinstall`, `prepare`) run as they install: a path (`npm install
../x`, `/x/pkg.tgz`), a `file:`, `link:`, `portal:` or `git+file:` spec (`NAME@file:../x`
too), given to `install`/`i`/`add`/`link`/`ci`... on the command line, and the same specs in
the dependencies of the package.json files the install reads (the project's and its
workspaces': bash_judge_files), relative to that file. Judged through `outside_code`'s
`_loads` as code from where they lead: outside the workspace, code not seen. A package from a
URL or a git host (`fetched_specs`) is asked by npm_settings, as a registry `--registry`
names is."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from tether.permissions.shell_words import PATH_STARTS, is_literal, program_name

_INSTALLERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_INSTALLS = frozenset(
    {"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal"}
    | {"isntall", "add", "link", "ln", "ci", "clean-install", "ic", "install-clean"}
    | {"isntall-clean", "install-test", "it", "install-ci-test", "cit", "update", "up"}
    | {"upgrade", "udpate", "rebuild", "rb", "dedupe", "ddp", "prune", "import"}
    | {"uninstall", "unlink", "remove", "rm", "r", "un", "deploy", "patch-commit"}
)
"""npm's (with its aliases), pnpm's, yarn's and bun's commands that install packages and run
their scripts (removing one re-installs the tree too: what is missing is fetched); `npm audit
fix` and `bun pm trust` install as well (below)."""
_LOCAL = re.compile(r"(file|link|portal|git\+file):", re.I)
_ARCHIVE = re.compile(r".*\.(tgz|tar|tar\.gz)$", re.I)
_SLASHED = re.compile(r"[^@].*/.*", re.S)
"""A spec with a `/` that is no `@scope/name`: npm reads it as a directory (`src/../../x`);
one that is also a GitHub `user/repo` (github_shorthand) is judged as a fetch too."""
_DEPENDENCIES = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
_VALUED = frozenset({"-w", "--workspace", "--prefix", "-C", "--dir", "--cwd", "--filter"})
_MAX_WORKSPACES = 256


def installs(argv: tuple[str, ...]) -> bool:
    """Whether `argv` is a package manager's install (which reads package.json's
    dependencies)."""
    return _command(argv) is not None


def _command(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The words after an install command of a package manager, or None."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _INSTALLERS:
        return None
    args = argv[1:]
    i = 0
    maybe_value = False  # the word after an option not known may be its value
    while i < len(args):
        arg = args[i]
        if arg in _VALUED:
            i += 2
            continue
        if not arg.startswith("-"):
            rest = args[i + 1 :]
            if arg in _INSTALLS or _installing(arg, rest):
                return rest
            if not maybe_value:
                return None
        maybe_value = arg.startswith("-") and "=" not in arg
        i += 1
    # A bare `yarn`, `pnpm` or `bun` installs.
    return () if program_name(argv[0]) in ("yarn", "bun", "pnpm") and not args else None


def _installing(verb: str, rest: tuple[str, ...]) -> bool:
    """`npm audit fix` (an install of the fixed versions) and `bun pm trust` (the trusted
    packages' scripts run)."""
    words = [w for w in rest if not w.startswith("-")]
    return (verb == "audit" and "fix" in words) or (verb == "pm" and words[:1] == ["trust"])


def installed_specs(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The local places the packages named on `argv`'s install are taken from, as written
    (`./x`, `/x/p.tgz`, `file:../x` as `../x`); a word known only as it runs is any."""
    words = _command(argv)
    if words is None:
        return ()
    found: list[str] = []
    for word in words:
        if word == "--":
            continue
        if word.startswith("-"):
            value = word.partition("=")[2]
            if value and (place := local_spec(value)) is not None:
                found.append(place)
            continue
        if not is_literal(word):
            found.append(word)
        elif (place := local_spec(word)) is not None:
            found.append(place)
    return tuple(found)


def local_spec(spec: str) -> str | None:
    """The local path a package spec names (`../x`, `file:../x`, `NAME@link:/x`,
    `git+file:///x`, `x.tgz`), or None for a registry package or a remote one."""
    _, at, rest = spec[1:].partition("@")
    if at and not spec.startswith(PATH_STARTS) and _LOCAL.match(rest):
        spec = rest  # `NAME@file:../x`, `@scope/name@link:../x`
    found = _LOCAL.match(spec)
    if found is not None:
        path = spec[found.end() :]
        path = path[2:] if path.startswith("//") else path
        return path.partition("#")[0] or "."
    if spec.startswith(PATH_STARTS) or (_SLASHED.fullmatch(spec) and ":" not in spec):
        return spec  # npm-package-arg: a word with a `/` not `@scope/name` nor a URL is a path
    return spec if _ARCHIVE.fullmatch(spec) and "://" not in spec else None


_REMOTE = re.compile(
    r"(https?://|git\+(?!file:)[a-z]+:|git://|git@|ssh://|(github|gitlab|bitbucket|gist):)", re.I
)
"""A spec fetched from a URL or a git host rather than the registry (npm-package-arg's
remote and git specs; `git+file:` is a local place)."""


def fetched_specs(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The packages named on `argv`'s install that come from a URL or a git repository, not
    the registry (`https://x/p.tgz`, `git+https://...`, `github:u/r`, `NAME@git+ssh://...`):
    fetched and their scripts run, as from a registry npm's `--registry` names."""
    found: list[str] = []
    for word in _command(argv) or ():
        if word.startswith("-") or not is_literal(word):
            continue
        _, at, rest = word[1:].partition("@")
        remote = _REMOTE.match(word) or (at and _REMOTE.match(rest) and not word.startswith("git@"))
        if remote or github_shorthand(word) or (at and github_shorthand(rest)):
            found.append(word)
    return tuple(found)


def github_shorthand(spec: str) -> bool:
    """Whether npm-package-arg reads `spec` as a GitHub repository `user/repo[#ref]`
    (hosted-git-info's shorthand, tried before a path with a `/` is taken for a folder): a
    `/` after a first character, none other nor `:`, `@` or a blank before the `#`, no `.`
    first (`./x` is a folder) and no `/` last."""
    head = spec.partition("#")[0]
    user, _, repo = head.partition("/")
    if not user or not repo or "/" in repo or head.startswith((".", "~", "-")):
        return False
    return not any(c in head for c in ":@ \t\n")


def dependency_places(root: Path) -> Iterator[Path]:
    """The local places the dependencies of the package.json in `root` and of its
    workspaces name, each from the file naming it."""
    manifest = _manifest(root)
    if manifest is None:
        return
    yield from _places(root, manifest)
    for pattern in _workspaces(manifest)[:_MAX_WORKSPACES]:
        if ".." in pattern.split("/") or pattern.startswith("/"):
            yield root / pattern
            continue
        for package in list(root.glob(pattern))[:_MAX_WORKSPACES]:
            member = _manifest(package)
            if member is not None:
                yield from _places(package, member)


def _manifest(directory: Path) -> dict[str, object] | None:
    try:
        with (directory / "package.json").open("rb") as file:
            data: object = json.loads(file.read(1 << 20))
    except (OSError, ValueError):
        return None
    return _mapping(data)


def _mapping(value: object) -> dict[str, object] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): v for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]


def _places(directory: Path, manifest: dict[str, object]) -> Iterator[Path]:
    for field in _DEPENDENCIES:
        for spec in (_mapping(manifest.get(field)) or {}).values():
            place = local_spec(spec) if isinstance(spec, str) else None
            if place is not None:
                yield directory / place if not place.startswith("~") else Path(place)


def _workspaces(manifest: dict[str, object]) -> list[str]:
    listed = manifest.get("workspaces")
    packages = _mapping(listed)
    if packages is not None:
        listed = packages.get("packages")
    if not isinstance(listed, list):
        return []
    return [p for p in listed if isinstance(p, str)]  # pyright: ignore[reportUnknownVariableType]
