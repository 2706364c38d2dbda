"""Reading what a model wrote: JSON, a score or a label out of its reply. Every part of incanon
that reads model output uses this package, so one fix here fixes every benchmark.

* :mod:`~incanon.llmout.blocks`: code fences and every JSON value in a reply (strict or lenient);
* :mod:`~incanon.llmout.repair`: repairing a reply's JSON (slips, stray quotes, truncation at the
  token limit, with the ``json-repair`` package as the fallback);
* :mod:`~incanon.llmout.score`: a judge's numeric score (the final line decides);
* :mod:`~incanon.llmout.label`: one label of a fixed set (keyed, bracketed, alone, or named and
  not denied).
"""

from incanon.llmout.blocks import balanced_span, fenced_blocks, json_objects, json_values, loads_lenient
from incanon.llmout.label import NEGATORS, is_negated, labelled, named_labels
from incanon.llmout.repair import JSONRepairError, RepairResult, looks_truncated, repair_json
from incanon.llmout.score import parse_score

__all__ = [
    "JSONRepairError", "NEGATORS", "RepairResult", "balanced_span", "fenced_blocks", "is_negated", "json_objects",
    "json_values", "labelled", "loads_lenient", "looks_truncated", "named_labels", "parse_score", "repair_json",
]
