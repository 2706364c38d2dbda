"""What a given-circumstance acting case needs, read from a test sample.

A test sample (``formats.TestSample``) carries a held-out conversation with its scenario, its
characters' motivations (published as ``thought``, read from either name by the loader), the
plot and the profiles. This module derives what the simulation and the critics use: the case id
in CoSER's own form (``<book>-<i_p>-<i_c>``, the key of its evaluation files), the speakers with
the Environment, the main characters, each speaker's profile (plot description, then book
profile, as CoSER's evaluator composes it) and the domain tag.
"""

from __future__ import annotations

from typing import Any

from incanon.bench.coser.formats import ENVIRONMENT, Domain, TestSample

_IN = {"id", "in-domain", "in_domain", "indomain", "in"}
_OUT = {"ood", "out-of-domain", "out_of_domain", "outdomain", "out"}


def case_id(sample: TestSample, index: int | None = None) -> str:
    """``<book>-<i_p>-<i_c>``, the case key of CoSER's evaluation files; the position in the
    file stands in for a missing index."""
    i_p = sample.plot.i_p if sample.plot.i_p is not None else getattr(sample, "i_p", None)
    i_c = sample.i_c
    if i_p is None or i_c is None:
        return f"{sample.book}-{'x' if i_p is None else i_p}-{index if i_c is None else i_c}"
    return f"{sample.book}-{i_p}-{i_c}"


def to_domain(value: Any) -> Domain | None:
    """``in-domain`` / ``out-of-domain`` from the spellings test sets use (``id``, ``ood``...)."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower()
    if key in _IN:
        return "in-domain"
    if key in _OUT:
        return "out-of-domain"
    return None


def case_domain(sample: TestSample) -> Domain | None:
    """The sample's domain: ``domain``, else the published ``tag`` field."""
    return sample.domain or to_domain((sample.model_extra or {}).get("tag"))


def speakers(sample: TestSample) -> list[str]:
    """Roles that may act: the speaking characters in their listed order, the Environment last
    if the list lacks it (every scene gets an environment model)."""
    names = [n for n in dict.fromkeys(sample.speaking_characters_w_env) if n]
    if not names:
        names = [t.character for t in sample.dialogues]
        names = list(dict.fromkeys(n for n in names if n))
    if ENVIRONMENT not in names:
        names.append(ENVIRONMENT)
    return names


def characters(sample: TestSample) -> list[str]:
    """Speakers played by actor agents (everyone but the Environment)."""
    return [n for n in speakers(sample) if n != ENVIRONMENT]


def major_characters(sample: TestSample) -> list[str]:
    """The main characters (critics judge character fidelity for these only)."""
    return [n for n in sample.major_characters if n != ENVIRONMENT]


def profiles(sample: TestSample) -> dict[str, str]:
    """Speaker → profile: the plot's description of them, then their book profile; speakers
    with neither are left out.

    Joined as CoSER's evaluator joins them (``gca_evaluation/main.py``): each part loses only its
    outer line breaks, the whole its outer spaces and line breaks. So a profile that starts with
    spaces keeps them after the description (they are inside the text then), and only a profile
    that stands alone loses them; stripping every part of all whitespace changed the actor and
    critic prompts of such a profile."""
    plot_info: dict[str, str] = {}
    for c in sample.plot.key_characters:
        plot_info.setdefault(c.name, c.description)  # the reference takes the first entry of a name
    out: dict[str, str] = {}
    for name in characters(sample):
        profile, description = sample.character_profiles.get(name) or "", plot_info.get(name, "")
        # An empty description joins to the same text as none (the outer strip removes the break).
        text = description.strip("\n") + "\n\n" + profile.strip("\n") if description else profile
        text = text.strip(" \n")
        if text:
            out[name] = text
    return out


def motivation(sample: TestSample, name: str) -> str:
    """``name``'s state of mind before the scene (``motivation`` or ``thought`` in the file)."""
    return sample.motivation_of(name).strip()


def plot_index(sample: TestSample) -> int | None:
    """Index of the sample's plot in its book."""
    if sample.plot.i_p is not None:
        return sample.plot.i_p
    value = (sample.model_extra or {}).get("i_p")
    return value if isinstance(value, int) else None
