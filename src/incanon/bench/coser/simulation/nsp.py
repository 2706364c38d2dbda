"""Next-speaker prediction of CoSER's simulation: read the predictor's answer, then decide who
acts next.

The rules live in :mod:`incanon.scenes.nsp`, which the product's scenes run too, so the benchmark
and the product decide alike by construction: the predictor answers with a speaker's name,
``random`` or an end signal (read leniently: ``Next: **Mr Bennet**.``, ``{"next_speaker": ...}``,
a first name only); the scene may end only from round 5 on (rounds counted from 0); an early end,
``random``, an unknown name or the speaker who just acted are replaced by a random pick among the
main characters and the Environment (else any other speaker). Here the generator is seeded per
case, so reruns pick the same.
"""

from __future__ import annotations

import random

from incanon.scenes.nsp import Decision, Kind, Prediction, decide, fallback_pool, parse_prediction


def case_rng(seed: int, case: str) -> random.Random:
    """A generator seeded by the run seed and the case id (same picks on every rerun)."""
    return random.Random(f"{seed}:{case}")


__all__ = ["Decision", "Kind", "Prediction", "case_rng", "decide", "fallback_pool", "parse_prediction"]
