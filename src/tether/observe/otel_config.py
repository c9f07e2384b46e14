"""OpenTelemetry's configuration, read from the standard `OTEL_*` variables as Claude Code reads
them. Nothing of OpenTelemetry is imported here: telemetry that is off costs a few dict look-ups.

On when `CLAUDE_CODE_ENABLE_TELEMETRY` or `TETHER_ENABLE_TELEMETRY` is `1` (or `true`) and an
exporter is named: `OTEL_METRICS_EXPORTER` and `OTEL_TRACES_EXPORTER`, each `otlp`, `console`
or `none` (comma-separated lists are read as Claude Code reads them). A value that cannot be
used is a `ConfigError` naming the variable and what it accepts. A setting Claude Code knows
but tether cannot honour (`prometheus`, `http/json`, grpc without its exporter package,
`OTEL_LOGS_EXPORTER`) does not stop the session: what it asks for is not exported, and
`OtelConfig.notes` says so in one line each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, distribution
from typing import Literal
from urllib.parse import unquote

from tether.protocol import ConfigError
from tether.shown_urls import http_url_problem, shown_url

ENABLE_ENVS = ("TETHER_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY")
Signal = Literal["metrics", "traces"]
Exporter = Literal["otlp", "console"]
Protocol = Literal["http/protobuf", "grpc"]
Temporality = Literal["delta", "cumulative"]

DEFAULT_PROTOCOL: Protocol = "http/protobuf"
DEFAULT_HTTP_ENDPOINT = "http://localhost:4318"
DEFAULT_GRPC_ENDPOINT = "http://localhost:4317"
DEFAULT_METRIC_INTERVAL_MS = 60_000
"""Claude Code's `OTEL_METRIC_EXPORT_INTERVAL` default."""
DEFAULT_SPAN_DELAY_MS = 5_000
"""`OTEL_BSP_SCHEDULE_DELAY`'s default."""
DEFAULT_TIMEOUT_MS = 5_000
"""An export's bound (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds): a dead collector costs a
background thread this long per export, never the session."""
MAX_MS = 2**31 - 1
"""The longest interval, delay or timeout taken (about 24.8 days): past it the SDK's clocks
overflow and every export fails."""
GRPC_PACKAGE = "opentelemetry-exporter-otlp-proto-grpc"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True)
class OtlpTarget:
    """Where one signal goes over OTLP."""

    protocol: Protocol
    endpoint: str
    """The full URL for http/protobuf (`.../v1/metrics`), host:port URL for grpc."""
    headers: tuple[tuple[str, str], ...]
    timeout_s: float
    insecure: bool = False


@dataclass(frozen=True)
class OtelConfig:
    metrics: tuple[Exporter, ...] = ()
    traces: tuple[Exporter, ...] = ()
    metrics_target: OtlpTarget | None = None
    traces_target: OtlpTarget | None = None
    metric_interval_ms: int = DEFAULT_METRIC_INTERVAL_MS
    span_delay_ms: int = DEFAULT_SPAN_DELAY_MS
    temporality: Temporality = "delta"
    include_session_id: bool = True
    include_version: bool = False
    include_account_uuid: bool = True
    resource: tuple[tuple[str, str], ...] = field(default=())
    """`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME` as `service.name`."""
    notes: tuple[str, ...] = ()
    """What was asked for and is not exported, one line each, said once at the start."""

    @property
    def enabled(self) -> bool:
        return bool(self.metrics or self.traces)


OFF = OtelConfig()


def telemetry_enabled(env: Mapping[str, str]) -> bool:
    """Whether telemetry was asked for (before any exporter is looked at)."""
    return any(_flag(env, name, default=False) for name in ENABLE_ENVS)


def read_otel_config(
    env: Mapping[str, str], *, has_grpc: Callable[[], bool] | None = None
) -> OtelConfig:
    """The configuration `env` asks for; `OFF` unless enabled with an exporter named.
    `has_grpc`: whether grpc's exporter package is installed (looked up by default)."""
    if not telemetry_enabled(env):
        return OFF
    skipped = _Skipped()
    logs = (env.get("OTEL_LOGS_EXPORTER") or "").strip()
    if logs and logs.lower() != "none":
        skipped.add(
            f"OTEL_LOGS_EXPORTER={logs!r}: tether exports metrics and traces, not logs or events",
            None,
        )
    metrics = _exporters(env, "OTEL_METRICS_EXPORTER", skipped)
    traces = _exporters(env, "OTEL_TRACES_EXPORTER", skipped)
    grpc = has_grpc or _grpc_installed
    metrics_target = _target(env, "metrics", skipped, grpc) if "otlp" in metrics else None
    traces_target = _target(env, "traces", skipped, grpc) if "otlp" in traces else None
    if metrics_target is None:
        metrics = _without_otlp(metrics)
    if traces_target is None:
        traces = _without_otlp(traces)
    config = OtelConfig(
        metrics=metrics,
        traces=traces,
        metrics_target=metrics_target,
        traces_target=traces_target,
        metric_interval_ms=_millis(env, "OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS),
        span_delay_ms=_millis(env, "OTEL_BSP_SCHEDULE_DELAY", DEFAULT_SPAN_DELAY_MS),
        temporality=_temporality(env),
        include_session_id=_flag(env, "OTEL_METRICS_INCLUDE_SESSION_ID", default=True),
        include_version=_flag(env, "OTEL_METRICS_INCLUDE_VERSION", default=False),
        include_account_uuid=_flag(env, "OTEL_METRICS_INCLUDE_ACCOUNT_UUID", default=True),
        resource=_resource(env),
        notes=skipped.lines(),
    )
    if not config.enabled:
        return OtelConfig(notes=config.notes) if config.notes else OFF
    return config


def _without_otlp(exporters: tuple[Exporter, ...]) -> tuple[Exporter, ...]:
    return tuple(kind for kind in exporters if kind != "otlp")


class _Skipped:
    """What cannot be honoured, by reason, with the signals it leaves unexported."""

    def __init__(self) -> None:
        self._reasons: dict[str, list[Signal]] = {}

    def add(self, reason: str, signal: Signal | None) -> None:
        signals = self._reasons.setdefault(reason, [])
        if signal is not None and signal not in signals:
            signals.append(signal)

    def lines(self) -> tuple[str, ...]:
        found: list[str] = []
        for reason, signals in self._reasons.items():
            if signals:
                reason += f"; {' and '.join(signals)} not exported that way"
            found.append(f"telemetry: {reason}")
        return tuple(found)


def _grpc_installed() -> bool:
    try:
        distribution(GRPC_PACKAGE)
    except PackageNotFoundError:
        return False
    return True


def _flag(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    value = env.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"{name}={shown_url(value, path=True)!r}: expected 1/true or 0/false")


def _exporters(env: Mapping[str, str], name: str, skipped: _Skipped) -> tuple[Exporter, ...]:
    found: list[Exporter] = []
    for part in (env.get(name) or "").split(","):
        value = part.strip().lower()
        if value in ("", "none"):
            continue
        if value == "prometheus" and name == "OTEL_METRICS_EXPORTER":
            skipped.add(f"{name}=prometheus: tether serves no Prometheus endpoint", "metrics")
            continue
        if value == "otlp" or value == "console":
            if value not in found:
                found.append(value)
            continue
        raise ConfigError(f"{name}={part.strip()!r}: tether exports otlp, console or none")
    return tuple(found)


def _signal_env(env: Mapping[str, str], signal: Signal, key: str) -> tuple[str, str] | None:
    """The signal's own variable if set, else the general one: (its name, its value)."""
    for name in (f"OTEL_EXPORTER_OTLP_{signal.upper()}_{key}", f"OTEL_EXPORTER_OTLP_{key}"):
        value = env.get(name)
        if value is not None and value.strip():
            return name, value.strip()
    return None


def _target(
    env: Mapping[str, str], signal: Signal, skipped: _Skipped, has_grpc: Callable[[], bool]
) -> OtlpTarget | None:
    """Where `signal` goes over OTLP, or None (and why in `skipped`) when tether cannot send
    it as asked."""
    protocol: Protocol = DEFAULT_PROTOCOL
    if (found := _signal_env(env, signal, "PROTOCOL")) is not None:
        name, value = found
        if value == "http/json":
            skipped.add(f"{name}=http/json: tether speaks OTLP as http/protobuf or grpc", signal)
            return None
        if value not in ("http/protobuf", "grpc"):
            raise ConfigError(
                f"{name}={value!r}: tether speaks OTLP as http/protobuf or grpc (not http/json)"
            )
        if value == "grpc" and not has_grpc():
            skipped.add(
                f"{name}=grpc needs {GRPC_PACKAGE} installed (pip install {GRPC_PACKAGE}), "
                "or use http/protobuf",
                signal,
            )
            return None
        protocol = value
    own_name = f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT"
    own = env.get(own_name, "").strip()
    general = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    for name, value in ((own_name, own), ("OTEL_EXPORTER_OTLP_ENDPOINT", general)):
        if value:
            _check_url(name, value)
    if own:
        endpoint = own  # a signal's own endpoint is used as it is
    else:
        base = general or (DEFAULT_GRPC_ENDPOINT if protocol == "grpc" else DEFAULT_HTTP_ENDPOINT)
        endpoint = base if protocol == "grpc" else f"{base.rstrip('/')}/v1/{signal}"
    found = _signal_env(env, signal, "HEADERS")
    headers = tuple((k.lower(), v) for k, v in _pairs(*found)) if found is not None else ()
    timeout = DEFAULT_TIMEOUT_MS
    if (found := _signal_env(env, signal, "TIMEOUT")) is not None:
        timeout = _positive_millis(*found)
    return OtlpTarget(
        protocol=protocol,
        endpoint=endpoint,
        headers=headers,
        timeout_s=timeout / 1000,
        insecure=endpoint.startswith("http://"),
    )


def _check_url(name: str, value: str) -> None:
    if (problem := http_url_problem(value)) is not None:
        raise ConfigError(f"{name}={shown_url(value, path=True)!r}: not a valid URL ({problem})")


def _pairs(name: str, value: str) -> tuple[tuple[str, str], ...]:
    """`key=value,key2=value2`, each part URL-decoded (the OTLP exporter spec's format)."""
    pairs: list[tuple[str, str]] = []
    for part in value.split(","):
        if not part.strip():
            continue
        key, sep, item = part.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{name}: {part.strip()!r} is not key=value")
        pairs.append((unquote(key.strip()), unquote(item.strip())))
    return tuple(pairs)


def _millis(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name)
    if value is None or not value.strip():
        return default
    return _positive_millis(name, value)


def _positive_millis(name: str, value: str) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise ConfigError(f"{name}={value!r}: expected a whole number of milliseconds") from None
    if number <= 0:
        raise ConfigError(f"{name}={value!r}: expected a positive number of milliseconds")
    if number > MAX_MS:
        raise ConfigError(f"{name}={value!r}: expected at most {MAX_MS} milliseconds")
    return number


def _temporality(env: Mapping[str, str]) -> Temporality:
    name = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"
    value = (env.get(name) or "delta").strip().lower()
    if value not in ("delta", "cumulative"):
        raise ConfigError(f"{name}={shown_url(value, path=True)!r}: expected delta or cumulative")
    return value


def _resource(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    pairs = list(_pairs("OTEL_RESOURCE_ATTRIBUTES", env.get("OTEL_RESOURCE_ATTRIBUTES", "")))
    if service := (env.get("OTEL_SERVICE_NAME") or "").strip():
        pairs.append(("service.name", service))
    return tuple(pairs)
