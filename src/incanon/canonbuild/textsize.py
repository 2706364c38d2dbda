"""How much text there is, and in which units, for scripts with and without spaces.

Chinese, Japanese, Thai and the like write no spaces between words, so a whitespace word count
says a 120-chapter novel has 9,418 words. Here such text counts one unit per character (a
character of these scripts carries about what a short word does), and spaced text counts
whitespace words as before. A book mostly in such a script is measured in characters.

This is the build's own small helper until the reader (``incanon.ingest``) exposes one.
"""

from __future__ import annotations

import re

UNSPACED = ("\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff"
            "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f")
"""Character ranges of scripts written without spaces between words: Thai, Lao, Myanmar,
Khmer, CJK ideographs (with radicals, extensions and compatibility forms), kana, bopomofo.
Hangul is not among them: Korean puts spaces between words."""
_UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")
_SPACED_WORD = re.compile(rf"[^\s{UNSPACED}]+")
_SAMPLE = 20_000


def unspaced_chars(text: str) -> int:
    """Characters of ``text`` in a script written without spaces."""
    return len(_UNSPACED_CHAR.findall(text))


def is_unspaced(text: str) -> bool:
    """Whether ``text`` is mostly in a script written without spaces (judged on its opening)."""
    sample = text[:_SAMPLE]
    letters = sum(1 for c in sample if c.isalnum())
    return letters > 0 and unspaced_chars(sample) * 2 > letters


def text_size(text: str) -> int:
    """Words of spaced text plus characters of unspaced text (a 'word' each); for text with no
    unspaced character at all, exactly the whitespace word count."""
    chars = unspaced_chars(text)
    if not chars:
        return len(text.split())
    # Punctuation left between characters (。，「」) is no word.
    words = sum(1 for m in _SPACED_WORD.finditer(text) if any(c.isalnum() for c in m.group()))
    return words + chars


def size_unit(text: str) -> str:
    """``characters`` for text mostly in a script without spaces, else ``words``."""
    return "characters" if is_unspaced(text) else "words"


__all__ = ["UNSPACED", "is_unspaced", "size_unit", "text_size", "unspaced_chars"]
