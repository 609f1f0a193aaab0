"""The store's first schema: episodes, memory items with their evidence and vectors, traces,
grants, the ledger and its per-item secrets (migration 1; later ones are in ``schema``).

An applied migration is never edited, so this text stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    comment: str
    sql: str


FIRST = Migration(
    1,
    "Episodes, memory items with evidence and vectors, traces, grants, the ledger and its per-item secrets.",
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    -- Immutable raw evidence: one message, tool result or document chunk.
    CREATE TABLE episodes (
        id TEXT PRIMARY KEY,
        content TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool','document','shared')),
        source_name TEXT,
        user_id TEXT,
        agent_id TEXT,
        team_id TEXT,
        session_id TEXT,
        turn_index INTEGER NOT NULL DEFAULT 0,
        event_time TEXT NOT NULL,
        created_at TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX episodes_session ON episodes(session_id, event_time, turn_index);
    CREATE INDEX episodes_user ON episodes(user_id);
    CREATE TRIGGER episodes_are_immutable BEFORE UPDATE ON episodes
    BEGIN SELECT RAISE(ABORT, 'episodes are immutable'); END;

    CREATE TABLE memory_items (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('fact','preference','event','experience','summary')),
        text TEXT NOT NULL,
        subject TEXT,
        predicate TEXT,
        value TEXT,
        user_id TEXT,
        agent_id TEXT,
        team_id TEXT,
        session_id TEXT,
        visibility TEXT NOT NULL DEFAULT 'private' CHECK (visibility IN ('private','team','public')),
        authority TEXT NOT NULL CHECK (authority IN ('authorized','attested','unendorsed')),
        trust TEXT NOT NULL DEFAULT 'candidate' CHECK (trust IN ('candidate','verified','rejected')),
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','superseded','retracted','archived')),
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        supersedes TEXT,
        root_id TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        confidence REAL NOT NULL DEFAULT 0.7,
        retrieval_strength REAL NOT NULL DEFAULT 1.0,
        importance REAL NOT NULL DEFAULT 0.5,
        uses INTEGER NOT NULL DEFAULT 0,
        successes REAL NOT NULL DEFAULT 0,
        failures REAL NOT NULL DEFAULT 0,
        last_used_at TEXT,
        shareable INTEGER NOT NULL DEFAULT 0,
        pinned INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL DEFAULT 'user',
        provenance TEXT,
        metadata TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX memory_status ON memory_items(status, visibility, user_id);
    CREATE INDEX memory_root ON memory_items(root_id, version);
    CREATE INDEX memory_key ON memory_items(user_id, subject, predicate);
    CREATE INDEX memory_supersedes ON memory_items(supersedes);

    -- The words a memory came from: a verbatim quote inside an episode.
    CREATE TABLE evidence (
        id INTEGER PRIMARY KEY,
        memory_id TEXT NOT NULL REFERENCES memory_items(id) ON DELETE CASCADE,
        episode_id TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
        quote TEXT NOT NULL,
        span_start INTEGER NOT NULL,
        span_end INTEGER NOT NULL,
        score REAL NOT NULL,
        role TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX evidence_memory ON evidence(memory_id);
    CREATE INDEX evidence_episode ON evidence(episode_id);

    -- Vectors for memories ('memory'), episodes ('episode') and context-enriched
    -- episodes ('episode_ctx'); the in-memory matrix is only a cache of these rows.
    CREATE TABLE embeddings (
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, model)
    );

    -- Full-text indexes hold no copy of the text (contentless) and overwrite what
    -- they delete (secure-delete), so erased words do not linger in FTS segments.
    CREATE VIRTUAL TABLE memory_fts USING fts5(
        text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE episode_fts USING fts5(
        text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO memory_fts(memory_fts, rank) VALUES ('secure-delete', 1);
    INSERT INTO episode_fts(episode_fts, rank) VALUES ('secure-delete', 1);
    -- FTS rowids map to owners through these tables.
    CREATE TABLE fts_rows (
        rowid INTEGER PRIMARY KEY,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        UNIQUE (owner_kind, owner_id)
    );

    CREATE TABLE entities (
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        entity TEXT NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, entity)
    );
    CREATE INDEX entities_by_name ON entities(entity);

    -- One retrieval or answer: what it returned and cited, and the reward it earned.
    CREATE TABLE traces (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        user_id TEXT,
        agent_id TEXT,
        query TEXT NOT NULL,
        route TEXT NOT NULL,
        returned_ids TEXT NOT NULL DEFAULT '[]',
        cited_ids TEXT NOT NULL DEFAULT '[]',
        answer TEXT,
        abstained INTEGER,
        reward REAL,
        rewarded_at TEXT,
        metadata TEXT NOT NULL DEFAULT '{}'
    );

    -- Time-varying edges: user_agent (user may use agent), agent_resource
    -- (agent may read items of a resource/agent), team_member (user in team).
    CREATE TABLE grants (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('user_agent','agent_resource','team_member')),
        subject TEXT NOT NULL,
        object TEXT NOT NULL,
        granted_at TEXT NOT NULL,
        revoked_at TEXT
    );
    CREATE INDEX grants_lookup ON grants(kind, subject, object);

    -- Append-only hash chain over every change. Holds ids and keyed commitments only.
    CREATE TABLE ledger (
        seq INTEGER PRIMARY KEY,
        ts TEXT NOT NULL,
        device TEXT NOT NULL,
        op TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        target_id TEXT NOT NULL,
        commitment TEXT NOT NULL,
        details TEXT NOT NULL DEFAULT '{}',
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE INDEX ledger_target ON ledger(target_id);

    -- The per-item secrets behind ledger commitments; erased with the item.
    CREATE TABLE item_secrets (item_id TEXT PRIMARY KEY, secret BLOB NOT NULL);

    -- Values a person rejected, per subject/predicate/scope, compared normalised.
    CREATE TABLE rejected_values (
        id INTEGER PRIMARY KEY,
        user_id TEXT,
        subject TEXT NOT NULL,
        predicate TEXT NOT NULL,
        scope TEXT NOT NULL,
        norm_value TEXT NOT NULL,
        skeleton TEXT NOT NULL,
        memory_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (subject, predicate, scope, skeleton)
    );

    CREATE TABLE links (
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        score REAL NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (src, dst, type)
    );
    CREATE INDEX links_dst ON links(dst);

    -- Which memories were derived from which (merges, summaries, experiences,
    -- fusion, shared copies), so forget can cascade to everything built from erased evidence.
    CREATE TABLE derivations (
        derived_id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        PRIMARY KEY (derived_id, source_id)
    );
    CREATE INDEX derivations_source ON derivations(source_id);
    """,
)
