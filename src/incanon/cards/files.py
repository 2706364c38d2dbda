"""Read and write card files: ``.json`` (the card as JSON) or ``.png`` (an image with a ``chara``
chunk, and a ``ccv3`` chunk for a V3 card).

A file is recognized by its content, not its name: PNG bytes are read as a PNG card, anything
else as JSON. Writes are atomic (a temporary file in the same folder, then a rename).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from incanon.cards.model import CardV2, parse_card, v3_document
from incanon.cards.png import SIGNATURE, placeholder_png, read_chara, write_chara
from incanon.errors import InputError, NotFoundError
from incanon.files import write_bytes_atomic, write_text_atomic
from incanon.reading import decode_text, parse_json

#: Card files larger than this are refused before being read (real cards are kilobytes to a few MB).
MAX_CARD_BYTES = 64 * 1024 * 1024
#: Lorebook entries a card may hold. Real character books hold tens to a few thousand; each entry
#: becomes an entity and a fact, so 600,000 small ones (48 MB, under the size cap) took minutes
#: and gigabytes to import. 20,000 import in a few seconds.
MAX_BOOK_ENTRIES = 20_000


def _read_bytes(path: Path, what: str) -> bytes:
    if path.is_dir():
        raise InputError(f"{what} is a directory, expected a file", source=str(path))
    if not path.exists():
        raise NotFoundError(f"{what} {path} does not exist")
    if path.stat().st_size > MAX_CARD_BYTES:
        raise InputError(f"{what} is larger than {MAX_CARD_BYTES // (1024 * 1024)} MB", source=str(path))
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", source=str(path)) from None


def read_card(path: str | os.PathLike[str]) -> tuple[CardV2, int]:
    """The card in ``path`` (JSON or PNG) as ``(CardV2, version)``; every problem is one
    ``InputError`` naming the file and the field."""
    source = Path(path).expanduser()
    raw = _read_bytes(source, "card file")
    if raw.startswith(SIGNATURE):
        text, where = read_chara(raw, str(source))
    else:
        if not raw.strip():
            raise InputError("card file is empty", source=str(source))
        text, where = decode_text(raw, str(source), "card file"), None
    doc = parse_json(text, str(source), where)
    _check_book_size(doc, str(source))
    return parse_card(doc, str(source))


def _check_book_size(doc: object, source: str) -> None:
    """Refuse a lorebook of more than :data:`MAX_BOOK_ENTRIES` entries, before each is validated."""
    data = doc.get("data") if isinstance(doc, dict) else None
    book = data.get("character_book") if isinstance(data, dict) else None
    entries = book.get("entries") if isinstance(book, dict) else None
    if isinstance(entries, list) and len(entries) > MAX_BOOK_ENTRIES:
        raise InputError(f"the lorebook holds {len(entries):,} entries, more than the {MAX_BOOK_ENTRIES:,} a card "
                         "may hold; split it into several cards", source=source, where="data.character_book.entries")


def card_format(path: str | os.PathLike[str]) -> str:
    """``json`` or ``png`` from the file name; anything else is an ``InputError``."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".json", ".png"):
        raise InputError(f"a card file ends in .json or .png, not {suffix or 'nothing'!r}", source=str(path))
    return suffix[1:]


def write_card(card: CardV2, path: str | os.PathLike[str], image: str | os.PathLike[str] | None = None,
               *, version: int = 2) -> Path:
    """Write ``card`` to ``path`` (``.json``, or ``.png`` on ``image``'s PNG bytes or a
    placeholder drawn for this character); returns the path written. ``version`` 3 writes a
    Character Card V3 (a V3 PNG also carries the V2 ``chara`` chunk, as the V3 spec asks, so
    V2-only front ends still read it)."""
    if version not in (2, 3):
        raise InputError(f"card spec version must be 2 or 3, not {version}")
    target = Path(path).expanduser()
    fmt = card_format(target)
    v3 = v3_document(card) if version == 3 else None
    if fmt == "json":
        if image is not None:
            raise InputError("--image applies to a .png card only", source=str(target))
        doc = v3 if v3 is not None else json.loads(card.to_json())
        write_text_atomic(target, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return target
    if image is not None:
        picture = Path(image).expanduser()
        base = _read_bytes(picture, "image")
        if not base.startswith(SIGNATURE):
            raise InputError("the card image must be a PNG file", source=str(picture))
        source = str(picture)
    else:
        seed = f"{card.data.name}@{card.data.character_version}"
        base, source = placeholder_png(seed=seed), "placeholder image"
    v3_json = None if v3 is None else json.dumps(v3, ensure_ascii=False, separators=(",", ":"))
    write_bytes_atomic(target, write_chara(base, card.to_json(), source, v3_json))
    return target
