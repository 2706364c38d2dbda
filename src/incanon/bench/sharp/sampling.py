"""Balanced, seeded sampling of factual and counterfactual claims from a set of edges.

The paper's test set is about half commonsense claims and half "ridiculous" ones (472 / 481).
``build_claims`` draws ``n`` claims with a chosen counterfactual share, spreads the
counterfactuals evenly over the rules, never repeats a text, and by default never uses one edge
for two claims, so a model under test never sees a fact next to its own negation. Everything
random flows from ``seed``: the same seed and edges give the same claims in the same order.
Indexing the graph is one pass over it; a draw then renders and checks only the edges it
reaches (:class:`ClaimSampler`): drawing N claims costs O(N) renderings and rule checks, not a
rendering of every edge.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from incanon.bench.sharp.claims import Claim, edge_to_claim
from incanon.bench.sharp.conceptnet import Edge, relation_name
from incanon.bench.sharp.counterfactual import RULE_FUNCTIONS, RULES
from incanon.bench.sharp.knowledge import KnowledgeIndex
from incanon.bench.sharp.templates import get_language
from incanon.errors import ConfigError

log = logging.getLogger(__name__)

FACT = "fact"


@dataclass
class BuildReport:
    """What ``build_claims`` did with its edges."""

    edges: int = 0
    candidates: int = 0
    """Distinct usable edges in the chosen language (rendering is checked only for the edges a
    draw reaches; those that do not render are counted under ``skipped['no_template']``)."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Edges left out, by reason: language, excluded_relation, relation_filter, no_template, duplicate."""
    quotas: dict[str, int] = field(default_factory=dict)
    made: Counter[str] = field(default_factory=Counter)
    """Claims made per bucket: 'fact' and each rule name."""
    shortfall: int = 0
    """Claims asked for but not made (too few usable edges)."""
    ratio: float = 0.5
    """The counterfactual share asked for."""
    balanced_size: int = 0
    """The largest subset of the claims made whose counterfactual share is the one asked for
    (as ``_quotas`` rounds it): what ``strict_balance`` keeps."""
    dropped: int = 0
    """Claims dropped by ``strict_balance`` to reach that subset."""

    @property
    def factual(self) -> int:
        """Factual claims made (before any strict-balance drop)."""
        return self.made.get(FACT, 0)

    @property
    def counterfactual(self) -> int:
        """Counterfactual claims made (before any strict-balance drop)."""
        return sum(v for k, v in self.made.items() if k != FACT)

    @property
    def balanced(self) -> bool:
        """Do the claims made have the asked share (no claim would need dropping)?"""
        return self.balanced_size == self.factual + self.counterfactual

    def balance_note(self) -> str:
        """One line saying how far from balanced the claims are ("" when they are balanced)."""
        total = self.factual + self.counterfactual
        if self.balanced or not total:
            return ""
        return (f"unbalanced: {self.factual} factual and {self.counterfactual} counterfactual claims "
                f"({self.counterfactual / total:.0%} counterfactual, {self.ratio:.0%} asked); the largest balanced "
                f"set has {self.balanced_size} claims (--strict-balance keeps it)")


def _norm(text: str) -> str:
    return " ".join(text.casefold().rstrip(".!?。").split())


def _quotas(n: int, ratio: float, rules: Sequence[str], rng: random.Random) -> dict[str, int]:
    n_cf = round(n * ratio)
    quotas = {FACT: n - n_cf}
    base, extra = divmod(n_cf, len(rules)) if rules else (0, 0)
    lucky = set(rng.sample(list(rules), extra)) if extra else set()
    for rule in rules:
        quotas[rule] = base + (1 if rule in lucky else 0)
    return quotas


def largest_balanced(facts: int, counterfactuals: int, ratio: float) -> int:
    """The largest n <= facts + counterfactuals whose quota split (round(n * ratio)
    counterfactual, the rest factual) fits in what was made."""
    for n in range(facts + counterfactuals, -1, -1):
        cf = round(n * ratio)
        if cf <= counterfactuals and n - cf <= facts:
            return n
    return 0


def _trim(chosen: dict[str, list[Claim]], rules: Sequence[str], size: int, ratio: float) -> int:
    """Drop claims so ``chosen`` holds ``size`` claims at ``ratio``; rules lose from the fullest
    first, so they stay as even as they were. Returns how many were dropped."""
    keep_cf = round(size * ratio)
    dropped = max(0, len(chosen[FACT]) - (size - keep_cf))
    del chosen[FACT][size - keep_cf:]
    while sum(len(chosen[r]) for r in rules) > keep_cf:
        fullest = max(rules, key=lambda r: (len(chosen[r]), -list(rules).index(r)))
        chosen[fullest].pop()
        dropped += 1
    return dropped


def _usable(edges: list[Edge], lang: str, relations: set[str] | None, exclude: frozenset[str],
            skipped: Counter[str]) -> list[Edge]:
    """The distinct edges that may make claims, in a fixed order (the heaviest of duplicates).

    Only filters and a dict here: whether an edge renders is decided when it is drawn."""
    language = get_language(lang)
    best: dict[tuple[str, str, str], Edge] = {}
    for edge in edges:
        if edge.head.lang != lang or edge.tail.lang != lang:
            skipped["language"] += 1
        elif relations is not None and edge.relation not in relations:
            skipped["relation_filter"] += 1
        elif edge.relation in exclude:
            skipped["excluded_relation"] += 1
        elif not language.supports(edge.relation):
            skipped["no_template"] += 1
        else:
            key = (edge.relation, edge.head.text.casefold(), edge.tail.text.casefold())
            if key in best:
                skipped["duplicate"] += 1
                kept = best[key]
                if (-edge.weight, edge.uri) >= (-kept.weight, kept.uri):  # heaviest, then by URI
                    continue
            best[key] = edge
    return [best[key] for key in sorted(best)]


class ClaimSampler:
    """A graph indexed once, from which samples of claims are drawn.

    Building it is the one pass over the graph (the knowledge index the rules consult, and the
    pool of usable edges). A draw of ``n`` claims then walks the shuffled pool only until its
    quotas are full and renders only the edges it reaches: its rendering and rule work grows
    with ``n``, not with the graph (``last_draw_touched`` says how many edges a draw reached).
    """

    def __init__(self, edges: Iterable[Edge], *, lang: str = "en", relations: Iterable[str] | None = None,
                 exclude_relations: Iterable[str] | None = None) -> None:
        """Index ``edges`` for claims in ``lang`` (filters as in :func:`build_claims`)."""
        self.edges = list(edges)
        self.lang = lang
        self.index = KnowledgeIndex(self.edges)
        exclude = (frozenset(relation_name(r) for r in exclude_relations) if exclude_relations is not None
                   else get_language(lang).claim_exclude)
        wanted = {relation_name(r) for r in relations} if relations is not None else None
        self.skipped: Counter[str] = Counter()
        """Edges left out of the pool, by reason (see ``BuildReport.skipped``)."""
        self.pool = _usable(self.edges, lang, wanted, exclude, self.skipped)
        self._facts: dict[int, Claim | None] = {}
        self.last_draw_touched = 0
        """Pool positions the last draw reached."""

    def fact(self, i: int) -> Claim | None:
        """The factual claim of pool edge ``i`` (rendered once, on first use), or None."""
        if i not in self._facts:
            self._facts[i] = edge_to_claim(self.pool[i], self.lang)
        return self._facts[i]

    def draw(self, n: int = 100, *, seed: int = 0, ratio: float = 0.5, rules: Sequence[str] = RULES,
             separate_edges: bool = True, strict_balance: bool = False,
             report: BuildReport | None = None) -> list[Claim]:
        """``n`` claims as :func:`build_claims` describes (same arguments)."""
        if n < 0 or not 0.0 <= ratio <= 1.0:
            raise ConfigError(f"build_claims needs n >= 0 and 0 <= ratio <= 1 (got n={n}, ratio={ratio})")
        unknown = [r for r in rules if r not in RULE_FUNCTIONS]
        if unknown or (ratio > 0 and not rules):
            raise ConfigError(f"unknown or missing counterfactual rules {unknown}; choose from {', '.join(RULES)}")
        return _Draw(self, n, seed, ratio, list(dict.fromkeys(rules)), separate_edges,
                     report if report is not None else BuildReport()).run(strict_balance)


class _Draw:
    """One sample: quotas, the walk over the shuffled pool, the balance (see ``build_claims``)."""

    def __init__(self, sampler: ClaimSampler, n: int, seed: int, ratio: float, rules: list[str],
                 separate_edges: bool, report: BuildReport) -> None:
        self.sampler, self.n, self.seed, self.ratio, self.rules = sampler, n, seed, ratio, rules
        self.separate_edges, self.report = separate_edges, report
        rng = random.Random(seed)
        # The pool's positions are shuffled, not its edges: integers only (about 0.1 s for
        # 200,000), and the same permutation as shuffling the rendered pool was, so a seed
        # still draws the claims it drew before rendering became lazy.
        self.order = list(range(len(sampler.pool)))
        rng.shuffle(self.order)
        self.quotas = _quotas(n, ratio, rules, rng)
        self.chosen: dict[str, list[Claim]] = {bucket: [] for bucket in self.quotas}
        self.texts: set[str] = set()
        self.fact_used: set[int] = set()
        self.cf_used: set[int] = set()
        self.unrendered: set[int] = set()
        self.cache: dict[tuple[int, str], Claim | None] = {}
        self.rng = rng

    def attempt(self, i: int, bucket: str) -> Claim | None:
        """The claim pool edge i gives for a bucket, if that edge may still serve it."""
        fact = self.sampler.fact(i)
        if fact is None:
            self.unrendered.add(i)  # no sentence for this edge: no claim of any kind
            return None
        if bucket == FACT:
            if i in self.fact_used or (self.separate_edges and i in self.cf_used):
                return None
        elif i in self.cf_used or (self.separate_edges and i in self.fact_used):
            return None
        if (i, bucket) not in self.cache:
            if bucket == FACT:
                self.cache[(i, bucket)] = fact
            else:
                edge = self.sampler.pool[i]
                edge_rng = random.Random(f"{self.seed}|{bucket}|{edge.uri}|{edge.key}")
                self.cache[(i, bucket)] = RULE_FUNCTIONS[bucket](edge, self.sampler.index, lang=self.sampler.lang,
                                                                 rng=edge_rng)
        claim = self.cache[(i, bucket)]
        return None if claim is None or _norm(claim.text) in self.texts else claim

    def take(self, i: int, bucket: str, claim: Claim) -> None:
        self.chosen[bucket].append(claim)
        self.texts.add(_norm(claim.text))
        (self.fact_used if bucket == FACT else self.cf_used).add(i)

    def need(self, bucket: str) -> float:
        quota = self.quotas[bucket]
        return (quota - len(self.chosen[bucket])) / quota if quota else 0.0

    def run(self, strict_balance: bool) -> list[Claim]:
        quotas, chosen, rules, order = self.quotas, self.chosen, self.rules, self.order
        # Pass 1: each edge goes to the bucket furthest from its quota among those it can serve,
        # so scarce rules (antonym, swap) get the edges that support them. With shared edges an
        # edge may serve the facts and one rule.
        reached = 0
        for k in range(len(order)):
            if all(len(chosen[b]) >= quotas[b] for b in quotas):
                break
            i, reached = order[k], k + 1
            buckets = sorted((b for b in quotas if self.need(b) > 0), key=lambda b: -self.need(b))
            if not self.separate_edges and FACT in buckets:
                buckets.remove(FACT)
                if (claim := self.attempt(i, FACT)) is not None:
                    self.take(i, FACT, claim)
            for bucket in buckets:
                if (claim := self.attempt(i, bucket)) is not None:
                    self.take(i, bucket, claim)
                    break

        # Pass 2: a rule that ran dry hands its share to the rules that still apply, least used
        # first. Only here may the walk go on to the end of the pool (when the edges run short).
        short_cf = sum(quotas[r] - len(chosen[r]) for r in rules)
        short_fact = quotas[FACT] - len(chosen[FACT])
        for k in range(len(order)):
            if short_cf <= 0 and short_fact <= 0:
                break
            i, reached = order[k], max(reached, k + 1)
            if short_fact > 0 and (claim := self.attempt(i, FACT)) is not None:
                self.take(i, FACT, claim)
                short_fact -= 1
            if short_cf > 0:
                for rule in sorted(rules, key=lambda r: (len(chosen[r]), rules.index(r))):
                    if (claim := self.attempt(i, rule)) is not None:
                        self.take(i, rule, claim)
                        short_cf -= 1
                        break
        self.sampler.last_draw_touched = reached
        return self._finish(strict_balance)

    def _finish(self, strict_balance: bool) -> list[Claim]:
        report, chosen, sampler = self.report, self.chosen, self.sampler
        report.edges = len(sampler.edges)
        report.skipped = sampler.skipped + Counter({"no_template": len(self.unrendered)})
        report.candidates = len(sampler.pool) - len(self.unrendered)
        report.quotas = dict(self.quotas)
        for bucket, made in chosen.items():
            report.made[bucket] = len(made)
        report.ratio = self.ratio
        report.balanced_size = largest_balanced(report.factual, report.counterfactual, self.ratio)
        if strict_balance and not report.balanced:
            report.dropped = _trim(chosen, self.rules, report.balanced_size, self.ratio)
        claims = [c for bucket in chosen.values() for c in bucket]
        report.shortfall = max(0, self.n - len(claims))
        if report.shortfall:
            log.warning("asked for %d claims, made %d from %d usable edges", self.n, len(claims),
                        report.candidates)
        self.rng.shuffle(claims)
        return claims


def build_claims(
    edges: Iterable[Edge],
    n: int = 100,
    *,
    seed: int = 0,
    ratio: float = 0.5,
    rules: Sequence[str] = RULES,
    lang: str = "en",
    relations: Iterable[str] | None = None,
    exclude_relations: Iterable[str] | None = None,
    separate_edges: bool = True,
    strict_balance: bool = False,
    report: BuildReport | None = None,
) -> list[Claim]:
    """Draw ``n`` claims: ``ratio`` of them counterfactual, split evenly over ``rules``.

    One draw from a fresh :class:`ClaimSampler`; to draw several samples from one graph, make
    the sampler once and call its ``draw`` (the graph is then indexed only once).

    Args:
        edges: the graph to draw from (all of it is indexed: Antonym edges feed the antonym
            rule even though Antonym edges make no claims themselves).
        n: how many claims; fewer come back (with a warning and ``report.shortfall``) when the
            edges cannot supply them.
        seed: drives every random choice.
        ratio: share of counterfactual claims (0.5 = as many as factual ones).
        rules: counterfactual rules to use, names from ``RULES``; a rule that runs out of
            applicable edges hands its share to the others.
        lang: language of the claims; edges in other languages are skipped.
        relations: only make claims from these relations (default: all with a template).
        exclude_relations: relations never to make claims from (default: the language's
            lexical ones, Antonym and Synonym).
        separate_edges: use each edge for at most one claim (default), so a fact and its own
            counterfactual are never both in the set; False lets an edge give one of each.
        strict_balance: when the edges run short of one kind, drop claims down to the largest
            set with the asked ``ratio`` (``report.dropped`` says how many); by default the
            unbalanced set is returned and ``report.balance_note()`` says how far off it is.
        report: filled with counts of what happened.
    """
    if n < 0 or not 0.0 <= ratio <= 1.0:
        raise ConfigError(f"build_claims needs n >= 0 and 0 <= ratio <= 1 (got n={n}, ratio={ratio})")
    sampler = ClaimSampler(edges, lang=lang, relations=relations, exclude_relations=exclude_relations)
    return sampler.draw(n, seed=seed, ratio=ratio, rules=rules, separate_edges=separate_edges,
                        strict_balance=strict_balance, report=report)
