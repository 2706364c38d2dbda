"""The report as markdown: the same sections as the HTML, charts as embedded data-URI images."""

from __future__ import annotations

from incanon.report.doc import block_markdown, table_lines
from incanon.report.model import Block, Report, Section, Table
from incanon.report.plots import png_data_uri


def inert_html(markdown: str) -> str:
    """``markdown`` with every ``<`` written ``&lt;``: model names, answers and item texts end up
    in reports, and markdown viewers render raw HTML (``<script>``, ``<img onerror>``); incanon's
    own markdown uses no HTML, so nothing of it is lost."""
    return markdown.replace("<", "&lt;")


def table_md(table: Table) -> list[str]:
    """A pipe table (and its caption as a line below)."""
    return table_lines(table)


def block_md(block: Block) -> list[str]:
    """One block, followed by a blank line."""
    return [*block_markdown(block).split("\n"), ""]


def section_md(section: Section, plots: bool = True) -> list[str]:
    """One section."""
    lines = [f"## {section.title}", ""]
    lines += [line for n in section.notes for line in (f"> {n}", "")]
    for block in section.blocks:
        lines += block_md(block)
    if plots and section.charts:
        lines += ["### Charts", ""]
        lines += [line for c in section.charts for line in (f"![{c.title}]({png_data_uri(c)})", "")]
    if section.scores is not None:
        lines += ["### Scores by run", "", *table_md(section.scores), ""]
    lines += ["### Run configuration", ""]
    for block in section.configuration:
        lines += block_md(block)
    if section.costs is not None:
        lines += ["### Usage and cost", "", *table_md(section.costs), ""]
    return lines


def render_markdown(report: Report, plots: bool = True) -> str:
    """The whole report as markdown."""
    u = report.usage
    runs = sum(len(s.runs) for s in report.sections)
    lines = [f"# {report.title}", "",
             f"{runs} run{'s' if runs != 1 else ''} from `{report.run_store}`; made by incanon {report.version} on "
             f"{report.created.strftime('%Y-%m-%d %H:%M UTC')}. Model calls {u.calls:,} (+{u.cached_calls:,} cached), "
             f"tokens {u.prompt_tokens:,} in / {u.completion_tokens:,} out, cost {u.cost:.4f}.", ""]
    for section in report.sections:
        lines += section_md(section, plots)
    return inert_html("\n".join(lines).rstrip() + "\n")
