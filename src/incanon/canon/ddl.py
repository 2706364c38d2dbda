"""The canon store's tables, one SQL script per schema version (applied in order by
``incanon.canon.schema``). A released script never changes: a new layout is a new script."""

V1_CORE = """
CREATE TABLE works (
    id           INTEGER PRIMARY KEY,
    slug         TEXT NOT NULL UNIQUE,
    title        TEXT NOT NULL,
    author       TEXT NOT NULL DEFAULT '',
    axis         TEXT NOT NULL CHECK (axis IN ('chapter', 'date')),
    description  TEXT NOT NULL DEFAULT '',
    books        TEXT NOT NULL DEFAULT '{}',   -- JSON: book number -> title
    world_schema INTEGER NOT NULL,             -- World.schema_version of the imported file
    imported_at  TEXT NOT NULL
);

CREATE TABLE characters (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    profile     TEXT NOT NULL DEFAULT '',
    personality TEXT NOT NULL DEFAULT '',
    first_key   INTEGER
);
CREATE INDEX characters_work ON characters(work_id, ord);

-- Every name a character answers to, the canonical name included (is_name = 1), so resolving
-- "Strider" or "aragorn" is one primary-key lookup on the case-folded form.
CREATE TABLE aliases (
    work_id      INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    norm         TEXT NOT NULL,
    character_id INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    alias        TEXT NOT NULL,
    is_name      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (work_id, norm)
) WITHOUT ROWID;
CREATE INDEX aliases_character ON aliases(character_id, ord);

CREATE TABLE time_points (
    character_id INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    norm         TEXT NOT NULL,
    ord          INTEGER NOT NULL,
    label        TEXT NOT NULL,
    pos_key      INTEGER NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (character_id, norm)
) WITHOUT ROWID;

CREATE TABLE scenes (
    id       INTEGER PRIMARY KEY,
    work_id  INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    ext_id   TEXT NOT NULL,
    pos_key  INTEGER NOT NULL,
    date     TEXT,
    title    TEXT NOT NULL DEFAULT '',
    location TEXT NOT NULL DEFAULT '',
    summary  TEXT NOT NULL DEFAULT '',
    UNIQUE (work_id, ext_id)
);
CREATE INDEX scenes_work_pos ON scenes(work_id, pos_key);

CREATE TABLE scene_participants (
    scene_id     INTEGER NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    character_id INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    present      INTEGER NOT NULL DEFAULT 1,
    spoke        INTEGER NOT NULL DEFAULT 0,
    present_ord  INTEGER,
    spoke_ord    INTEGER,
    PRIMARY KEY (scene_id, character_id)
) WITHOUT ROWID;
-- The scope's "scenes this character witnessed" starts from the character.
CREATE INDEX participants_character ON scene_participants(character_id, scene_id);

CREATE TABLE messages (
    scene_id   INTEGER NOT NULL REFERENCES scenes(id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    speaker_id INTEGER REFERENCES characters(id) ON DELETE CASCADE,  -- NULL: narration
    speaker    TEXT NOT NULL,
    speech     TEXT NOT NULL DEFAULT '',
    action     TEXT NOT NULL DEFAULT '',
    thought    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (scene_id, ord)
) WITHOUT ROWID;
CREATE INDEX messages_speaker ON messages(speaker_id);  -- cascade deletes look it up

CREATE TABLE chunks (
    id       INTEGER PRIMARY KEY,
    work_id  INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    ext_id   TEXT NOT NULL,
    pos_key  INTEGER NOT NULL,
    text     TEXT NOT NULL,
    source   TEXT NOT NULL DEFAULT '',
    scene_id INTEGER REFERENCES scenes(id) ON DELETE CASCADE,
    UNIQUE (work_id, ext_id)
);
CREATE INDEX chunks_work_pos ON chunks(work_id, pos_key);
CREATE INDEX chunks_scene ON chunks(scene_id);

CREATE TABLE entities (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    norm        TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    pos_key     INTEGER,                       -- NULL: known from the start
    UNIQUE (work_id, norm)
);
CREATE INDEX entities_work_pos ON entities(work_id, pos_key);

CREATE TABLE entity_aliases (
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    ord       INTEGER NOT NULL,
    alias     TEXT NOT NULL,
    norm      TEXT NOT NULL,
    PRIMARY KEY (entity_id, ord)
) WITHOUT ROWID;
CREATE INDEX entity_aliases_norm ON entity_aliases(norm);

-- An endpoint is a character or an entity: exactly one of the two columns is set.
CREATE TABLE relations (
    id                  INTEGER PRIMARY KEY,
    work_id             INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord                 INTEGER NOT NULL,
    source_character_id INTEGER REFERENCES characters(id) ON DELETE CASCADE,
    source_entity_id    INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    target_character_id INTEGER REFERENCES characters(id) ON DELETE CASCADE,
    target_entity_id    INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    type                TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    affection           TEXT CHECK (affection IN ('high', 'low')),
    weight              REAL NOT NULL DEFAULT 1.0,
    from_key            INTEGER,               -- NULL: from the start
    to_key              INTEGER,               -- NULL: to the end; exclusive otherwise
    CHECK ((source_character_id IS NULL) <> (source_entity_id IS NULL)),
    CHECK ((target_character_id IS NULL) <> (target_entity_id IS NULL))
);
CREATE INDEX relations_work_from ON relations(work_id, from_key);
CREATE INDEX relations_source_character ON relations(source_character_id);
CREATE INDEX relations_target_character ON relations(target_character_id);
CREATE INDEX relations_source_entity ON relations(source_entity_id);
CREATE INDEX relations_target_entity ON relations(target_entity_id);

CREATE TABLE facts (
    id                   INTEGER PRIMARY KEY,
    work_id              INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord                  INTEGER NOT NULL,
    ext_id               TEXT NOT NULL,
    subject_character_id INTEGER REFERENCES characters(id) ON DELETE CASCADE,
    subject_entity_id    INTEGER REFERENCES entities(id) ON DELETE CASCADE,
    text                 TEXT NOT NULL,
    pos_key              INTEGER NOT NULL,
    to_key               INTEGER,              -- NULL: true to the end; exclusive otherwise
    scene_id             INTEGER REFERENCES scenes(id) ON DELETE CASCADE,
    public               INTEGER NOT NULL DEFAULT 0,
    UNIQUE (work_id, ext_id),
    CHECK ((subject_character_id IS NULL) <> (subject_entity_id IS NULL))
);
CREATE INDEX facts_work_pos ON facts(work_id, pos_key);
CREATE INDEX facts_scene ON facts(scene_id);
CREATE INDEX facts_subject_character ON facts(subject_character_id);
CREATE INDEX facts_subject_entity ON facts(subject_entity_id);

CREATE TABLE fact_known_by (
    fact_id      INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
    character_id INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    PRIMARY KEY (fact_id, character_id)
) WITHOUT ROWID;
CREATE INDEX known_by_character ON fact_known_by(character_id, fact_id);

CREATE TABLE probes (
    id            INTEGER PRIMARY KEY,
    work_id       INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ord           INTEGER NOT NULL,
    character_id  INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    at_key        INTEGER NOT NULL,
    question      TEXT NOT NULL,
    data_type     TEXT NOT NULL,
    event         TEXT NOT NULL,
    gold_response TEXT NOT NULL
);
CREATE INDEX probes_work ON probes(work_id, ord);
CREATE INDEX probes_character ON probes(character_id);
"""

# Embeddings came after the first layout: one row per (work, kind, embedder) set, whose
# ``generation`` changes on every write so readers can cache a set's matrix and notice changes
# (including writes from another process) with one cheap query.
V2_VECTORS = """
CREATE TABLE vector_sets (
    id         INTEGER PRIMARY KEY,
    work_id    INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    embedder   TEXT NOT NULL,
    dim        INTEGER NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0,
    UNIQUE (work_id, kind, embedder)
);

CREATE TABLE vectors (
    set_id  INTEGER NOT NULL REFERENCES vector_sets(id) ON DELETE CASCADE,
    item_id INTEGER NOT NULL,                  -- row id in the table the kind names
    vec     BLOB NOT NULL,                     -- float32, little-endian, dim values
    PRIMARY KEY (set_id, item_id)
) WITHOUT ROWID;
"""


# The knowledge graph an LLM extracts from a work's text (RoleRAG): kept apart from the
# hand-checked ``entities``/``relations`` so ground truth and extraction can be compared. The
# raw per-chunk extraction is stored before any merging, so a graph can be re-normalized or
# extended (a new document) without re-reading old chunks; every node and edge keeps its
# mentions, so a knowledge scope can cut the graph at a story position.
V3_GRAPH = """
CREATE TABLE graph_chunks (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    ext_id      TEXT NOT NULL,
    source      TEXT NOT NULL DEFAULT '',
    pos_key     INTEGER,                       -- NULL: no story position (background text)
    canon_chunk TEXT,                          -- the canon chunk it was cut from, if any
    scene       TEXT,                          -- scene id, for the witnessing rule
    text        TEXT NOT NULL,
    digest      TEXT NOT NULL,
    tokens      INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'extracted', 'empty', 'failed', 'integrated')),
    entities    INTEGER NOT NULL DEFAULT 0,
    relations   INTEGER NOT NULL DEFAULT 0,
    calls       INTEGER NOT NULL DEFAULT 0,
    note        TEXT NOT NULL DEFAULT '',
    UNIQUE (work_id, ext_id)
);
CREATE INDEX graph_chunks_status ON graph_chunks(work_id, status);

CREATE TABLE graph_raw (
    chunk_id    INTEGER NOT NULL REFERENCES graph_chunks(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('entity', 'relation')),
    a           TEXT NOT NULL,                 -- entity name / relation source
    b           TEXT NOT NULL,                 -- entity type / relation target
    description TEXT NOT NULL DEFAULT '',
    strength    REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (chunk_id, ord)
) WITHOUT ROWID;

CREATE TABLE graph_nodes (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',      -- merged (summarized when over budget)
    summarized  INTEGER NOT NULL DEFAULT 0,
    digest      TEXT NOT NULL DEFAULT ''       -- of name + description, to re-embed on change
);
CREATE INDEX graph_nodes_work ON graph_nodes(work_id, type);

CREATE TABLE graph_aliases (
    node_id INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
    work_id INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    norm    TEXT NOT NULL,
    type    TEXT NOT NULL,
    alias   TEXT NOT NULL,
    PRIMARY KEY (work_id, norm, type)
) WITHOUT ROWID;
CREATE INDEX graph_aliases_node ON graph_aliases(node_id);

CREATE TABLE graph_node_mentions (
    node_id     INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
    chunk_id    INTEGER NOT NULL REFERENCES graph_chunks(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    surface     TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (node_id, chunk_id, ord)
) WITHOUT ROWID;
CREATE INDEX graph_node_mentions_chunk ON graph_node_mentions(chunk_id);

CREATE TABLE graph_edges (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    a_id        INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
    b_id        INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,  -- a_id < b_id
    description TEXT NOT NULL DEFAULT '',
    weight      REAL NOT NULL DEFAULT 0,
    summarized  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (work_id, a_id, b_id)
);
CREATE INDEX graph_edges_b ON graph_edges(b_id);

CREATE TABLE graph_edge_mentions (
    edge_id     INTEGER NOT NULL REFERENCES graph_edges(id) ON DELETE CASCADE,
    chunk_id    INTEGER NOT NULL REFERENCES graph_chunks(id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    source      TEXT NOT NULL,
    target      TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    strength    REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (edge_id, chunk_id, ord)
) WITHOUT ROWID;
CREATE INDEX graph_edge_mentions_chunk ON graph_edge_mentions(chunk_id);

-- Same-entity verdicts of the normalization LLM, so an incremental insert never asks twice.
CREATE TABLE graph_verdicts (
    work_id INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    a       TEXT NOT NULL,                     -- "type|norm", a < b
    b       TEXT NOT NULL,
    same    INTEGER NOT NULL,
    reason  TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (work_id, a, b)
) WITHOUT ROWID;

CREATE TABLE graph_vectors (
    node_id  INTEGER NOT NULL REFERENCES graph_nodes(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    digest   TEXT NOT NULL,
    vec      BLOB NOT NULL,
    PRIMARY KEY (node_id, embedder)
) WITHOUT ROWID;

CREATE TABLE graph_meta (
    work_id INTEGER NOT NULL REFERENCES works(id) ON DELETE CASCADE,
    key     TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (work_id, key)
) WITHOUT ROWID;
"""

# Event time of graph facts (valid-from / valid-to, as temporal knowledge graphs keep it) and
# the vectors of graph chunks (the RAG baseline over the indexed corpus).
V4_GRAPH_TIME = """
ALTER TABLE graph_raw ADD COLUMN valid_from TEXT NOT NULL DEFAULT '';   -- as the model wrote it
ALTER TABLE graph_raw ADD COLUMN valid_to TEXT NOT NULL DEFAULT '';
ALTER TABLE graph_node_mentions ADD COLUMN from_key INTEGER;            -- NULL: the chunk's position
ALTER TABLE graph_node_mentions ADD COLUMN to_key INTEGER;              -- NULL: open-ended
ALTER TABLE graph_node_mentions ADD COLUMN time_note TEXT NOT NULL DEFAULT '';
ALTER TABLE graph_edge_mentions ADD COLUMN from_key INTEGER;
ALTER TABLE graph_edge_mentions ADD COLUMN to_key INTEGER;
ALTER TABLE graph_edge_mentions ADD COLUMN time_note TEXT NOT NULL DEFAULT '';

CREATE TABLE graph_chunk_vectors (
    chunk_id INTEGER NOT NULL REFERENCES graph_chunks(id) ON DELETE CASCADE,
    embedder TEXT NOT NULL,
    vec      BLOB NOT NULL,
    PRIMARY KEY (chunk_id, embedder)
) WITHOUT ROWID;
"""

# The character in time: an alias is in use from a position on, profile and personality can be
# written per time point or as dated segments (the scoped persona reads them; see
# incanon.canon.persona).
V5_PERSONA_TIME = """
ALTER TABLE aliases ADD COLUMN from_key INTEGER;                      -- NULL: in use from the start
ALTER TABLE time_points ADD COLUMN profile TEXT NOT NULL DEFAULT '';
ALTER TABLE time_points ADD COLUMN personality TEXT NOT NULL DEFAULT '';

CREATE TABLE persona_segments (
    character_id INTEGER NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('profile', 'personality')),
    ord          INTEGER NOT NULL,
    from_key     INTEGER,                                             -- NULL: from the start
    text         TEXT NOT NULL,
    PRIMARY KEY (character_id, kind, ord)
) WITHOUT ROWID;
"""

# Secret identities: an alias that is one person's secret (Edward Hyde of Henry Jekyll). Who knows
# it is derived per reader (incanon.canon.identities): the character, ``known_by``, witnesses of the
# scenes that reveal it, and whoever is told a fact naming both names.
V6_SECRET_NAMES = """
ALTER TABLE aliases ADD COLUMN secret TEXT;          -- NULL: not secret; JSON {"revealed_in", "known_by"}
ALTER TABLE aliases ADD COLUMN revealed_key INTEGER; -- the earliest revealing scene's position
"""

# A character imported from a character card keeps the card as it was read (JSON), so an export
# gives back every field of it (incanon.cards).
V7_SOURCE_CARDS = """
ALTER TABLE characters ADD COLUMN card TEXT;         -- NULL: not from a card
"""

# Knowledge at the grain of perception (incanon.canon.perception): a first-person work names its
# narrator, and each chunk keeps its perceived units (JSON: offsets, mode, audience, who; the
# default cut included, so a read never re-cuts). NULL units (a store from before): the whole chunk
# is seen by those present, as before.
V8_PERCEPTION = """
ALTER TABLE works ADD COLUMN narrator TEXT;          -- NULL: third-person narration
ALTER TABLE chunks ADD COLUMN units TEXT;            -- NULL: the whole chunk, seen by those present
ALTER TABLE persona_segments ADD COLUMN tells TEXT;  -- JSON scene/fact ids the text reports; NULL: none
"""
