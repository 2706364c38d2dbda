"""The demo: one character interviewed at two time points, judged for spatiotemporal consistency."""

from __future__ import annotations

from collections.abc import Sequence

from incanon.report.charts import bar_chart
from incanon.report.model import Block, RunOverview, Series, Table
from incanon.report.registry import SectionParts, register_section
from incanon.runs import RunStore
from incanon.runs.stats import mean_sem


def _stat(values: list[float]) -> tuple[float | None, float | None]:
    mean, sem = mean_sem(len(values), sum(values), sum(v * v for v in values))
    return (None if mean is None else mean * 100, None if sem is None else sem * 100)


def _text(mean: float | None, sem: float | None, n: int) -> str:
    if mean is None:
        return "-"
    return f"{mean:.1f}" + (f" ± {sem:.1f}" if sem is not None else "") + f" (n={n})"


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@register_section("demo", title="Demo: a character interviewed at two points of the story",
                  distributions=())
def demo_section(store: RunStore, runs: Sequence[RunOverview]) -> SectionParts:
    from incanon.demo import DEMO_TYPES, demo_rows

    labels = [r.label for r in runs]
    rows_by_run = {r.id: demo_rows(store, r.id) for r in runs}
    summary, series = [], []
    for run, label in zip(runs, labels):
        scored = {t: [float(x["score"]) for x in rows_by_run[run.id] if x["data_type"] == t and x["score"] is not None]
                  for t in DEMO_TYPES}
        every = [v for vs in scored.values() for v in vs]
        stats = [_stat(scored[t]) for t in DEMO_TYPES]
        summary.append([label, *(_text(m, s, len(scored[t])) for (m, s), t in zip(stats, DEMO_TYPES)),
                        _text(*_stat(every), len(every))])
        series.append(Series(name=label, values=[m for m, _ in stats], errors=[s for _, s in stats]))
    blocks = [
        Block(kind="text", text="Spatiotemporal consistency in % (mean ± SEM over judged answers) by question type: "
                                "a future event, a past scene the character missed, a past scene they witnessed."),
        Block(kind="table", table=Table(columns=["Model / method", *DEMO_TYPES, "Avg."], rows=summary)),
    ]
    for run in runs:
        answers = [[f"{x['at_label']} ({x['at']})", x["data_type"], _clip(x["question"]),
                    _clip(x["answer"] or "") if x["status"] == "ok" else f"error: {x['error']}",
                    {1: "yes", 0: "no"}.get(x["score"], "?")] for x in rows_by_run[run.id]]
        blocks += [Block(kind="heading", text=f"Answers of {run.id}", level=3),
                   Block(kind="table", table=Table(columns=["Time point", "Type", "Question", "Answer", "Consistent?"],
                                                   rows=answers))]
    chart = bar_chart("Spatiotemporal consistency by question type", list(DEMO_TYPES), series,
                      y_label="% consistent", error="SEM", y_range=(0, 100))
    return SectionParts(blocks=blocks, charts=[chart] if chart else [],
                        data={"rows": {run_id: rows for run_id, rows in rows_by_run.items()}})
