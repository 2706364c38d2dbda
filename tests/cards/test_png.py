"""PNG cards: the card in a base64 ``chara`` tEXt chunk before IEND, as SillyTavern writes it."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from incanon.cards.png import SIGNATURE, placeholder_png, read_chara, read_chunks, text_chunks, write_chara
from incanon.errors import InputError


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_placeholder_is_a_valid_png() -> None:
    chunks = read_chunks(placeholder_png(8, 12), "p")
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height = struct.unpack(">II", chunks[0][1][:8])
    raw = zlib.decompress(chunks[1][1])
    assert (width, height) == (8, 12) and len(raw) == 12 * (1 + 8 * 3)


def test_write_then_read_round_trips_unicode_and_replaces_old_cards() -> None:
    old = _chunk(b"tEXt", b"chara\0" + base64.b64encode(b'{"name": "old"}'))
    v3 = _chunk(b"tEXt", b"ccv3\0" + base64.b64encode(b'{"spec": "chara_card_v3"}'))
    other = _chunk(b"tEXt", b"Comment\0kept")
    plain = placeholder_png(4, 4)
    image = plain[:-12] + old + v3 + other + plain[-12:]
    text = '{"spec": "chara_card_v2", "data": {"name": "Ćwen — 雨"}}'
    written = write_chara(image, text)
    kinds = [k for k, _ in read_chunks(written, "w")]
    assert kinds[-2:] == [b"tEXt", b"IEND"]  # the card goes right before IEND
    assert [k for k, _ in text_chunks(read_chunks(written, "w"))] == ["Comment", "chara"]
    assert read_chara(written, "w") == (text, "chara")


def test_a_ccv3_chunk_is_read_first_and_written_beside_chara() -> None:
    plain = placeholder_png(2, 2)
    image = plain[:-12] + _chunk(b"tEXt", b"ccv3\0" + base64.b64encode(b"{}")) + plain[-12:]
    assert read_chara(image, "v3.png") == ("{}", "ccv3")
    both = write_chara(plain, '{"v": 2}', v3_json='{"v": 3}')
    assert [k for k, _ in text_chunks(read_chunks(both, "w"))] == ["chara", "ccv3"]
    assert read_chara(both, "w") == ('{"v": 3}', "ccv3")


def test_placeholder_pictures_differ_per_character() -> None:
    a, b = placeholder_png(40, 60, seed="Wren@1-3"), placeholder_png(40, 60, seed="Jory@1-3")
    assert a != b and a == placeholder_png(40, 60, seed="Wren@1-3") and a.startswith(b"\x89PNG")


@pytest.mark.parametrize("mangle, words", [
    (lambda png: png, "no 'chara' or 'ccv3' text chunk"),
    (lambda png: png[:-12] + _chunk(b"tEXt", b"chara\0not*base64!") + png[-12:], "not valid base64"),
    (lambda png: png[:-12] + _chunk(b"tEXt", b"chara\0" + base64.b64encode(b"\xff\xfe")) + png[-12:], "UTF-8"),
    (lambda png: png[:40], "truncated PNG"),
    (lambda png: png[:-1] + bytes([png[-1] ^ 1]), "fails its CRC"),
    (lambda png: b"GIF89a" + png[6:], "not a PNG"),
])
def test_bad_pngs(mangle, words) -> None:
    with pytest.raises(InputError) as info:
        read_chara(mangle(placeholder_png(3, 3)), "card.png")
    assert words in str(info.value) and str(info.value).startswith("card.png")


def test_signature_constant() -> None:
    assert placeholder_png(1, 1).startswith(SIGNATURE)
