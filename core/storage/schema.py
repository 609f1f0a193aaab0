"""The store's schema as numbered, forward-only migrations.

Each migration runs once, inside the transaction that records it in
``schema_migrations``. Later features add migrations at the end; an applied
migration is never edited. The first one, the base tables, is in ``schema_v1``.
"""

from __future__ import annotations

from veramem_desktop.core.storage.schema_v1 import FIRST, Migration

MIGRATIONS: tuple[Migration, ...] = (
    FIRST,
    Migration(
        2,
        "Sync: this device's identity and the account keys (secrets stay in the store), trusted devices, "
        "per-device cursors, per-row clocks, per-device outcome counters, tombstones, peer ledger chains, "
        "the outbox of written batches and refused files.",
        """
        -- This device's secret keys (signing and box) and where its sync folder is. One row.
        CREATE TABLE sync_identity (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            device_id TEXT NOT NULL,
            secret BLOB NOT NULL,
            name TEXT NOT NULL,
            folder TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        -- Account sync keys by epoch; two devices rotating at once may create two keys of one epoch.
        CREATE TABLE sync_keys (
            epoch INTEGER NOT NULL,
            key_id TEXT NOT NULL,
            key BLOB NOT NULL,
            added_at TEXT NOT NULL,
            PRIMARY KEY (epoch, key_id)
        );
        -- Trusted devices (replicated from signed device.add / device.remove events).
        -- removed_upto: the last batch of a removed device that is still applied (NULL: not yet known).
        CREATE TABLE sync_devices (
            device_id TEXT PRIMARY KEY,
            verify_key BLOB NOT NULL,
            box_key BLOB NOT NULL,
            name TEXT NOT NULL,
            added_at TEXT NOT NULL,
            removed INTEGER NOT NULL DEFAULT 0,
            removed_upto INTEGER
        );
        -- The last batch applied from each device.
        CREATE TABLE sync_seen (device_id TEXT PRIMARY KEY, batch_seq INTEGER NOT NULL, applied_at TEXT NOT NULL);
        -- Batches this device wrote: reserved before the file is written (sealed is kept until it is).
        CREATE TABLE sync_outbox (
            batch_seq INTEGER PRIMARY KEY,
            epoch INTEGER NOT NULL,
            key_id TEXT NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            sealed BLOB,
            dirty INTEGER NOT NULL DEFAULT 0
        );
        -- Which rows each written batch carries a payload for, so a forget can find and rewrite it.
        CREATE TABLE sync_outbox_targets (
            target_id TEXT NOT NULL,
            batch_seq INTEGER NOT NULL,
            PRIMARY KEY (target_id, batch_seq)
        );
        -- Per-row replicated fields with the clock of their last change (last writer wins).
        CREATE TABLE sync_rows (row_id TEXT PRIMARY KEY, state TEXT NOT NULL);
        -- Outcome counters per memory and device; memory_items holds their sum.
        CREATE TABLE sync_counters (
            memory_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            uses INTEGER NOT NULL,
            successes REAL NOT NULL,
            failures REAL NOT NULL,
            hlc TEXT NOT NULL,
            PRIMARY KEY (memory_id, device_id)
        );
        -- Forgotten ids: a later add for one of them is refused (no resurrection).
        CREATE TABLE sync_tombstones (
            target_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            origin TEXT NOT NULL,
            hlc TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        -- The head of each peer's ledger chain as received, to verify it continues.
        CREATE TABLE sync_chains (
            device_id TEXT PRIMARY KEY,
            seq INTEGER NOT NULL,
            hash TEXT NOT NULL,
            problem TEXT
        );
        -- Files that were refused or are waiting, with the reason, for `sync status`.
        CREATE TABLE sync_refusals (
            path TEXT PRIMARY KEY,
            device_id TEXT,
            reason TEXT NOT NULL,
            message TEXT NOT NULL,
            retryable INTEGER NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            count INTEGER NOT NULL DEFAULT 1
        );
        -- Approvals waiting for the new device's confirmation.
        CREATE TABLE sync_pending (request_id TEXT PRIMARY KEY, state TEXT NOT NULL, created_at TEXT NOT NULL);
        """,
    ),
    Migration(
        3,
        "Self-organising memory: memories waiting to be linked to their neighbours, drained in the background "
        "(ids only; attempts and the last error's class, so a failing item is retried, then left aside).",
        """
        CREATE TABLE pending_links (
            memory_id TEXT PRIMARY KEY,
            queued_at TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        );
        CREATE INDEX links_type ON links(type);
        """,
    ),
    Migration(
        4,
        "Truth-aware recall: which memories each episode restates without being their evidence (an echo, a "
        "lower-authority repetition), and the rows held out of recall because they hold a rejected value or "
        "resemble one (derived locally from the rejected-value keys; ids only).",
        """
        -- An episode that restates a memory it is not evidence of (the assistant's echo of the user's words,
        -- a tool repeating a known fact): recall labels and orders it with that memory.
        CREATE TABLE mentions (
            episode_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            PRIMARY KEY (episode_id, memory_id)
        );
        CREATE INDEX mentions_memory ON mentions(memory_id);
        -- Rows no agent may recall: 'rejected' (they hold a value a person rejected) or 'resembles' (a close
        -- paraphrase of one, waiting in review). Only a person asking for rejected material sees them.
        CREATE TABLE withheld (
            owner_kind TEXT NOT NULL CHECK (owner_kind IN ('memory', 'episode')),
            owner_id TEXT NOT NULL,
            reason TEXT NOT NULL CHECK (reason IN ('rejected', 'resembles')),
            memory_id TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (owner_kind, owner_id)
        );
        """,
    ),
    Migration(
        5,
        "Which ids each trace names (its returned and cited ids), indexed by id, so forget finds the traces "
        "naming an erased id without reading every trace (a store keeps one write-decision trace per "
        "reconciled candidate, hundreds of thousands after an import). Kept by triggers on traces, in the "
        "statement that inserts, updates or deletes the trace; filled here from the traces already stored. "
        "Ids only, local like traces (sync does not replicate traces). Traces are also indexed by user "
        "(and reward), for a user forget and feedback's baseline, which read them by user.",
        """
        -- A user forget (user_id = ?) and feedback's baseline (user_id IS ? AND reward IS NOT NULL) read
        -- the user's (rewarded) traces through this index instead of every trace of the store.
        CREATE INDEX traces_user ON traces(user_id, reward);
        CREATE TABLE trace_refs (
            ref_id TEXT NOT NULL,
            trace_id TEXT NOT NULL,
            PRIMARY KEY (ref_id, trace_id)
        ) WITHOUT ROWID;
        -- Every writer of traces (search, answer, write decisions, feedback's cited ids) is covered,
        -- whatever module it is in, because the rows follow the trace in SQL. A trace's rows are found
        -- again through the ids its lists name (the primary key), so no second index on trace_id is kept:
        -- it would add about half again to the table's size.
        CREATE TRIGGER trace_refs_on_insert AFTER INSERT ON traces
        BEGIN
            INSERT OR IGNORE INTO trace_refs(ref_id, trace_id)
            SELECT value, NEW.id FROM json_each(NEW.returned_ids) WHERE type = 'text'
            UNION ALL SELECT value, NEW.id FROM json_each(NEW.cited_ids) WHERE type = 'text';
        END;
        CREATE TRIGGER trace_refs_on_update AFTER UPDATE OF id, returned_ids, cited_ids ON traces
        BEGIN
            DELETE FROM trace_refs WHERE trace_id = OLD.id AND ref_id IN (
                SELECT value FROM json_each(iif(json_valid(OLD.returned_ids), OLD.returned_ids, '[]'))
                UNION ALL SELECT value FROM json_each(iif(json_valid(OLD.cited_ids), OLD.cited_ids, '[]')));
            INSERT OR IGNORE INTO trace_refs(ref_id, trace_id)
            SELECT value, NEW.id FROM json_each(NEW.returned_ids) WHERE type = 'text'
            UNION ALL SELECT value, NEW.id FROM json_each(NEW.cited_ids) WHERE type = 'text';
        END;
        CREATE TRIGGER trace_refs_on_delete AFTER DELETE ON traces
        BEGIN
            DELETE FROM trace_refs WHERE trace_id = OLD.id AND ref_id IN (
                SELECT value FROM json_each(iif(json_valid(OLD.returned_ids), OLD.returned_ids, '[]'))
                UNION ALL SELECT value FROM json_each(iif(json_valid(OLD.cited_ids), OLD.cited_ids, '[]')));
        END;
        -- A list that is not JSON (no writer makes one) is passed over rather than keep the store from opening.
        INSERT OR IGNORE INTO trace_refs(ref_id, trace_id)
        SELECT j.value, t.id FROM traces t, json_each(iif(json_valid(t.returned_ids), t.returned_ids, '[]')) j
        WHERE j.type = 'text'
        UNION ALL SELECT j.value, t.id FROM traces t, json_each(iif(json_valid(t.cited_ids), t.cited_ids, '[]')) j
        WHERE j.type = 'text';
        """,
    ),
    Migration(
        6,
        "One admission gate: content-free keyed marks of forgotten episodes (so the same episode is refused "
        "when an import, a memory export, a restore or another device brings it again), the secrets they are "
        "keyed under, and episodes waiting to have memories derived again, one row each (written in the "
        "add's own transaction; the list kept in meta before is moved here).",
        """
        -- A forgotten episode's marks: keyed hashes (HMAC-SHA256 under admission_keys) of what identifies it
        -- (its import key; its role, words and time). Never its words; target_id is the tombstone's id.
        CREATE TABLE forget_marks (
            key_id TEXT NOT NULL,
            digest TEXT NOT NULL,
            target_id TEXT NOT NULL,
            forgotten_at TEXT NOT NULL,
            PRIMARY KEY (key_id, digest)
        ) WITHOUT ROWID;
        CREATE INDEX forget_marks_target ON forget_marks(target_id);
        -- The secrets marks are keyed under: this store's own ('local'), and one shared by synced devices.
        CREATE TABLE admission_keys (key_id TEXT PRIMARY KEY, secret BLOB NOT NULL, added_at TEXT NOT NULL);
        -- Episodes whose memories are still to be derived (ids only): an add queues its episodes with them
        -- and clears them once derived, so a failed or interrupted derivation is retried by consolidate.
        CREATE TABLE pending_derivations (
            episode_id TEXT PRIMARY KEY,
            queued_at TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO pending_derivations(episode_id, queued_at)
        SELECT j.value, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        FROM meta m, json_each(iif(json_valid(m.value), m.value, '[]')) j
        WHERE m.key = 'pending_derivation' AND j.type = 'text';
        DELETE FROM meta WHERE key = 'pending_derivation';
        """,
    ),
)


def latest_version() -> int:
    return MIGRATIONS[-1].version
