"""Read a benchmark's own markdown report into blocks.

Each benchmark renders its paper-style tables as markdown (``TimeCharaReport.markdown()`` and
the like). Reading that text back into headings, paragraphs, lists and tables lets a combined
report show exactly the benchmark's tables, in HTML too, without a second copy of each layout
that could drift from the first. Only the subset those renderers write is understood: ATX
headings, pipe tables, ``-`` lists, ``>`` notes and paragraphs.
"""

from __future__ import annotations

import re

from incanon.report.model import Block, Table

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def split_row(line: str) -> list[str]:
    """The cells of a pipe-table row; ``\\|`` is a literal bar inside a cell."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, current, i = [], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current.append("|")
            i += 2
            continue
        if body[i] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(body[i])
        i += 1
    cells.append("".join(current).strip())
    return cells


def _table(lines: list[str]) -> Table:
    head = split_row(lines[0])
    rows = [split_row(line) for line in lines[2:]]
    # Ragged rows are padded or cut to the header so renderers can trust the shape.
    rows = [(r + [""] * len(head))[: len(head)] for r in rows]
    return Table(columns=head, rows=rows)


def parse_markdown(text: str, top_level: int = 3) -> list[Block]:
    """Blocks of ``text``; the shallowest heading becomes ``top_level`` and deeper ones follow."""
    lines = text.splitlines()
    levels = [len(m.group(1)) for line in lines if (m := _HEADING.match(line))]
    shift = top_level - min(levels) if levels else 0
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(Block(kind="text", text=" ".join(paragraph)))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        stripped = line.strip()
        if not stripped:
            flush()
            i += 1
            continue
        heading = _HEADING.match(stripped)
        if heading:
            flush()
            level = min(6, max(top_level, len(heading.group(1)) + shift))
            blocks.append(Block(kind="heading", text=heading.group(2), level=level))
            i += 1
            continue
        if stripped.startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1].strip()):
            flush()
            end = i + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            blocks.append(Block(kind="table", table=_table([ln.strip() for ln in lines[i:end]])))
            i = end
            continue
        if stripped.startswith(("- ", "* ")):
            flush()
            items = []
            while i < len(lines) and lines[i].strip().startswith(("- ", "* ")):
                items.append(lines[i].strip()[2:].strip())
                i += 1
            blocks.append(Block(kind="list", items=items))
            continue
        if stripped.startswith(">"):
            flush()
            blocks.append(Block(kind="note", text=stripped.lstrip(">").strip()))
            i += 1
            continue
        paragraph.append(stripped)
        i += 1
    flush()
    return blocks
