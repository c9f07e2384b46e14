"""corepack's own environment variables, each judged as what it changes (all of them were
asked as variables that change what runs): some only answer a question corepack would ask
or turn a check or the network off, which changes nothing that runs; the registry or mirror
it downloads npm, pnpm and yarn from picks the code that runs (asked, as npm's `--registry`
is); its home is where it keeps and runs them from (code there and a write of it); the rest
(`COREPACK_INTEGRITY_KEYS`, which may turn off the check of what it downloads,
`COREPACK_ENABLE_UNSAFE_CUSTOM_URLS`, `COREPACK_ENV_FILE`, a name not known) stay asked as
variables that change what runs."""

from __future__ import annotations

from typing import Literal

from tether.permissions.command_spec import words as _names

_INERT = _names(
    # A prompt answered, a strictness or network switch, a version choice among the
    # official releases, an automatic pin written to the project's package.json (corepack's
    # default), the credentials sent to the registry it already uses.
    "COREPACK_ENABLE_DOWNLOAD_PROMPT COREPACK_ENABLE_STRICT COREPACK_ENABLE_NETWORK "
    "COREPACK_ENABLE_AUTO_PIN COREPACK_DEFAULT_TO_LATEST COREPACK_NPM_TOKEN "
    "COREPACK_NPM_USERNAME COREPACK_NPM_PASSWORD"
)
_REGISTRIES = frozenset({"COREPACK_NPM_REGISTRY", "COREPACK_NPM_MIRROR"})
_HOME = "COREPACK_HOME"
_ENV_FILE = "COREPACK_ENV_FILE"

CorepackSetting = Literal["inert", "registry", "home"]


def corepack_setting(name: str, value: str) -> CorepackSetting | None:
    """What setting corepack's variable `name` to `value` changes: nothing ("inert"), the
    registry the package managers it runs come from ("registry"), the directory it keeps
    and runs them from ("home"); None for a variable judged as any that changes what runs
    (not corepack's, or one not shown harmless)."""
    if name in _INERT or (name == _ENV_FILE and value == "0"):
        return "inert"  # `COREPACK_ENV_FILE=0`: no `.corepack.env` read
    if name in _REGISTRIES:
        return "registry"
    if name == _HOME:
        return "home"
    return None
