"""Fold newly extracted chunks into the stored graph: normalize names, merge nodes and edges,
rewrite descriptions (summarized by the LLM only over the length budget), embed what changed.

Nothing here re-reads an old chunk: the raw extraction of every chunk is in the store, and only
the chunks in ``extracted`` state are integrated, so adding a document costs its own chunks plus
the merges it causes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from incanon.canon.names import norm
from incanon.canon.position import Axis, Position
from incanon.graph.config import GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.names import fold
from incanon.graph.normalize import Form, NormalizationStats, Normalizer
from incanon.graph.sentdates import surrounding_key
from incanon.graph.timing import resolve
from incanon.graph.majority import majority_types
from incanon.models.types import ChatModel, Embedder, GenerationParams, Message
from incanon.templates import PromptLibrary
from incanon.tokens import count_tokens


@dataclass
class IntegrationReport:
    """What one integration pass changed."""

    chunks: int = 0
    nodes_created: int = 0
    nodes_merged: int = 0
    edges_touched: int = 0
    relations_dropped: int = 0
    summaries: int = 0
    embedded: int = 0
    chunks_embedded: int = 0
    retyped: int = 0
    """Names extracted under several types, merged under their majority type."""
    dated: int = 0
    """Mentions whose text gave a usable time (event time instead of the chunk's position)."""
    normalization: NormalizationStats = field(default_factory=NormalizationStats)


def digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def joined(descriptions: list[str]) -> str:
    """Distinct descriptions, in the given (story) order, as one text."""
    seen, out = set(), []
    for d in descriptions:
        d = d.strip()
        if d and fold(d) not in seen:
            seen.add(fold(d))
            out.append(d if d.endswith((".", "!", "?")) else d + ".")
    return " ".join(out)


async def summarize(model: ChatModel, prompts: PromptLibrary, config: GraphConfig, work_title: str,
                    subject: str, descriptions: list[str]) -> str:
    """One LLM summary of ``descriptions`` about ``subject``."""
    prompt = prompts.render("graph_summarize", subject=subject, work_title=work_title,
                            budget=config.description_budget, descriptions=descriptions)
    completion = await model.generate([Message(role="user", content=prompt)],
                                      GenerationParams(max_tokens=config.summary_max_tokens))
    return " ".join(completion.text.split())


class Integrator:
    """Integrates the ``extracted`` chunks of one graph."""

    def __init__(self, db: GraphDB, model: ChatModel, embedder: Embedder | None, config: GraphConfig,
                 prompts: PromptLibrary, progress: Callable[[str, int, int | None], None] | None = None):
        self.db, self.model, self.embedder, self.config, self.prompts = db, model, embedder, config, prompts
        self.progress = progress
        """``progress(what, done, total)`` of the embedding phases (see ``GraphBuilder``)."""

    async def run(self) -> IntegrationReport:
        report = IntegrationReport()
        chunks = self.db.chunk_rows(["extracted"])
        raws = {c.row_id: [dict(r) for r in self.db.raw(c.row_id)] for c in chunks}
        deleted = {x[0] for x in self.db.meta("deleted_entities", []) or []}
        for c in chunks:  # entities deleted by the user stay deleted
            raws[c.row_id] = [r for r in raws[c.row_id] if r["kind"] != "entity" or fold(r["a"]) not in deleted]
        if self.config.merge_types:
            report.retyped = majority_types(self.db, [r for rows in raws.values() for r in rows if r["kind"] == "entity"])
        forms: dict[tuple[str, str], Form] = {}
        for rows in raws.values():
            for r in rows:
                if r["kind"] != "entity":
                    continue
                key = (r["b"], norm(r["a"]))
                if key in forms:
                    forms[key].count += 1
                    if not forms[key].description:
                        forms[key].description = r["description"]
                else:
                    forms[key] = Form(r["a"], r["b"], r["description"])
        groups, stats = await Normalizer(self.db, self.model, self.embedder, self.config, self.prompts).run(
            list(forms.values()))
        report.normalization = stats
        touched_nodes: set[int] = set()
        touched_edges: set[int] = set()
        with self.db.tx():
            for g in groups:
                node = g.nodes[0] if g.nodes else self.db.new_node(g.name, g.type)
                report.nodes_created += not g.nodes
                for other in g.nodes[1:]:
                    self.db.merge_nodes(node, other)
                    report.nodes_merged += 1
                self.db.rename(node, g.name)
                self.db.add_alias(node, g.name, g.type, norm(g.name))
                for f in g.forms:
                    self.db.add_alias(node, f.name, f.type, norm(f.name))
                touched_nodes.add(node)
            resolver = _Resolver(self.db.alias_table())
            for c in chunks:
                local: dict[str, str] = {}
                text = self.db.chunk_text(c.row_id).text if self.db.work.axis is Axis.DATE else ""
                for r in raws[c.row_id]:
                    if r["kind"] == "entity":
                        local.setdefault(norm(r["a"]), r["b"])
                        node = resolver.table[(r["b"], norm(r["a"]))]
                        self.db.add_node_mention(node, c.row_id, r["ord"], r["a"], r["description"],
                                                 *self._times(r, report, text))
                        touched_nodes.add(node)
                for r in raws[c.row_id]:
                    if r["kind"] != "relation":
                        continue
                    a, b = resolver.node(r["a"], local), resolver.node(r["b"], local)
                    if a is None or b is None or a == b:
                        missing = r["a"] if a is None else r["b"]
                        why = f"relation {r['a']!r} - {r['b']!r} dropped: " + (
                            f"{missing!r} is not an extracted entity" if a is None or b is None else "both ends are one entity")
                        self.db.add_note(c.row_id, why)
                        report.relations_dropped += 1
                        continue
                    edge = self.db.edge_id(a, b, create=True)
                    assert edge is not None
                    self.db.add_edge_mention(edge, c.row_id, r["ord"], r["a"], r["b"], r["description"], r["strength"],
                                             *self._times(r, report, text))
                    touched_edges.add(edge)
                self.db.conn.execute("UPDATE graph_chunks SET status = 'integrated' WHERE id = ?", (c.row_id,))
            self.db.bump()
        batch = {c.row_id for c in chunks}
        report.chunks = len(chunks)
        report.summaries += await self._describe_nodes(touched_nodes, batch)
        report.summaries += await self._describe_edges(touched_edges, batch)
        report.edges_touched = len(touched_edges)
        report.embedded = self.embed_nodes()
        report.chunks_embedded = self.embed_chunks()
        return report

    def _times(self, raw: dict, report: IntegrationReport, context: str = "") -> tuple[int | None, int | None, str]:
        """(valid-from key, valid-to key, note) of one raw entity or relation (see ``timing``); on
        a date axis, one the text gives no time takes that of its surroundings in ``context``
        (its chunk's text; ``sentdates.surrounding_key``)."""
        axis, born = self.db.work.axis, self.config.born_date
        start = resolve(raw.get("valid_from", ""), axis, born=born)
        stop = resolve(raw.get("valid_to", ""), axis, end=True, born=born)
        report.dated += start.key is not None
        note = "; ".join(n for n in (start.note, f"until {stop.note}" if stop.note else "") if n)
        key = start.key
        if key is None and raw.get("kind") != "relation" and norm(raw["a"]) in self._own_names():
            # A character the work holds from the start (``--character "Ada Lovelace|Ada|..."``)
            # is not dated by the first sentence that happens to name it ("Ada Lovelace Day").
            return None, stop.key, note
        if key is None and context and (start.note == "" or "no date" in start.note):
            names = [raw["a"]] + ([raw["b"]] if raw.get("kind") == "relation" else [])
            # A relation of such a character is dated by its other end only.
            names = [n for n in names if norm(n) not in self._own_names()]
            found = [k for k in (surrounding_key(context, n, axis, born) for n in names) if k is not None]
            if found:
                key = max(found)  # the later end's time: never before either is dated
                note = "; ".join(n for n in (note, f"dated by its surroundings: {Position.from_key(axis, key)}") if n)
        return key, stop.key, note

    def _own_names(self) -> set[str]:
        """Every name of the work's characters there from the start, normalized (cached)."""
        cached = getattr(self, "_own", None)
        if cached is None:
            cached = self._own = {norm(n) for c in self.db.canon.characters(self.db.work.id)
                                  if c.first_position is None for n in (c.name, *c.aliases)}
        return cached

    def embed_chunks(self) -> int:
        """Embed every chunk without a vector (the RAG baseline searches them)."""
        if self.embedder is None:
            return 0
        from incanon.graph.chunkvec import embed_missing_chunks

        return embed_missing_chunks(self.db, self.embedder, progress=self._phase("chunk vectors"))

    def _phase(self, what: str) -> Callable[[int, int], None] | None:
        progress = self.progress
        return None if progress is None else (lambda done, total: progress(what, done, total))

    async def _merged_text(self, subject: str, descs: list[str], new: list[str], previous: str,
                           was_summarized: bool) -> tuple[str, bool, int]:
        text = joined(descs)
        if count_tokens(text) <= self.config.description_budget:
            return text, False, 0
        # Over budget: summarize. A node summarized before gets its summary plus the new notes,
        # so each insert costs one short summary instead of re-reading every mention.
        inputs = [previous, *new] if was_summarized and previous and new else descs
        distinct = list(dict.fromkeys(d.strip() for d in inputs if d.strip()))
        return await summarize(self.model, self.prompts, self.config, self.db.work.title, subject, distinct), True, 1

    async def _describe_nodes(self, nodes: set[int], batch: set[int]) -> int:
        calls = 0
        for node_id in sorted(nodes):
            node = self.db.node(node_id)
            mentions = self.db.node_mentions(node_id)
            descs = [m["description"] for m in mentions]
            new = [m["description"] for m in mentions if m["chunk_id"] in batch]
            text, summarized, n = await self._merged_text(
                f"{node.name} ({node.type})", descs, new, node.description, node.summarized)
            calls += n
            with self.db.tx():
                self.db.set_description(node_id, text, summarized, digest(node.name, text))
        return calls

    async def _describe_edges(self, edges: set[int], batch: set[int]) -> int:
        calls = 0
        for edge_id in sorted(edges):
            edge = self.db.edge(edge_id)
            mentions = self.db.edge_mentions(edge_id)
            a, b = self.db.node(edge.a).name, self.db.node(edge.b).name
            descs = [m["description"] for m in mentions]
            new = [m["description"] for m in mentions if m["chunk_id"] in batch]
            text, summarized, n = await self._merged_text(
                f"the relation between {a} and {b}", descs, new, edge.description, edge.summarized)
            calls += n
            weight = float(sum(m["strength"] for m in mentions))
            with self.db.tx():
                self.db.set_edge(edge_id, text, weight, summarized)
        return calls

    def embed_nodes(self) -> int:
        """Embed (name + description) of every node whose text changed since its last vector."""
        if self.embedder is None:
            return 0
        have = self.db.vector_digests(self.embedder.name)
        todo = [n for n in self.db.nodes() if have.get(n.row_id) != n.digest]
        tell = self._phase("entity vectors")
        for start in range(0, len(todo), 64):
            part = todo[start:start + 64]
            vecs = np.asarray(self.embedder.embed([f"{n.name}: {n.description}" for n in part], kind="passage"))
            with self.db.tx():
                self.db.put_vectors(self.embedder.name, [(n.row_id, n.digest) for n in part], vecs)
                self.db.bump()
            if tell is not None:
                tell(start + len(part), len(todo))
        return len(todo)


class _Resolver:
    """Relation endpoint name → node: the chunk's own entities first, then any alias, then the
    normal form; characters win when a bare name fits several types."""

    def __init__(self, table: dict[tuple[str, str], int]):
        self.table = table
        self.by_norm: dict[str, list[tuple[str, int]]] = defaultdict(list)
        self.by_fold: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for (type_, key), node in table.items():
            self.by_norm[key].append((type_, node))
            self.by_fold[fold(key)].append((type_, node))

    def node(self, name: str, local: dict[str, str]) -> int | None:
        key = norm(name)
        if key in local and (local[key], key) in self.table:
            return self.table[(local[key], key)]
        for index, k in ((self.by_norm, key), (self.by_fold, fold(name))):
            hits = {node for _, node in index.get(k, [])}
            if len(hits) == 1:
                return hits.pop()
            if hits:
                chars = [node for t, node in index[k] if t == "character"]
                return chars[0] if chars else min(hits)
        return None
