"""Builders for ConceptNet-format lines and files used across the SHARP claim tests (imported
by the test modules; a uniquely named module rather than a conftest, so it cannot collide)."""

from __future__ import annotations

import json

from incanon.bench.sharp import Edge, parse_concept_uri


def cn_line(rel: str, head: str, tail: str, weight: float = 1.0, **info: object) -> str:
    """One assertion line; bare terms become English concept URIs (``dog/n`` → ``/c/en/dog/n``)."""
    h = head if head.startswith("/c/") or "://" in head else f"/c/en/{head}"
    t = tail if tail.startswith("/c/") or "://" in tail else f"/c/en/{tail}"
    payload = {"dataset": "/d/test", "weight": weight, **info}
    return "\t".join([f"/a/[/r/{rel}/,{h}/,{t}/]", f"/r/{rel}", h, t, json.dumps(payload)])


def edge(rel: str, head: str, tail: str, weight: float = 1.0) -> Edge:
    """An Edge built directly (no file)."""
    h = head if head.startswith("/c/") else f"/c/en/{head}"
    t = tail if tail.startswith("/c/") else f"/c/en/{tail}"
    return Edge(relation=rel, head=parse_concept_uri(h), tail=parse_concept_uri(t), weight=weight,
                uri=f"/a/[/r/{rel}/,{h}/,{t}/]")
