"""SHARP (Kong et al.): relationship hallucination of role-playing agents, measured by stance.

Claims (English and Chinese): commonsense facts rendered from a ConceptNet-style graph, and counterfactual
("ridiculous") versions made by the paper's transformation rules. Roles: the main character of a
work by degree centrality, its partner roles and the affection toward each. The run: each role
puts each claim to the main character, a stance detector reads the answer. Metrics: SR, AR, ER
and CRF in factual and snowballing modes, Table 5's transfer tables, Figure 3's correlations.

    from incanon.bench.sharp import read_assertions, sample_assertions_path, build_claims

    edges = read_assertions(sample_assertions_path(), langs="en", min_weight=1.0)
    claims = build_claims(edges, n=40, seed=7)

    cast = select_cast(canon_store, "lanterns")            # main character and partners
    results = await evaluate(canon_store, cast, claims, ["zero-shot"], setup)
    report = build_report(answers_from_runs(run_store, [r.run_id for r in results]))
"""

from incanon.bench.sharp.affection import (
    AffectionFinding,
    AffectionMap,
    AffectionResolver,
    RelationEntry,
    RelationsFile,
    current_relation,
    default_mapping,
    load_relations,
)
from incanon.bench.sharp.cast import Cast, Partner, default_position, script_language, select_cast
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
from incanon.bench.sharp.evaluate import SharpSetup, build_items, evaluate, question
from incanon.bench.sharp.judged import (
    RunCounts,
    answers_from_run,
    check_consistent,
    answers_from_runs,
    iter_judged_jsonl,
    read_judged_jsonl,
    run_mode,
    write_judged_jsonl,
)
from incanon.bench.sharp.knowledge import ASYMMETRIC_RELATIONS, SUBSTITUTABLE_RELATIONS, KnowledgeIndex
from incanon.bench.sharp.metrics import (
    MODES,
    BackboneMetrics,
    JudgedAnswer,
    Mode,
    RoleMetrics,
    Summary,
    backbone_metrics,
    crf_weights,
    nested_mean,
    per_role,
    reference,
    role_metrics,
    summarize,
    shift,
)
from incanon.bench.sharp.prompting import prompt_for
from incanon.bench.sharp.report import Counts, ReportRow, SharpReport, build_report
from incanon.bench.sharp.roles import InteractionGraph, interaction_graph, main_character
from incanon.bench.sharp.sampling import BuildReport, ClaimSampler, build_claims, largest_balanced
from incanon.bench.sharp.tables import RoleTransfer, Table6, role_transfers, table6, tables_by_language
from incanon.bench.sharp.stance import (
    STANCES,
    Stance,
    StanceDetector,
    StanceReading,
    StanceVerdict,
    parse_stance,
    stance_format,
    to_stance,
)
from incanon.bench.sharp.templates import (
    Forms,
    Language,
    available_languages,
    get_language,
    register_language,
)
from incanon.bench.sharp.transfer import Correlations, TransferTable, correlations, pearson, transfer_table

__all__ = [
    "ASYMMETRIC_RELATIONS",
    "AffectionFinding",
    "AffectionMap",
    "AffectionResolver",
    "AssertionReader",
    "BackboneMetrics",
    "BuildReport",
    "ClaimSampler",
    "Cast",
    "Claim",
    "ClaimSource",
    "Concept",
    "Correlations",
    "Counts",
    "Edge",
    "Forms",
    "InteractionGraph",
    "JudgedAnswer",
    "KnowledgeIndex",
    "Language",
    "MODES",
    "Mode",
    "Partner",
    "RULES",
    "RULE_FUNCTIONS",
    "ReadStats",
    "RelationEntry",
    "RelationsFile",
    "ReportRow",
    "RoleMetrics",
    "RoleTransfer",
    "RunCounts",
    "STANCES",
    "SUBSTITUTABLE_RELATIONS",
    "SharpReport",
    "SharpSetup",
    "Stance",
    "StanceDetector",
    "StanceReading",
    "StanceVerdict",
    "Summary",
    "Table6",
    "TransferTable",
    "absolute",
    "answers_from_run",
    "answers_from_runs",
    "antonym",
    "available_languages",
    "backbone_metrics",
    "build_claims",
    "build_items",
    "build_report",
    "check_consistent",
    "correlations",
    "crf_weights",
    "current_relation",
    "default_mapping",
    "default_position",
    "edge_to_claim",
    "evaluate",
    "get_language",
    "interaction_graph",
    "largest_balanced",
    "iter_claims_jsonl",
    "iter_judged_jsonl",
    "load_relations",
    "main_character",
    "negation",
    "nested_mean",
    "parse_concept_uri",
    "parse_stance",
    "pearson",
    "per_role",
    "prompt_for",
    "question",
    "read_assertions",
    "read_claims_jsonl",
    "read_judged_jsonl",
    "reference",
    "register_language",
    "relation_name",
    "role_metrics",
    "role_transfers",
    "run_mode",
    "sample_assertions_path",
    "script_language",
    "select_cast",
    "shift",
    "stance_format",
    "substitute",
    "summarize",
    "swap",
    "table6",
    "tables_by_language",
    "to_stance",
    "transfer_table",
    "write_claims_jsonl",
    "write_judged_jsonl",
]
