"""SHARP (Kong et al.): relationship hallucination of role-playing agents, measured by stance.

This part builds SHARP's claims: commonsense facts rendered from a ConceptNet-style graph, and
counterfactual ("ridiculous") versions made by the paper's transformation rules.

    from incanon.bench.sharp import read_assertions, sample_assertions_path, build_claims

    edges = read_assertions(sample_assertions_path(), langs="en", min_weight=1.0)
    claims = build_claims(edges, n=40, seed=7)
"""

from incanon.bench.sharp.claims import (
    Claim,
    ClaimSource,
    edge_to_claim,
    iter_claims_jsonl,
    read_claims_jsonl,
    write_claims_jsonl,
)
from incanon.bench.sharp.conceptnet import (
    AssertionReader,
    Concept,
    Edge,
    ReadStats,
    parse_concept_uri,
    read_assertions,
    relation_name,
    sample_assertions_path,
)
from incanon.bench.sharp.counterfactual import (
    RULE_FUNCTIONS,
    RULES,
    absolute,
    antonym,
    negation,
    substitute,
    swap,
)
from incanon.bench.sharp.knowledge import ASYMMETRIC_RELATIONS, SUBSTITUTABLE_RELATIONS, KnowledgeIndex
from incanon.bench.sharp.sampling import BuildReport, build_claims
from incanon.bench.sharp.templates import (
    Forms,
    Language,
    available_languages,
    get_language,
    register_language,
)

__all__ = [
    "ASYMMETRIC_RELATIONS",
    "AssertionReader",
    "BuildReport",
    "Claim",
    "ClaimSource",
    "Concept",
    "Edge",
    "Forms",
    "KnowledgeIndex",
    "Language",
    "RULES",
    "RULE_FUNCTIONS",
    "ReadStats",
    "SUBSTITUTABLE_RELATIONS",
    "absolute",
    "antonym",
    "available_languages",
    "build_claims",
    "edge_to_claim",
    "get_language",
    "iter_claims_jsonl",
    "negation",
    "parse_concept_uri",
    "read_assertions",
    "read_claims_jsonl",
    "register_language",
    "relation_name",
    "sample_assertions_path",
    "substitute",
    "swap",
    "write_claims_jsonl",
]
