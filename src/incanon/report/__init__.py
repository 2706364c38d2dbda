"""Reports over stored runs: paper-style tables per benchmark, charts, run configuration, costs.

The report is data first (``Report`` → ``Section`` → blocks, charts, run overviews), built from
a run store without calling a model; renderers turn it into one self-contained HTML file or
markdown, and the web app can show the same data its own way::

    from incanon.report import build_report, write_report
    report = build_report(RunStore("runs.sqlite"), ["timechara-1a2b", "demo-9f8e"])
    write_report(report, "report.html")          # or .md; report.to_json() for programs

Each benchmark's section comes from a registered builder that uses the benchmark's own report
module (``register_section`` adds one); runs of an unknown benchmark get a generic score table.
"""

from incanon.report.build import build_report, build_section
from incanon.report.doc import Doc
from incanon.report.charts import bar_chart, run_comparison, score_distributions
from incanon.report.html import render_html
from incanon.report.markdown import render_markdown
from incanon.report.model import Block, Chart, Report, RunOverview, Section, Series, Table
from incanon.report.overview import run_overview, score_table, usage_table
from incanon.report.plots import png_data_uri, render_png
from incanon.report.registry import SectionBuilder, SectionParts, builder_for, register_section, section_builders
from incanon.report.write import write_report, write_text_atomic

__all__ = [
    "Doc",
    "Block",
    "Chart",
    "Report",
    "RunOverview",
    "Section",
    "SectionBuilder",
    "SectionParts",
    "Series",
    "Table",
    "bar_chart",
    "build_report",
    "build_section",
    "builder_for",
    "png_data_uri",
    "register_section",
    "render_html",
    "render_markdown",
    "render_png",
    "run_comparison",
    "run_overview",
    "score_distributions",
    "score_table",
    "section_builders",
    "usage_table",
    "write_report",
    "write_text_atomic",
]
