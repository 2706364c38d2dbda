"""Alias normalization: which surface names are one entity, and what that entity is called.

Stages, cheapest first; each new surface name (a *form*) is compared only with what the earlier
stages left open, and never with a form or node of another type:

1. **exact**: the name is already an alias of a node of that type;
2. **sure**: same normal form (case, spacing, punctuation, accents, a leading article);
3. **candidates** from names alone: title variants and word subsets ("Provost Hame" / "Aldric
   Hame"), fuzzy similarity; compared only within blocks sharing a word or a prefix;
4. **candidates** from embeddings: the k nearest entities (name + description) above a cosine
   threshold;
5. **LLM judgement** of each candidate pair, skipped when the pair is already connected through
   other merges or was judged before (verdicts are stored);
6. connected components → one node each; a component with several distinct names gets its
   canonical name from the LLM (a schema restricts the answer to the component's own names).

RoleRAG compares every entity with its top-k neighbours by LLM (N·k calls; all pairs would be
N²/2); ``NormalizationStats`` counts what this pipeline spent against both.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from incanon.canon.names import norm
from incanon.graph.config import GraphConfig
from incanon.graph.db import GraphDB
from incanon.graph.names import block_keys, fold, similarity, variant_match
from incanon.llmout import json_objects
from incanon.models.types import ChatModel, Embedder, GenerationParams, Message
from incanon.templates import PromptLibrary


@dataclass
class Form:
    """A surface name of one type seen in the new chunks."""

    name: str
    type: str
    description: str = ""
    count: int = 1

    @property
    def key(self) -> tuple[str, str]:
        return (self.type, norm(self.name))


@dataclass
class Group:
    """One resulting entity: existing nodes to fold together and new forms to attach."""

    type: str
    nodes: list[int]
    forms: list[Form]
    name: str
    named_by_llm: bool = False


@dataclass
class NormalizationStats:
    """What normalization did and what it cost, against the brute-force and top-k baselines."""

    forms: int = 0
    units: int = 0
    exact: int = 0
    sure: int = 0
    candidates: dict[str, int] = field(default_factory=lambda: {"variant": 0, "fuzzy": 0, "knn": 0})
    judged: int = 0
    judged_same: int = 0
    reused_verdicts: int = 0
    skipped_connected: int = 0
    canonical_calls: int = 0
    groups: int = 0
    merged_nodes: int = 0
    all_pairs_baseline: int = 0
    topk_baseline: int = 0

    @property
    def llm_calls(self) -> int:
        return self.judged + self.canonical_calls

    def add(self, other: "NormalizationStats") -> None:
        for name in ("forms", "units", "exact", "sure", "judged", "judged_same", "reused_verdicts",
                     "skipped_connected", "canonical_calls", "groups", "merged_nodes", "all_pairs_baseline",
                     "topk_baseline"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.candidates.items():
            self.candidates[k] = self.candidates.get(k, 0) + v

    def to_dict(self) -> dict[str, object]:
        return {**{k: v for k, v in self.__dict__.items()}, "llm_calls": self.llm_calls}


@dataclass
class _Unit:
    type: str
    names: list[str]
    description: str
    node: int | None = None
    form: Form | None = None

    @property
    def label(self) -> str:
        return self.names[0]


class _DSU:
    def __init__(self, n: int):
        self.p = list(range(n))

    def find(self, i: int) -> int:
        while self.p[i] != i:
            self.p[i] = self.p[self.p[i]]
            i = self.p[i]
        return i

    def union(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.p[max(ra, rb)] = min(ra, rb)
        return True


_SAME = {"type": "json_schema", "json_schema": {"name": "same_entity", "strict": True, "schema": {
    "type": "object", "properties": {"reason": {"type": "string"}, "same": {"type": "boolean"}},
    "required": ["reason", "same"], "additionalProperties": False}}}
_MAX_BLOCK = 400
_YES = re.compile(r"\"?same\"?\s*[:=]\s*(true|false|yes|no)", re.I)


def parse_same(text: str) -> tuple[bool | None, str]:
    """(verdict, reason) of a same-entity reply; verdict None when unreadable."""
    for data in json_objects(text, lenient=True):
        same = data.get("same")
        if isinstance(same, bool):
            return same, str(data.get("reason", ""))
        if isinstance(same, str) and same.strip().lower() in ("yes", "no", "true", "false"):
            return same.strip().lower() in ("yes", "true"), str(data.get("reason", ""))
    m = _YES.search(text)
    if m:
        return m.group(1).lower() in ("true", "yes"), text.strip()
    first = text.strip().lower()
    if first.startswith("yes"):
        return True, text.strip()
    if first.startswith("no"):
        return False, text.strip()
    return None, text.strip()


class Normalizer:
    """Runs the stages for one batch of new forms against the graph already stored."""

    def __init__(self, db: GraphDB, model: ChatModel, embedder: Embedder | None, config: GraphConfig,
                 prompts: PromptLibrary):
        self.db, self.model, self.embedder, self.config, self.prompts = db, model, embedder, config, prompts

    async def run(self, forms: list[Form]) -> tuple[list[Group], NormalizationStats]:
        stats = NormalizationStats(forms=len(forms))
        if not forms:
            return [], stats
        units = self._existing_units()
        by_node = {u.node: i for i, u in enumerate(units)}
        aliases = self.db.alias_table()
        new_index: list[int] = []
        for f in forms:
            units.append(_Unit(f.type, [f.name], f.description, form=f))
            new_index.append(len(units) - 1)
        dsu = _DSU(len(units))
        stats.units = len(units)
        n_names = len(units)
        stats.all_pairs_baseline = n_names * (n_names - 1) // 2
        stats.topk_baseline = n_names * 3

        for i in new_index:  # exact
            node = aliases.get(units[i].form.key)  # type: ignore[union-attr]
            if node is not None and node in by_node:
                dsu.union(by_node[node], i)
                stats.exact += 1
        folded: dict[tuple[str, str], int] = {}
        for i, u in enumerate(units):  # sure
            for name in u.names:
                key = (u.type, fold(name))
                if key in folded:
                    if dsu.union(folded[key], i) and (u.form is not None or units[folded[key]].form is not None):
                        stats.sure += 1
                else:
                    folded[key] = i
        self._declared_merges(units, dsu, stats)
        pairs = self._name_candidates(units, set(new_index), stats)
        pairs += self._knn_candidates(units, new_index, stats)
        await self._judge(units, pairs, dsu, stats)
        groups = await self._groups(units, dsu, stats)
        return groups, stats

    def _declared(self) -> list[list[str]]:
        """Names of each character declared in the canon (``--character NAME|ALIAS``), canonical first."""
        if not hasattr(self, "_declared_names"):
            self._declared_names = ([[c.name, *c.aliases] for c in self.db.canon.characters(self.db.work.id)]
                                    if self.config.declared_names else [])
        return self._declared_names

    def _declared_merges(self, units: list[_Unit], dsu: _DSU, stats: NormalizationStats) -> None:
        """Names the canon gives one character are one character, whatever the text's order
        ("Mira Holt" and the later "Lantern Queen"): a merge no model needs to judge."""
        for names in self._declared():
            keys = {fold(n) for n in names}
            members = [i for i, u in enumerate(units) if u.type == "character" and any(fold(n) in keys for n in u.names)]
            for i in members[1:]:
                if dsu.union(members[0], i):
                    stats.sure += 1

    def _existing_units(self) -> list[_Unit]:
        names: dict[int, list[str]] = defaultdict(list)
        for node_id, alias, _ in self.db.all_aliases():
            names[node_id].append(alias)
        units = []
        for n in self.db.nodes():
            others = [a for a in names.get(n.row_id, []) if a != n.name]
            units.append(_Unit(n.type, [n.name, *others], n.description, node=n.row_id))
        return units

    def _name_candidates(self, units: list[_Unit], new: set[int], stats: NormalizationStats
                         ) -> list[tuple[float, str, int, int]]:
        blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
        for i, u in enumerate(units):
            for key in {k for name in u.names for k in block_keys(name)}:
                blocks[(u.type, key)].append(i)
        seen: set[tuple[int, int]] = set()
        out = []
        for members in blocks.values():
            if len(members) > _MAX_BLOCK:  # a word half the graph shares tells nothing
                continue
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    a, b = members[x], members[y]
                    if (a not in new and b not in new) or (a, b) in seen:
                        continue
                    seen.add((a, b))
                    na, nb = units[a].names, units[b].names
                    if any(variant_match(p, q) for p in na for q in nb):
                        out.append((1.0, "variant", a, b))
                        stats.candidates["variant"] += 1
                        continue
                    best = max(similarity(p, q) for p in na for q in nb)
                    if best >= self.config.fuzzy_threshold:
                        out.append((best, "fuzzy", a, b))
                        stats.candidates["fuzzy"] += 1
        return out

    def _knn_candidates(self, units: list[_Unit], new_index: list[int], stats: NormalizationStats
                        ) -> list[tuple[float, str, int, int]]:
        if self.embedder is None or self.config.knn_k <= 0 or not new_index:
            return []
        texts = [f"{units[i].label}: {units[i].description}"[:600] for i in new_index]
        new_vecs = np.asarray(self.embedder.embed(texts, kind="passage"), dtype=np.float32)
        ids, mat = self.db.vectors(self.embedder.name)
        row_of = {int(n): r for r, n in enumerate(ids)}
        pool_idx: list[int] = []
        pool_vecs: list[np.ndarray] = []
        for i, u in enumerate(units):
            if u.node is not None and u.node in row_of:
                pool_idx.append(i)
                pool_vecs.append(mat[row_of[u.node]])
        pool_idx += new_index
        pool = np.vstack([*pool_vecs, new_vecs]) if pool_vecs else new_vecs
        pool = pool / np.maximum(np.linalg.norm(pool, axis=1, keepdims=True), 1e-9)
        types = np.array([units[i].type for i in pool_idx])
        out = []
        offset = len(pool_vecs)
        for j, i in enumerate(new_index):
            scores = pool @ pool[offset + j]
            scores[offset + j] = -2.0
            if self.config.knn_inserted_before:
                scores[offset + j + 1:] = -2.0  # not yet inserted when the reference asks
            other_type = types != units[i].type
            if not self.config.knn_type_after:
                scores[other_type] = -2.0
            k = min(self.config.knn_k, len(scores))
            top = np.argsort(-scores, kind="stable")[:k]
            for t in top:
                # Type after the top k (the reference): a nearer entity of another type uses a place.
                if scores[t] >= self.config.knn_threshold and not other_type[t]:
                    a, b = sorted((i, pool_idx[int(t)]))
                    out.append((float(scores[t]), "knn", a, b))
                    stats.candidates["knn"] += 1
        return out

    async def _judge(self, units: list[_Unit], pairs: list[tuple[float, str, int, int]], dsu: _DSU,
                     stats: NormalizationStats) -> None:
        order = {"variant": 0, "fuzzy": 1, "knn": 2}
        done: set[tuple[int, int]] = set()
        for _, _stage, a, b in sorted(pairs, key=lambda p: (order[p[1]], -p[0], p[2], p[3])):
            if (a, b) in done:
                continue
            done.add((a, b))
            if dsu.find(a) == dsu.find(b):
                stats.skipped_connected += 1
                continue
            ka, kb = f"{units[a].type}|{fold(units[a].label)}", f"{units[b].type}|{fold(units[b].label)}"
            verdict = self.db.verdict(ka, kb)
            if verdict is not None:
                stats.reused_verdicts += 1
            elif not self.config.llm_judge:
                continue
            else:
                verdict, reason = await self._ask_same(units[a], units[b])
                stats.judged += 1
                if verdict is None:
                    verdict, reason = False, f"unreadable verdict: {reason[:200]}"
                self.db.set_verdict(ka, kb, verdict, reason[:500])
            if verdict:
                stats.judged_same += 1
                dsu.union(a, b)

    async def _ask_same(self, a: _Unit, b: _Unit) -> tuple[bool | None, str]:
        def named(u: _Unit) -> str:
            return u.label + (f" (also called {', '.join(u.names[1:4])})" if len(u.names) > 1 else "")

        prompt = self.prompts.render(
            "graph_same_entity", work_title=self.db.work.title, type=a.type,
            a_name=named(a), a_description=a.description[:700], b_name=named(b), b_description=b.description[:700])
        completion = await self.model.generate([Message(role="user", content=prompt)],
                                               GenerationParams(max_tokens=160, response_format=_SAME))
        return parse_same(completion.text)

    async def _groups(self, units: list[_Unit], dsu: _DSU, stats: NormalizationStats) -> list[Group]:
        members: dict[int, list[int]] = defaultdict(list)
        for i in range(len(units)):
            members[dsu.find(i)].append(i)
        groups = []
        for idx in members.values():
            forms = [units[i].form for i in idx if units[i].form is not None]
            if not forms:
                continue
            nodes = sorted(u.node for u in (units[i] for i in idx) if u.node is not None)
            type_ = units[idx[0]].type
            names: dict[str, str] = {}
            for i in idx:  # existing names first, then new forms, most mentioned first
                for name in units[i].names if units[i].node is not None else []:
                    names.setdefault(fold(name), name)
            counts = Counter({f.name: f.count for f in forms})
            for f in sorted(forms, key=lambda f: (-counts[f.name], -len(f.name), f.name)):
                names.setdefault(fold(f.name), f.name)
            current = self.db.node(nodes[0]).name if nodes else None
            grew = len(nodes) > 1 or any(fold(f.name) not in {fold(n) for i in idx if units[i].node is not None
                                                               for n in units[i].names} for f in forms)
            choice, by_llm = current or next(iter(names.values())), False
            declared = next((d[0] for d in self._declared() if type_ == "character"
                             and {fold(n) for n in d} & set(names)), None)
            if declared is not None:  # the canon's name for a declared character, no model call
                choice = names.get(fold(declared), declared)
            elif len(names) > 1 and (current is None or grew):
                choice, by_llm = await self._canonical(type_, list(names.values()),
                                                       " ".join(units[i].description for i in idx)[:800])
                stats.canonical_calls += 1
            stats.groups += 1
            stats.merged_nodes += max(0, len(nodes) - 1)
            groups.append(Group(type_, nodes, forms, choice, by_llm))
        return groups

    async def _canonical(self, type_: str, names: list[str], description: str) -> tuple[str, bool]:
        fmt = {"type": "json_schema", "json_schema": {"name": "canonical", "strict": True, "schema": {
            "type": "object", "properties": {"name": {"type": "string", "enum": names}},
            "required": ["name"], "additionalProperties": False}}}
        prompt = self.prompts.render("graph_canonical_name", work_title=self.db.work.title, type=type_,
                                     names=names, description=description)
        completion = await self.model.generate([Message(role="user", content=prompt)],
                                               GenerationParams(max_tokens=48, response_format=fmt))
        text = completion.text
        picked = next((str(o["name"]) for o in json_objects(text, lenient=True) if "name" in o), text)
        for name in names:  # only a name of the component, whatever the model wrote
            if fold(name) == fold(picked):
                return name, True
        hits = [n for n in names if fold(n) and fold(n) in fold(picked)]
        if hits:
            return max(hits, key=len), True
        return max(names, key=lambda n: (len(n.split()), len(n))), False
