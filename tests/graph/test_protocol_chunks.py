"""Under the paper protocol the graph is built from the reference's 1,200-token chunks."""

from incanon.graph.config import GraphConfig


def test_paper_chunks_are_the_references_size_unless_given() -> None:
    assert GraphConfig.for_protocol("paper").chunk_tokens == 1200
    assert GraphConfig.for_protocol("incanon").chunk_tokens == 600
    assert GraphConfig.for_protocol("paper", chunk_tokens=300).chunk_tokens == 300
