"""Packages fetched from a place the user did not configure, as npm's `--registry URL` is
(npm_settings): their build and set-up code runs, and a rule allowing the installer was given
for the index its configuration names. pip's, uv's and pipx's indexes and link pages given on
the command line (`-i`/`--index-url`, `--extra-index-url`, `uv add --index`/`--default-index`,
`-f`/`--find-links` given as a URL), `--trusted-host` (an index taken without checking its
certificate), and a requirement fetched by its own URL or from a git host (`pip install
https://x/p.whl`, `git+https://...`, `NAME @ https://...`); cargo's `install`/`add` from a git
repository or an index given as a URL (`--git https://...`, `--index sparse+https://...`);
conda's channels other than the defaults (`-c evilchan`, `-c https://...`, `CHAN::NAME`,
`NAME[channel=CHAN]`);
pip's `--cert`, `--client-cert`, `--proxy` and build settings (`-C`/`--config-settings`):
asked. Local places are
judged as code from there (pip_sources, fetched_sources, conda_environments); the same settings
given by the environment (`PIP_INDEX_URL`, `UV_INDEX`) are dangerous variables."""

from __future__ import annotations

import re

from tether.permissions.conda_environments import CONDA_PROGRAMS, CONDA_VALUED
from tether.permissions.option_names import OptionGrammar, option_values, plain_operands
from tether.permissions.pip_sources import (
    PIP_FETCHES,
    PIP_PROGRAMS,
    pip_values,
    pip_words,
    requirement_operands,
    requirement_words,
)
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name, readable

_INDEXES = (
    *("-i", "--index-url", "--extra-index-url", "--index", "--default-index"),
    *("-f", "--find-links"),
)
"""pip's and uv's options naming an index or a page of links packages come from."""
_REMOTE = re.compile(r"(?:[a-z][a-z0-9+.-]*\+)?(?!file:)[a-z][a-z0-9+.-]*://", re.I)
"""A URL of a place on the network (`https://`, `sparse+https://`, `git+ssh://`, `s3://`);
`file:` URLs are local places, judged as paths."""
_VCS = re.compile(r"(git|hg|svn|bzr)\+(?!file:)", re.I)
_BUILD_SETTINGS = (
    "{tool} hands the build backend the settings {value}, which may choose the programs its"
    " build runs: not seen"
)
_PIP_TRUST = {
    "--trusted-host": "{tool} takes packages from {value} without checking its certificate:"
    " any host on the way may answer for it",
    "--allow-insecure-host": "{tool} takes packages from {value} without checking its"
    " certificate: any host on the way may answer for it",
    "--cert": "{tool} trusts the certificate authority in {value} for the index: whoever holds"
    " its key may answer for it",
    "--client-cert": "{tool} sends the key and certificate in {value} to the index",
    "--proxy": "{tool} fetches packages through {value}, a proxy its configuration does not name",
    "--global-option": _BUILD_SETTINGS,
    "--build-option": _BUILD_SETTINGS,
}
"""pip's and uv's options, one table, that change whom an install trusts or what its build
runs: an index taken without its certificate checked, a certificate authority or client key
of the command's, a proxy, settings handed to the build backend (`-C cmake.args=...`)."""
_CONFIG_SETTINGS = ("-C", "--config-settings", "--config-setting")
_INERT_SETTINGS = frozenset({"editable_mode", "editable-mode", "builddir", "build-dir"})
"""Build settings that only choose how an editable install is made or where the build
writes (a place pip_sources' `_config_places` judges as a write); any other may hand the
backend options that run programs (`cmake.args=-DCMAKE_C_COMPILER_LAUNCHER=...`,
`setup-args=--native-file=...`)."""

_UV_RESOLVERS = frozenset({"lock", "sync", "run", "export", "tree", "upgrade", "venv"})
"""uv's commands that resolve packages with the indexes given to them."""
_UV_WITH = OptionGrammar(("--with", "--from"))
"""uv's options naming packages installed for one run (`uv run --with`, `uvx --from`)."""
_CARGO_SOURCES = ("--git", "--index")
_CARGO_FETCHES = frozenset({"install", "add"})
_CONDA_CHANNELS = OptionGrammar(("-c", "--channel"), prefixes=True)
_CONDA_DEFAULTS = frozenset(
    {"defaults", "main", "r", "msys2", "pkgs/main", "pkgs/r", "pkgs/msys2", "pkgs/free"}
    | {"conda-forge"}
)
"""The default channels: conda's own, and conda-forge, the default of Miniforge, mamba and
micromamba. Any other name is a user's channel on anaconda.org (anyone may own one: `-c
evilchan`), `local` (packages built here) or one the configuration may not name: a package
source, as pip's `--index-url` is."""
_SPEC_CHANNEL = re.compile(r"\[.*\bchannel\s*=\s*['\"]?([^,\]'\"]+)")
"""The channel a match spec names in its brackets (`numpy[channel=evilchan]`)."""
_CONDA_INSTALLS = frozenset({"install", "create", "update", "upgrade"})
"""conda's commands (and `conda env`'s) that install packages, whose link scripts run."""


def index_sources(argv: tuple[str, ...]) -> ProgramUse | None:
    """Why `argv` installs packages from a place its configuration does not name; None when
    it does not."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name == "cargo":
        asks = _cargo(argv[1:])
    elif name in CONDA_PROGRAMS:
        asks = _conda(name, argv[1:])
    else:
        asks = [*_pip(argv), *_uv_with(name, argv[1:])]
    return ProgramUse(asks=tuple(asks), changes=True) if asks else None


def listed_indexes(text: str) -> list[str]:
    """Why a requirements file's lines make pip install from a place its configuration does
    not name (`--extra-index-url URL`, `NAME @ git+https://...`); empty when they do not."""
    return _pip_fetches("pip", ("install", *requirement_words(text)))


def _pip(argv: tuple[str, ...]) -> list[str]:
    words = pip_words(argv)
    if not words:
        return []
    tool = program_name(argv[0]) if program_name(argv[0]) in PIP_PROGRAMS else "pip"
    return _pip_fetches(tool, words)


def _pip_fetches(tool: str, words: tuple[str, ...]) -> list[str]:
    if words[0] in ("pip", "tool") and tool == "uv":
        words = words[1:]
    if not words or (words[0] not in PIP_FETCHES and words[0] not in _UV_RESOLVERS):
        return []
    asks = [
        f"{tool} installs packages, whose build and set-up code runs, from {_place(value)},"
        " an index its configuration does not name: not seen"
        for value in pip_values(words, _INDEXES)
        if not is_literal(value) or _REMOTE.search(value)
    ]
    asks += [
        what.format(tool=tool, value=_place(value))
        for option, what in _PIP_TRUST.items()
        for value in pip_values(words, (option,))
    ]
    asks += [
        _BUILD_SETTINGS.format(tool=tool, value=_place(value))
        for value in pip_values(words, _CONFIG_SETTINGS)
        if not is_literal(value) or value.partition("=")[0] not in _INERT_SETTINGS
    ]
    if words[0] in PIP_FETCHES:
        asks += [
            f"{tool} installs {readable(arg)}, fetched with the build code it runs from a URL"
            " or a git host, not the index: not seen"
            for arg, named in requirement_operands(words)
            if _fetched_spec(arg, named=named)
        ]
    return asks


def _uv_with(name: str, args: tuple[str, ...]) -> list[str]:
    """`uv run --with git+https://...`, `uvx --from URL`, `uv tool run --with A,B`: packages
    fetched for the run by their own URL or from a git host, whose build code runs."""
    if name not in ("uv", "uvx"):
        return []
    values = option_values(args, _UV_WITH)
    specs = [spec.strip() for value in values for spec in value.split(",")]
    return [
        f"{name} installs {readable(spec)}, fetched with the build code it runs from a URL"
        " or a git host, not the index: not seen"
        for spec in specs
        if not is_literal(spec) or _fetched_spec(spec, named=False)
    ]


def _fetched_spec(arg: str, *, named: bool) -> bool:
    """Whether a requirement names the place it is fetched from on the network (`https://x/p
    .whl`, `git+https://...`, `NAME @ https://...`, `NAME@git+ssh://...`)."""
    if not named and "@" in arg:
        before, _, after = arg.partition("@")
        if not _REMOTE.match(before) and not _VCS.match(before):
            arg = after.strip()
    return bool(_REMOTE.match(arg) or _VCS.match(arg))


def _cargo(args: tuple[str, ...]) -> list[str]:
    operands = plain_operands(args, _CARGO_SOURCES)
    if not operands or operands[0] not in _CARGO_FETCHES:
        return []
    return [
        f"cargo {operands[0]} builds a crate, whose build script runs, from {_place(value)},"
        " not the registry its configuration names: not seen"
        for value in option_values(args, _CARGO_SOURCES)
        if not is_literal(value) or _REMOTE.match(value) or "@" in value.partition("/")[0]
    ]


def _conda(name: str, args: tuple[str, ...]) -> list[str]:
    words = plain_operands(args, CONDA_VALUED)
    command = words[1:2] if words[:1] == ["env"] else words[:1]
    if not command or command[0] not in _CONDA_INSTALLS:
        return []  # `conda search -c URL` reads the channel's index: no code of it runs
    named = list(option_values(args, _CONDA_CHANNELS))
    named += [channel for word in words if (channel := word.rpartition("::")[0])]
    named += [found.group(1) for word in words if (found := _SPEC_CHANNEL.search(word))]
    channels = [channel for channel in named if not _default_or_local(channel)]
    return [
        f"{name} installs packages, whose link scripts run, from the channel {_place(c)},"
        " which its configuration does not name: not seen"
        for c in channels
    ]


def _default_or_local(channel: str) -> bool:
    """A default channel (`conda-forge`, `conda-forge/linux-64`), or a local one given as a
    path or `file:` URL (judged as a place by conda_environments)."""
    if not is_literal(channel):
        return False
    if channel.startswith((".", "/", "~")) or channel.lower().startswith("file:"):
        return True
    return channel in _CONDA_DEFAULTS or channel.partition("/")[0] in _CONDA_DEFAULTS


def _place(value: str) -> str:
    return readable(value) if is_literal(value) else "a place known only as it runs"
