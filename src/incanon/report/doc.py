"""A report as blocks, built once: benchmarks write their paper-style reports with :class:`Doc`,
the markdown they print is rendered from its blocks, and the combined report (HTML and markdown)
takes the same blocks, so no renderer ever reads markdown back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from incanon.report.model import Block, Table


def cell_md(text: str) -> str:
    """A table cell on one line, its ``|`` escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table_lines(table: Table) -> list[str]:
    """A pipe table (and its caption as a line below)."""
    rule = "".join("---:|" if i in table.right else "---|" for i in range(len(table.columns)))
    lines = ["| " + " | ".join(cell_md(c) for c in table.columns) + " |", "|" + rule]
    lines += ["| " + " | ".join(cell_md(v) for v in row) + " |" for row in table.rows]
    return lines + (["", f"*{table.caption}*"] if table.caption else [])


def block_markdown(block: Block) -> str:
    """One block as markdown, without the blank line that separates it from the next."""
    if block.kind == "heading":
        return "#" * block.level + " " + block.text
    if block.kind == "table" and block.table is not None:
        return "\n".join(table_lines(block.table))
    if block.kind == "list":
        return "\n".join(f"- {i}" for i in block.items)
    if block.kind == "note":
        return f"> {block.text}"
    return block.text


class Doc:
    """Blocks in reading order, with the markdown of them one call away."""

    def __init__(self, title: str | None = None, level: int = 2) -> None:
        self.blocks: list[Block] = []
        if title is not None:
            self.heading(title, level)

    def heading(self, text: str, level: int = 3) -> "Doc":
        self.blocks.append(Block(kind="heading", text=text, level=level))
        return self

    def text(self, text: str) -> "Doc":
        """A paragraph; ``**bold**`` and `` `code` `` are the inline markup renderers understand."""
        self.blocks.append(Block(kind="text", text=text))
        return self

    def table(self, columns: Sequence[str], rows: Iterable[Sequence[object]], caption: str = "",
              right: Iterable[int] = ()) -> "Doc":
        """A table; ``right``: indexes of the columns set flush right."""
        self.blocks.append(Block(kind="table", table=Table(columns=[str(c) for c in columns],
                                                            rows=[[str(v) for v in r] for r in rows],
                                                            caption=caption, right=list(right))))
        return self

    def items(self, items: Iterable[str]) -> "Doc":
        self.blocks.append(Block(kind="list", items=list(items)))
        return self

    def note(self, text: str) -> "Doc":
        self.blocks.append(Block(kind="note", text=text))
        return self

    def extend(self, other: "Doc") -> "Doc":
        self.blocks += other.blocks
        return self

    def markdown(self) -> str:
        """The blocks as markdown, one blank line between blocks."""
        return "\n\n".join(block_markdown(b) for b in self.blocks) + "\n"

    def section_blocks(self, top_level: int = 3) -> list[Block]:
        """The blocks for a section of the combined report, which has its own title: a leading
        heading shallower than every other is the report's title and is left out, and the
        shallowest remaining heading becomes ``top_level``."""
        blocks = [b.model_copy() for b in self.blocks]
        if blocks and blocks[0].kind == "heading":
            others = [b.level for b in blocks[1:] if b.kind == "heading"]
            if all(level > blocks[0].level for level in others):
                blocks = blocks[1:]
        levels = [b.level for b in blocks if b.kind == "heading"]
        shift = top_level - min(levels) if levels else 0
        for b in blocks:
            if b.kind == "heading":
                b.level = min(6, max(top_level, b.level + shift))
        return blocks
