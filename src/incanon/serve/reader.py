"""The reader's position: what a person using the server may be shown of a work.

A character's position scopes what the character knows; the reader's position scopes what a
*person* is shown: ids, labels, menus, slider stops, hints and errors. It comes from the server
(``incanon serve --reader-at POS``, the cap), from a request (``X-Incanon-Reader-At`` on ``/v1``,
``?reader_at=`` on the web app's ``/api``), or from nowhere:

* **a reader position R**: only characters first seen at or before R, only their time points at
  or before R, only scenes at or before R; labels, titles, descriptions and names in use at R;
  a chat at a point after R is refused, and an error names nothing after R;
* **none** (the default): every character, but each point is named by its position ("1-3"), never
  by a label, title or description (those tell what happens);
* ``--spoilers`` without a reader position: everything, later points too.

A request may set its own position at or before the server's cap; past it only with
``--spoilers``. Positions are read on each work's own axis: a position that does not fit a
work's axis (a date for a book of chapters) leaves that work out of listings.
"""

from __future__ import annotations

from dataclasses import dataclass

from incanon.canon.names import listing, norm
from incanon.canon.position import Axis, Position
from incanon.canon.records import CharacterRecord, WorkRecord
from incanon.canon.store import CanonStore
from incanon.errors import InputError, NotFoundError
from incanon.serve.config import ServeConfig
from incanon.serve.requests import FieldError

#: How positions are written, without examples: an example such as "2-5" reads like a later point.
_FORMS = {Axis.CHAPTER: "book-chapter[-scene]", Axis.DATE: "YYYY-MM-DD"}

READER_HEADER = "X-Incanon-Reader-At"
"""The ``/v1`` request header that carries the reader's position."""
READER_PARAM = "reader_at"
"""The web app API's query parameter that carries the reader's position."""


@dataclass(frozen=True)
class ReaderView:
    """What may be shown of one work to one person (see the module docstring)."""

    at: Position | None = None
    """The reader's position on the work's axis; None when no reader position applies."""
    spoilers: bool = False
    """``incanon serve --spoilers``: with no reader position, show everything."""

    def shows(self, position: Position | None) -> bool:
        """True when something at ``position`` may be shown (None: undated, always)."""
        return self.at is None or position is None or position <= self.at

    @property
    def named(self) -> bool:
        """Labels, titles and descriptions may be shown: the reader said how far they have
        read (each is shown only up to there), or ``--spoilers``."""
        return self.at is not None or self.spoilers

    @property
    def everything(self) -> bool:
        """Later points too: ``--spoilers`` and no reader position."""
        return self.spoilers and self.at is None


def parse_reader(text: str, field: str) -> Position:
    """``text`` as a story position (labels are a character's, not the reader's); a
    ``FieldError`` naming ``field`` and the expected forms otherwise (the text is not echoed)."""
    if not isinstance(text, str) or not text.strip():
        raise FieldError(field, "expected a story position such as '1-3', '1-3-2' or '2024-03-07'")
    try:
        return Position.parse(text.strip())
    except InputError:
        raise FieldError(field, "expected a story position: book-chapter[-scene] such as '1-3' or '1-3-2', "
                                "or a date such as '2024-03-07' (a time point's label is not a reader "
                                "position)") from None


def _on_axis(position: Position | None, axis: Axis) -> bool:
    return position is None or position.axis is axis


def reader_view(work: WorkRecord, cap: str | None, asked: str | None, *, spoilers: bool,
                field: str) -> ReaderView | None:
    """The view of ``work`` for a request that asks for reader position ``asked`` (None: not
    given) on a server capped at ``cap``: the request's position when given (at or before the
    cap unless ``spoilers``), else the cap. None when the position does not fit the work's axis
    (the work is then shown to nobody asking at that position)."""
    capped = parse_reader(cap, "--reader-at") if cap else None
    wanted = parse_reader(asked, field) if asked is not None else None
    if not (_on_axis(capped, work.axis) and _on_axis(wanted, work.axis)):
        return None
    if wanted is not None and capped is not None and wanted > capped and not spoilers:
        # The cap is the server's own position: naming it tells nothing beyond it.
        raise FieldError(field, f"past this server's reader position ({capped}); ask at or before it")
    return ReaderView(at=wanted if wanted is not None else capped, spoilers=spoilers)


def require_view(work: WorkRecord, cap: str | None, asked: str | None, *, spoilers: bool, field: str) -> ReaderView:
    """:func:`reader_view`, with a position that does not fit the work's axis a ``FieldError``."""
    view = reader_view(work, cap, asked, spoilers=spoilers, field=field)
    if view is None:
        name = field if asked is not None else "--reader-at"
        raise FieldError(name, f"work {work.id!r} places its story on the {work.axis} axis "
                               f"(expected {_FORMS[work.axis]})")
    return view


def shown_names(record: CharacterRecord, at: Position) -> tuple[str, ...]:
    """The aliases a reader at ``at`` knows are ``record``'s: in use by then, and a secret name
    only once revealed (``CharacterRecord.shown_names_at``)."""
    return record.shown_names_at(at)


def visible_characters(store: CanonStore, work: str, view: ReaderView) -> list[CharacterRecord]:
    """The characters of ``work`` a person with ``view`` may be shown (first seen by then)."""
    return [c for c in store.characters(work) if view.shows(c.first_position)]


def find_character(store: CanonStore, work: str, name: str, view: ReaderView) -> CharacterRecord:
    """The character ``name`` (canonical name or a name a reader at ``view.at`` knows) among
    those ``view`` shows. Unknown, later and not-yet-used names get one and the same error,
    which lists only the characters shown: it must not tell that a later name exists."""
    assert view.at is not None
    wanted = norm(name)
    shown = visible_characters(store, work, view)
    for record in shown:
        if wanted in {norm(n) for n in (record.name, *shown_names(record, view.at))}:
            return record
    raise NotFoundError(f"unknown character in work {work!r} for a reader at {view.at} "
                        f"(characters there: {listing(c.name for c in shown)})")


def resolve_at(store: CanonStore, work: str, record: CharacterRecord, at: str, view: ReaderView) -> Position:
    """``at`` (a position, or a label of one of ``record``'s time points at or before the reader's
    position) as a position at or before it. A label of a later point is as unknown as any
    other text; a position after the reader's is refused as such (the client wrote it)."""
    assert view.at is not None
    reached = [tp for tp in record.time_points if view.shows(tp.position)]
    for tp in reached:
        if norm(tp.label) == norm(at):
            return tp.position
    try:
        position = Position.parse(at)
    except InputError:
        points = ", ".join(str(tp.position) for tp in sorted(reached, key=lambda t: t.position.key)) or "none"
        raise NotFoundError(f"unknown story position for {record.name} for a reader at {view.at}: expected a "
                            f"label of one of their time points up to there (at {points}) or a position "
                            f"({_FORMS[view.at.axis]}) up to {view.at}") from None
    if position.axis is not view.at.axis:
        raise InputError(f"expected a position on the work's {view.at.axis} axis ({_FORMS[view.at.axis]})")
    if position > view.at:
        raise InputError(f"that point is past the reader's position ({view.at}): ask at {view.at} or before")
    return position


def choose_work(store: CanonStore, work: str | None, character: str, view_of: "ViewOf") -> tuple[WorkRecord, ReaderView]:
    """The work a request means (given, else the store's only work, else the one work where a
    reader sees ``character``) and its view. Errors name only works and characters shown."""
    works = store.works()
    if work:
        found = next((w for w in works if w.id == work), None)
        if found is None:
            raise NotFoundError(f"unknown work (works: {listing(w.id for w in works)})")
        return found, view_of(found)
    if len(works) == 1:
        return works[0], view_of(works[0])
    having = []
    for w in works:
        view = view_of(w)
        try:
            if view.at is None:
                store.character(w.id, character)
            else:
                find_character(store, w.id, character, view)
        except (NotFoundError, InputError):
            continue
        having.append((w, view))
    if len(having) == 1:
        return having[0]
    names = listing(w.id for w, _ in having) if having else listing(w.id for w in works)
    raise NotFoundError(f"the store holds several works ({names}): name one as WORK/CHARACTER@AT")


class ViewOf:
    """The :class:`ReaderView` of each work for one request (its position and the server's)."""

    def __init__(self, cap: str | None, asked: str | None, *, spoilers: bool, field: str) -> None:
        if asked is not None:
            parse_reader(asked, field)  # a malformed position is the request's error, whatever the works
        self.cap, self.asked, self.spoilers, self.field = cap, asked, spoilers, field

    def __call__(self, work: WorkRecord) -> ReaderView:
        return require_view(work, self.cap, self.asked, spoilers=self.spoilers, field=self.field)

    def maybe(self, work: WorkRecord) -> ReaderView | None:
        """The view, or None when the position does not fit ``work``'s axis."""
        return reader_view(work, self.cap, self.asked, spoilers=self.spoilers, field=self.field)


def reader_target(config: ServeConfig, work: str | None, character: str, at: str, reader_at: str | None,
                  field: str) -> tuple[str | None, str, str]:
    """``(work, character, at)`` of a chat a reader at ``reader_at`` (else the server's position)
    asks for: the character by a name known there, the point at or before there, as canonical
    name and position; unchanged when no reader position applies. Errors name nothing after it.
    Reads the canon store with a connection of its own (call it in a worker thread)."""
    if reader_at is None and config.reader_at is None:
        return work, character, at
    views = ViewOf(config.reader_at, reader_at, spoilers=config.spoilers, field=field)
    with CanonStore.open(config.canon) as store:
        found, view = choose_work(store, work, character, views)
        if view.at is None:
            return work, character, at
        record = find_character(store, found.id, character, view)
        position = resolve_at(store, found.id, record, at, view)
    return found.id, record.name, str(position)

