"""The `webhooks` setting: where events are sent for monitoring, checked before anything runs.

    {"webhooks": [{"url": "https://example.com/hook", "events": ["tool_finished", "error"],
                   "format": "json", "secretEnv": "TETHER_WEBHOOK_SECRET", "timeout": 5}]}

- `url` (required): http or https.
- `events`: the event kinds to send (`tether.protocol` events' `kind`); omitted: every kind.
- `format`: `"json"` (the record, as the event log has it, and its `seq`) or `"slack"`
  (`{"text": ...}` for a Slack incoming webhook); `"json"` by default.
- `secretEnv`: an environment variable holding a secret; each body is then signed:
  `X-Tether-Signature: sha256=<hex HMAC-SHA256 of the body>`. The variable must be set: a
  webhook whose variable is not set is off, with a warning (`usable_webhooks`).
- `timeout`: seconds for one attempt (5 by default); `queue`: events held at most (1000).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, cast, get_args

from tether.protocol import ConfigError, Event
from tether.protocol.record import field_default
from tether.shown_urls import http_url_problem, shown_url
from tether.slotted import Slotted

KEY = "webhooks"
DROPPED_KIND = "webhook_dropped"
"""The log's own record of events a webhook lost."""
Format = Literal["json", "slack"]
_FIELDS = ("url", "events", "format", "secretEnv", "timeout", "queue")


def event_kinds() -> frozenset[str]:
    """Every event kind a session emits, a team's (a task's lifecycle, a teammate's
    transitions) and the log's own."""
    # A team's events' models load only for a webhook that names kinds, not with every start.
    from tether.protocol.team_events import TaskChanged, TeammateStateChanged

    union = get_args(Event)[0]
    models = (*get_args(union), TaskChanged, TeammateStateChanged)
    return frozenset(field_default(model, "kind") for model in models) | {DROPPED_KIND}


class WebhookConfig(Slotted):
    __slots__ = ("events", "format", "queue_size", "secret", "timeout_s", "url")
    url: Final[str]
    events: Final[frozenset[str] | None]
    """The kinds sent; None: every kind."""
    format: Final[Format]
    secret: Final[bytes | None]
    """The signing secret (read from `secretEnv`); None: bodies are not signed."""
    timeout_s: Final[float]
    queue_size: Final[int]

    def __init__(
        self,
        url: str,
        events: frozenset[str] | None = None,
        format: Format = "json",
        secret: bytes | None = None,
        timeout_s: float = 5.0,
        queue_size: int = 1000,
    ) -> None:
        self.url = url
        self.events = events
        self.format = format
        self.secret = secret
        self.timeout_s = timeout_s
        self.queue_size = queue_size

    @property
    def place(self) -> str:
        """The url without its credentials, path and query (a Slack url's path is its secret):
        for messages."""
        return shown_url(self.url)

    def wants(self, kind: str) -> bool:
        return self.events is None or kind in self.events


def usable_webhooks(
    settings: Mapping[str, Any], env: Mapping[str, str]
) -> tuple[tuple[WebhookConfig, ...], tuple[str, ...]]:
    """The webhooks that can be used, and a warning for each that cannot (naming its entry
    and key): a monitoring sink never holds up the agent, so one that is wrong (a `secretEnv`
    not set where a CI run gets no secrets, a typo of an event kind) is off, not fatal."""
    block = settings.get(KEY)
    if block is None:
        return (), ()
    if not isinstance(block, list):
        return (), (f'settings key "{KEY}" must be a list of objects; no webhook is on',)
    usable: list[WebhookConfig] = []
    problems: list[str] = []
    for i, item in enumerate(cast(list[object], block)):
        try:
            usable.append(_read_one(item, f"{KEY}[{i}]", env))
        except ConfigError as e:
            problems.append(f"{e}; this webhook is off")
    return tuple(usable), tuple(problems)


def read_webhooks(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[WebhookConfig, ...]:
    """The configured webhooks; anything wrong is a `ConfigError` naming the entry and key."""
    block = settings.get(KEY)
    if block is None:
        return ()
    if not isinstance(block, list):
        raise ConfigError(f'settings key "{KEY}" must be a list of objects')
    return tuple(
        _read_one(item, f"{KEY}[{i}]", env) for i, item in enumerate(cast(list[object], block))
    )


def _read_one(item: object, where: str, env: Mapping[str, str]) -> WebhookConfig:
    if not isinstance(item, dict):
        raise ConfigError(f'settings key "{where}" must be an object with a "url"')
    entry = cast(dict[str, Any], item)
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise ConfigError(
            f'settings key "{where}" has unknown field(s) {", ".join(unknown)} '
            f"(known: {', '.join(_FIELDS)})"
        )
    url = entry.get("url")
    problem = http_url_problem(url) if isinstance(url, str) else "not a string"
    if problem is not None or not isinstance(url, str):
        raise ConfigError(
            f'settings key "{where}.url" must be an http:// or https:// URL ({problem})'
        )
    return WebhookConfig(
        url=url,
        events=_events(entry.get("events"), f"{where}.events"),
        format=_format(entry.get("format", "json"), f"{where}.format"),
        secret=_secret(entry.get("secretEnv"), f"{where}.secretEnv", env),
        timeout_s=_positive(entry.get("timeout", 5.0), f"{where}.timeout", "seconds"),
        queue_size=int(_positive(entry.get("queue", 1000), f"{where}.queue", "events", whole=True)),
    )


def _events(value: object, where: str) -> frozenset[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise ConfigError(f'settings key "{where}" must be a non-empty list of event kinds')
    known = event_kinds()
    kinds: set[str] = set()
    for kind in cast(list[object], value):
        if not isinstance(kind, str) or kind not in known:
            raise ConfigError(
                f'settings key "{where}": {kind!r} is not an event kind '
                f"(known: {', '.join(sorted(known))})"
            )
        kinds.add(kind)
    return frozenset(kinds)


def _format(value: object, where: str) -> Format:
    if value not in get_args(Format):
        raise ConfigError(f'settings key "{where}" must be "json" or "slack", not {value!r}')
    return cast(Format, value)


def _secret(value: object, where: str, env: Mapping[str, str]) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f'settings key "{where}" must name an environment variable')
    secret = env.get(value)
    if not secret:
        raise ConfigError(
            f'settings key "{where}" names {value}, which is not set: the webhook\'s bodies '
            "could not be signed"
        )
    return secret.encode("utf-8")


def _positive(value: object, where: str, unit: str, *, whole: bool = False) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or cast(float, value) <= 0 or (whole and not isinstance(value, int)):
        kind = "a positive whole number" if whole else "a positive number"
        raise ConfigError(f'settings key "{where}" must be {kind} of {unit}, not {value!r}')
    return float(cast(float, value))
