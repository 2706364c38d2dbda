"""The paper's analyses beyond Table 5, computed from judged rows.

* **Expert accuracy** (Table 28): for narrative-experts runs, how often the temporal expert
  called a future item future and a past one past (over all items), and how often the spatial
  expert called a past-absence item absent and a past-presence one present (structured items).
  An item where the temporal expert said "future" never reached the spatial expert; it counts
  as a spatial miss, as in the paper (the hint the answer got was wrong either way).
* **Temporal gap** (Table 29): consistency of future items by how many books (volumes) the
  question lies after the character's time point.
* **Per series** (Tables 26-27): each data type per series, with past-only split into fact
  and fake free-form questions.
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel

from incanon.bench.timechara.judged import JudgedRow

SERIES_COLUMNS = ("future", "past-absence", "past-presence", "past-only (fact)", "past-only (fake)")


class Count(BaseModel):
    """``hits`` of ``n`` (shown as a percentage, or ``hits/n``)."""

    hits: float = 0.0
    n: int = 0

    @property
    def percent(self) -> float | None:
        """100 × hits / n, None when empty."""
        return 100.0 * self.hits / self.n if self.n else None


class ExpertAccuracy(BaseModel):
    """Table 28 for one model × method."""

    model: str
    method: str
    future: Count
    past: Count
    absence: Count
    presence: Count


class GapRow(BaseModel):
    """Table 29 for one model × method: gap (books) → consistency of future items."""

    model: str
    method: str
    by_gap: dict[int, Count]


class SeriesRow(BaseModel):
    """Tables 26-27 for one model × method × series."""

    model: str
    method: str
    series: str
    cells: dict[str, Count]


def _pairs(rows: list[JudgedRow]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.model, r.method) for r in rows))


def expert_accuracy(rows: list[JudgedRow]) -> list[ExpertAccuracy]:
    """Accuracy of the narrative experts, for every model × method whose rows carry verdicts."""
    out = []
    for model, method in _pairs(rows):
        mine = [r for r in rows if r.model == model and r.method == method and r.expert_temporal is not None]
        if not mine:
            continue
        cells = {k: Count() for k in ("future", "past", "absence", "presence")}
        for r in mine:
            truth = "future" if r.data_type == "future" else "past"
            cells[truth].n += 1
            cells[truth].hits += r.expert_temporal == truth
            if r.data_type in ("past-absence", "past-presence"):
                key = "absence" if r.data_type == "past-absence" else "presence"
                cells[key].n += 1
                cells[key].hits += r.expert_spatial == ("absent" if key == "absence" else "present")
        out.append(ExpertAccuracy(model=model, method=method, **cells))
    return out


def temporal_gaps(rows: list[JudgedRow]) -> list[GapRow]:
    """Consistency of future items by the book gap between question and character."""
    out = []
    for model, method in _pairs(rows):
        by_gap: dict[int, Count] = defaultdict(Count)
        for r in rows:
            if (r.model, r.method) != (model, method) or r.data_type != "future" or r.gap is None:
                continue
            if r.spatiotemporal is None:
                continue
            by_gap[r.gap].n += 1
            by_gap[r.gap].hits += r.spatiotemporal
        if by_gap:
            out.append(GapRow(model=model, method=method, by_gap=dict(sorted(by_gap.items(), reverse=True))))
    return out


def series_table(rows: list[JudgedRow]) -> list[SeriesRow]:
    """Per series: each data type, past-only split into fact and fake free-form."""
    out = []
    for model, method in _pairs(rows):
        mine = [r for r in rows if (r.model, r.method) == (model, method)]
        for series in sorted({r.series or "-" for r in mine}):
            cells = {c: Count() for c in SERIES_COLUMNS}
            for r in mine:
                if (r.series or "-") != series or r.spatiotemporal is None:
                    continue
                column = r.data_type
                if column == "past-only":
                    column = "past-only (fake)" if r.question_generation == "fake_freeform" else "past-only (fact)"
                cells[column].n += 1
                cells[column].hits += r.spatiotemporal
            out.append(SeriesRow(model=model, method=method, series=series, cells=cells))
    return out
