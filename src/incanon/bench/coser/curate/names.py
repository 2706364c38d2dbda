"""Name unification: every alias and form of address → one official name, or "impersonal".

The model maps the list of every name used in a book's plots and conversations. Names it
leaves out are matched to the closest official name (a close spelling, or a name whose words
are all part of exactly one official name, so "Wren" → "Wren Callow"); a leftover capitalised
name stands for itself and anything else is impersonal.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from incanon.bench.coser.curate.calls import CallOutcome, ReadError, RetryPlan, call_structured, first_problem
from incanon.bench.coser.curate.continuation import PlotDraft
from incanon.bench.coser.curate.schema import NameMapping, SchemaLimits, names_schema, response_format
from incanon.bench.coser.formats import ENVIRONMENT, IMPERSONAL, Conversation, ConversationCharacter, Plot, PlotCharacter
from incanon.llmout import JSONRepairError, repair_json
from incanon.canon.names import norm
from incanon.models import ChatModel, GenerationParams
from incanon.templates import PromptLibrary


def mentioned_names(plots: Iterable[Plot]) -> list[str]:
    """Every character name of key characters and speakers, Environment excluded, sorted."""
    names: set[str] = set()
    for plot in plots:
        names.update(c.name for c in plot.key_characters)
        for conv in plot.conversation:
            names.update(c.name for c in conv.key_characters)
            names.update(d.character for d in conv.dialogues)
    return sorted(n for n in names if n.strip() and norm(n) != norm(ENVIRONMENT))


def _read(text: str, hit_limit: bool) -> tuple[NameMapping, list[str]]:
    try:
        repaired = repair_json(text)
    except JSONRepairError as exc:
        raise ReadError(str(exc), truncated=hit_limit) from None
    try:
        return NameMapping.model_validate(repaired.value), [f"json: {f}" for f in repaired.fixes]
    except ValidationError as exc:
        raise ReadError(first_problem(exc), truncated=repaired.truncated) from None


def _closest(name: str, official: list[str]) -> str | None:
    by_norm = {norm(o): o for o in official}
    if norm(name) in by_norm:
        return by_norm[norm(name)]
    close = difflib.get_close_matches(norm(name), list(by_norm), n=1, cutoff=0.85)
    if close:
        return by_norm[close[0]]
    words = set(norm(name).split())
    containing = [o for o in official if words and words <= set(norm(o).split())]
    return containing[0] if len(containing) == 1 else None


def resolve(names: list[str], mapping: NameMapping | None) -> tuple[dict[str, str], list[str], list[str]]:
    """(name → official or impersonal, official names, notes) from the model's mapping."""
    notes: list[str] = []
    raw = dict(mapping.to_official_name) if mapping else {}
    official: list[str] = []
    for name in [*(mapping.named_characters if mapping else []), *raw.values()]:
        if isinstance(name, str) and name.strip() and norm(name) not in (norm(IMPERSONAL), norm(ENVIRONMENT)):
            if norm(name) not in {norm(o) for o in official}:
                official.append(name.strip())
    result: dict[str, str] = {}
    for name in names:
        if norm(name) == norm(ENVIRONMENT):
            result[name] = ENVIRONMENT
            continue
        target = raw.get(name)
        if isinstance(target, str) and target.strip():
            if norm(target) == norm(IMPERSONAL):
                result[name] = IMPERSONAL
            elif norm(target) == norm(ENVIRONMENT):
                result[name] = ENVIRONMENT
            else:
                result[name] = _closest(target, official) or target.strip()
            continue
        guess = _closest(name, official)
        if guess is None and name[:1].isupper():
            guess = name
            official.append(name)
        result[name] = guess or IMPERSONAL
        notes.append(f"{name!r} was not mapped by the model; taken as {result[name]!r}")
    used = set(result.values())
    return result, [o for o in official if o in used], notes


async def unify_names(
    model: ChatModel,
    library: PromptLibrary,
    *,
    title: str,
    names: list[str],
    language: str = "English",
    max_tokens: int = 2048,
    constrained: bool = True,
    limits: SchemaLimits = SchemaLimits(),
    retry: RetryPlan = RetryPlan(),
) -> tuple[NameMapping | None, CallOutcome[Any] | None]:
    """The model's mapping for ``names`` (None when there are no names or every attempt failed)."""
    if not names:
        return None, None
    prompt = library.render("coser_curate_names", title=title, names="\n".join(f"- {n}" for n in names),
                            language=language, pairs=constrained)
    fmt = response_format("coser_names", names_schema(limits, len(names))) if constrained else None
    outcome = await call_structured(model, library, prompt, _read, plan=retry,
                                    params=GenerationParams(max_tokens=max_tokens, response_format=fmt),
                                    required="named_characters, to_official_name")
    return outcome.value, outcome


def _merge_plot_characters(chars: list[PlotCharacter]) -> list[PlotCharacter]:
    out: dict[str, PlotCharacter] = {}
    for c in chars:
        if c.name in out:
            prior = out[c.name]
            out[c.name] = prior.model_copy(update={
                "description": prior.description or c.description,
                "summary": " ".join(s for s in (prior.summary, c.summary) if s),
            })
        else:
            out[c.name] = c
    return list(out.values())


def _merge_conv_characters(chars: list[ConversationCharacter]) -> list[ConversationCharacter]:
    out: dict[str, ConversationCharacter] = {}
    for c in chars:
        if c.name in out:
            prior = out[c.name]
            out[c.name] = prior.model_copy(update={"motivation": " ".join(s for s in (prior.motivation, c.motivation) if s)})
        else:
            out[c.name] = c
    return list(out.values())


def _named(name: str, mapping: dict[str, str]) -> str:
    # Impersonal speakers keep their label ("Crowd Member") in the dialogue; they get no dataset.
    target = mapping.get(name, name)
    return name if target == IMPERSONAL else target


def apply_names(drafts: list[PlotDraft], mapping: dict[str, str]) -> None:
    """Rename every key character and speaker in place (merging entries that became one)."""
    for draft in drafts:
        plot = draft.plot
        convs: list[Conversation] = []
        for conv in plot.conversation:
            convs.append(conv.model_copy(update={
                "key_characters": _merge_conv_characters(
                    [c.model_copy(update={"name": _named(c.name, mapping)}) for c in conv.key_characters]),
                "dialogues": [d.model_copy(update={"character": _named(d.character, mapping)}) for d in conv.dialogues],
            }))
        draft.plot = plot.model_copy(update={
            "key_characters": _merge_plot_characters(
                [c.model_copy(update={"name": _named(c.name, mapping)}) for c in plot.key_characters]),
            "conversation": convs,
        })
