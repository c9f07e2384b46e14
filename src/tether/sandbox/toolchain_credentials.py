"""Credential files inside the toolchains the hidden home shows: covered like the deny list.

A toolchain is shown whole (`home_view.HOME_TOOLCHAINS`, the `PATH` directories, the
virtualenv), but the tools installed there read settings files from their own install prefix,
and those hold registry tokens: npm's global config under nvm or asdf (`<prefix>/etc/npmrc`,
`//registry/:_authToken=`), pip's site config (`<prefix>/pip.conf`, `index-url` with a
password), conda's root `.condarc` (a `/t/<token>` channel). The settings can sit in any
installed version, so they are found by file name: in each shown place and in each install
prefix below one (`TOOLCHAIN_PREFIXES`), and in its `etc/`. One directory listing each, no
walk of the trees (a conda install holds hundreds of thousands of files, every command).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.home_view import within

CREDENTIAL_NAMES: tuple[str, ...] = (
    "npmrc", ".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".bunfig.toml",
    "pip.conf", "pip.ini", ".pypirc", "condarc", ".condarc", "condarc.d",
    ".netrc", "_netrc", ".git-credentials", "credentials*", ".credentials*", "auth.json",
    ".pgpass", ".vault-token",
)  # fmt: skip
"""Names (shell-style) of the settings and credential files a tool reads from its prefix."""

_CONDA = ("miniconda3", "anaconda3", "miniforge3", "mambaforge")

TOOLCHAIN_PREFIXES: tuple[str, ...] = (
    ".nvm/versions/*/*", ".asdf/installs/*/*", ".nodenv/versions/*", ".pyenv/versions/*",
    ".pyenv/versions/*/envs/*", ".rbenv/versions/*", ".goenv/versions/*", ".jenv/versions/*",
    ".fnm/node-versions/*/installation", ".local/share/fnm/node-versions/*/installation",
    ".volta/tools/image/*/*", ".local/share/mise/installs/*/*", ".local/share/uv/python/*",
    ".local/share/uv/tools/*", ".local/share/pipx/venvs/*", ".local/pipx/venvs/*",
    ".sdkman/candidates/*/*", ".bun", ".bun/install", ".opam/*", ".conda/envs/*",
    *_CONDA, *(f"{c}/envs/*" for c in _CONDA),
)  # fmt: skip
"""Install prefixes below the home's toolchain places (globs relative to the home)."""

CREDENTIAL_FILES: tuple[str, ...] = (".opam/config",)
"""Files named in full: a name too common to match everywhere (opam's global `config`)."""

_NAMES = re.compile("|".join(fnmatch.translate(n) for n in CREDENTIAL_NAMES))


def toolchain_credentials(home: Path | None, shown: Iterable[Path]) -> list[Path]:
    """The credential files present in the `shown` places of `home` and in the install
    prefixes below them."""
    if home is None:
        return []
    places = list(shown)
    prefixes = list(places)
    for pattern in TOOLCHAIN_PREFIXES:
        prefixes += (Path(p) for p in glob.glob(glob.escape(str(home)) + "/" + pattern))
    prefixes = [p for p in dict.fromkeys(prefixes) if any(within(p, s) for s in places)]
    found = [f for p in prefixes for d in (p, p / "etc") for f in _named_in(d)]
    found += [home / f for f in CREDENTIAL_FILES if os.path.lexists(home / f)]
    return found


def _named_in(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as entries:
            return [directory / e.name for e in entries if _NAMES.fullmatch(e.name)]
    except OSError:
        return []
