"""The environment a stdio server starts with: tether's own, without its credentials and its own
configuration, plus the server's configured `env` (which wins, and is never scrubbed: it is
how a server that needs a key is given one, `"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}`).

Claude Code hands its servers `{...subprocessEnv(), ...config.env}`, where `subprocessEnv()`
strips the model vendors' and cloud providers' credentials (`CLAUDE_CODE_SUBPROCESS_ENV_SCRUB`).
tether strips them always, and with them every variable whose name says it holds a secret and
tether's own variables, since a server is a third-party program that needs none of them.

The tables are the policy: `WITHHELD_NAMES` (exact), `WITHHELD_PREFIXES`, `SECRET_NAME_PARTS`
(a whole `_`-separated part of the name), `SECRET_NAME_WORDS` (anywhere in the name), and
`KEPT_NAMES` (never withheld by name).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

WITHHELD_NAMES: frozenset[str] = frozenset(
    {
        # Claude Code's own scrub list: model vendors' auth, telemetry headers, clouds, CI OIDC
        "ANTHROPIC_CUSTOM_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "GOOGLE_APPLICATION_CREDENTIALS",
        "AZURE_CLIENT_CERTIFICATE_PATH", "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_RUNTIME_URL", "CLAUDECODE",
        # agents holding keys
        "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME",
    }
)  # fmt: skip
"""Variables withheld by exact name (upper case)."""

WITHHELD_PREFIXES: tuple[str, ...] = ("TETHER_", "ANTHROPIC_", "CLAUDE_CODE_", "OPENAI_")
"""tether's own configuration and the model vendors' (keys, base URLs, model choices): a
server is not tether and does not talk to the session's model."""

SECRET_NAME_PARTS: frozenset[str] = frozenset(
    {"KEY", "KEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS",
     "PW", "PWD", "PAT", "CREDENTIAL", "CREDENTIALS", "CREDS", "COOKIE", "PASSPHRASE",
     "APIKEY", "PRIVKEY", "DSN", "JWT", "HMAC", "OTP"}
)  # fmt: skip
"""Whole parts of a name (between `_`) that say it holds a secret: `GITHUB_TOKEN`,
`DB_PASS`, `STRIPE_SECRET_KEY` go; `KEYBOARD_LAYOUT`, `PASSENGER_HOME` stay."""

SECRET_NAME_WORDS: tuple[str, ...] = ("API_KEY", "APIKEY", "ACCESS_KEY", "TOKEN", "SECRET")
"""Words that say a secret wherever they stand in a name (`NPM_AUTHTOKEN`, `MYSECRET`)."""

KEPT_NAMES: frozenset[str] = frozenset({"PWD", "OLDPWD", "SSH_ASKPASS", "GIT_ASKPASS"})
"""Never withheld by name although a rule matches: the working directory, askpass programs."""

_PARTS = re.compile(r"[^A-Z0-9]+")


def is_withheld(name: str) -> bool:
    """Whether a stdio server does not get the variable `name` from tether's environment."""
    upper = name.upper()
    if upper in KEPT_NAMES:
        return False
    if upper in WITHHELD_NAMES or upper.startswith(WITHHELD_PREFIXES):
        return True
    if any(word in upper for word in SECRET_NAME_WORDS):
        return True
    return not SECRET_NAME_PARTS.isdisjoint(_PARTS.split(upper))


def inherited(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of tether's environment a stdio server inherits."""
    return {name: value for name, value in environ.items() if not is_withheld(name)}


def server_environment(environ: Mapping[str, str], own: Mapping[str, str]) -> dict[str, str]:
    """What a stdio server starts with: `environ` scrubbed, then its configured `own` env."""
    return {**inherited(environ), **own}
