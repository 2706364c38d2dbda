"""The leak audit: what each surface of incanon would send for every character × time point of a
work, and what in it comes from later positions or from scenes the character missed.

>>> report = await audit_work(store, "lanterns")          # doctest: +SKIP
>>> report.table(), report.strict_leaks()                  # doctest: +SKIP
"""

from incanon.audit.run import (
    NEUTRAL_REPLY,
    OWN_SURFACES,
    PAPER_METHODS,
    QUESTIONS,
    AuditReport,
    Finding,
    audit_points,
    audit_work,
)
from incanon.audit.surfaces import (
    Sent,
    card_surface,
    method_surfaces,
    models_surface,
    persona_surface,
    timeline_surface,
    timepoint_surface,
)

__all__ = [
    "NEUTRAL_REPLY",
    "OWN_SURFACES",
    "PAPER_METHODS",
    "QUESTIONS",
    "AuditReport",
    "Finding",
    "Sent",
    "audit_points",
    "audit_work",
    "card_surface",
    "method_surfaces",
    "models_surface",
    "persona_surface",
    "timeline_surface",
    "timepoint_surface",
]
