"""PNG character cards: the card JSON, base64-encoded, in a ``tEXt`` chunk keyed ``chara``.

This is how SillyTavern writes a card (its ``character-card-parser.js``): drop any earlier
``chara`` / ``ccv3`` text chunks, then insert one ``tEXt`` chunk ``chara\\0<base64 of the UTF-8
JSON>`` right before ``IEND``. Only the chunk layer is touched (``struct`` + ``zlib`` for the
CRCs), so the image bytes pass through unchanged and no imaging library is needed.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from collections.abc import Iterable

from incanon.errors import InputError

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The text-chunk keyword of a V2 card, and of the V3 copy some front ends add.
CHARA, CCV3 = "chara", "ccv3"

Chunk = tuple[bytes, bytes]  # (type, data)


def read_chunks(data: bytes, source: str) -> list[Chunk]:
    """Every chunk of a PNG file up to ``IEND``; a file that is not a whole PNG is an ``InputError``."""
    if not data.startswith(SIGNATURE):
        raise InputError("not a PNG file (no PNG signature)", source=source)
    chunks: list[Chunk] = []
    offset = len(SIGNATURE)
    while True:
        if offset + 8 > len(data):
            raise InputError(f"truncated PNG: no IEND chunk (file ends at byte {len(data)})", source=source)
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        end = offset + 12 + length
        if end > len(data):
            raise InputError(f"truncated PNG: chunk {kind.decode('latin-1')!r} at byte {offset} runs past the end",
                             source=source)
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:end])
        if zlib.crc32(kind + body) != crc:
            raise InputError(f"corrupt PNG: chunk {kind.decode('latin-1')!r} at byte {offset} fails its CRC",
                             source=source)
        chunks.append((kind, body))
        offset = end
        if kind == b"IEND":
            return chunks


def text_chunks(chunks: Iterable[Chunk]) -> list[tuple[str, str]]:
    """``(keyword, text)`` of each ``tEXt`` chunk (Latin-1, as the PNG spec defines them)."""
    found = []
    for kind, body in chunks:
        if kind == b"tEXt" and b"\0" in body:
            keyword, text = body.split(b"\0", 1)
            found.append((keyword.decode("latin-1"), text.decode("latin-1")))
    return found


def read_chara(data: bytes, source: str) -> str:
    """The card JSON text held in a PNG's ``chara`` chunk (keyword matched case-insensitively,
    as SillyTavern does). A PNG without one, bad base64 or non-UTF-8 JSON is an ``InputError``."""
    texts = text_chunks(read_chunks(data, source))
    payload = next((text for keyword, text in texts if keyword.lower() == CHARA), None)
    if payload is None:
        only_v3 = any(keyword.lower() == CCV3 for keyword, _ in texts)
        hint = ("; it holds only a 'ccv3' (Character Card V3) chunk" if only_v3 else
                "; it is an image, not a character card")
        raise InputError(f"PNG has no 'chara' text chunk{hint}", source=source, where="chara")
    try:
        raw = base64.b64decode(payload.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise InputError("the 'chara' chunk is not valid base64", source=source, where="chara") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"the 'chara' chunk does not decode to UTF-8 text (byte {exc.start})",
                         source=source, where="chara") from None


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_chara(image: bytes, card_json: str, source: str = "image") -> bytes:
    """``image`` (PNG bytes) with ``card_json`` as its only ``chara`` chunk, before ``IEND``;
    earlier ``chara`` and ``ccv3`` chunks are dropped so no stale copy can win over it."""
    kept: list[Chunk] = []
    for kind, body in read_chunks(image, source):
        if kind == b"tEXt" and b"\0" in body:
            keyword = body.split(b"\0", 1)[0].decode("latin-1").lower()
            if keyword in (CHARA, CCV3):
                continue
        kept.append((kind, body))
    text = CHARA.encode("latin-1") + b"\0" + base64.b64encode(card_json.encode("utf-8"))
    kept.insert(len(kept) - 1, (b"tEXt", text))
    return SIGNATURE + b"".join(_chunk(kind, body) for kind, body in kept)


def placeholder_png(width: int = 400, height: int = 600, top: tuple[int, int, int] = (40, 52, 78),
                    bottom: tuple[int, int, int] = (214, 160, 74)) -> bytes:
    """A plain portrait-shaped PNG (a vertical two-colour gradient) for a card with no image."""
    rows = bytearray()
    for y in range(height):
        t = y / max(1, height - 1)
        pixel = bytes(round(a + (b - a) * t) for a, b in zip(top, bottom))
        rows += b"\0" + pixel * width  # filter type 0 (none) per scanline
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + _chunk(b"IEND", b"")
