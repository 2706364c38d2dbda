"""Under the paper protocol the graph is built from the reference's 1,200-token chunks."""

from incanon.graph.config import GraphConfig


def test_paper_chunks_are_the_references_size_unless_given() -> None:
    assert GraphConfig.for_protocol("paper").chunk_tokens == 1200
    assert GraphConfig.for_protocol("incanon").chunk_tokens == 600
    assert GraphConfig.for_protocol("paper", chunk_tokens=300).chunk_tokens == 300


def test_paper_alias_candidates_are_only_earlier_insertions(tmp_path) -> None:
    import numpy as np

    from incanon.canon import CanonStore, World
    from incanon.canon.world import WorkInfo
    from incanon.graph.db import GraphDB
    from incanon.graph.normalize import NormalizationStats, Normalizer, _Unit

    vectors = {"Ann": [1.0, 0.0], "Bea": [0.8, 0.6], "Cy": [1.0, 0.01]}

    class Fixed:
        """Ann is nearest to Cy (inserted after her), Bea to Cy, Cy to Ann."""

        name = "fixed"

        def embed(self, texts, kind="passage"):
            return np.array([vectors[t.split(":")[0]] for t in texts], dtype=np.float32)

    store = CanonStore.open(tmp_path / "canon")
    store.import_world(World(work=WorkInfo(id="w", title="W")))
    db = GraphDB(store, "w")

    def pairs(config: GraphConfig) -> set[tuple[int, int]]:
        units = [_Unit("character", [n], "") for n in vectors]
        normalizer = Normalizer(db, None, Fixed(), config, None)
        return {(a, b) for _, _, a, b in normalizer._knn_candidates(units, [0, 1, 2], NormalizationStats())}

    # As the reference: Ann has nobody before her; Bea only Ann; Cy both, Ann nearest.
    assert pairs(GraphConfig.for_protocol("paper", knn_k=1)) == {(0, 1), (0, 2)}
    # Every name of the batch as a neighbour: Ann and Bea each pick Cy, inserted after them.
    assert pairs(GraphConfig.for_protocol("paper", knn_k=1, knn_inserted_before=False)) == {(0, 2), (1, 2)}
    db.close()
    store.close()
