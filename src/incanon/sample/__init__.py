"""The sample world that ships inside incanon: *The Lanterns of Harrowmere*.

Three short books (markdown), a script of eleven dated dialogue sessions, and hand-checked
ground truth (characters with aliases and time points, scenes with participants, relations that
change over time, facts that spread, and TimeChara-style interview probes). Tests and the demo of
every benchmark run on it.
"""

from incanon.sample.assemble import assemble_world, character_names, fold
from incanon.sample.world import (
    SAMPLE_WORK_ID,
    SamplePaths,
    ground_truth,
    name_index,
    sample_books,
    sample_paths,
    sample_sessions,
    sample_world,
)

__all__ = [
    "SAMPLE_WORK_ID",
    "SamplePaths",
    "assemble_world",
    "character_names",
    "fold",
    "ground_truth",
    "name_index",
    "sample_books",
    "sample_paths",
    "sample_sessions",
    "sample_world",
]
