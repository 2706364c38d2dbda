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


def read_chara(data: bytes, source: str) -> tuple[str, str]:
    """(card JSON text, chunk keyword) of a PNG card: the ``ccv3`` chunk when there is one (the
    V3 spec has readers prefer it), else ``chara`` (keywords matched case-insensitively, as
    SillyTavern does). A PNG without either, bad base64 or non-UTF-8 JSON is an ``InputError``."""
    texts = text_chunks(read_chunks(data, source))
    found = {keyword.lower(): text for keyword, text in reversed(texts)}
    where = CCV3 if CCV3 in found else CHARA
    payload = found.get(where)
    if payload is None:
        raise InputError("PNG has no 'chara' or 'ccv3' text chunk; it is an image, not a character card",
                         source=source, where="chara")
    try:
        raw = base64.b64decode(payload.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise InputError(f"the '{where}' chunk is not valid base64", source=source, where=where) from None
    try:
        return raw.decode("utf-8-sig"), where
    except UnicodeDecodeError as exc:
        raise InputError(f"the '{where}' chunk does not decode to UTF-8 text (byte {exc.start})",
                         source=source, where=where) from None


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_chara(image: bytes, card_json: str, source: str = "image", v3_json: str | None = None) -> bytes:
    """``image`` (PNG bytes) with ``card_json`` as its only ``chara`` chunk (and ``v3_json`` as its
    ``ccv3`` chunk, for a V3 card), before ``IEND``; earlier ``chara`` and ``ccv3`` chunks are
    dropped so no stale copy can win over them."""
    kept: list[Chunk] = []
    for kind, body in read_chunks(image, source):
        if kind == b"tEXt" and b"\0" in body:
            keyword = body.split(b"\0", 1)[0].decode("latin-1").lower()
            if keyword in (CHARA, CCV3):
                continue
        kept.append((kind, body))
    text = CHARA.encode("latin-1") + b"\0" + base64.b64encode(card_json.encode("utf-8"))
    kept.insert(len(kept) - 1, (b"tEXt", text))
    if v3_json is not None:
        kept.insert(len(kept) - 1, (b"tEXt", CCV3.encode("latin-1") + b"\0" + base64.b64encode(v3_json.encode("utf-8"))))
    return SIGNATURE + b"".join(_chunk(kind, body) for kind, body in kept)


def _hue(h: float, lightness: float) -> tuple[int, int, int]:
    import colorsys

    return tuple(round(c * 255) for c in colorsys.hls_to_rgb(h % 1.0, lightness, 0.55))  # type: ignore[return-value]


def placeholder_png(width: int = 400, height: int = 600, top: tuple[int, int, int] = (40, 52, 78),
                    bottom: tuple[int, int, int] = (214, 160, 74), seed: str | None = None) -> bytes:
    """A portrait-shaped PNG for a card with no image: a vertical two-colour gradient. With
    ``seed`` (the character's name and position) the colours and a band of diagonal stripes
    come from its hash, so cards of different characters look different in a front end's list."""
    stripes = 0
    if seed is not None:
        import hashlib

        digest = hashlib.sha256(seed.encode("utf-8")).digest()
        hue = digest[0] / 255
        top, bottom = _hue(hue, 0.25), _hue(hue + 0.08 + digest[1] / 255 * 0.25, 0.62)
        stripes = 3 + digest[2] % 6
    rows = bytearray()
    for y in range(height):
        t = y / max(1, height - 1)
        pixel = bytes(round(a + (b - a) * t) for a, b in zip(top, bottom))
        if not stripes or not (height * 0.62 < y < height * 0.78):
            rows += b"\0" + pixel * width  # filter type 0 (none) per scanline
            continue
        light = bytes(min(255, c + 40) for c in pixel)
        period = max(8, width // stripes)
        rows += b"\0" + b"".join(light if ((x + y) // (period // 2)) % 2 else pixel for x in range(width))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + _chunk(b"IEND", b"")
