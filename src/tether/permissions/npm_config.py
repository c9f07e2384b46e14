"""npm's settings as its option parser (nopt) reads them on the command line: a setting by its
full name (`--registry`), by any prefix of one name only (`--reg`, `--locat` for `--location`),
negated (`--no-global`), or by a shorthand (`-g`, `-C DIR`, `--local` for `--no-global`, one
dash or two: `-reg`) or a unique prefix of one. A word naming no setting, or a prefix of
several, is a setting npm does not know today: tether does not know what a later npm reads it
as. The names are npm 11's configuration definitions."""

from __future__ import annotations

from collections.abc import Collection

from tether.permissions.command_spec import words as _names

NPM_FLAGS = frozenset(
    _names(
        "all allow-same-version audit bin-links bypass-2fa commit-hooks "
        "dangerously-allow-all-scripts description dev diff-ignore-all-space diff-name-only "
        "diff-no-prefix diff-text dry-run engine-strict expect-results force foreground-scripts "
        "format-package-lock fund git-tag-version global global-style if-present ignore-scripts "
        "include-staged include-workspace-root include-attestations init-private install-links "
        "json legacy-bundling legacy-peer-deps link long offline "
        "omit-lockfile-registry-resolved optional package-lock package-lock-only parseable "
        "allow-scripts-pending allow-scripts-pin prefer-dedupe prefer-offline prefer-online "
        "production progress provenance read-only rebuild-bundle save save-bundle save-dev "
        "save-exact save-optional save-peer save-prod packages-all shrinkwrap sign-git-commit "
        "sign-git-tag strict-peer-deps strict-allow-scripts strict-ssl timing unicode "
        "update-notifier usage version versions workspaces workspaces-update yes "
    )
)
"""Settings that are true or false: the next word is not their value."""
NPM_VALUED = frozenset(
    _names(
        "_auth access allow-directory allow-file allow-git allow-remote allow-scripts also "
        "audit-level auth-type before browser ca cache cache-max cache-min cafile call cert "
        "cidr color cpu depth diff diff-dst-prefix diff-src-prefix diff-unified editor "
        "expect-result-count expires fetch-retries fetch-retry-factor fetch-retry-maxtimeout "
        "fetch-retry-mintimeout fetch-timeout git globalconfig heading https-proxy include "
        "init-author-email init-author-name init-author-url init-license init-module init-type "
        "init-version init.author.email init.author.name init.author.url init.license "
        "init.module init.version install-strategy key libc local-address location "
        "lockfile-version loglevel logs-dir logs-max name maxsockets message min-release-age "
        "min-release-age-exclude node-gyp node-options noproxy omit only orgs os otp package "
        "pack-destination packages prefix preid provenance-file proxy registry "
        "replace-registry-host save-prefix sbom-format sbom-type scope scopes "
        "packages-and-scopes-permission orgs-permission password token-description script-shell "
        "searchexclude searchlimit searchopts searchstaleness shell tag tag-version-prefix "
        "umask user-agent userconfig viewer which workspace "
    )
)
"""Settings that take a value, attached with `=` or the next word."""
_SETTINGS = NPM_FLAGS | NPM_VALUED
_SHORTHANDS: dict[str, tuple[str, ...]] = {
    "enjoy-by": ("--before",),
    "d": ("--loglevel", "info"),
    "dd": ("--loglevel", "verbose"),
    "ddd": ("--loglevel", "silly"),
    "quiet": ("--loglevel", "warn"),
    "q": ("--loglevel", "warn"),
    "s": ("--loglevel", "silent"),
    "silent": ("--loglevel", "silent"),
    "verbose": ("--loglevel", "verbose"),
    "desc": ("--description",),
    "help": ("--usage",),
    "local": ("--global", "false"),
    "n": ("--yes", "false"),
    "no": ("--yes", "false"),
    "porcelain": ("--parseable",),
    "readonly": ("--read-only",),
    "reg": ("--registry",),
    "iwr": ("--include-workspace-root",),
    "ws": ("--workspaces",),
    "a": ("--all",),
    "c": ("--call",),
    "f": ("--force",),
    "g": ("--global",),
    "L": ("--location",),
    "l": ("--long",),
    "m": ("--message",),
    "p": ("--parseable",),
    "C": ("--prefix",),
    "S": ("--save",),
    "B": ("--save-bundle",),
    "D": ("--save-dev",),
    "E": ("--save-exact",),
    "O": ("--save-optional",),
    "P": ("--save-prod",),
    "?": ("--usage",),
    "H": ("--usage",),
    "h": ("--usage",),
    "v": ("--version",),
    "w": ("--workspace",),
    "y": ("--yes",),
}
"""npm's shorthands (`npm help config`): each stands for a setting, some with its value."""


def npm_setting(word: str) -> tuple[tuple[str, str | None], ...] | None:
    """The settings an option word gives, each as (`--name`, its value or None when it takes
    the next word or is a flag set true), in the order nopt reads them; None when the word
    names no setting npm knows (unknown, or a prefix of several)."""
    option, eq, attached = word.partition("=")
    value = attached if eq else None
    key = option.lstrip("-")
    if not key:
        return None
    if key in _SETTINGS:
        return ((f"--{key}", value),)
    if key in _SHORTHANDS:
        return (_shorthand(key, value),)
    grouped = not option.startswith("--") and len(key) > 1 and value is None
    if grouped and all(letter in _SHORTHANDS for letter in key):
        # `-gf`: single-letter shorthands grouped, when every letter is one.
        return tuple(_shorthand(letter, None) for letter in key)
    negated = False
    while key.lower().startswith("no-"):
        key, negated = key[3:], not negated
    full = _unique_prefix(key, _SETTINGS)
    if full is not None:
        return ((f"--{full}", "false" if negated else value),)
    if not negated:
        short = _unique_prefix(key, _SHORTHANDS)
        if short is not None:
            return (_shorthand(short, value),)
    return None


def _shorthand(key: str, value: str | None) -> tuple[str, str | None]:
    expansion = _SHORTHANDS[key]
    return expansion[0], expansion[1] if len(expansion) > 1 else value


def _unique_prefix(key: str, names: Collection[str]) -> str | None:
    if key in names:
        return key
    found = [name for name in names if name.startswith(key)]
    return found[0] if len(found) == 1 else None
