"""Packages conda (mamba, micromamba) installs from places no rule has seen that are not a
path on the command line (conda_environments reads those): its `local` channel, the
conda-bld directory of its own installation where `conda build` leaves what it built
(`-c local`, `--use-local`, `local::pkg`, `pkg[channel=local]`, an environment or spec
file naming it), and a package fetched by its own URL rather than from a channel
(`pkg[url=https://...]`; a package file operand is conda_environments'), as npm's URL
specs are. Both are asked, whatever rule allows conda."""

from __future__ import annotations

import re

from tether.permissions.conda_environments import CONDA_PROGRAMS, CONDA_VALUED, listed_specs
from tether.permissions.option_names import OptionGrammar, option_pairs, plain_operands
from tether.permissions.program_use import ProgramUse
from tether.permissions.shell_words import is_literal, program_name

_INSTALLS = frozenset({"install", "create", "update", "upgrade"})
_USE_LOCAL = OptionGrammar(
    ("--use-local", "-c", "--channel"),
    flags={"--use-local"},
    prefixes=True,
    known={"--use-index-cache"},
)
"""conda's parser is argparse's: `--use-l` is `--use-local`, `--chan=local` a channel."""
_LOCAL = "local"
_URL = re.compile(r"(?:https?|ftp|s3|gs)://", re.I)
_BRACKET_URL = re.compile(r"[\[,]\s*['\"]?url['\"]?\s*=\s*['\"]?([^,\]'\"]+)", re.I)
_BRACKET_CHANNEL = re.compile(r"[\[,]\s*['\"]?channel['\"]?\s*=\s*['\"]?([^,\]'\"]+)", re.I)
LOCAL_REASON = (
    "conda installs from its local channel, the packages conda build left in its own"
    " directory outside the workspace: not seen"
)


def is_local_channel(channel: str) -> bool:
    """Whether a channel as written is conda's `local` one (`local`, `local/`)."""
    return channel.rstrip("/").lower() == _LOCAL


def spec_unseen(spec: str) -> str | None:
    """Why one package spec (a command operand or a spec file's line) takes a package from
    a place not seen: its channel is `local` (`local::pkg`, `pkg[channel=local]`) or it is
    fetched by its own URL; None otherwise (a local path is conda_environments')."""
    channel, named, _ = spec.rpartition("::")
    if named and is_local_channel(channel):
        return LOCAL_REASON
    if any(is_local_channel(c) for c in _BRACKET_CHANNEL.findall(spec)):
        return LOCAL_REASON
    url = next(iter(_BRACKET_URL.findall(spec)), None)
    if url is not None and _URL.match(url):
        return f"conda installs a package fetched from {url}, not from a channel: not seen"
    return None


def conda_unseen(argv: tuple[str, ...]) -> ProgramUse | None:
    """An install, create or update taking packages from conda's local channel or a
    package URL (the module's docstring)."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in CONDA_PROGRAMS:
        return None
    args = argv[1:]
    words = plain_operands(args, CONDA_VALUED)
    command = words[1:2] if words[:1] == ["env"] else words[:1]
    if not command or command[0] not in _INSTALLS:
        return None
    reasons: list[str] = []
    for option, value in option_pairs(args, _USE_LOCAL):
        if option == "--use-local" or is_local_channel(value.partition("::")[0]):
            reasons.append(LOCAL_REASON)
    if words[:1] != ["env"]:
        reasons += [r for w in words[1:] if (r := spec_unseen(w)) is not None]
    return ProgramUse(asks=tuple(dict.fromkeys(reasons))) if reasons else None


def listed_unseen(text: str) -> tuple[str, ...]:
    """Why the packages an environment or spec file lists come from a place not seen: the
    `local` channel among its channels or in a spec, a package URL."""
    channels, specs = listed_specs(text)
    reasons = [LOCAL_REASON for c in channels if is_local_channel(c)]
    reasons += [r for spec in specs if (r := spec_unseen(spec)) is not None]
    return tuple(dict.fromkeys(reasons))
