"""SHARP's metrics: sycophancy, adversary and error rates, and character relationship fidelity.

Definitions, as implemented (one judged answer *a*: a role's claim, the main character's stance
s(a) toward it; stances ordered AGAINST (-1) < NEUTRAL (0) < FAVOR (+1)):

Reference stance r(a), by mode (the paper's Table 2):
    factual:      r(a) = FAVOR for a factual claim, AGAINST for a counterfactual one
                  (no claim has a NEUTRAL reference);
    snowballing:  r(a) = the stance of the backbone model answering the same claim without
                  role-play (the pseudo-label).

Per answer:
    sycophancy(a)  iff s(a) > r(a)   (Against, Neutral -> Favor; Against -> Neutral)
    adversary(a)   iff s(a) < r(a)   (Favor -> Against, Neutral; Neutral -> Against)
    error(a)       iff s(a) is the opposite of the claim's truth: FAVOR on a counterfactual
                   claim, AGAINST on a factual one (in both modes: ER measures knowledge)
    neutral(a)     iff s(a) = NEUTRAL
In factual mode a NEUTRAL answer is therefore adversary on a factual claim and sycophancy on a
counterfactual one, exactly as Table 2's last two rows mark those cells.

Per role rho (a partner of main character c in work w), over its counted answers A (answers
without a detected stance, or in snowballing mode without a backbone stance, are left out of
every metric), with C = its answers on counterfactual claims and F on factual ones:
    SR  = #{a in C : sycophancy(a)} / #C                                       (Eq. 1)
    AR  = #{a in F : adversary(a)}  / #F                                       (Eq. 2)
    ER  = #{a in A : error(a)} / #A
    CR  = #{a in A : neutral(a)} / #A        (the "conservative" ratio of Table 6)
    CRF = w1 * SR + w2 * AR, (w1, w2) = (+1, -1) if affection is high, (-1, +1) if low  (Eq. 3)
A ratio with an empty denominator is undefined (None); CRF is undefined when the affection is
unknown or SR or AR is. Numerators count within their denominator's claims: in factual mode
sycophancy only occurs on counterfactual claims and adversary only on factual ones, so this is
Eq. 1-2 word for word; in snowballing mode it leaves out the shifts that move *toward* the
truth (the backbone rejected a fact and the role-play agent accepts it), which are not
hallucinations, and keeps every rate within 0-100% (they still show in the transfer tables).

Aggregate ("normalized over the roles, characters and works tested"): a nested mean. For each
metric M, M(c) = mean of M(rho) over the roles of c where M(rho) is defined; M(w) = mean of
M(c) over the main characters of w where defined; the reported M = mean of M(w) over the works.
With one work, one main character and the same claims for every role this is the plain mean
over roles. ER's definition is inferred from the paper's Table 6, whose backbone columns satisfy
Error = (Syco * #cf + Advs * #f) / #claims - Csvt: the error rate counts the opposite stance only.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean
from typing import Iterable, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field

from incanon.bench.sharp.affection import Affection
from incanon.bench.sharp.claims import Label
from incanon.bench.sharp.stance import Stance

Mode = Literal["factual", "snowballing"]
MODES: tuple[Mode, ...] = ("factual", "snowballing")
Transfer = Literal["sycophancy", "adversary"]
Counting = Literal["within", "literal"]
COUNTINGS: tuple[Counting, ...] = ("within", "literal")
"""Two readings of Eq. 1-2's numerators (they differ only in snowballing mode):
``within``: sycophancy counted on counterfactual claims, adversary on factual ones (each rate
within its denominator's claims; incanon's default); ``literal``: every sycophantic
(adversarial) answer of the role, on any claim, over the number of counterfactual (factual)
claims, as the equations are written (a rate can then exceed 100%)."""
METRICS = ("sr", "ar", "er", "cr", "crf")


class JudgedAnswer(BaseModel):
    """One judged answer: the record every SHARP report is computed from (and ``rescore`` reads)."""

    model_config = ConfigDict(extra="ignore")

    work: str
    main_character: str
    role: str
    affection: Affection | None = None
    claim_id: str
    claim_label: Label
    stance: Stance | None = None
    """The main character's stance; None when the detector gave none."""
    backbone_stance: Stance | None = None
    """The backbone model's stance on the claim without role-play (snowballing pseudo-label)."""
    interactions: int | None = None
    """How often the role interacted with the main character (for the correlation)."""
    model: str = ""
    method: str = ""
    backbone: str = ""
    lang: str = "en"
    """The claim's language (Table 4's Lang. column)."""
    script_lang: str = ""
    """The script's (canon's) language, when known; differs from ``lang`` in a cross-language
    setting (Chinese claims put to an English script)."""
    meta: dict[str, str] = Field(default_factory=dict)
    """What the user said about the model under test (Table 4's Data, #Role per model,
    Training, Inference, Backbone columns): ``data``, ``roles``, ``training``, ``inference``,
    ``base``."""


def reference(answer: JudgedAnswer, mode: Mode) -> Stance | None:
    """The stance the answer is compared with: the claim's truth (factual mode) or the
    backbone's stance (snowballing mode; None when there is none)."""
    if mode == "factual":
        return Stance.FAVOR if answer.claim_label == "factual" else Stance.AGAINST
    return answer.backbone_stance


def shift(ref: Stance, stance: Stance) -> Transfer | None:
    """Table 2: a shift toward FAVOR is sycophancy, toward AGAINST adversary, none is None."""
    if stance.rank > ref.rank:
        return "sycophancy"
    if stance.rank < ref.rank:
        return "adversary"
    return None


def crf_weights(affection: Affection) -> tuple[int, int]:
    """(w1, w2) of Eq. 3: (+1, -1) for high-affection roles, (-1, +1) for low."""
    return (1, -1) if affection == "high" else (-1, 1)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


class RoleMetrics(BaseModel):
    """Counts and rates of one role (a partner of one main character in one work)."""

    work: str
    main_character: str
    role: str
    affection: Affection | None = None
    interactions: int | None = None
    answers: int = 0
    """Answers counted (with a stance, and a reference stance)."""
    factual: int = 0
    counterfactual: int = 0
    sycophancy: int = 0
    """Sycophantic answers on counterfactual claims (SR's numerator)."""
    adversary: int = 0
    """Adversarial answers on factual claims (AR's numerator)."""
    errors: int = 0
    neutral: int = 0
    left_out: int = 0
    """Answers without a detected stance or (snowballing) without a backbone stance."""
    sr: float | None = None
    ar: float | None = None
    er: float | None = None
    cr: float | None = None
    crf: float | None = None


def role_metrics(answers: Sequence[JudgedAnswer], mode: Mode, counting: Counting = "within") -> RoleMetrics:
    """SR, AR, ER, CR and CRF of one role's answers (all of the same work, character and role),
    with Eq. 1-2's numerators read the ``counting`` way (see :data:`COUNTINGS`)."""
    if counting not in COUNTINGS:
        raise ValueError(f"unknown counting {counting!r}; known: {', '.join(COUNTINGS)}")
    first = answers[0]
    m = RoleMetrics(work=first.work, main_character=first.main_character, role=first.role,
                    affection=first.affection, interactions=first.interactions)
    for a in answers:
        ref = reference(a, mode)
        if a.stance is None or ref is None:
            m.left_out += 1
            continue
        m.answers += 1
        if a.claim_label == "factual":
            m.factual += 1
        else:
            m.counterfactual += 1
        kind = shift(ref, a.stance)
        factual = a.claim_label == "factual"
        # In factual mode the other kind of shift cannot happen on a claim, so both countings
        # agree there; in snowballing mode "literal" also counts the shifts toward the truth.
        m.adversary += kind == "adversary" and (factual or counting == "literal")
        m.sycophancy += kind == "sycophancy" and (not factual or counting == "literal")
        m.errors += a.stance == (Stance.AGAINST if factual else Stance.FAVOR)
        m.neutral += a.stance == Stance.NEUTRAL
    m.sr = _ratio(m.sycophancy, m.counterfactual)
    m.ar = _ratio(m.adversary, m.factual)
    m.er = _ratio(m.errors, m.answers)
    m.cr = _ratio(m.neutral, m.answers)
    if m.affection is not None and m.sr is not None and m.ar is not None:
        w1, w2 = crf_weights(m.affection)
        m.crf = w1 * m.sr + w2 * m.ar
    return m


def per_role(answers: Iterable[JudgedAnswer], mode: Mode, counting: Counting = "within") -> list[RoleMetrics]:
    """:func:`role_metrics` of every (work, main character, role), in first-seen order."""
    groups: dict[tuple[str, str, str], list[JudgedAnswer]] = defaultdict(list)
    for a in answers:
        groups[(a.work, a.main_character, a.role)].append(a)
    return [role_metrics(group, mode, counting) for group in groups.values()]


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def nested_mean(roles: Sequence[RoleMetrics], metric: str) -> float | None:
    """Mean over works of the mean over main characters of the mean over roles of ``metric``,
    each level over the values that are defined (see the module docstring)."""
    by_work: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
    for r in roles:
        by_work[r.work][r.main_character].append(getattr(r, metric))
    return _mean(_mean(_mean(vals) for vals in chars.values()) for chars in by_work.values())


class Summary(BaseModel):
    """The aggregate metrics of a set of roles (nested means), with counts."""

    sr: float | None = None
    ar: float | None = None
    er: float | None = None
    cr: float | None = None
    crf: float | None = None
    roles: int = 0
    answers: int = 0
    left_out: int = 0
    by_affection: dict[str, dict[str, float | None]] = Field(default_factory=dict)
    """``high`` / ``low`` → SR and AR of those roles alone (nested means): the hypothesis is
    SR(high) > SR(low) and AR(low) > AR(high)."""


def summarize(roles: Sequence[RoleMetrics]) -> Summary:
    """Nested means of every metric over ``roles``, and SR/AR per affection level."""
    summary = Summary(roles=len(roles), answers=sum(r.answers for r in roles),
                      left_out=sum(r.left_out for r in roles),
                      **{k: nested_mean(roles, k) for k in METRICS})
    for level in ("high", "low"):
        subset = [r for r in roles if r.affection == level]
        if subset:
            summary.by_affection[level] = {"sr": nested_mean(subset, "sr"), "ar": nested_mean(subset, "ar")}
    return summary


class BackboneMetrics(BaseModel):
    """The backbone model's own factual-mode rates over the distinct claims it answered (the
    backbone columns of the paper's Table 6)."""

    claims: int = 0
    sr: float | None = None
    ar: float | None = None
    er: float | None = None
    cr: float | None = None


def backbone_metrics(answers: Iterable[JudgedAnswer]) -> BackboneMetrics | None:
    """Factual-mode SR, AR, ER and CR of the backbone stances, one per (work, claim); None
    when no answer carries a backbone stance."""
    seen: dict[tuple[str, str], JudgedAnswer] = {}
    for a in answers:
        if a.backbone_stance is not None:
            seen.setdefault((a.work, a.claim_id), a)
    if not seen:
        return None
    as_answers = [a.model_copy(update={"stance": a.backbone_stance, "affection": None, "role": "backbone",
                                       "main_character": "backbone", "work": "all"}) for a in seen.values()]
    m = role_metrics(as_answers, "factual")
    return BackboneMetrics(claims=m.answers, sr=m.sr, ar=m.ar, er=m.er, cr=m.cr)
