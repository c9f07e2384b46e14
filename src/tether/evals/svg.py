"""Bar charts as inline SVG: no script, no font or stylesheet from anywhere else."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")
_ROW = 22
_LABEL = 170
_PLOT = 360


def bar_chart(
    chart_id: str,
    title: str,
    bars: list[tuple[str, float]],
    fmt: Callable[[float], str],
    most: float | None = None,
) -> str:
    """Horizontal bars, one a row, each labelled and its value written at its end."""
    top = most if most is not None else max((v for _, v in bars), default=0.0)
    height = 30 + _ROW * len(bars)
    parts = [_open(chart_id, title, height)]
    for i, (label, value) in enumerate(bars):
        y = 26 + i * _ROW
        width = 0.0 if top <= 0 else max(value, 0.0) / top * _PLOT
        colour = PALETTE[i % len(PALETTE)]
        parts.append(_row(label, y, width, colour, fmt(value)))
    parts.append("</svg>")
    return "".join(parts)


def grouped_bar_chart(
    chart_id: str,
    title: str,
    groups: list[tuple[str, list[tuple[str, float]]]],
    series: list[str],
    fmt: Callable[[float], str],
) -> str:
    """A group of bars per label (one per series, coloured as the legend says)."""
    top = max((v for _, bars in groups for _, v in bars), default=0.0)
    rows = sum(len(bars) for _, bars in groups) + len(groups)
    height = 30 + _ROW * rows + 20 * len(series)
    parts = [_open(chart_id, title, height)]
    y = 26
    for label, bars in groups:
        parts.append(f'<text x="4" y="{y + 14}" class="group">{escape(label)}</text>')
        y += _ROW
        for name, value in bars:
            colour = PALETTE[series.index(name) % len(PALETTE)] if name in series else "#888"
            width = 0.0 if top <= 0 else max(value, 0.0) / top * _PLOT
            parts.append(_row(name, y, width, colour, fmt(value)))
            y += _ROW
    for i, name in enumerate(series):
        ly = y + 6 + i * 20
        colour = PALETTE[i % len(PALETTE)]
        parts.append(
            f'<rect class="legend" x="{_LABEL}" y="{ly}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{_LABEL + 18}" y="{ly + 11}">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _open(chart_id: str, title: str, height: int) -> str:
    width = _LABEL + _PLOT + 90
    return (
        f'<svg id="{escape(chart_id)}" class="chart" xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
        f'<text x="4" y="16" class="title">{escape(title)}</text>'
    )


def _row(label: str, y: int, width: float, colour: str, value: str) -> str:
    return (
        f'<text x="{_LABEL - 6}" y="{y + 14}" text-anchor="end">{escape(label)}</text>'
        f'<rect class="bar" x="{_LABEL}" y="{y + 2}" width="{width:.1f}" height="{_ROW - 6}" '
        f'fill="{colour}"><title>{escape(label)}: {escape(value)}</title></rect>'
        f'<text x="{_LABEL + width + 6:.1f}" y="{y + 14}">{escape(value)}</text>'
    )
