"""The OpenTelemetry SDK's providers and exporters for an `OtelConfig`: imported only when
telemetry is on (`otel_sink.open_otel_sink` imports this module then).

The providers are tether's own, never the process's global ones (a library's host keeps its
own), and are shut down by `Exporters.shutdown` within a deadline: a dead collector costs a
background thread its bounded retries, never the session or more than the deadline at exit.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tether import __version__
from tether.observe.otel_config import OtelConfig, OtlpTarget
from tether.protocol import ConfigError
from tether.shown_urls import without_secrets

INSTALL_HINT = "pip install 'tether[otel]'"

try:
    from opentelemetry.metrics import Meter
    from opentelemetry.sdk.metrics import (
        Counter,
        Histogram,
        MeterProvider,
        ObservableCounter,
        ObservableGauge,
        ObservableUpDownCounter,
        UpDownCounter,
    )
    from opentelemetry.sdk.metrics.export import (
        AggregationTemporality,
        ConsoleMetricExporter,
        MetricExporter,
        MetricReader,
        PeriodicExportingMetricReader,
    )
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SpanExporter,
    )
    from opentelemetry.trace import Tracer
except ImportError as e:  # the extra is not installed: said in one line where it is enabled
    raise ConfigError(
        f"telemetry is enabled but the OpenTelemetry SDK is not installed ({e.name}): "
        f"{INSTALL_HINT}"
    ) from None

SCOPE = "tether"


class _Problems(logging.Handler):
    """The SDK's own log (a failed export, a retry), kept off the terminal: counted, and the
    first said in the one line at exit, without the configured endpoints' secrets (query,
    userinfo), which the SDK's errors quote with the URL they were given."""

    def __init__(self, endpoints: tuple[str, ...]) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.first: str | None = None
        self.endpoints = endpoints

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if self.first is None:  # redacted before it is cut: no part of a secret is left
            self.first = self.redacted(record.getMessage().split("\n", 1)[0])[:300]

    def redacted(self, said: str) -> str:
        """The SDK's words (not tether's own) without the endpoints' secrets."""
        for endpoint in self.endpoints:
            said = without_secrets(said, endpoint)
        return said


def _quiet_sdk(endpoints: tuple[str, ...]) -> _Problems:
    problems = _Problems(endpoints)
    logger = logging.getLogger("opentelemetry")
    logger.addHandler(problems)
    logger.propagate = False  # not to the root logger's (a host's) or Python's last resort
    return problems


@dataclass
class Exporters:
    tracer: Tracer | None
    meter: Meter | None
    _tracing: TracerProvider | None
    _metering: MeterProvider | None
    _problems: _Problems

    def shutdown(self, deadline: float) -> str | None:
        """Export what is pending and stop, by `deadline` (`time.monotonic()`); what could not
        be, said for the user, or None. Spans and metrics each shut down in a thread of their
        own, at once, so that an exporter's retries against a dead collector are cut at the
        deadline and one signal's wait does not take the other's time."""
        problems: list[str] = []

        def guarded(stop: Callable[[], object]) -> None:
            try:
                stop()
            except Exception as e:  # an exporter's failure is said, not raised at exit
                problems.append(self._problems.redacted(f"{type(e).__name__}: {e}"))

        stops: list[Callable[[], object]] = []
        if (tracing := self._tracing) is not None:
            stops.append(tracing.shutdown)
        if (metering := self._metering) is not None:
            left_ms = max(0.0, deadline - time.monotonic()) * 1000
            stops.append(lambda: metering.shutdown(timeout_millis=left_ms))
        threads = [
            threading.Thread(target=guarded, args=(stop,), name="tether-otel-shutdown", daemon=True)
            for stop in stops
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        said: list[str] = []
        if any(thread.is_alive() for thread in threads):
            said.append("the collector did not take everything before exit")
        said.extend(problems)
        if self._problems.count:
            said.append(f"{self._problems.count} export problems (first: {self._problems.first})")
        if not said:
            return None
        return f"telemetry: {'; '.join(said)}"


def build_exporters(config: OtelConfig) -> Exporters:
    targets = (config.traces_target, config.metrics_target)
    problems = _quiet_sdk(tuple(t.endpoint for t in targets if t is not None))
    resource = Resource.create(
        {"service.name": "tether", "service.version": __version__, **dict(config.resource)}
    )
    tracing = None
    if config.traces:
        tracing = TracerProvider(resource=resource, shutdown_on_exit=False)
        for kind in config.traces:
            exporter = (
                _span_exporter(config.traces_target)
                if kind == "otlp" and config.traces_target is not None
                else ConsoleSpanExporter(out=sys.stderr)  # stdout is the session's output
            )
            tracing.add_span_processor(
                BatchSpanProcessor(exporter, schedule_delay_millis=config.span_delay_ms)
            )
    metering = None
    if config.metrics:
        temporality = _temporality(config)
        readers: list[MetricReader] = []
        for kind in config.metrics:
            exporter = (
                _metric_exporter(config.metrics_target, temporality)
                if kind == "otlp" and config.metrics_target is not None
                else ConsoleMetricExporter(out=sys.stderr, preferred_temporality=temporality)
            )
            readers.append(
                PeriodicExportingMetricReader(
                    exporter, export_interval_millis=config.metric_interval_ms
                )
            )
        metering = MeterProvider(metric_readers=readers, resource=resource, shutdown_on_exit=False)
    return Exporters(
        tracer=tracing.get_tracer(SCOPE, __version__) if tracing is not None else None,
        meter=metering.get_meter(SCOPE, __version__) if metering is not None else None,
        _tracing=tracing,
        _metering=metering,
        _problems=problems,
    )


def _temporality(config: OtelConfig) -> dict[type, AggregationTemporality]:
    counters = (
        AggregationTemporality.DELTA
        if config.temporality == "delta"
        else AggregationTemporality.CUMULATIVE
    )
    return {
        Counter: counters,
        ObservableCounter: counters,
        Histogram: counters,
        UpDownCounter: AggregationTemporality.CUMULATIVE,
        ObservableUpDownCounter: AggregationTemporality.CUMULATIVE,
        ObservableGauge: AggregationTemporality.CUMULATIVE,
    }


def _span_exporter(target: OtlpTarget) -> SpanExporter:
    if target.protocol == "grpc":
        module = _grpc("trace_exporter")
        return module.OTLPSpanExporter(
            endpoint=target.endpoint,
            headers=dict(target.headers),
            timeout=target.timeout_s,
            insecure=target.insecure,
        )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(
        endpoint=target.endpoint, headers=dict(target.headers), timeout=target.timeout_s
    )


def _metric_exporter(
    target: OtlpTarget, temporality: dict[type, AggregationTemporality]
) -> MetricExporter:
    if target.protocol == "grpc":
        module = _grpc("metric_exporter")
        return module.OTLPMetricExporter(
            endpoint=target.endpoint,
            headers=dict(target.headers),
            timeout=target.timeout_s,
            insecure=target.insecure,
            preferred_temporality=temporality,
        )
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter(
        endpoint=target.endpoint,
        headers=dict(target.headers),
        timeout=target.timeout_s,
        preferred_temporality=temporality,
    )


def _grpc(name: str) -> Any:
    """The grpc exporters' module: a package of its own, not in `tether[otel]` (grpcio is
    large); its absence said in one line."""
    import importlib

    try:
        return importlib.import_module(f"opentelemetry.exporter.otlp.proto.grpc.{name}")
    except ImportError:
        raise ConfigError(
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs opentelemetry-exporter-otlp-proto-grpc "
            "installed (pip install opentelemetry-exporter-otlp-proto-grpc), "
            "or use http/protobuf"
        ) from None
