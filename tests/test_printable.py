"""User text made safe to show: escapes, excerpts, messages that quote input, and the consoles."""

from __future__ import annotations

import io
import json
import time

from rich.table import Table
from rich.text import Text

from incanon.consoles import SafeConsole
from incanon.printable import escape_controls, excerpt, json_safe, quoted, safe_message, shorten_quotes


def test_controls_are_escaped_and_plain_text_is_the_same_object():
    assert escape_controls("a\x1b[31mb\x00\x9b\u202e\ud800") == "a\\x1b[31mb\\x00\\x9b\\u202e\\ud800"
    assert escape_controls("line\nnext\ttab") == "line\\nnext\\ttab"
    assert escape_controls("line\nnext\ttab", keep_newlines=True) == "line\nnext\ttab"
    plain = "Wren Callow, lamplighter — café"
    assert escape_controls(plain) is plain


def test_an_excerpt_is_short_escaped_and_says_the_length():
    assert excerpt("x" * 100) == "x" * 80 + "… (100 characters)"
    assert excerpt("\x1b" * 10) == "\\x1b" * 10
    assert quoted("a\x00") == "'a\\x00'" and quoted("9" * 500, 4) == "'9999'… (500 characters)"


def test_long_quotes_are_cut_and_apostrophes_are_not_quotes():
    message = f"unknown character {'A' * 5000!r} in work 'lanterns'; the character's name"
    short = shorten_quotes(message)
    assert "A" * 81 not in short and "'lanterns'" in short and "character's name" in short
    assert "(5,000 characters)" in short


def test_shortening_is_linear_on_quote_storms():
    start = time.perf_counter()
    for storm in ("'" * 200_000, repr("'\"" * 100_000), "\\" * 200_000 + "'"):
        assert len(safe_message(storm)) <= 1000
    assert time.perf_counter() - start < 5


def test_json_stays_json_without_raw_controls():
    document = json.dumps({"name": "x\x9by\u202e"}, ensure_ascii=False)
    safe = json_safe(document)
    assert "\x9b" not in safe and "\u202e" not in safe and json.loads(safe) == json.loads(document)


def test_the_safe_console_escapes_strings_text_and_table_cells_but_not_newlines():
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=200, markup=False, color_system=None)
    table = Table("name")
    table.add_row("Evil\x1b[31mRed")
    console.print("plain \x1b]52;c;aGk=\x07 text\nsecond line")
    console.print(Text("a Text \x1b[2J object"))
    console.print(table)
    printed = buffer.getvalue()
    assert "\x1b" not in printed and "\x07" not in printed
    assert "Evil\\x1b[31mRed" in printed and "\\x1b[2J" in printed and "text\nsecond line" in printed
