"""Sections of the other benchmarks (from stored samples shaped as each benchmark stores them),
the generic section, the registry's tolerance, and the markdown reader."""

from __future__ import annotations

from typing import Any

import pytest

from incanon.report import Doc, build_report, render_html, render_png
from incanon.report.html import block_html
from incanon.report.model import Chart, Series
from incanon.runs import ItemOutcome, RunConfig, RunItem, RunStore, run_items


async def _run(store: RunStore, config: RunConfig, samples: list[tuple[str, dict, ItemOutcome]]) -> str:
    by_id = {item_id: outcome for item_id, _, outcome in samples}
    items = [RunItem(id=item_id, input=x) for item_id, x, _ in samples]

    async def task(item: RunItem) -> ItemOutcome:
        return by_id[item.id]

    return (await run_items(items, task, store=store, config=config, progress=False)).run_id


def _rolerag(method: str, ke: float) -> tuple[RunConfig, list]:
    config = RunConfig(benchmark="rolerag", models={"agent": "m"}, methods=[method])
    return config, [(f"q{i}", {"kind": kind, "scope": scope},
                     ItemOutcome(scores={"ke": ke + i, "kh": 1.0, "uqj": float(scope == "in")}))
                    for i, (kind, scope) in enumerate([("general", "in"), ("specific", "in"), ("specific", "out")])]


def _sharp(mode: str = "factual") -> tuple[RunConfig, list]:
    config = RunConfig(benchmark="sharp", models={"agent": "m"}, methods=["zero-shot"], params={"mode": mode})
    samples = []
    for i, (role, affection, label, stance) in enumerate([
        ("Ann", "high", "counterfactual", "FAVOR"), ("Ann", "high", "factual", "FAVOR"),
        ("Bob", "low", "factual", "AGAINST"), ("Bob", "low", "counterfactual", "AGAINST"),
    ]):
        x = {"kind": "role", "work": "w", "main_character": "Cleo", "role": role, "affection": affection,
             "interactions": 3 if role == "Ann" else 1, "claim": {"id": f"c{i}", "label": label, "lang": "en"}}
        samples.append((f"r{i}", x, ItemOutcome(outputs={"stance": stance})))
    return config, samples


def _coser() -> tuple[RunConfig, list]:
    from incanon.bench.coser.scoring import DIMENSIONS

    config = RunConfig(benchmark="coser-judge", models={"actor": "actor-x", "critic": "c"}, dataset={"source_run": "s"})
    return config, [(f"case{i}", {"domain": "in-domain"},
                     ItemOutcome(scores={**{d: 50.0 + i for d in DIMENSIONS}, "bleu": 5.0, "rouge_l": 9.0}))
                    for i in range(3)]


def _dialsim() -> tuple[RunConfig, list]:
    config = RunConfig(benchmark="dialsim", models={"agent": "m"}, methods=["dialsim-bm25-session"],
                       params={"time_limit": 6.0, "format": "mc"})
    statuses = ["correct", "wrong", "correct", "timeout"]
    return config, [(f"s{i}", {"session": i},
                     ItemOutcome(outputs={"question": {"status": st, "category": "fan", "type": "t", "answer_s": 0.5}}))
                    for i, st in enumerate(statuses)]


def _unknown() -> tuple[RunConfig, list]:
    config = RunConfig(benchmark="mybench", models={"agent": "m"}, methods=["zero-shot"])
    return config, [(f"i{i}", {}, ItemOutcome(scores={"accuracy": float(i % 2), "f1": 0.5})) for i in range(4)]


@pytest.fixture
async def mixed(tmp_path) -> tuple[RunStore, dict[str, Any]]:
    store = RunStore(tmp_path / "runs.sqlite")
    ids = {
        "rolerag": [await _run(store, *_rolerag("rolerag", 2.0)), await _run(store, *_rolerag("vanilla", 1.0))],
        "sharp": [await _run(store, *_sharp())],
        "coser": [await _run(store, *_coser())],
        "dialsim": [await _run(store, *_dialsim())],
        "mybench": [await _run(store, *_unknown())],
    }
    yield store, ids
    store.close()


async def test_every_benchmark_gets_its_paper_table(mixed):
    store, ids = mixed
    order = ["sharp", "rolerag", "coser", "dialsim", "mybench"]
    report = build_report(store, [run for name in order for run in ids[name]])
    sections = {s.benchmark: s for s in report.sections}
    assert [s.benchmark for s in report.sections] == order
    assert not any(s.notes for s in report.sections)
    heads = {name: [b.table.columns for b in s.blocks if b.kind == "table"] for name, s in sections.items()}
    assert heads["rolerag"][0] == ["Model", "Method", "n", "KE↑", "KH↓", "UQJ↑"]
    first = next(b.table for b in sections["rolerag"].blocks if b.kind == "table")
    assert [r[1] for r in first.rows] == ["vanilla", "rolerag"]  # the paper's method order
    assert heads["sharp"][0][:8] == ["Model", "Method", "Backbone", "Lang.", "SR", "AR", "ER", "CRF"]
    assert "Storyline Consistency" in heads["coser"][0] and "ROUGE-L" in heads["coser"][0]
    assert any("fan" in cols for cols in heads["dialsim"])
    assert heads["mybench"] == []  # no paper layout: the per-run score table stands alone
    assert sections["mybench"].title.startswith("mybench (no paper layout")
    assert sections["mybench"].scores.columns[-2:] == ["accuracy", "f1"]
    assert sections["mybench"].scores.rows[0][-2] == "0.500 ± 0.289"
    for name, section in sections.items():
        assert section.charts, name
    dialsim_acc = sections["dialsim"].charts[0]
    assert dialsim_acc.series[0].values == pytest.approx([100 * 2 / 4])  # a timeout is a failed question
    html = render_html(report, plots=False)
    for section in report.sections:
        assert section.title.replace("&", "&amp;") in html


async def test_sharp_modes_each_get_a_table_and_a_bad_one_falls_back(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    factual = await _run(store, *_sharp("factual"))
    snow = await _run(store, *_sharp("snowballing"))
    (section,) = build_report(store, [factual]).sections
    assert set(section.data) == {"factual"}
    # Snowballing needs the backbone's stances and these runs have none: the section says so
    # and still shows the generic score table.
    (bad,) = build_report(store, [snow]).sections
    assert bad.notes and "could not be built" in bad.notes[0] and "backbone" in bad.notes[0]
    assert bad.scores is not None and bad.blocks == []
    store.close()


async def test_a_missing_benchmark_module_gives_the_generic_section(tmp_path, monkeypatch):
    from incanon.report import registry

    store = RunStore(tmp_path / "runs.sqlite")
    run = await _run(store, *_rolerag("rolerag", 1.0))

    def missing(store, runs):
        raise ModuleNotFoundError("No module named 'incanon.bench.rolerag.report'", name="incanon.bench.rolerag.report")

    original = registry.builder_for("rolerag")
    monkeypatch.setitem(registry._BY_BENCHMARK, "rolerag",
                        registry.SectionBuilder(family="rolerag", title=original.title, benchmarks=("rolerag",),
                                                build=missing))
    (section,) = build_report(store, [run]).sections
    assert "report module is not available" in section.notes[0] and section.scores is not None
    assert [c.title for c in section.charts][:1] == ["ke by model / method"]
    store.close()


def test_register_section_for_a_plugin_benchmark():
    from incanon.report import builder_for, register_section
    from incanon.report.registry import SectionParts, _BY_BENCHMARK

    @register_section("plugin-bench", title="Plugin bench", distributions=False)
    def _plugin(store, runs):
        return SectionParts()

    try:
        builder = builder_for("plugin-bench")
        assert builder.title == "Plugin bench" and builder.distributions is False
    finally:
        _BY_BENCHMARK.pop("plugin-bench")


def test_a_doc_renders_markdown_and_gives_its_blocks_to_sections():
    doc = Doc("Title", 2).text("Intro **bold** and `code`.").heading("Part").table(
        ["A", "B | C"], [[1, "x | y"], [2, "<b>*"]], right=[1]).items(["first", "second"]).note("warning: careful")
    doc.heading("Deeper", 4)
    assert doc.markdown() == (
        "## Title\n\nIntro **bold** and `code`.\n\n### Part\n\n| A | B \\| C |\n|---|---:|\n| 1 | x \\| y |\n"
        "| 2 | <b>* |\n\n- first\n- second\n\n> warning: careful\n\n#### Deeper\n")
    blocks = doc.section_blocks()
    assert [(b.kind, b.level if b.kind == "heading" else None) for b in blocks] == [
        ("text", None), ("heading", 3), ("table", None), ("list", None), ("note", None), ("heading", 4)]
    # Cells stay data: a bar, a tag and an asterisk reach both formats as written, escaped for each.
    assert blocks[2].table.rows == [["1", "x | y"], ["2", "<b>*"]]
    html = "".join(block_html(b) for b in blocks)
    assert '<td class="num">x | y</td>' in html  # column B is flush right, as the markdown's ---: says
    assert "&lt;b&gt;*" in html and "<b>" not in html
    assert block_html(doc.blocks[1]) == "<p>Intro <strong>bold</strong> and <code>code</code>.</p>"


def test_benchmark_sections_take_the_report_blocks_not_its_markdown(tmp_path):
    """The TimeChara section shows exactly the blocks of the report object; the markdown the
    benchmark prints is rendered from the same blocks."""
    from incanon.bench.timechara import build_report as timechara_report
    from incanon.bench.timechara.judged import JudgedRow

    report = timechara_report([JudgedRow(model="m|x", method="zero-shot", data_type="future",
                                         question_generation="fact_structured", temporal_score=1,
                                         personality_score=6, series="s", id="a")])
    doc = report.doc()
    assert report.markdown() == doc.markdown()
    assert doc.section_blocks()[0].kind == "text" and doc.blocks[0].text.startswith("TimeChara")
    table = next(b.table for b in doc.blocks if b.kind == "table")
    assert table.rows[0][0] == "m|x" and "m\\|x" in report.markdown()


def test_charts_render_to_the_same_png_every_time():
    chart = Chart(kind="bars", title="t", categories=["a", "b"], error="SEM",
                  series=[Series(name="s", values=[1.0, None], errors=[0.1, None])])
    png = render_png(chart)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png == render_png(chart)
    hist = Chart(kind="histogram", title="h", bins=[-0.5, 0.5, 1.5],
                 series=[Series(name="x", values=[0, 1, 1]), Series(name="y", values=[1])])
    assert render_png(hist).startswith(b"\x89PNG")


def _sample(**fields):
    from incanon.runs.records import SampleRecord

    return SampleRecord(run_id="r", item_id="i", input_hash="h", **fields)


def test_each_benchmark_says_how_its_samples_are_grouped():
    from incanon.report import builder_for

    def typed(benchmark, **fields):
        return builder_for(benchmark).sample_type(_sample(**fields))

    assert typed("dialsim", input={"session": "s1"}, outputs={"question": {"category": "two-hop", "type": "past"}}) == "two-hop"
    assert typed("dialsim", input={"session": "s1"}, outputs={"question": None}) is None
    assert typed("sharp", input={"kind": "role", "affection": "high", "claim": {"label": "counterfactual"}}) \
        == "high affection / counterfactual"
    assert typed("sharp", input={"kind": "backbone", "claim": {"label": "factual"}}) == "backbone / factual"
    assert typed("rolerag", input={"scope": "out", "kind": "general"}) == "out-scope / general"
    assert typed("coser-gca", input={"domain": "out-of-domain"}) == "out-of-domain"
    assert builder_for("timechara").sample_type is None  # data_type, found by the generic rule
