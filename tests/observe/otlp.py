"""What a local OTLP/HTTP receiver got, decoded with the OpenTelemetry protocol's own protobuf
classes: spans and metric points, their attributes as plain values."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from .sink_server import Received


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status: int
    resource: dict[str, Any]


@dataclass(frozen=True)
class Point:
    metric: str
    unit: str
    value: float
    attributes: dict[str, Any]
    resource: dict[str, Any]


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return tuple(_value(v) for v in value.array_value.values)
    return getattr(value, which) if which else None


def _attributes(items: Any) -> dict[str, Any]:
    pairs: list[KeyValue] = list(items)
    return {kv.key: _value(kv.value) for kv in pairs}


def _body(received: Received) -> bytes:
    if received.headers.get("content-encoding") == "gzip":
        return gzip.decompress(received.body)
    return received.body


def spans(received: list[Received]) -> list[Span]:
    found: list[Span] = []
    for request in received:
        if request.path != "/v1/traces":
            continue
        message = ExportTraceServiceRequest()
        message.ParseFromString(_body(request))
        for resource_spans in message.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    found.append(
                        Span(
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            start_ns=span.start_time_unix_nano,
                            end_ns=span.end_time_unix_nano,
                            attributes=_attributes(span.attributes),
                            status=span.status.code,
                            resource=resource,
                        )
                    )
    return found


def points(received: list[Received]) -> list[Point]:
    found: list[Point] = []
    for request in received:
        if request.path != "/v1/metrics":
            continue
        message = ExportMetricsServiceRequest()
        message.ParseFromString(_body(request))
        for resource_metrics in message.resource_metrics:
            resource = _attributes(resource_metrics.resource.attributes)
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    data = metric.sum if metric.HasField("sum") else metric.gauge
                    for point in data.data_points:
                        which = point.WhichOneof("value")
                        found.append(
                            Point(
                                metric=metric.name,
                                unit=metric.unit,
                                value=getattr(point, which) if which else 0,
                                attributes=_attributes(point.attributes),
                                resource=resource,
                            )
                        )
    return found


def total(found: list[Point], metric: str, **attributes: Any) -> float:
    """The sum of `metric`'s points whose attributes include `attributes` (delta points add)."""
    return sum(
        p.value
        for p in found
        if p.metric == metric and all(p.attributes.get(k) == v for k, v in attributes.items())
    )
