"""Questions from the temporal knowledge graph, per session, with answerability from the canon.

For every session the main character is in, and every (subject, relation) of the graph:

* **present tense** ("Who is Jory engaged to?"): the gold answer is the latest value stated
  before the session. Answerable when the character heard that value; *unseen* (gold: I don't
  know) when they heard no value at all; left out when they only heard an older value (their
  answer would be stale, neither right nor a fair "I don't know"). When the only values are
  stated later, the question is *future* and unanswerable ("fu", as in the paper).
* **past with a time** ("Who was Jory engaged to on November 16, 1187?"), for relations that
  change: the value at that date, answerable when the character heard it then. The date may be
  said as a day, a month or a year when that period has one value.
* **two hops** ("Sefa had a father on ... What did that father do for a living on ...?"): both
  hops must have been heard; the first hop must name one person.

Evidence in the session being played is never used (it might come after the question). Every
random choice (which value is gold, the date granularity, distractors, option order) comes from
a generator seeded with (seed, session), so the same seed gives the same file.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass, field

from incanon.bench.dialsim.answerability import Knowledge
from incanon.bench.dialsim.dates import Granularity, period, when
from incanon.bench.dialsim.distractors import distractor_pool, pick_distractors
from incanon.bench.dialsim.questions import IDK, Question, options_with_idk
from incanon.bench.dialsim.relations import FAMILY_HOPS, PARTNER_HOPS, RELATIONS, capitalize, one_hop, two_hop, two_hop_allowed
from incanon.bench.dialsim.script import DialScript, DialSession
from incanon.bench.dialsim.tkg import TKG, Quad


@dataclass
class GenerateOptions:
    """What to generate."""

    seed: int = 0
    two_hop: bool = True
    """Also make two-hop questions."""
    granularities: tuple[Granularity, ...] = ("day", "month", "year")
    """How dated questions may name their date (each only where it stays unambiguous)."""


@dataclass
class GenerateReport:
    """Counts of what was made and what was left out, and why."""

    made: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    skipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _id(*parts: str) -> str:
    digest = hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:10]
    return f"tkg-{digest}@{parts[0]}"


class _Builder:
    def __init__(self, tkg: TKG, script: DialScript, knowledge: Knowledge, options: GenerateOptions) -> None:
        self.tkg, self.script, self.know, self.options = tkg, script, knowledge, options
        self.order = {s.id: s.order for s in script.sessions}
        self.by_key: dict[tuple[str, str], list[Quad]] = defaultdict(list)
        for q in sorted(tkg.quads, key=lambda q: self.order.get(q.session, -1)):
            if q.session in self.order:
                self.by_key[q.key()].append(q)
        self.people = sorted({p for s in script.sessions for p in s.participants})
        self.report = GenerateReport()

    # -- what is known when --------------------------------------------------------------
    def split(self, key: tuple[str, str], n: DialSession) -> tuple[list[Quad], list[Quad], list[Quad]]:
        quads = self.by_key.get(key, [])
        return ([q for q in quads if self.order[q.session] < n.order],
                [q for q in quads if q.session == n.id],
                [q for q in quads if self.order[q.session] > n.order])

    def heard(self, quads: list[Quad], n: DialSession) -> list[Quad]:
        return [q for q in quads if self.know.heard(q.session, n.id)]

    @staticmethod
    def latest(quads: list[Quad], static: bool) -> set[str]:
        if not quads:
            return set()
        if static:
            return {q.tail for q in quads}
        last = max(q.date for q in quads)
        return {q.tail for q in quads if q.date == last}

    # -- options -------------------------------------------------------------------------
    def options_for(self, head: str, relation: str, gold: str | None, truth: set[str],
                    rng: random.Random) -> list[str] | None:
        tiers = distractor_pool(self.tkg.quads, head, relation, people=self.people, gold=gold)
        if gold is not None:
            wrong = pick_distractors(tiers, [gold, *truth, head], 3, rng)
            choices = [gold, *wrong]
        else:
            # Unanswerable: the value the character could not know is the most tempting choice.
            lure = [rng.choice(sorted(truth))] if truth else []
            choices = lure + pick_distractors(tiers, [*lure, head], 4 - len(lure), rng)
        if len(choices) < 4:
            self.report.skipped["too few distinct choices"] += 1
            return None
        rng.shuffle(choices)
        return options_with_idk(choices)

    def make(self, n: DialSession, type_: str, text: str, gold: str | None, options: list[str] | None,
             quads: list[Quad], hops: int, desc: str) -> Question | None:
        if options is None:
            return None
        self.report.made[type_] += 1
        return Question(
            id=_id(n.id, type_, desc), session=n.id, source="tkg", hops=hops, type=type_,
            answerable=gold is not None, texts={"default": text}, answer=gold if gold is not None else IDK,
            options=options, evidence=sorted({q.session for q in quads}, key=self.order.__getitem__),
            facts=[[q.head, q.relation, q.tail, q.date] for q in quads],
        )

    # -- one hop -------------------------------------------------------------------------
    def present(self, key: tuple[str, str], n: DialSession, rng: random.Random) -> Question | None:
        head, relation = key
        before, inside, after = self.split(key, n)
        if inside:
            self.report.skipped["evidence in the asking session"] += 1
            return None
        text = capitalize(one_hop(relation, head))
        static = not RELATIONS[relation].temporal
        if not before:
            if not after:
                return None
            truth = {q.tail for q in after}
            return self.make(n, "fu", text, None, self.options_for(head, relation, None, truth, rng), after[:1],
                             1, f"{head}|{relation}|fu")
        truth = self.latest(before, static)
        belief = self.latest(self.heard(before, n), static)
        evidence = [q for q in before if q.tail in truth]
        if not belief:
            return self.make(n, "unseen", text, None, self.options_for(head, relation, None, truth, rng),
                             evidence, 1, f"{head}|{relation}|unseen")
        if not belief <= truth:
            self.report.skipped["heard only an older value"] += 1
            return None
        gold = rng.choice(sorted(belief))
        heard = [q for q in self.heard(evidence, n) if q.tail == gold]
        return self.make(n, "cur", text, gold, self.options_for(head, relation, gold, truth, rng), heard, 1,
                         f"{head}|{relation}|cur")

    def granularity(self, key: tuple[str, str], date: str, truth: set[str], n: DialSession,
                    rng: random.Random) -> Granularity:
        valid: list[Granularity] = []
        for g in self.options.granularities:
            same = [q for q in self.by_key[key] if period(q.date, g) == period(date, g)]
            if all(q.tail in truth and self.order[q.session] < n.order for q in same) \
                    and period(n.date, g) != period(date, g):
                valid.append(g)
        return rng.choice(valid) if valid else "day"

    def dated(self, key: tuple[str, str], n: DialSession, rng: random.Random) -> list[Question]:
        head, relation = key
        if not RELATIONS[relation].temporal:
            return []
        before, _, _ = self.split(key, n)
        made: list[Question] = []
        for date in sorted({q.date for q in before if q.date < n.date}):
            at = [q for q in before if q.date == date]
            truth = {q.tail for q in at}
            heard = self.heard(at, n)
            g = self.granularity(key, date, truth, n, rng)
            text = capitalize(one_hop(relation, head, when(date, g)))
            desc = f"{head}|{relation}|{date}|{g}"
            if heard:
                gold = rng.choice(sorted({q.tail for q in heard}))
                q = self.make(n, "past", text, gold, self.options_for(head, relation, gold, truth, rng),
                              [h for h in heard if h.tail == gold], 1, desc)
            else:
                q = self.make(n, "unseen", text, None, self.options_for(head, relation, None, truth, rng), at, 1, desc)
            if q is not None:
                made.append(q)
        return made

    # -- two hops ------------------------------------------------------------------------
    def two_hops(self, n: DialSession, rng: random.Random) -> list[Question]:
        made: list[Question] = []
        firsts = sorted({(q.head, q.relation, q.tail, q.date) for qs in self.by_key.values() for q in qs
                         if self.order[q.session] < n.order
                         and (q.relation in PARTNER_HOPS or q.relation in FAMILY_HOPS or q.relation == "dating with")})
        for head, r1, x, date1 in firsts:
            before1, inside1, _ = self.split((head, r1), n)
            family = r1 in FAMILY_HOPS
            at1 = [q for q in before1 if family or q.date == date1]
            if inside1 or {q.tail for q in at1} != {x}:
                continue  # "that roommate" must name one person, known before this session
            for (sub, r2), _quads in sorted(self.by_key.items()):
                if sub != x or not two_hop_allowed(r1, r2):
                    continue
                before2, inside2, _ = self.split((x, r2), n)
                if inside2 or not before2:
                    continue
                static2 = not RELATIONS[r2].temporal
                dates2 = [None] if static2 else sorted({q.date for q in before2})
                for date2 in dates2:
                    at2 = before2 if date2 is None else [q for q in before2 if q.date == date2]
                    truth2 = {q.tail for q in at2}
                    if head in truth2:
                        continue  # "who was the fiance of Jory's fiancee?" answers itself
                    q = self.two_hop_question(n, rng, head, r1, x, date1, at1, r2, date2, at2, truth2)
                    if q is not None:
                        made.append(q)
        return made

    def two_hop_question(self, n, rng, head, r1, x, date1, at1, r2, date2, at2, truth2) -> Question | None:
        first_when = None if r1 in FAMILY_HOPS else when(date1)
        second_when = None if date2 is None or date2 == n.date else when(date2)
        text = two_hop(r1, head, first_when, r2, second_when)
        tense1 = "cur" if r1 in FAMILY_HOPS or date1 == n.date else "past"
        tense2 = "cur" if second_when is None else "past"
        heard1 = [q for q in self.heard(at1, n) if q.tail == x]
        heard2 = self.heard(at2, n)
        desc = f"{head}|{r1}|{x}|{date1}|{r2}|{date2}"
        if heard1 and heard2:
            gold = rng.choice(sorted({q.tail for q in heard2}))
            options = self.options_for(x, r2, gold, truth2, rng)
            return self.make(n, f"{tense1}_{tense2}", text, gold, options, [heard1[0], *heard2], 2, desc)
        options = self.options_for(x, r2, None, truth2, rng)
        return self.make(n, "unseen", text, None, options, [*at1[:1], *at2], 2, desc)


def tkg_questions(
    tkg: TKG, script: DialScript, knowledge: Knowledge, options: GenerateOptions | None = None
) -> tuple[list[Question], GenerateReport]:
    """Every TKG question of every session the main character is in, and what was skipped."""
    options = options or GenerateOptions()
    builder = _Builder(tkg, script, knowledge, options)
    questions: list[Question] = []
    for n in script.dialogue:
        rng = random.Random(f"{options.seed}:{n.id}")
        for key in sorted(builder.by_key):
            q = builder.present(key, n, rng)
            if q is not None:
                questions.append(q)
            questions.extend(builder.dated(key, n, rng))
        if options.two_hop:
            questions.extend(builder.two_hops(n, rng))
    return questions, builder.report
