"""The report as one self-contained HTML file: inline CSS, charts as base64 PNG, no scripts and
no external assets (it opens offline, and can be mailed or archived as is)."""

from __future__ import annotations

import re
from html import escape

from incanon.report.model import Block, Report, Section, Table
from incanon.report.plots import png_data_uri

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1b1f24;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.3rem;border-bottom:2px solid #d0d7de;padding-bottom:.2rem;
margin-top:2.5rem}h3{font-size:1.1rem;margin-top:1.6rem}h4{font-size:1rem;margin-top:1.2rem}
.meta{color:#57606a;font-size:.9rem}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.85rem;display:block;overflow-x:auto}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;vertical-align:top;text-align:left}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:nth-child(even) td{background:#fbfcfd}caption{caption-side:bottom;text-align:left;color:#57606a;
font-size:.8rem;padding-top:.3rem}
.note{background:#fff8c5;border-left:4px solid #d4a72c;padding:.4rem .7rem;margin:.6rem 0;font-size:.9rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0;flex:1 1 30rem;max-width:100%}
figure img{max-width:100%;height:auto;border:1px solid #eaeef2}figcaption{font-size:.8rem;color:#57606a}
nav ul{columns:2;font-size:.9rem}details{margin:.3rem 0}summary{cursor:pointer}
ul.config{font-size:.8rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
"""

_NUMERIC = re.compile(r"^[+-]?[\d,]*\.?\d+%?( ± [\d.]+%?)?( \(.*\))?$")


def _anchor(section: Section, index: int) -> str:
    return f"s{index}-" + re.sub(r"[^a-z0-9]+", "-", section.benchmark.lower()).strip("-")


def table_html(table: Table) -> str:
    """A table; numeric-looking cells are right-aligned."""
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        cells = "".join(
            f'<td class="num">{escape(v)}</td>' if i in table.right or _NUMERIC.match(v.strip()) else f"<td>{escape(v)}</td>"
            for i, v in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    caption = f"<caption>{escape(table.caption)}</caption>" if table.caption else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def block_html(block: Block, config: bool = False) -> str:
    """One block."""
    if block.kind == "heading":
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if block.kind == "table" and block.table is not None:
        return table_html(block.table)
    if block.kind == "list":
        cls = ' class="config"' if config else ""
        return f"<ul{cls}>" + "".join(f"<li>{inline_html(i)}</li>" for i in block.items) + "</ul>"
    if block.kind == "note":
        return f'<div class="note">{inline_html(block.text)}</div>'
    return f"<p>{inline_html(block.text)}</p>"


def inline_html(text: str) -> str:
    """Text with the inline markup reports write (``**bold**``, `` `code` ``) as HTML, all else
    escaped."""
    html = escape(text)
    html = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html)


def _configuration(section: Section) -> str:
    # The first block is the summary table; per-run details fold away (they can be long).
    blocks = section.configuration
    parts = [block_html(b) for b in blocks[:1]]
    rest = blocks[1:]
    for i in range(0, len(rest) - 1, 2):
        parts.append(f"<details><summary>{escape(rest[i].text)}</summary>{block_html(rest[i + 1], config=True)}</details>")
    return "".join(parts)


def section_html(section: Section, index: int, plots: bool = True) -> str:
    """One section."""
    parts = [f'<section id="{_anchor(section, index)}"><h2>{escape(section.title)}</h2>']
    parts += [f'<div class="note">{escape(n)}</div>' for n in section.notes]
    parts += [block_html(b) for b in section.blocks]
    if plots and section.charts:
        figures = [f'<figure><img src="{png_data_uri(c)}" alt="{escape(c.title, quote=True)}">'
                   f"<figcaption>{escape(c.title)}</figcaption></figure>" for c in section.charts]
        parts.append(f'<h3>Charts</h3><div class="charts">{"".join(figures)}</div>')
    if section.scores is not None:
        parts.append("<h3>Scores by run</h3>" + table_html(section.scores))
    parts.append("<h3>Run configuration</h3>" + _configuration(section))
    if section.costs is not None:
        parts.append("<h3>Usage and cost</h3>" + table_html(section.costs))
    parts.append("</section>")
    return "".join(parts)


def render_html(report: Report, plots: bool = True) -> str:
    """The whole report as one HTML document."""
    u = report.usage
    runs = sum(len(s.runs) for s in report.sections)
    toc = "".join(f'<li><a href="#{_anchor(s, i)}">{escape(s.title)}</a></li>' for i, s in enumerate(report.sections))
    meta = (f"{runs} run{'s' if runs != 1 else ''} from {escape(report.run_store)}; made by incanon "
            f"{escape(report.version)} on {report.created.strftime('%Y-%m-%d %H:%M UTC')}. "
            f"Model calls {u.calls:,} (+{u.cached_calls:,} cached), tokens {u.prompt_tokens:,} in / "
            f"{u.completion_tokens:,} out, cost {u.cost:.4f}.")
    body = "".join(section_html(s, i, plots) for i, s in enumerate(report.sections))
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(report.title)}</title><style>{_CSS}</style></head><body>"
            f'<header><h1>{escape(report.title)}</h1><p class="meta">{meta}</p>'
            f"<nav><ul>{toc}</ul></nav></header>{body}</body></html>\n")
