"""LLM judges: prompt templates with robust score parsing."""

from incanon.judges.base import Judgement, LLMJudge
from incanon.judges.parse import parse_score
from incanon.judges.spatiotemporal import DataType, SpatiotemporalJudge, spatiotemporal_label

__all__ = [
    "DataType",
    "Judgement",
    "LLMJudge",
    "SpatiotemporalJudge",
    "parse_score",
    "spatiotemporal_label",
]
