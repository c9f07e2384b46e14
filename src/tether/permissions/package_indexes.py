"""Packages fetched from a place the user did not configure, as npm's `--registry URL` is
(npm_settings): their build and set-up code runs, and a rule allowing the installer was given
for the index its configuration names. pip's, uv's and pipx's indexes and link pages given on
the command line (`-i`/`--index-url`, `--extra-index-url`, `uv add --index`/`--default-index`,
`-f`/`--find-links` given as a URL), `--trusted-host` (an index taken without checking its
certificate), and a requirement fetched by its own URL or from a git host (`pip install
https://x/p.whl`, `git+https://...`, `NAME @ https://...`); cargo's `install`/`add` from a git
repository or an index given as a URL (`--git https://...`, `--index sparse+https://...`);
conda's channels given as URLs (`-c https://...`, `URL::NAME`): asked. Local places are
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
_UV_RESOLVERS = frozenset({"lock", "sync", "run", "export", "tree", "upgrade", "venv"})
"""uv's commands that resolve packages with the indexes given to them."""
_UV_WITH = OptionGrammar(("--with", "--from"))
"""uv's options naming packages installed for one run (`uv run --with`, `uvx --from`)."""
_CARGO_SOURCES = ("--git", "--index")
_CARGO_FETCHES = frozenset({"install", "add"})
_CONDA_CHANNELS = OptionGrammar(("-c", "--channel"), prefixes=True)
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
        f"{tool} takes packages from {_place(value)} without checking its certificate: any"
        " host on the way may answer for it"
        for value in pip_values(words, ("--trusted-host",))
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
    channels = [v for v in option_values(args, _CONDA_CHANNELS) if _REMOTE.match(v)]
    channels += [
        channel
        for word in words
        if (channel := word.rpartition("::")[0]) and _REMOTE.match(channel)
    ]
    return [
        f"{name} installs packages, whose link scripts run, from the channel {readable(c)},"
        " which its configuration does not name: not seen"
        for c in channels
    ]


def _place(value: str) -> str:
    return readable(value) if is_literal(value) else "a place known only as it runs"
