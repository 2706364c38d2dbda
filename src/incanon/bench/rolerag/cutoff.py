"""What a cutoff method may put in a prompt: the last cut before the model sees it.

``GraphView`` decides which mentions a reader at a position can see; this module cuts the two
things that reach a RoleRAG prompt around it, under both protocols:

* **source text.** A chunk of a biography given as plain text is background (no position), so the
  view lets the whole chunk through whenever one of its mentions is visible, and the chunk also
  tells the rest of the life ("In 1833 she met ...", "Since 2009 ..."). At a cutoff on a date
  axis a chunk is read sentence by sentence (``cut_text``) and only the sentences true at the
  position are kept; a chunk after the position is left out whole.
* **undated entities and relations.** A mention the extraction gave no time, and whose name the
  build could not find word for word in its chunk, has no time at all, and the view shows it at
  every position ("a programming language named after her in 1980"). Here such a mention takes
  the time the chunk sentences that name it in other words support (every word of a name, in
  any order: "a programming language was named Marlowe" for "Marlowe programming language";
  ``sentdates.mention_key``: a sentence spanning a life dates nothing by its first date), else
  of the earliest date its own description names; an entity or relation all of whose visible
  mentions become true after the position is dropped. A mention with no time anywhere stays
  visible (docs/rolerag.md, "Limits").

How a sentence is dated (``sentence_keys``): by the latest date or age it names
(``incanon.graph.sentdates.sentence_key``); one that names none takes the date of the sentence
before it in its paragraph, else of the first dated sentence after it in its paragraph (a
paragraph that opens "She later worked on the Loom. In 1843 ..." is about 1843), else of the last
dated sentence of the paragraphs before (a paragraph with no date continues the story), else the
chunk's own position.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from incanon.canon.position import Axis
from incanon.graph.sentdates import mention_key, sentence_key
from incanon.graph.view import GraphEdge, GraphNode, GraphView
from incanon.sentences import split_sentences

_PARAGRAPH = re.compile(r"\n\s*\n")
_WORD = re.compile(r"[^\W\d_]{3,}")
_SMALL = frozenset({"the", "and", "for", "with", "from", "into", "von", "van", "der", "des", "del", "les"})


@lru_cache(maxsize=4096)
def sentence_keys(text: str, axis: Axis, base: int | None = None, born: _dt.date | None = None
                  ) -> tuple[tuple[tuple[str, int | None], ...], ...]:
    """Every paragraph of ``text`` as its sentences, each with the key it is true from (see the
    module doc; ``base``: the chunk's own position key). Cached: a chunk is read at every
    question, and splitting sentences is most of what the cut costs."""
    paragraphs = [split_sentences(p) for p in _PARAGRAPH.split(text) if p.strip()]
    carried = base
    out: list[tuple[tuple[str, int | None], ...]] = []
    for sentences in paragraphs:
        own = [sentence_key(s, axis, born) for s in sentences]
        keys: list[int | None] = []
        previous: int | None = None
        for i, key in enumerate(own):
            if key is not None:
                previous = key
            elif previous is None:
                after = next((k for k in own[i + 1:] if k is not None), None)
                key = after if after is not None else carried
            keys.append(key if key is not None else previous)
        dated = [k for k in own if k is not None]
        if dated:
            carried = dated[-1]
        out.append(tuple(zip(sentences, keys)))
    return tuple(out)


def cut_text(text: str, axis: Axis, cutoff: int, base: int | None = None, born: _dt.date | None = None) -> str:
    """The sentences of ``text`` true at ``cutoff`` (the text unchanged when all are; paragraphs
    kept apart by a blank line). On a chapter axis sentences carry no dates: unchanged."""
    if axis is not Axis.DATE or not any(ch.isdigit() for ch in text):
        return text
    paragraphs = sentence_keys(text, axis, base, born)
    if all(k is None or k <= cutoff for p in paragraphs for _, k in p):
        return text
    kept = [" ".join(s for s, k in p if k is None or k <= cutoff) for p in paragraphs]
    return "\n\n".join(p for p in kept if p)


def _words(name: str) -> list[str]:
    return [w for w in (m.group().casefold() for m in _WORD.finditer(name)) if w not in _SMALL]


def _names_in(sentence: str, names: Iterable[str]) -> bool:
    """``sentence`` names one of ``names``: word for word, or every word of it in any order."""
    folded = sentence.casefold()
    for name in names:
        if name.strip() and name.casefold() in folded:
            return True
        words = _words(name)
        if words and all(re.search(rf"\b{re.escape(w)}", folded) for w in words):
            return True
    return False


class PromptCut:
    """The cut of one reader's view (``view`` with a scope); inactive without a scope, on a
    chapter axis, or when the view cuts by text position only (``event_time=False``, the mode
    kept to measure that cutoff's leak). ``speaker``: the character's own node, which the
    character knows whenever the view shows it (its relations are still cut at the other end)."""

    def __init__(self, view: GraphView, speaker: int | None = None):
        self.view = view
        self.speaker = speaker
        scope = view.scope
        self.active = scope is not None and view.db.work.axis is Axis.DATE and view.event_time
        self.cutoff = scope.at.key if scope is not None else 0
        self.axis = view.db.work.axis
        self.born = view.config.born_date
        self._chunk_keys: dict[int, tuple[tuple[tuple[str, int | None], ...], ...]] = {}

    # -- source text ---------------------------------------------------------------------------
    def passage(self, chunk_id: int) -> dict[str, str] | None:
        """A chunk as a prompt may show it (``id``, ``position`` label, ``text``): None when the
        chunk is after the reader's position, or nothing of it is true yet."""
        view = self.view
        if view.scope is not None and chunk_id not in view.visible_chunks:
            return None
        chunk = view.db.chunk_text(chunk_id)
        text = self.text(chunk.text, None if chunk.position is None else chunk.position.key)
        if not text.strip():
            return None
        return {"id": chunk.id, "position": "" if chunk.position is None else str(chunk.position), "text": text}

    def text(self, text: str, pos_key: int | None) -> str:
        """``text`` (of a chunk at ``pos_key``) cut to what is true at the reader's position."""
        return cut_text(text, self.axis, self.cutoff, pos_key, self.born) if self.active else text

    # -- undated mentions ------------------------------------------------------------------------
    def _chunk_sentences(self, chunk_id: int) -> tuple[tuple[tuple[str, int | None], ...], ...]:
        if chunk_id not in self._chunk_keys:
            chunk = self.view.db.chunk_text(chunk_id)
            self._chunk_keys[chunk_id] = sentence_keys(
                chunk.text, self.axis, None if chunk.position is None else chunk.position.key, self.born)
        return self._chunk_keys[chunk_id]

    def _located(self, chunk_id: int, names: Sequence[Sequence[str]]) -> int | None:
        """The time the chunk's sentences naming every one of ``names`` (each a list of names for
        one thing) support (``sentdates.mention_key``: the earliest date such a sentence names or
        takes from its neighbours; a sentence spanning a life dates only through the clause
        naming the thing, else by its end); None when no sentence names them or none has a time."""
        return mention_key(self._chunk_sentences(chunk_id),
                           lambda sentence: all(_names_in(sentence, group) for group in names),
                           names, self.axis, self.born)

    def _undated_key(self, mention: Any, names: Sequence[Sequence[str]]) -> int | None:
        key = self._located(mention["chunk_id"], names)
        if key is None:
            key = sentence_key(mention["description"] or "", self.axis, self.born, earliest=True)
        return key

    def _all_later(self, mentions: Iterable[Any], names: Sequence[Sequence[str]]) -> bool:
        """Every mention the reader can see becomes true only after the position."""
        seen = False
        for m in mentions:
            at = m["from_key"] if m["from_key"] is not None else m["pos_key"]
            if not self.view.mention_visible(m["chunk_id"], at):
                continue
            seen = True
            if at is not None:  # dated by the text or the chunk: the view let it through
                return False
            key = self._undated_key(m, names)
            if key is None or key <= self.cutoff:
                return False
        return seen

    def _names(self, node_id: int) -> list[str]:
        db = self.view.db
        return list(dict.fromkeys([db.node(node_id).name, *db.aliases(node_id)]))

    def node_ok(self, node: GraphNode) -> bool:
        """Whether ``node`` may be shown (always, when it has a time or the cut is inactive)."""
        if not self.active or node.position is not None or node.id == self.speaker:
            return True
        return not self._all_later(self.view.db.node_mentions(node.id), [self._names(node.id)])

    def edge_ok(self, edge: GraphEdge) -> bool:
        """Whether ``edge`` may be shown: both ends may, and it has a visible mention true by now."""
        if not self.active:
            return True
        for end in (edge.source_id, edge.target_id):
            if not self.node_ok(self.view.node(end)):
                return False
        if edge.position is not None:
            return True
        names = [self._names(edge.source_id), self._names(edge.target_id)]
        return not self._all_later(self.view.db.edge_mentions(edge.id), names)

    def nodes(self, nodes: list[GraphNode]) -> list[GraphNode]:
        return [n for n in nodes if self.node_ok(n)]

    def pairs(self, pairs: list[tuple[GraphNode, GraphEdge]]) -> list[tuple[GraphNode, GraphEdge]]:
        return [(n, e) for n, e in pairs if self.node_ok(n) and self.edge_ok(e)]

    # -- the view's reads, cut -----------------------------------------------------------------
    def find(self, name: str) -> GraphNode | None:
        """The node named ``name`` (``GraphView.find``), unless the cut hides it."""
        found = self.view.find(name)
        node = None if found is None else self.view.node(found)
        return node if node is not None and self.node_ok(node) else None

    def search(self, query: Any, embedder: str, k: int, threshold: float, type_: str | None = None
               ) -> list[tuple[GraphNode, float]]:
        """``GraphView.search`` among the nodes the cut shows (the top ``k`` of those)."""
        if not self.active:
            return self.view.search(query, embedder, k, threshold, type_)
        want = k
        while True:
            hits = self.view.search(query, embedder, want, threshold, type_)
            kept = [h for h in hits if self.node_ok(h[0])]
            if len(kept) >= k or len(hits) < want:
                return kept[:k]
            want *= 2

    def neighbours(self, node_id: int, type_: str | None, limit: int | None) -> list[tuple[GraphNode, GraphEdge]]:
        """``GraphView.neighbours`` the cut shows, heaviest first, the first ``limit`` of them."""
        if not self.active or limit is None:
            found = self.view.neighbours(node_id, type_, limit)
            return self.pairs(found) if self.active else found
        want = limit
        while True:  # the heaviest first: read more only when the cut took some out
            found = self.view.neighbours(node_id, type_, want)
            kept = self.pairs(found)
            if len(kept) >= limit or len(found) < want:
                return kept[:limit]
            want *= 2

    def edge_between(self, a: int, b: int) -> GraphEdge | None:
        edge = self.view.edge_between(a, b)
        return edge if edge is not None and self.edge_ok(edge) else None
