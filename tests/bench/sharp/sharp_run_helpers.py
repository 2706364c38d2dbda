"""Shared pieces of the SHARP run tests: the sample world in a canon store, judged-answer
builders and hand-made claims (a uniquely named module rather than a conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incanon.bench.sharp import JudgedAnswer
from incanon.bench.sharp.claims import Claim, make_claim
from incanon.canon import CanonStore
from incanon.sample import sample_world

from sharp_helpers import edge


@pytest.fixture(scope="session")
def sharp_canon_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sharp") / "canon"
    with CanonStore.open(path) as store:
        store.import_world(sample_world())
    return path


@pytest.fixture
def canon(sharp_canon_dir: Path):
    store = CanonStore.open(sharp_canon_dir)
    yield store
    store.close()


def ans(role: str, label: str, stance: str | None, backbone: str | None = None, *, affection: str | None = "high",
        work: str = "w", main: str = "Main", claim: str | None = None, interactions: int | None = None,
        model: str = "m", method: str = "zero-shot") -> JudgedAnswer:
    """One judged answer; ``label`` is ``f`` (factual) or ``c`` (counterfactual)."""
    full = {"f": "factual", "c": "counterfactual"}[label]
    return JudgedAnswer(work=work, main_character=main, role=role, affection=affection,
                        claim_id=claim or f"{role}-{label}-{stance}-{backbone}", claim_label=full,
                        stance=stance, backbone_stance=backbone, interactions=interactions, model=model,
                        method=method)


def claims_2f_2c() -> list[Claim]:
    """Two factual and two counterfactual claims, hand-written."""
    return [
        make_claim(edge("IsA", "dog/n", "animal/n"), "A dog is an animal.", label="factual", lang="en"),
        make_claim(edge("CapableOf", "bird/n", "fly/v"), "A bird can fly.", label="factual", lang="en"),
        make_claim(edge("IsA", "whale/n", "mammal/n"), "A whale is not a mammal.", label="counterfactual",
                   lang="en", rule="negation", detail="negated"),
        make_claim(edge("HasProperty", "lemon/n", "sour/a"), "A lemon is sweet.", label="counterfactual",
                   lang="en", rule="antonym", detail="'sour' -> 'sweet'"),
    ]
