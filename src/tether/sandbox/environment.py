"""Which environment variables a sandboxed command does not get: secrets, by name.

The sandbox cuts the network, but a key in the environment can still be written into the
workspace, a log or a commit, and with the network allowed it can leave. So variables whose
names say they hold a secret are removed, and tether's and the model vendors' own variables
(their keys, tether's configuration) with them. `sandbox.env` names variables to keep anyway.
A value holding a URL with a password in it (`postgres://user:pw@host/db`) goes too.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    "*API_KEY*",
    "*APIKEY*",
    "*_KEY",
    "*_KEYS",
    "*PRIVATE_KEY*",
    "*ACCESS_KEY*",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*PASSPHRASE*",
    "*CREDENTIAL*",
    "*_AUTH",
    "*_AUTH_*",
    "*COOKIE*",
    "*SESSION_KEY*",
    "*_PAT",
    "*_DSN",
    "AWS_*",
    "AZURE_*",
    "GOOGLE_*",
    "GCP_*",
    "ANTHROPIC_*",
    "OPENAI_*",
    "CLAUDE_*",
    "CLAUDECODE",
    "TETHER_*",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "KRB5CCNAME",
    "VAULT_*",
    "NPM_CONFIG__AUTH*",
    "NETRC",
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "KUBECONFIG",
)
"""Names (case-insensitive, shell-style patterns) of variables a sandboxed command does not get."""

_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAME_PATTERNS))
_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)


def is_secret(name: str, value: str) -> bool:
    """Whether `name=value` is withheld from sandboxed commands (unless in `sandbox.env`)."""
    if _SECRET_NAME.match(name.upper()):
        return True
    return _URL_WITH_PASSWORD.search(value) is not None


def withheld(env: Mapping[str, str], keep: Iterable[str] = ()) -> list[str]:
    """The names in `env` that a sandboxed command does not get, sorted; `keep` are exempt."""
    kept = set(keep)
    return sorted(n for n, v in env.items() if n not in kept and is_secret(n, v))
