"""Text in scripts written without spaces: how big it is, and the numbers its headings use.

Half the world's books do not put spaces between words: Chinese and Japanese (Han characters and
kana) run on for a whole paragraph. A count of whitespace-separated words says a 120-chapter
Chinese novel holds 9,000 "words" (one per paragraph), so every size here is
:func:`text_size`, the one rule the reader, the EPUB reader and ``canon build --dry-run`` share:

* words separated by spaces count one each (English, Dutch, Russian, Greek, Korean...);
* a character of a script without spaces (Han, kana, Thai...) counts as **half a word**: translators reckon 1.5–2 Chinese characters
  to an English word, so a size in "words" means about the same amount of story in either
  script (a 900-word scene of English is a scene of about 1,800 characters of Chinese).
  Punctuation (``，。「」``) counts nothing.

:func:`describe_size` says a size the way a reader of the script would (``12,345 words`` or
``24,690 characters``). :func:`cjk_number` reads the numbers of Chinese and Japanese headings
(``一百二十``, ``一二零``, ``廿三``, ``两``, ``１２``).
"""

from __future__ import annotations

import re

#: The letters of scripts written without spaces, counted by character: Han (radicals, extensions
#: and compatibility ideographs included), kana (with the half-width forms), bopomofo, and Thai,
#: Lao, Myanmar and Khmer. Hangul is not among them: Korean puts spaces between words.
CJK_LETTER = ("\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf"
              "\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f")
_CJK = re.compile(f"[{CJK_LETTER}]")
# Everything that is not whitespace, a CJK letter or CJK punctuation: what spaced words are made of.
_CJK_OR_PUNCT = re.compile(f"[{CJK_LETTER}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
                           "\u2014\u2026\u201c\u201d\u2018\u2019\u00b7]+")

#: Numeral characters of Chinese and Japanese headings (digits, ASCII and full-width, included).
CJK_DIGITS = "0-9０-９〇零○一二三四五六七八九十百千两兩廿卅卌壹贰貳叁參肆伍陆陸柒捌玖拾佰仟"
_DIGIT = {c: i for i, c in enumerate("〇一二三四五六七八九")}
_DIGIT.update({"零": 0, "○": 0, "两": 2, "兩": 2, "壹": 1, "贰": 2, "貳": 2, "叁": 3, "參": 3, "肆": 4, "伍": 5,
               "陆": 6, "陸": 6, "柒": 7, "捌": 8, "玖": 9})
_UNIT = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_TENS = {"廿": 20, "卅": 30, "卌": 40}


def cjk_chars(text: str) -> int:
    """Han and kana characters in ``text``."""
    return len(_CJK.findall(text))


def text_size(text: str) -> int:
    """The size of ``text`` in words: spaced words one each, Han and kana characters half a word
    each, rounded up (see the module docstring). ``text_size("It rained.") == 2``,
    ``text_size("却说雨村忙回头看时") == 5``."""
    chars = cjk_chars(text)
    if not chars:
        return len(text.split())
    return len(_CJK_OR_PUNCT.sub(" ", text).split()) + (chars + 1) // 2


def unspaced(text: str) -> bool:
    """True when ``text`` is mostly in a script without spaces (more Han and kana characters
    than spaced words)."""
    chars = cjk_chars(text)
    return chars > 0 and chars > len(_CJK_OR_PUNCT.sub(" ", text).split())


def describe_size(text: str) -> str:
    """The size of ``text`` as its reader would say it: ``"24,690 characters"`` for Chinese or
    Japanese (Han and kana counted), ``"12,345 words"`` otherwise."""
    if unspaced(text):
        return f"{cjk_chars(text):,} characters"
    return f"{len(text.split()):,} words"


def cjk_number(token: str) -> int | None:
    """The value of a Chinese or Japanese number: ``一百二十`` → 120, ``一二零`` → 120 (digit by
    digit), ``十二`` → 12, ``廿三`` → 23, ``两百`` → 200, ``１２`` → 12; None when ``token`` is
    not one."""
    token = token.strip()
    if not token:
        return None
    if token.isdigit():
        try:
            return int(token)  # int() reads full-width digits too
        except ValueError:
            return None
    if any(c in _UNIT for c in token):
        total, digit = 0, None
        section = 0
        for c in token:
            if c in _DIGIT:
                digit = _DIGIT[c]
            elif c in _TENS:
                section += _TENS[c]
                digit = None
            elif c in _UNIT:
                section += (1 if digit is None else digit) * _UNIT[c]
                digit = None
            else:
                return None
        return total + section + (digit or 0)
    if token[0] in _TENS:
        rest = cjk_number(token[1:]) if len(token) > 1 else 0
        return None if rest is None or rest > 9 else _TENS[token[0]] + rest
    if all(c in _DIGIT for c in token):  # 一二零: written digit by digit
        return int("".join(str(_DIGIT[c]) for c in token))
    return None


__all__ = ["CJK_DIGITS", "CJK_LETTER", "cjk_chars", "cjk_number", "describe_size", "text_size", "unspaced"]
