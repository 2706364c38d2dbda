"""``coser import``: the authors' released per-book JSON (data/final/*.json) into the canon store.

The released files carry no source text offsets, so story positions come from the plots'
``chapter`` titles: the chapter number goes up by one each time the title changes (a plot
without a title stays in the chapter before it), and each conversation of a plot is the next
scene of its chapter (``1-<chapter>-<scene>``); a plot without conversations makes no scene (the
summary counts them). Plots from ``split_plot_index`` on are held out
of the store unless asked for, as curation does. Names are the released canonical names, so no
alias mapping is needed.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Sequence

from incanon.bench.coser.curate.assemble import PlotPlace, build_world, next_place
from incanon.bench.coser.files import load_book
from incanon.bench.coser.formats import BookData


def slug_of(title: str) -> str:
    """The work id of a title (as curation makes it)."""
    return re.sub(r"[^a-z0-9]+", "-", title.casefold()).strip("-") or "book"


def _chapter_key(title: str | None) -> str | None:
    if title is None:
        return None
    key = " ".join(re.sub(r"[#*_:.\-–—]", " ", title).casefold().split())
    return key or None


def released_places(book: BookData) -> list[PlotPlace]:
    """Chapter and scene ids of every plot of a released book, in plot order."""
    places: list[PlotPlace] = []
    chapter, previous, scenes = 0, None, 0
    for plot in book.plots:
        key = _chapter_key(plot.chapter)
        if chapter == 0 or (key is not None and key != previous):
            chapter, scenes = chapter + 1, 0
            previous = key if key is not None else previous
        places.append(next_place(chapter, scenes, len(plot.conversation)))
        scenes += len(plot.conversation)
    return places


def released_world(book: BookData, *, author: str = "", include_held_out: bool = False, source: str = "",
                   slug: str | None = None) -> Any:
    """The canon ``World`` of a released book (work id ``slug``, default from the title)."""
    book = book.model_copy(deep=True)
    for i, plot in enumerate(book.plots):  # released plots carry no ``i_p`` of their own
        if plot.i_p is None:
            plot.i_p = i
    return build_world(book, slug=slug or slug_of(book.title), author=author, places=released_places(book), mapping={},
                       include_held_out=include_held_out, source=source)


def import_books(paths: Sequence[Path], store_path: Path, *, author: str = "",
                 include_held_out: bool = False) -> list[dict[str, Any]]:
    """Read every file first (a bad one stops everything before the store is touched), then
    import each book in its own transaction. Returns one summary per book."""
    from incanon.canon import CanonStore

    files = [f for p in paths for f in (sorted(x for x in Path(p).glob("*.json") if not x.name.startswith("."))
                                       if Path(p).is_dir() else [Path(p)])]
    if not files:
        from incanon.errors import InputError

        raise InputError("no per-book JSON file found", source=", ".join(str(p) for p in paths))
    books = [(path, load_book(path)) for path in files]
    # Titles that differ only in punctuation (the release has "Sorcerer's" and "Sorcerer’s" Stone)
    # would share a work id and overwrite each other: the later ones get a suffix.
    slugs: dict[str, str] = {}
    for _, book in books:
        slug = slug_of(book.title)
        if slug in slugs.values():
            slug = f"{slug}-{hashlib.sha1(book.title.encode()).hexdigest()[:6]}"
        slugs[book.title] = slug
    worlds = [(path, book, released_world(book, author=author, include_held_out=include_held_out,
                                          source=str(path), slug=slugs[book.title])) for path, book in books]
    summaries = []
    with CanonStore.open(store_path.expanduser()) as store:
        for path, book, world in worlds:
            work = slugs[book.title]
            store.import_world(world, replace=True, source=str(path))
            last = len(book.plots) if include_held_out else book.split_index
            summaries.append({
                "title": book.title, "work": work,
                "file": str(path), "plots": last, "held_out_plots": len(book.plots) - book.split_index,
                "chapters": released_places(book)[last - 1].chapter if last else 0,
                "scenes": len(store.scenes(work)), "characters": len(store.characters(work)),
                "plots_without_conversation": sum(1 for p in book.plots[:last] if not p.conversation),
            })
    return summaries
