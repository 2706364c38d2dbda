"""RoleRAG: graph-guided retrieval methods, KE/KH/UQJ judges, question sets, evaluation, report.

Methods (registered on import of ``incanon.bench.rolerag.agents``): ``rolerag``,
``rolerag-cutoff``, ``vanilla``, ``rag-chunks``, ``profile``. The knowledge graph itself is
``incanon.graph``.
"""

from incanon.bench.rolerag.build import GENERAL, OUT_OF_SCOPE, build_questions
from incanon.bench.rolerag.evaluate import BENCHMARK, EvalSetup, evaluate, who_for
from incanon.bench.rolerag.items import RoleRAGQuestion, load_questions, write_questions
from incanon.bench.rolerag.judges import KE_RANGE, KH_RANGE, UQJ_VALUES, RoleRAGJudges
from incanon.bench.rolerag.report import RoleRAGReport, build_report, rows_from_runs
from incanon.bench.rolerag.retrieval import GraphRetriever, QueryEntity, Retrieval, RetrievalConfig, parse_entities

__all__ = [
    "BENCHMARK",
    "GENERAL",
    "KE_RANGE",
    "KH_RANGE",
    "OUT_OF_SCOPE",
    "UQJ_VALUES",
    "EvalSetup",
    "GraphRetriever",
    "QueryEntity",
    "Retrieval",
    "RetrievalConfig",
    "RoleRAGJudges",
    "RoleRAGQuestion",
    "RoleRAGReport",
    "build_questions",
    "build_report",
    "evaluate",
    "load_questions",
    "parse_entities",
    "rows_from_runs",
    "who_for",
    "write_questions",
]
