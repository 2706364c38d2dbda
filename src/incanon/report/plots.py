"""Draw charts as PNG with matplotlib's Agg canvas (no display, no pyplot global state, safe in
threads and servers)."""

from __future__ import annotations

import base64
import io
import math

from incanon.report.model import Chart

_WIDTH, _HEIGHT, _DPI = 7.5, 3.6, 110
# Colour-blind-safe palette (Okabe-Ito), cycled when there are more series.
_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def _figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(_WIDTH, _HEIGHT), dpi=_DPI)
    FigureCanvasAgg(fig)
    return fig


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _bars(ax, chart: Chart) -> None:
    n_cat, n_series = len(chart.categories), max(1, len(chart.series))
    width = 0.8 / n_series
    for i, series in enumerate(chart.series):
        xs = [c - 0.4 + width * (i + 0.5) for c in range(n_cat)]
        values = [math.nan if v is None else v for v in series.values]
        errors = None
        if series.errors is not None and any(e is not None for e in series.errors):
            errors = [0.0 if e is None else e for e in series.errors]
        ax.bar(xs, values, width * 0.92, yerr=errors, capsize=3 if errors else 0,
               color=_COLORS[i % len(_COLORS)], label=_short(series.name, 40))
    ax.set_xticks(range(n_cat))
    rotate = n_cat > 4 or max((len(c) for c in chart.categories), default=0) > 14
    ax.set_xticklabels([_short(c) for c in chart.categories], rotation=25 if rotate else 0,
                       ha="right" if rotate else "center", fontsize=8)
    if chart.y_range is not None:
        ax.set_ylim(*chart.y_range)
    if len(chart.series) > 1:
        ax.legend(fontsize=7, frameon=False, loc="best")


def _histogram(ax, chart: Chart) -> None:
    data = [[v for v in s.values if v is not None] for s in chart.series]
    ax.hist(data, bins=chart.bins or 10, label=[_short(s.name, 40) for s in chart.series],
            color=[_COLORS[i % len(_COLORS)] for i in range(len(data))])
    edges = list(chart.bins or [])
    centers = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
    if centers and len(centers) <= 13 and all(float(c).is_integer() for c in centers):
        ax.set_xticks(centers)  # discrete scores (0/1, 1-7): one labelled bar per value
    if len(chart.series) > 1:
        ax.legend(fontsize=7, frameon=False, loc="best")


def render_png(chart: Chart) -> bytes:
    """The chart as PNG bytes."""
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    if chart.kind == "bars":
        _bars(ax, chart)
    else:
        _histogram(ax, chart)
    title = chart.title + (f" (error bars: {chart.error})" if chart.error else "")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(chart.x_label, fontsize=8)
    ax.set_ylabel(chart.y_label, fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    buffer = io.BytesIO()
    # No "Software" text chunk: the same chart gives the same bytes on every machine.
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def png_data_uri(chart: Chart) -> str:
    """The chart as a ``data:image/png;base64,...`` URI (self-contained HTML and markdown)."""
    return "data:image/png;base64," + base64.b64encode(render_png(chart)).decode("ascii")
