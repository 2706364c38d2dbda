"""LLM judges: prompt templates with robust score parsing."""

from incanon.judges.base import Judgement, LLMJudge
from incanon.judges.hallucination import (
    HallucinationJudge,
    HallucinationType,
    HallucinationVerdict,
    parse_hallucination_type,
)
from incanon.llmout import parse_score
from incanon.judges.personality import PERSONALITY_RANGE, PersonalityJudge
from incanon.judges.spatiotemporal import DataType, SpatiotemporalJudge, spatiotemporal_label

__all__ = [
    "PERSONALITY_RANGE",
    "DataType",
    "HallucinationJudge",
    "HallucinationType",
    "HallucinationVerdict",
    "Judgement",
    "LLMJudge",
    "PersonalityJudge",
    "SpatiotemporalJudge",
    "parse_hallucination_type",
    "parse_score",
    "spatiotemporal_label",
]
