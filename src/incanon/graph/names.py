"""Deterministic name matching for alias normalization: normal forms, title variants, blocking
keys and fuzzy similarity. No model is involved; these decide which pairs are *sure* (same
normal form) and which are merely *candidates* for the LLM's judgement."""

from __future__ import annotations

import difflib
import re
import unicodedata

from incanon.canon.names import norm

#: Honorifics and ranks a story puts before a name ("Provost Hame", "Lamp-Mistress Callow").
TITLES = frozenset("""
mr mrs ms miss mister mistress master madam madame sir dame lady lord lamp-mistress lamp-master
captain capt provost brother sister father mother aunt uncle doctor dr professor prof saint st
king queen prince princess duke duchess count countess baron reckoner elder old young little
general colonel major lieutenant sergeant reverend rev headmaster headmistress
""".split())
_ARTICLES = ("the ", "a ", "an ")
_PUNCT = re.compile(r"[^\w\s-]")


def fold(name: str) -> str:
    """The sure normal form: case, accents, spacing, punctuation and a leading article folded
    ("The  Beacon-Tower." and "beacon-tower" agree)."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _PUNCT.sub(" ", norm(text)).replace("_", " ")
    text = " ".join(text.split())
    for article in _ARTICLES:
        if text.startswith(article) and len(text) > len(article):
            text = text[len(article):]
            break
    return text


def _words(name: str) -> list[str]:
    return [w.strip("-") for w in fold(name).split() if w.strip("-")]


def core_tokens(name: str) -> tuple[str, ...]:
    """The name's words with titles and initials removed ("Lamp-Mistress Callow" → ("callow",));
    a hyphenated name also counts its parts ("Marrow-Hame" → marrow-hame, marrow, hame)."""
    words = _words(name)
    kept: list[str] = []
    for w in words:
        if w in TITLES or len(w) < 2:
            continue
        kept.append(w)
        if "-" in w:
            kept += [p for p in w.split("-") if len(p) > 1 and p not in TITLES]
    return tuple(dict.fromkeys(kept)) or tuple(words)


def is_title_only(name: str) -> bool:
    """"The Provost", "Captain": a name made of titles alone."""
    words = _words(name)
    return bool(words) and all(w in TITLES for w in words)


def variant_match(a: str, b: str) -> bool:
    """True when one name is the other with titles dropped, or its words are a subset of the
    other's ("Wren" / "Wren Callow", "Provost Hame" / "Aldric Hame"): a candidate, not a verdict
    (two Callows share a surname)."""
    if is_title_only(a) or is_title_only(b):
        # "the Provost" may be whoever bears the title: "Provost Hame".
        wa, wb = set(_words(a)), set(_words(b))
        return wa <= wb or wb <= wa
    ta, tb = set(core_tokens(a)), set(core_tokens(b))
    if not ta or not tb:
        return False
    if ta <= tb or tb <= ta:
        return True
    return compound_match(ta, tb)


def compound_match(ta: set[str], tb: set[str]) -> bool:
    """A single-word name built on a word of the other ("Stormwren", "Wrennie" / "Wren")."""
    for one, other in ((ta, tb), (tb, ta)):
        if len(one) != 1:
            continue
        (word,) = one
        for w in other:
            if w != word and len(min(w, word, key=len)) >= 4 and (
                    word.startswith(w) or word.endswith(w) or w.startswith(word) or w.endswith(word)):
                return True
    return False


def similarity(a: str, b: str) -> float:
    """0-1 similarity of the two normal forms (difflib ratio)."""
    return difflib.SequenceMatcher(None, fold(a), fold(b)).ratio()


def block_keys(name: str) -> set[str]:
    """Keys that any two names worth comparing share: their core words and a 4-letter prefix of
    the normal form. Comparing only within blocks keeps candidate generation far from N²."""
    keys = {f"w:{t}" for t in core_tokens(name)} | {f"w:{w}" for w in _words(name)}
    keys |= {f"s:{t[:4]}" for t in core_tokens(name) if len(t) >= 4} | {f"e:{t[-4:]}" for t in core_tokens(name) if len(t) >= 4}
    f = fold(name).replace(" ", "")
    if f:
        keys.add(f"p:{f[:4]}")
    return keys
