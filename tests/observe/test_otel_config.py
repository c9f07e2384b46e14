"""The `OTEL_*` variables as tether reads them: on only when enabled with an exporter, each
signal's own variables over the general ones, anything unusable named."""

from __future__ import annotations

import pytest

from tether.observe.otel_config import OFF, read_otel_config
from tether.protocol import ConfigError

ON = {"CLAUDE_CODE_ENABLE_TELEMETRY": "1"}


def test_off_unless_enabled_with_an_exporter() -> None:
    assert read_otel_config({"OTEL_METRICS_EXPORTER": "otlp"}) is OFF
    assert read_otel_config(ON) is OFF
    assert read_otel_config({**ON, "OTEL_TRACES_EXPORTER": "none"}) is OFF
    assert read_otel_config({"TETHER_ENABLE_TELEMETRY": "0", "OTEL_TRACES_EXPORTER": "otlp"}) is OFF
    on = read_otel_config({"TETHER_ENABLE_TELEMETRY": "true", "OTEL_TRACES_EXPORTER": "otlp"})
    assert on.traces == ("otlp",)
    assert on.metrics == ()


def test_each_signal_has_its_own_endpoint_protocol_headers_and_timeout() -> None:
    config = read_otel_config(
        {
            **ON,
            "OTEL_METRICS_EXPORTER": "otlp,console",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/custom/path",
            "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20abc, X-Team = core ",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-only=traces",
            "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": "1500",
            "OTEL_METRIC_EXPORT_INTERVAL": "10000",
            "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": "Cumulative",
            "OTEL_RESOURCE_ATTRIBUTES": "team=core,deployment.environment=ci",
            "OTEL_SERVICE_NAME": "agents",
        }
    )
    assert config.metrics == ("otlp", "console")
    metrics, traces = config.metrics_target, config.traces_target
    assert metrics is not None
    assert traces is not None
    assert metrics.endpoint == "https://collector.example:4318/v1/metrics"
    assert traces.endpoint == "https://traces.example/custom/path"  # used as it is
    assert metrics.headers == (("authorization", "Bearer abc"), ("x-team", "core"))
    assert traces.headers == (("x-only", "traces"),)
    assert (metrics.timeout_s, traces.timeout_s) == (1.5, 5.0)
    assert metrics.protocol == traces.protocol == "http/protobuf"
    assert config.metric_interval_ms == 10_000
    assert config.temporality == "cumulative"
    assert dict(config.resource) == {
        "team": "core",
        "deployment.environment": "ci",
        "service.name": "agents",
    }


def test_grpc_endpoints_keep_no_path() -> None:
    config = read_otel_config(
        {**ON, "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
        has_grpc=lambda: True,
    )
    assert config.traces_target is not None
    assert config.traces_target.endpoint == "http://localhost:4317"
    assert config.traces_target.insecure


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("CLAUDE_CODE_ENABLE_TELEMETRY", "maybe", "CLAUDE_CODE_ENABLE_TELEMETRY='maybe': expected"),
        ("OTEL_TRACES_EXPORTER", "otlp,jaeger", "OTEL_TRACES_EXPORTER='jaeger'"),
        ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/xml", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "99999999999999999999", "expected at most 2147483647"),
        ("OTEL_BSP_SCHEDULE_DELAY", "2147483648", "expected at most 2147483647"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1/ x", "holds no spaces"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:port", "not a valid URL"),
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http:///v1/traces", "names no host"),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "-1", "expected a positive number of milliseconds"),
        ("OTEL_BSP_SCHEDULE_DELAY", "1.5", "OTEL_BSP_SCHEDULE_DELAY='1.5'"),
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "localhost:4318", "expected an http:// or https://"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "a=1,=2", "'=2' is not key=value"),
        ("OTEL_METRICS_INCLUDE_SESSION_ID", "sometimes", "OTEL_METRICS_INCLUDE_SESSION_ID="),
    ],
)
def test_what_cannot_be_used_is_named(name: str, value: str, said: str) -> None:
    env = {**ON, "OTEL_TRACES_EXPORTER": "otlp", name: value}
    with pytest.raises(ConfigError) as raised:
        read_otel_config(env)
    assert said in str(raised.value)


def test_what_tether_cannot_honour_is_noted_and_left_out_not_refused() -> None:
    env = {
        **ON,
        "OTEL_METRICS_EXPORTER": "prometheus,console",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
    }
    config = read_otel_config(env, has_grpc=lambda: False)
    assert (config.metrics, config.traces, config.traces_target) == (("console",), (), None)
    assert config.notes == (
        "telemetry: OTEL_LOGS_EXPORTER='otlp': tether exports metrics and traces, "
        "not logs or events",
        "telemetry: OTEL_METRICS_EXPORTER=prometheus: tether serves no Prometheus endpoint; "
        "metrics not exported that way",
        "telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs opentelemetry-exporter-otlp-proto-grpc "
        "installed (pip install opentelemetry-exporter-otlp-proto-grpc), or use http/protobuf; "
        "traces not exported that way",
    )
    with_grpc = read_otel_config(env, has_grpc=lambda: True)
    assert with_grpc.traces == ("otlp",)
    assert len(with_grpc.notes) == 2
    # both signals over http/json: one note naming both, and nothing left to export
    json_env = {
        **ON,
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
    }
    off = read_otel_config(json_env)
    assert not off.enabled
    assert off.notes == (
        "telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=http/json: tether speaks OTLP as http/protobuf "
        "or grpc; metrics and traces not exported that way",
    )
    logs_only = read_otel_config({**ON, "OTEL_LOGS_EXPORTER": "console"})
    assert not logs_only.enabled
    assert len(logs_only.notes) == 1
    assert read_otel_config({**ON, "OTEL_LOGS_EXPORTER": "none"}) is OFF
